"""`pinochle-arena check`: the compliance report for bot authors, and its exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FAULTY = Path(__file__).resolve().parent / "bots" / "faulty.py"


def check(bot: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", "check", bot, "--games", "2", "--startup-timeout", "2",
                           "--option", "target=300", "--out", str(tmp_path / "check"), *extra],
                          capture_output=True, text=True, timeout=120)


def test_a_good_bot_passes_every_check(tmp_path):
    done = check("random", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("starts", "handshake", "answers ping", "stays up for every game", "legal play in every phase",
                 "replies on time", "every line understood", "clean exit on quit"):
        assert f"[  ok] {name}" in done.stdout
    assert "asked follow" in done.stdout and "lead " in done.stdout and "meld " in done.stdout
    assert "PASSED" in done.stdout


def test_a_bidding_game_is_checked_in_every_phase(tmp_path):
    done = check("greedy", tmp_path, "--variant", "call-for-partner", "--option", "target=100")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "bid " in done.stdout and "lead " in done.stdout


@pytest.mark.parametrize("mode, failed, quoted, expected", [
    ("illegal 5", "legal play in every phase", "< ", "one of the legal actions"),
    ("garbage 5", "every line understood", "< %%% this is not an action %%%", "exactly one line per request"),
    ("slow 3", "replies on time", "> go ", "within the time"),
    ("nohandshake", "handshake", "> pinochle 2", "then 'ready'"),
    ("wedge", "answers ping", "> ping check", "'pong check'"),
    ("noquit", "clean exit on quit", "> quit", "exit with status 0"),
    ("exit 5", "stays up for every game", "> go ", "keep running until 'quit'"),
])
def test_a_faulty_bot_fails_with_the_offending_line_and_what_was_expected(mode, failed, quoted, expected, tmp_path):
    done = check(f"{sys.executable} {FAULTY} {mode}", tmp_path, "--time-per-move", "1000")
    assert done.returncode == 1, done.stdout + done.stderr
    report = done.stdout
    assert f"[FAIL] {failed}" in report
    failure = report[report.index(f"[FAIL] {failed}"):]
    assert quoted in failure and "expected: " in failure and expected in failure
    assert "FAILED" in report


def test_a_command_that_does_not_start_is_a_usage_error(tmp_path):
    done = check("./no-such-bot", tmp_path)
    assert done.returncode == 2 and "not found" in done.stderr
