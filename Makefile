# Two commands do all set-up on a fresh machine (Python 3.11+, make, gcc, node):
#   make demo   create .venv, install, run the sample bots against each other
#   make test   same set-up, run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pinochle-arena match greedy random --games 20 --seed 1 --out results/demo-greedy-random
	$(BIN)/pinochle-arena match tactician random --games 20 --seed 1 --out results/demo-tactician-random
	$(BIN)/pinochle-arena match tactician greedy --games 20 --seed 1 --out results/demo-tactician-greedy

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) results build *.egg-info
