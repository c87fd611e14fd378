#!/bin/sh
# The console's pictures in the manual (docs/images/console-*.png), in headless chromium: the
# end-to-end tests' demo run (`dicetable run --keep-open`, seed 7, its state in ./var as `make run`
# keeps it, so the pictures show no scratch path) and the dealer's screen and the board at each
# size (a read waiting, bets, a phone, a 1080p board), saved where the tests keep them in a
# temporary folder otherwise. Run from the checkout after `make install`:
#   scripts/console-screenshots.sh
set -eu
cd "$(dirname "$0")/.."
scripts/ensure-chromium.sh
mkdir -p docs/images
DICETABLE_SCREENSHOTS="$PWD/docs/images" .venv/bin/python -m pytest -q -p no:cacheprovider tests/console/test_console_browser.py \
    tests/console/test_console_screen.py \
    tests/console/test_console_shift_browser.py
ls -l docs/images/console-*.png
