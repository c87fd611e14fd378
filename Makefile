# Two commands on a fresh machine: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LINT_STAMP := $(VENV)/.installed-lint

.PHONY: run test lint install clean chromium screenshots pi-rehearsal

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project's metadata changed. The learn extra is `dicetable learn`'s
# training library (PyTorch, CPU build).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,learn]'
	touch $(STAMP)

$(LINT_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,lint]'
	touch $(LINT_STAMP)

install: $(STAMP)

# ARGS are passed on: `make run ARGS=--keep-open` keeps the craps table and its console open.
run: $(STAMP)
	$(BIN)/dicetable run $(ARGS)

# The floor's tests start their own Mosquitto broker and PostgreSQL server, the console's drive
# Debian's chromium: install them when missing. The tests run under eatmydata where it can be had
# (scripts/ensure-eatmydata.sh says why): looked up when the recipe runs, after its install.
test: $(STAMP) chromium
	sh scripts/ensure-floor-services.sh
	sh scripts/ensure-eatmydata.sh
	$$(command -v eatmydata || true) $(BIN)/python -m pytest -q

# The console's browser tests drive Debian's chromium: installed here when it is missing.
chromium:
	@scripts/ensure-chromium.sh

# The console's pictures (docs/images/), from the browser tests (scripts/console-screenshots.sh).
screenshots: $(STAMP) chromium
	scripts/console-screenshots.sh

# The import contracts and the linters, configured in pyproject.toml.
lint: $(LINT_STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/mypy

# Before a release (docs/install.md): docs/install.md's Raspberry Pi steps and the reads, in an
# emulated arm64 Bookworm root, against this PC's reads. As root; not part of `make test`. The
# root, the wheels and the PC's reference venv are kept in ../.cache/pi-rehearsal (CACHE=...);
# the photos are read from ../shared/datasets (DATASETS=...).
pi-rehearsal:
	sh scripts/pi-rehearsal.sh

clean:
	rm -rf $(VENV) var build *.egg-info
