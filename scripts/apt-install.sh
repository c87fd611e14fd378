#!/bin/sh
# Install Debian packages for `make test` where this may: as root, or with sudo that asks no
# password. Used by the ensure-*.sh scripts, which say what the tests do without the package.
# Exit status: 0 installed; 1 not allowed to install here; any other, apt-get failed.
set -eu
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    exit 1
fi
echo "apt-install: installing Debian's $* for the tests" >&2
# An index never fetched (a fresh container) or out of date: update it and try once more.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 || {
    $SUDO apt-get update -q >/dev/null
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
}
