#!/bin/sh
# `make test` runs the tests under Debian's eatmydata, which makes fsync and its kin return at once
# for the tests' processes: every journal commit waits for three or four disk flushes, which no
# test needs (they kill processes, they cut no power; the order of the flushes is tested by
# watching os.fsync), and which on a busy disk took a third of the controller tests' time. This
# installs the package when it is missing and it may (scripts/apt-install.sh);
# otherwise the tests run without it, only slower.
set -eu
if command -v eatmydata >/dev/null 2>&1; then
    exit 0
fi
status=0
sh "$(dirname "$0")/apt-install.sh" eatmydata || status=$?
if [ "$status" -eq 1 ]; then
    echo "ensure-eatmydata: eatmydata is missing; the tests run without it (sudo apt-get install eatmydata)" >&2
elif [ "$status" -ne 0 ]; then
    echo "ensure-eatmydata: could not install eatmydata; the tests run without it" >&2
fi
