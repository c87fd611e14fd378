#!/bin/sh
# The console's end-to-end tests drive Debian's chromium (through Playwright's executable_path: no
# browser is ever downloaded). `make test` calls this first: it installs the package when
# /usr/bin/chromium is missing and it may (scripts/apt-install.sh); otherwise it says how, and the
# browser tests skip with that reason.
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
status=0
sh "$(dirname "$0")/apt-install.sh" chromium || status=$?
if [ "$status" -eq 1 ]; then
    echo "ensure-chromium: /usr/bin/chromium is missing; the console's browser tests will be skipped" >&2
    echo "ensure-chromium: install it with: sudo apt-get install chromium" >&2
    exit 0
fi
exit "$status"
