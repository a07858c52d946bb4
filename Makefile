# Two commands do all set-up on a fresh machine (Python 3.11+, make, gcc, node):
#   make demo   create .venv, install, run the embedded default tournament (the sample bots)
#   make test   same set-up, run the whole test suite
#   make bench  same set-up, run the benchmarks in bench/ (they print figures, assert nothing)
#   make soak   same set-up, 2,000 games with misbehaving bots (bench/soak.py, about 3 minutes)
#   make bench-instructions   instruction counts under valgrind (bench/instructions.py, about 4 minutes)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test bench bench-instructions soak install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	rm -rf results/demo
	$(BIN)/pinochle-arena tournament --out results/demo

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

bench-instructions: $(STAMP)
	$(BIN)/python bench/instructions.py

soak: $(STAMP)
	$(BIN)/python bench/soak.py

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) results build *.egg-info
