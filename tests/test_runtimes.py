"""Bots whose runtimes reserve much address space start, and one that cannot start is told why.

A JVM reserves several GiB of address space it never uses (its heap, a
class space, a code cache). Where a bot's control group holds its memory,
the address space is not capped, so a plain ``java -jar bot.jar`` starts in
the default jail; where memory is an address-space cap (unjailed), a runtime
that cannot reserve its memory gets a start error naming the limit to raise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from helpers import arena

from referee.bots import cgroups, jail
from referee.match.client import memory_advice

JAVA_BOT = Path(__file__).resolve().parent / "bots" / "java" / "Bot.java"
needs_java = pytest.mark.skipif(not (shutil.which("javac") and shutil.which("jar") and shutil.which("java")),
                                reason="no JDK: install default-jdk-headless (make test does where it can)")


def build_java_bot(folder: Path) -> Path:
    classes = folder / "classes"
    subprocess.run(["javac", "-d", str(classes), str(JAVA_BOT)], check=True)
    jar = folder / "bot.jar"
    subprocess.run(["jar", "--create", "--file", str(jar), "--main-class", "Bot", "-C", str(classes), "."], check=True)
    return jar


@pytest.fixture
def readable_folder():
    """A folder of the test's own that other users may read: a jailed bot runs as a uid of its own, and pytest's
    temporary folders are the test runner's alone."""
    folder = Path(tempfile.mkdtemp(prefix="pa-runtime-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@needs_java
@pytest.mark.skipif(bool(jail.problem()) or os.geteuid() != 0 or cgroups.usable_hierarchy()[0] is None,
                    reason="needs the jail with per-bot control groups (root)")
def test_a_plain_java_jar_bot_passes_check_in_the_default_jail(tmp_path, readable_folder):
    jar = build_java_bot(readable_folder)
    result = arena("check", f"java -jar {jar}", "--out", tmp_path / "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED" in result.stdout


@needs_java
def test_a_runtime_that_cannot_reserve_its_memory_is_told_which_limit_to_raise(tmp_path):
    jar = build_java_bot(tmp_path)
    result = arena("match", f"java -jar {jar}", "random", "--isolation", "none", "--limit", "memory=256",
                   "--games", "2", "--out", tmp_path / "match")
    assert result.returncode == 2
    error = result.stderr
    assert "Error occurred during initialization of VM" in error  # the runtime's own first lines, quoted
    assert "could not reserve memory" in error and "256 MiB of address space" in error
    assert "--limit memory=N" in error and "-Xmx" in error
    assert "Traceback" not in error


def test_what_a_bot_prints_instead_of_its_handshake_is_quoted(tmp_path):
    bot = tmp_path / "noisy.py"
    # it reads the greeting first: else, on a busy machine, it may exit before the greeting is written (the
    # other way a start fails, which the JVM test meets too)
    bot.write_text("import sys\nsys.stdin.readline()\nprint('Starting up...')\nprint('Fatal: weights.bin not found')\n"
                   "sys.stdout.flush()\nprint('more detail on stderr', file=sys.stderr)\nsys.exit(3)\n")
    result = arena("match", f"{sys.executable} {bot}", "random", "--isolation", "none", "--games", "2",
                   "--out", tmp_path / "match")
    assert result.returncode == 2
    assert "printed 'Starting up...' where the handshake" in result.stderr
    assert "(the lines after it: 'Fatal: weights.bin not found')" in result.stderr
    assert "its stderr says: more detail on stderr" in result.stderr


@pytest.mark.parametrize("stderr, said", [
    ("Traceback (most recent call last):\n  File \"bot.py\", line 3, in <module>\n    import numpy\n"
     "ModuleNotFoundError: No module named 'numpy'\n", "ModuleNotFoundError: No module named 'numpy'"),
    ("node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/home/bot/bot.js'\n"
     "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n  code: 'MODULE_NOT_FOUND',\n"
     "  requireStack: []\n}\n\nNode.js v20.20.2\n", "Error: Cannot find module '/home/bot/bot.js'"),
    ("Exception in thread \"main\" java.lang.IllegalStateException: no deal\n\tat Bot.main(Bot.java:5)\n",
     "Exception in thread \"main\" java.lang.IllegalStateException: no deal"),
    ("panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n",
     "panic: runtime error: index out of range [3] with length 3"),
    ("=== pinochle-arena: start 1 of bot\nthinking...\nstill thinking\n", "still thinking"),
])
def test_a_stopped_bots_stderr_is_quoted_by_the_line_that_says_why(stderr, said, tmp_path):
    """A runtime's failure line, not what comes after it: stack frames, an error's fields, node's version banner
    (a node bot's mistyped file was quoted as 'its stderr ends: Node.js v20.20.2')."""
    from referee.match.client import last_stderr_line

    log = tmp_path / "bot.stderr.log"
    log.write_text(stderr)
    assert last_stderr_line(log) == said


@pytest.mark.parametrize("said, memory", [
    ("printed 'Error occurred during initialization of VM' | 'Could not reserve enough space for object heap'", True),
    ("printed 'Error occurred during initialization of VM' | 'Could not allocate compressed class space: 1073741824 bytes'",
     True),
    ("exited with status 1; its stderr says: fatal error: runtime: out of memory", True),
    ("exited with status 1; its stderr says: FileNotFoundError: weights.bin", False),
    ("no 'ready' within 10 s of the greeting", False),
])
def test_start_errors_that_are_a_memory_reservation_get_advice(said, memory):
    advice = memory_advice(said, 2048)
    assert bool(advice) is memory
    if memory:
        assert "2048 MiB of address space" in advice and "limits.memory" in advice
        assert "address space" not in memory_advice(said, None)
