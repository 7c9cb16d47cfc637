# Two entry points for a fresh machine: `make test` and `make report`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test report lint bench clean-venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check simcards tests scripts
	$(BIN)/python -m pytest -q

report: $(STAMP)
	$(BIN)/simcards report

bench: $(STAMP)
	$(BIN)/python scripts/bench_ronco.py

lint: $(STAMP)
	$(BIN)/ruff check simcards tests scripts

clean-venv:
	rm -rf $(VENV)
