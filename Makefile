# Two commands do all set-up on a fresh machine (Python 3.11+, make, gcc, node; bubblewrap is installed
# here when missing, where the machine allows: root and apt-get):
#   make demo   create .venv, install, run the embedded default tournament (the sample bots) into a new
#               results/demo-TIMESTAMP (earlier results are kept)
#   make test   same set-up, the type check (make typecheck), then the whole test suite
#   make bench  same set-up, run the benchmarks in bench/ (they print figures, assert nothing)
#   make soak   same set-up, 2,010 games with misbehaving bots (bench/soak.py, about 2 minutes)
#   make bench-instructions   instruction counts under valgrind (bench/instructions.py, about 4 minutes)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test typecheck bench bench-instructions soak install system-packages browser-packages toolchain-packages database-packages bytecode clean

install: $(STAMP)

# A system package, installed when its command is missing and the machine allows it (root, apt-get), else one
# line saying what to install: $(call apt-install,COMMAND,PACKAGE,WHAT FOR,MESSAGE WITHOUT IT)
apt-install = if command -v $(1) >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing $(2) ($(3))"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; } \
			|| echo "pinochle-arena: could not install $(2): $(4)"; \
	else \
		echo "pinochle-arena: $(4)"; \
	fi

# The bots' jail is bubblewrap (Debian's bubblewrap package, as Flatpak uses it); setpriv comes with util-linux.
# erofs-utils makes the read-only images each jailed bot reads its files from (a file system of its own per process).
system-packages:
	@$(call apt-install,bwrap,bubblewrap,the bots' jail,install bubblewrap for the bots' jail (sudo apt-get install bubblewrap); until then runs need --isolation none)
	@$(call apt-install,mkfs.erofs,erofs-utils,each jailed bot's own file system,install erofs-utils so that each jailed bot gets a file system of its own (sudo apt-get install erofs-utils); until then bots share the host's page cache)

# The starter kits' toolchains (tests/test_starters.py builds every kit whose tools are there and skips the others,
# saying what to install). Debian has no .NET SDK: the C# kit builds with mono's mcs.
toolchain-packages:
	@$(call apt-install,javac,default-jdk-headless,the Java starter kit,the Java starter kit is not tested without a JDK (sudo apt-get install default-jdk-headless))
	@$(call apt-install,go,golang-go,the Go starter kit,the Go starter kit is not tested without Go (sudo apt-get install golang-go))
	@$(call apt-install,mcs,mono-mcs mono-runtime,the C# starter kit,the C# starter kit is not tested without mono (sudo apt-get install mono-mcs mono-runtime))
	@$(call apt-install,g++,g++,the C++ starter kit,the C++ starter kit is not tested without g++ (sudo apt-get install g++))
	@# Uploads to a league are built in the bots' jail, which sees the system's tools only (/usr/bin, /bin): a cargo in
	@# ~/.cargo (rustup) does not count there, so Debian's is installed beside it.
	@PATH=/usr/local/bin:/usr/bin:/bin; $(call apt-install,cargo,cargo,the Rust starter kit and league uploads in Rust,the Rust starter kit is not tested without cargo (sudo apt-get install cargo))

# The league's storage tests start a throwaway PostgreSQL server (Debian's postgresql package; its programs are not
# on PATH, so the check looks for initdb where Debian puts it).
database-packages:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing postgresql (the league's storage tests on PostgreSQL)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } \
			|| echo "pinochle-arena: could not install postgresql: the league's PostgreSQL tests are skipped"; \
	else \
		echo "pinochle-arena: the league's PostgreSQL tests are skipped without a server (sudo apt-get install postgresql)"; \
	fi

# The browser tests of the HTML report drive Debian's chromium with Playwright (a test dependency).
browser-packages:
	@$(call apt-install,chromium,chromium,for the browser tests,the browser tests are skipped without chromium (sudo apt-get install chromium))

$(STAMP): pyproject.toml Makefile
	@$(MAKE) --no-print-directory system-packages
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# PYTHONWARNINGS: setuptools prints a banner for every editable install; it is advice for setuptools users.
	@# editable_mode=compat: a plain path in a .pth file. The default mode's import hook costs every Python
	@# process in the venv (each sample bot the referee starts) about 25 ms at start-up.
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	touch $(STAMP)

# The project's bytecode, written once. Where PYTHONDONTWRITEBYTECODE is set (CI machines often set it), every
# Python process would otherwise compile the referee from source: about 0.1 s of CPU for each referee worker,
# each command a test runs and each sample bot that imports the rules. Python checks a .pyc against its source,
# so one left from an older checkout is never used.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q arena referee protocol tournaments sample_bots viewer tests bench
	@# The kept jail's keeper (docs/jail.md), compiled statically, as the C sample bots are, on first use otherwise
	@$(BIN)/python -c 'from referee.bots import kept; kept.program()' 2>/dev/null || echo "pinochle-arena: the kept \
	jail's keeper cannot be built (it needs cc and a static C library: sudo apt-get install libc6-dev); --kept-jail \
	then gives each game a fresh jail"

demo: $(STAMP) system-packages bytecode
	$(BIN)/pinochle-arena tournament --out results/demo-$$(date +%Y%m%d-%H%M%S)

bench: $(STAMP) bytecode
	$(BIN)/python bench/run_all.py

bench-instructions: $(STAMP)
	$(BIN)/python bench/instructions.py

soak: $(STAMP) bytecode
	$(BIN)/python bench/soak.py

# The type check (mypy, set up in pyproject.toml's [tool.mypy]): first in make test, as a step of its own rather than
# a test, so that a type error stops the run at once and the suite's workers never wait on it (about 8 s of one core
# from a fresh checkout, a quarter of a second with its cache, .mypy_cache)
typecheck: $(STAMP)
	$(BIN)/python -m mypy

test: $(STAMP) system-packages browser-packages toolchain-packages database-packages bytecode typecheck
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) results build *.egg-info .mypy_cache
