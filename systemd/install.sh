#!/bin/sh
# Install dicetable as a systemd service on a Raspberry Pi (run as root from the checkout:
#   sudo systemd/install.sh [PREFIX]   # PREFIX = where the checkout and its .venv live, default /opt/dicetable
# What it does, each step safe to repeat:
#   1. a system user `dicetable` in the gpio, video and dialout groups (buttons/lights/motor, camera, display);
#   2. /etc/dicetable/dicetable.toml from docs/example.toml, unless one is already there;
#   3. the table's signing key (/var/lib/dicetable/table.key, for the floor), then, once `dicetable run
#      --check` passes the configuration under this checkout (a floor's broker out of reach is only a
#      warning), the unit, with
#      ExecStart pointing into PREFIX, checked by systemd-analyze, then enabled and (re)started, so
#      that after an upgrade the new code runs (docs/operation.md, "Upgrading the program": between
#      sessions, with the journal archived);
#   4. when the configuration serves the console ([console] listen), a drop-in that allows the unit
#      IP sockets and limits its peers to loopback and [console] networks (none otherwise).
set -eu
PREFIX="${1:-/opt/dicetable}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
UNIT=/etc/systemd/system/dicetable.service

if [ "$(id -u)" -ne 0 ]; then echo "install.sh: run as root (sudo)" >&2; exit 1; fi
if [ ! -x "$PREFIX/.venv/bin/dicetable" ]; then
    echo "install.sh: $PREFIX/.venv/bin/dicetable not found; create the venv first (docs/install.md)" >&2
    exit 1
fi

for group in gpio video dialout; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id dicetable >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/dicetable --no-create-home --shell /usr/sbin/nologin dicetable
fi
usermod -a -G gpio,video,dialout dicetable

# The display's Pico listens on the UART of GPIO14/15: /dev/serial0, except on a Pi 5, where serial0
# is the debug connector's UART and GPIO14/15 is /dev/ttyAMA0 (with dtparam=uart0=on; docs/install.md, step 3).
PORT=/dev/serial0
if grep -q "Raspberry Pi 5" /proc/device-tree/model 2>/dev/null; then
    PORT=/dev/ttyAMA0
    if ! grep -q "^dtparam=uart0=on" /boot/firmware/config.txt 2>/dev/null; then
        echo "install.sh: add dtparam=uart0=on to /boot/firmware/config.txt for the display (docs/install.md, step 3)"
    fi
fi
if grep -q "console=serial0" /boot/firmware/cmdline.txt 2>/dev/null; then
    echo "install.sh: a login console is on the display's serial port; turn it off with raspi-config (docs/install.md, step 3)"
fi

install -d -m 0755 /etc/dicetable
if [ ! -e /etc/dicetable/dicetable.toml ]; then
    # The example runs on the stand-ins; at a table: the state directory of the unit, the Pi's GPIO,
    # the Pi camera and the display on the Pi's UART, where the firmware listens.
    sed -e 's|^state_dir = .*|state_dir = "/var/lib/dicetable"|' \
        -e 's|^pin_factory = .*|pin_factory = "lgpio"|' \
        -e 's|^source = "generated"|source = "picamera2"|' \
        -e 's|^kind = "sim"|kind = "serial"|' \
        -e "s|^port = \"\"|port = \"$PORT\"|" \
        "$HERE/docs/example.toml" > /etc/dicetable/dicetable.toml
    chmod 0644 /etc/dicetable/dicetable.toml
    echo "install.sh: wrote /etc/dicetable/dicetable.toml; edit it for this table (docs/configuration.md)"
fi

# The new code may refuse a file, a calibration or a journal the old one took: check them as the
# service will run, before the unit or the running table is touched (the unit's StateDirectory is
# made here so the check can see it).
install -d -o dicetable -g "$(id -gn dicetable)" -m 0750 /var/lib/dicetable
# The table's Ed25519 key, which signs its journal's head for the floor (docs/floor.md, "Signed
# heads"): made once, mode 0600, readable by the service's user alone; table.pub beside it is for
# `dicetable floor enroll` on the floor's machine.
runuser -u dicetable -- "$PREFIX/.venv/bin/python" -m controller.floor.signing /var/lib/dicetable >/dev/null
echo "install.sh: the table's public key is /var/lib/dicetable/table.pub (dicetable floor enroll TABLE_ID FILE)"
# Exit 1 is the floor's broker out of reach: a warning, since the table runs without its floor and
# sends the rows once it can (a floor outage must never block an upgrade); 2 refuses.
status=0
runuser -u dicetable -- "$PREFIX/.venv/bin/dicetable" run --config /etc/dicetable/dicetable.toml --check || status=$?
if [ "$status" -eq 1 ]; then
    echo "install.sh: warning: the floor's broker cannot be reached (above); the table is installed all the same and" >&2
    echo "install.sh: publishes its rows once it can" >&2
elif [ "$status" -ne 0 ]; then
    echo "install.sh: dicetable run --check refused (above): mend the configuration or its calibration, or archive" >&2
    echo "install.sh: a journal started under other rules (docs/operation.md, \"Archiving the journal\"), then run install.sh" >&2
    echo "install.sh: again; the unit and any running table were left as they were" >&2
    exit 1
fi
sed "s|/opt/dicetable|$PREFIX|g" "$HERE/systemd/dicetable.service" > "$UNIT"
# The console needs IP sockets, which the unit refuses: a drop-in allows them, for loopback and the
# networks of [console] networks only (controller/console/unit.py writes it from the configuration).
DROPIN_DIR="$UNIT.d"
DROPIN="$DROPIN_DIR/console.conf"
DROPIN_TEXT="$("$PREFIX/.venv/bin/python" -m controller.console.unit /etc/dicetable/dicetable.toml)"
if [ -n "$DROPIN_TEXT" ]; then
    install -d -m 0755 "$DROPIN_DIR"
    printf '%s\n' "$DROPIN_TEXT" > "$DROPIN"
    chmod 0644 "$DROPIN"
    echo "install.sh: the console is configured: wrote $DROPIN (IP sockets, peers limited)"
    if [ ! -e /etc/dicetable/users ] && ! grep -q '^users *=' /etc/dicetable/dicetable.toml; then
        echo "install.sh: nobody can log in to the console yet: sudo $PREFIX/.venv/bin/dicetable user --config /etc/dicetable/dicetable.toml add NAME --role dealer"
    fi
elif [ -e "$DROPIN" ]; then
    rm -f "$DROPIN"
    rmdir "$DROPIN_DIR" 2>/dev/null || true
    echo "install.sh: no console configured: removed $DROPIN (the unit allows no IP socket)"
fi
systemd-analyze verify "$UNIT"
systemctl daemon-reload
systemctl enable dicetable.service
if systemctl is-active --quiet dicetable.service; then
    echo "install.sh: restarting the running table so that it runs this checkout"
fi
systemctl restart dicetable.service
systemctl --no-pager status dicetable.service || true
