# Two entry points for a fresh machine: `make test` and `make report`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: test test-full report report-long lint bench clean-venv

# The package and what it runs on; the test tools (pytest, ruff, dask) only for the tests.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

# One pip run either way: the tests' environment includes the package's, and the optional
# game-AI libraries (the rl extra), whose environments and games the tests check too.
$(TEST_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[test,rl]'
	touch $(STAMP) $(TEST_STAMP)

# One test worker per core; a file's tests stay together (they share compiled kernels).
test: $(TEST_STAMP)
	$(BIN)/ruff check simcards tests scripts
	$(BIN)/python -m pytest -q -n auto --dist loadfile

# The same tests with every cross-check at full size (Ronda's engines on 10,000 hands per
# configuration, Römi's solver on 15,300 hands, Römi's engines on 10 times the rounds, thirty
# random Ctrl-Cs instead of six).
test-full: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -n auto --dist loadfile --full

report: $(STAMP)
	$(BIN)/simcards report

# The long studies alone (Ronda's search player against rollout:32, about six minutes on two
# cores; Römi's search player against expert, about an hour), their pages written beside the
# others'.
report-long: $(STAMP)
	$(BIN)/simcards report --only ronda-search,romi-search

bench: $(STAMP)
	$(BIN)/python scripts/bench_ronco.py

lint: $(TEST_STAMP)
	$(BIN)/ruff check simcards tests scripts

clean-venv:
	rm -rf $(VENV)
