"""Fixtures of the attack tests: a unique word per test, the attack bots in the test's own folder, a jail."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from referee.bots import jail, sandbox

from .jailrun import copy_bots, kill_processes_with


@pytest.fixture
def needs_jail():
    """Skip where bubblewrap cannot run (tests that need the default isolation use it)."""
    problem = jail.problem()
    if problem:
        pytest.skip(f"no jail on this machine: {problem}")


@pytest.fixture
def needs_own_files(needs_jail):
    """Skip where jailed bots cannot have a file system of their own (not root, no loop devices, no erofs-utils)."""
    problem = sandbox.own_files_problem()
    if problem:
        pytest.skip(f"no file system of its own for each bot here: {problem}")


@pytest.fixture
def mark():
    """A word unique to this test, given to every bot it starts (in its command line, so in every process
    the bot forks) and used in the names of the files the bots write. After the test, whatever still
    carries it is this test's own: processes are killed, files in /tmp and /dev/shm removed."""
    word = f"pa-attack-{uuid.uuid4().hex[:12]}"
    yield word
    kill_processes_with(word)
    for folder in (Path("/tmp"), Path("/dev/shm")):
        for path in folder.glob(f"{word}*"):
            path.unlink(missing_ok=True)


@pytest.fixture
def bots(tmp_path) -> Path:
    """A copy of tests/attacks/bots in the test's tmp folder."""
    return copy_bots(tmp_path / "bots")
