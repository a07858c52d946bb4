"""A bot's start allowance (--startup-timeout, league init --startup-timeout) reaches every game of every command:
match, tournament, sprt, play, check and the league.

The slow starter (tests/bots/slow_starter.py) spends SLOW seconds of CPU time in a busy loop before its handshake.
The allowance counts the bot's own time (the wall's less its waits for a CPU), so these tests hold on a busy machine:
with ABOVE seconds every game is played; with BELOW every game is the slow starter's fault, and the fault says the
allowance. Where a run checks its bots before the first game, the starter's first process (that check) is quick
and only the games' processes are slow: the games must get the allowance too, not only the check.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from helpers import ROOT, arena

from referee.bots.start_clock import WALL_FACTOR, StartClock, Usage, tree_usage
from referee.bots.samples import SAMPLES
from referee.bots.sandbox import Isolation, Sandbox
from referee.bots.transport import BotCommand
from referee.match import Entrant
from referee.rules import get_variant

SLOW_STARTER = ROOT / "tests" / "bots" / "slow_starter.py"
SLOW = 1.0  # CPU seconds the slow starter spends before its handshake
# Above: well over SLOW, and its wall-clock ceiling (WALL_FACTOR times it) far beyond what SLOW takes even on a
# machine at load 40; below: under SLOW (a start is charged at least its CPU time, so a start that needs SLOW
# seconds of CPU always reaches BELOW first), and ten times a Python's start (about 0.05 s of CPU).
ABOVE, BELOW = 8.0, 0.5
SAID = f"its start allowance is {BELOW:g} s"
ALLOWANCES = [(ABOVE, "completed"), (BELOW, "timeout")]


def slow_starter(folder: Path, first_slow: int = 2) -> str:
    """The slow starter's command line: its processes from the ``first_slow``-th on are slow (counted in folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    return f"{sys.executable} {SLOW_STARTER} {SLOW:g} {folder} {first_slow}"


def records_of(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def check_games(records: list[dict], ending: str, slow_name: str = "slow") -> None:
    """Every game completed, or every game the slow starter's fault that names the allowance."""
    assert records
    for r in records:
        assert r["termination"] == ending, r.get("detail")
        if ending == "timeout":
            assert r["seats"][r["culprit"]]["entrant"].startswith(slow_name)
            assert SAID in r["detail"], r["detail"]


UNJAILED = ("--isolation", "none")  # (the slow starter counts its processes in a folder of the test's)


@pytest.mark.parametrize("allowance, ending", ALLOWANCES)
def test_match(tmp_path, allowance, ending):
    out = tmp_path / "m"
    run = arena("match", f"{slow_starter(tmp_path / 'pids')}", "random", "--games", "2", "--seed", "1",
                "--startup-timeout", f"{allowance:g}", "--out", out, "--no-report", *UNJAILED)
    assert run.returncode == 0, run.stderr
    check_games(records_of(out), ending)


@pytest.mark.parametrize("allowance, ending", ALLOWANCES)
def test_tournament_in_referee_workers(tmp_path, allowance, ending):
    out = tmp_path / "t"
    run = arena("tournament", "--bot", f"slow={slow_starter(tmp_path / 'pids')}", "--bot", "random", "--games", "2",
                "--seed", "1", "--processes", "2", "--concurrency", "2", "--startup-timeout", f"{allowance:g}",
                "--out", out, "--no-report", *UNJAILED)
    assert run.returncode == 0, run.stderr
    check_games(records_of(out), ending)


@pytest.mark.parametrize("allowance, ending", ALLOWANCES)
def test_sprt(tmp_path, allowance, ending):
    out = tmp_path / "s"
    run = arena("sprt", f"{slow_starter(tmp_path / 'pids')}", "random", "--max-pairs", "1", "--seed", "1",
                "--elo0", "0", "--elo1", "100", "--startup-timeout", f"{allowance:g}", "--out", out, *UNJAILED)
    assert run.returncode in (0, 1, 3), run.stderr  # (H1 accepted, H0 accepted, undecided: one pair decides nothing)
    check_games(records_of(out), ending)


@pytest.mark.parametrize("allowance, ending", ALLOWANCES)
def test_play_without_a_browser(tmp_path, allowance, ending):
    """viewer.play's games, every seat a bot (no page to wait for): each bot with its entrant's allowance."""
    from viewer.play import run_play

    command = BotCommand.from_text(slow_starter(tmp_path / "pids", first_slow=1))
    unjailed = Sandbox(isolation=Isolation.NONE)
    seated = [Entrant("slow", command, sandbox=unjailed, startup_timeout=allowance),
              Entrant("random", SAMPLES["random"].command(), sandbox=unjailed, startup_timeout=allowance)]
    records = trio.run(run_play, seated, {}, get_variant("two-handed"), 2, 1, tmp_path / "p", 0,
                       lambda addresses: None, lambda record: None)
    check_games([json.loads(r.to_json()) for r in records], ending)


@pytest.mark.parametrize("allowance, passed", [(ABOVE, True), (BELOW, False)])
def test_check_jailed(tmp_path, allowance, passed):
    """check, with the bot in its jail (the CPU time of bubblewrap's processes and the bot's is counted)."""
    bot = f"{sys.executable} {SLOW_STARTER} {SLOW:g}"
    run = arena("check", bot, "--games", "2", "--seed", "1", "--option", "target=300",
                "--startup-timeout", f"{allowance:g}", "--out", tmp_path / "c")
    assert run.returncode == (0 if passed else 1), run.stdout + run.stderr
    assert ("PASSED" in run.stdout) is passed
    if not passed:
        assert SAID in run.stdout, run.stdout


@pytest.mark.parametrize("allowance, ending", ALLOWANCES)
def test_league(tmp_path, allowance, ending):
    """The league's own setting (league init --startup-timeout), kept with its other settings and used by its
    check of an entrant (league add) and by its games."""
    folder = tmp_path / "league"
    made = arena("league", "init", folder, "--boards", "--startup-timeout", f"{allowance:g}", *UNJAILED)
    assert made.returncode == 0, made.stderr
    for name, bot in (("slow", slow_starter(tmp_path / "pids")), ("random", "random")):
        added = arena("league", "add", name, bot, "--league", folder)
        assert added.returncode == 0, added.stderr
    run = arena("league", "run", folder, "--games", "2", "--concurrency", "1", "--seed", "1")
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(folder / "league.db") as c:
        records = [json.loads(line) for (line,) in c.execute("select record from games order by id")]
    check_games(records, ending)


def test_a_start_allowance_must_be_a_positive_number_of_seconds(tmp_path):
    for text in ("0", "-3", "soon", "inf"):
        run = arena("match", "random", "random", "--startup-timeout", text, "--out", tmp_path / "m")
        assert run.returncode == 2 and "--startup-timeout" in run.stderr and "Traceback" not in run.stderr


# ------------------------------------------------------------------ what the allowance counts

def test_a_start_with_no_process_here_is_timed_on_the_wall():
    """A bot on another machine, or a person's page: nothing here to measure, so its allowance is wall time."""
    clock = StartClock(1.0, None, 0.0)
    assert clock.spent(0.5) is None
    assert "within 1 s of the greeting" in clock.spent(1.0)


def test_a_start_that_sleeps_is_charged_as_the_clock_runs():
    """A bot that waits for something that never comes (a line the referee does not send) is the bot's own time:
    it fails at its allowance, not at the wall-clock ceiling."""
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        clock = StartClock(0.2, sleeper.pid, time.monotonic())
        said = None
        while said is None and time.monotonic() < clock.began + 60:  # (a bound for a stuck machine, not a timing)
            said = clock.spent(time.monotonic())
            time.sleep(0.02)
        assert "of its own time" in said and "its start allowance is 0.2 s" in said, said
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_time_a_start_waits_for_a_cpu_is_not_charged():
    """Two busy processes on one core: each waits for the CPU about half of the time, and what it is charged is
    less than its age by that wait (the kernel's run delay, /proc/PID/task/TID/schedstat)."""
    if not Path(f"/proc/{os.getpid()}/schedstat").exists():
        pytest.skip("this kernel keeps no run delays (/proc/PID/schedstat): the allowance is wall time here")
    busy = [subprocess.Popen(["taskset", "-c", "0", sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        usage = tree_usage(busy[0].pid)
        deadline = time.monotonic() + 60  # (a bound for a stuck machine, not a timing)
        while usage.waited < 0.3 and time.monotonic() < deadline:
            time.sleep(0.05)
            usage = tree_usage(busy[0].pid)
        assert usage.waited >= 0.3
        assert usage.charged(cores=1) <= usage.age - 0.25  # (its CPU time, in clock ticks, fits in what is left)
    finally:
        for process in busy:
            process.kill()
            process.wait()


def test_what_a_start_is_charged_is_its_age_less_its_waits_and_never_less_than_its_cpu_over_the_cores():
    assert Usage(age=5.0, cpu=1.0, waited=4.0).charged(cores=2) == 1.0  # a start kept from the CPU
    assert Usage(age=5.0, cpu=0.0, waited=0.0).charged(cores=2) == 5.0  # a start that sleeps
    assert Usage(age=5.0, cpu=8.0, waited=4.5).charged(cores=2) == 4.0  # threads that waited at once: the floor


def test_a_start_kept_from_the_cpu_ends_at_the_wall_clock_ceiling_and_says_so(monkeypatch):
    clock = StartClock(0.5, 12345, 0.0)
    monkeypatch.setattr("referee.bots.start_clock.tree_usage", lambda pid: Usage(age=9.0, cpu=0.1, waited=8.9))
    assert clock.spent(0.5 * WALL_FACTOR - 0.01) is None
    said = clock.spent(0.5 * WALL_FACTOR)
    assert f"within {0.5 * WALL_FACTOR:g} s of the greeting" in said and "0.5 s of its own time" in said


def test_the_cpu_time_of_a_process_tree_counts_its_children():
    """A bot's start is charged what every one of its processes used: here a shell whose child burned 0.5 s of CPU
    and was reaped (its time is then in the shell's cutime)."""
    burner = subprocess.Popen(["sh", "-c", f"{sys.executable} -c '{BURN}' 0.5; echo reaped; exec sleep 60"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert burner.stdout.readline() == "reaped\n"
        assert tree_usage(burner.pid).cpu > 0.4  # (the kernel counts in clock ticks: 0.01 s each, rounded)
    finally:
        burner.kill()
        burner.wait()
    assert tree_usage(burner.pid) is None  # gone


BURN = "import sys, time\nwhile time.process_time() < float(sys.argv[1]): pass"
