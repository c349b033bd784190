# Two commands matter (see README): `make serve` and `make test`. Both set up .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: serve play test lint bench bench-server reference conformance strategies clean

serve: $(VENV)/.installed-server
	$(BIN)/liarsdice serve $(ARGS)

play: $(VENV)/.installed
	$(BIN)/liarsdice play $(ARGS)

# Tests run in TEST_WORKERS processes (pytest-xdist): 2 halves the suite's time on two cores. Each
# worker has a data directory, Redis and PostgreSQL of its own, and servers take free ports;
# TEST_WORKERS=0 runs the suite in one process.
TEST_WORKERS ?= 2

# Every test runs: tests/system-deps.sh installs the programs some need (chromium, PostgreSQL,
# redis-server, node) where missing, and LIARSDICE_EVERY_TEST makes a skipped test a failure.
test: $(VENV)/.installed-test
	tests/system-deps.sh $(BIN)/python
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	LIARSDICE_EVERY_TEST=1 $(BIN)/pytest -q -n $(TEST_WORKERS) $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/playouts.py

bench-server: $(VENV)/.installed-test
	$(BIN)/python benchmarks/server_load.py $(ARGS)

# The reference opponent of the strength goals: commit 245049c in .reference/ with a venv of its own
# (benchmarks/reference.sh; fast once built), played by benchmarks/heads_up.py over the bot protocol.
reference:
	PYTHON=$(PYTHON) benchmarks/reference.sh

# Every duel strategy the package ships (docs/solving.md, "Shipped strategies"): hours of training, JOBS at
# once; stopped (Ctrl-C) it goes on where it stopped. CI never runs it.
JOBS ?= 2
strategies: $(VENV)/.installed-test
	$(BIN)/liarsdice train --all --jobs $(JOBS) $(ARGS)
	$(BIN)/liarsdice solve -p classic -o wild_face=1 -o rounds=single --ship
	$(BIN)/liarsdice solve -p openspiel --ship
	$(BIN)/liarsdice solve -p classic -o rounds=single --ship
	$(BIN)/liarsdice solve -p perudo_basic -o rounds=single --ship
	$(BIN)/liarsdice solve -p jokers -o rounds=single -o challenge_mode=duel --ship

# The published scenarios, through the published checker, if shared/ is beside this checkout.
conformance: $(VENV)/.installed
	$(BIN)/python ../shared/conformance/check.py ../shared/conformance/cases.yaml -- $(BIN)/liarsdice scenario

# A venv even where Python's ensurepip is missing (Debian without python3-venv): then the
# host's pip installs into it.
$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "liarsdice needs Python 3.11 or newer"; exit 1; }
	$(PYTHON) -m venv $(VENV) 2>/dev/null || { rm -rf $(VENV); $(PYTHON) -m venv --without-pip $(VENV); }
	@if ! $(BIN)/python -m pip --version >/dev/null 2>&1; then \
		$(PYTHON) -m pip --python $(BIN)/python install --quiet pip; fi

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet --disable-pip-version-check -e .
	@touch $@

$(VENV)/.installed-server: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet --disable-pip-version-check -e '.[server]'
	@touch $(VENV)/.installed $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(VENV)/.installed $(VENV)/.installed-server $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build src/*.egg-info
