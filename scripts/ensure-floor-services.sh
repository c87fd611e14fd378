#!/bin/sh
# Install what the floor's tests start themselves when it is missing: the Mosquitto broker and the
# PostgreSQL server (the Debian and Raspberry Pi OS packages). Each test runs its own broker or
# server on a free port of 127.0.0.1, so a system service is never needed: one that installing
# starts is stopped and disabled.
set -e
missing=""
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || missing="$missing mosquitto"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing="$missing postgresql"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "ensure-floor-services: missing:$missing; install with: sudo apt-get install -y$missing" >&2
    exit 0  # the tests that need them skip with that reason
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt-get install -y -qq $missing >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $missing >/dev/null; }
for service in $missing; do
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
        systemctl disable --now "$service" >/dev/null 2>&1 || true
    elif [ -x "/etc/init.d/$service" ]; then
        "/etc/init.d/$service" stop >/dev/null 2>&1 || true
    fi
done
