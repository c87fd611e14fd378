#!/bin/sh
# Install the Mosquitto broker the floor's tests start (Debian and Raspberry Pi OS package) when
# it is missing. The tests run their own broker on a free port of 127.0.0.1: a system service
# is never needed, so one that installing starts is stopped and disabled.
set -e
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "ensure-mosquitto: mosquitto is missing; install it with: sudo apt-get install -y mosquitto" >&2
    exit 0  # the broker's tests skip with that reason
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq mosquitto >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq mosquitto >/dev/null; }
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet mosquitto 2>/dev/null; then
    systemctl disable --now mosquitto >/dev/null 2>&1 || true
elif [ -x /etc/init.d/mosquitto ]; then
    /etc/init.d/mosquitto stop >/dev/null 2>&1 || true
fi
