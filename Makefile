# cardsim: every target works on a fresh machine with Python 3.11 and make.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup warm test test-fast demo report check-reports bench coverage lint clean-cache golden docs clean

setup: $(STAMP)

# pip >= 25 shows the build backend's warnings; setuptools' note on every editable install
# ("Editable installation. Please be careful with folders ...") is silenced, it is not for our users
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet -e ".[dev]"
	$(BIN)/python -m cardsim.warm
	touch $(STAMP)

# compile the quick start's kernels ahead (make setup does it once): scenarios/fubnub.toml, every
# game's default kernels, traces and minimal kernels (the bench baseline)
warm: setup
	$(BIN)/python -m cardsim.warm

# the suite on one worker per core, two at most, in this process on one core (pytest-xdist; tests/conftest.py
# gives a worker whole groups of tests that compile the same kernels): a first run is mostly numba
# compiling, one core a process
WORKERS ?= $(shell $(PY) -c 'import os; n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1; print(min(n, 2) if n > 1 else 0)')

test: setup
	$(BIN)/ruff check cardsim tests
	$(BIN)/python -m pytest -q -x -n $(WORKERS) tests

test-fast: setup
	$(BIN)/python -m pytest -q -x -n $(WORKERS) -m "not slow" tests

demo: setup
	$(BIN)/cardsim run scenarios/fubnub.toml
	$(BIN)/cardsim report scenarios/fubnub.toml

report: setup
	@for s in scenarios/*.toml; do \
		echo "== $$s"; $(BIN)/cardsim report $$s --runs runs --out reports || exit 1; \
	done
	$(MAKE) check-reports

# every report page in a real browser (headless Chromium; screenshots in runs/report-shots)
check-reports: setup
	$(BIN)/python -m cardsim.report.check --shots runs/report-shots reports/*/index.html

bench: setup
	$(BIN)/cardsim bench --markdown --variants --memory 100000000

coverage: setup
	$(BIN)/python -m cardsim.coverage --markdown

lint: setup
	$(BIN)/ruff check cardsim tests

golden: setup
	$(BIN)/python -m tests.golden_update

docs: setup
	$(BIN)/python -m cardsim.docs traces

# the one numba cache of make, the tests and the CLI (cardsim/cachedir.py says where it is)
clean-cache:
	$(PY) -m cardsim.cachedir --clear
	find cardsim -name __pycache__ -type d -prune -exec rm -rf {} +

clean: clean-cache
	rm -rf $(VENV) runs
