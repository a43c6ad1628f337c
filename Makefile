# The README's two commands: `make demo` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test bench fuzz oracle clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/npusim demo

test: $(STAMP)
	$(PY) -m pytest -n 2 tests

# A long fuzz campaign (10k trials per front end); prints every defect count, exits 1 on any.
fuzz: $(STAMP)
	$(PY) -m npusim.fuzz.campaign --cases 10000

bench: $(STAMP)
	$(PY) benchmarks/run.py --write BENCHMARKS.md

# Sophgo's C-model (okk differential tests): fetched into a cache outside the repo, never committed.
oracle: $(STAMP)
	$(PY) -m npusim.okk.oracle.fetch
	$(PY) -m pytest tests/okk/oracle

clean:
	rm -rf $(VENV) npusim-demo .pytest_cache .hypothesis
