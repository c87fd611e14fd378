# Two commands on a fresh machine: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LINT_STAMP := $(VENV)/.installed-lint

.PHONY: run test lint install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project's metadata changed.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(LINT_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,lint]'
	touch $(LINT_STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/dicetable run

test: $(STAMP)
	$(BIN)/python -m pytest -q

# The import contracts and the linters, configured in pyproject.toml.
lint: $(LINT_STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) var build *.egg-info
