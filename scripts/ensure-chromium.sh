#!/bin/sh
# The console's end-to-end tests drive Debian's chromium (through Playwright's executable_path: no
# browser is ever downloaded). `make test` calls this first: it installs the package when
# /usr/bin/chromium is missing and it may (as root, or with sudo that asks no password); otherwise
# it says how, and the browser tests skip with that reason.
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "ensure-chromium: /usr/bin/chromium is missing; the console's browser tests will be skipped" >&2
    echo "ensure-chromium: install it with: sudo apt-get install chromium" >&2
    exit 0
fi
echo "ensure-chromium: installing Debian's chromium for the console's browser tests" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 || {
    $SUDO apt-get update -q >/dev/null
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
}
