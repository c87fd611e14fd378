#!/bin/sh
# `make test` runs the tests under Debian's eatmydata, which makes fsync and its kin return at once
# for the tests' processes: every journal commit waits for three or four disk flushes, which no
# test needs (they kill processes, they cut no power; the order of the flushes is tested by
# watching os.fsync), and which on a busy disk took a third of the controller tests' time. This
# installs the package when it is missing and it may (as root, or with sudo that asks no password);
# otherwise the tests run without it, only slower.
set -eu
if command -v eatmydata >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "ensure-eatmydata: eatmydata is missing; the tests run without it (sudo apt-get install eatmydata)" >&2
    exit 0
fi
echo "ensure-eatmydata: installing Debian's eatmydata for the tests" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q eatmydata >/dev/null 2>&1 || {
    $SUDO apt-get update -q >/dev/null
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q eatmydata >/dev/null
} || echo "ensure-eatmydata: could not install eatmydata; the tests run without it" >&2
