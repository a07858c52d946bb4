"""One ``league run`` per league: a second runner is refused with one line naming the holder; a runner killed
with SIGKILL is taken over by the next; ``--games N`` plays N games whatever an interrupted run left; a league
with too few entrants for a table says so and exits. On SQLite, and on PostgreSQL where a server can be started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import attrs
from helpers import ROOT, arena, as_from_a_terminal
from test_league import FAST, add, league_folder, wait_for

from league.db import LeagueDB, database_url
from league.lock import STALE, Claim, Hold, LeagueHeld


def running(folder, *flags) -> subprocess.Popen:
    """``league run FOLDER`` as a separate process, SIGINT at its default as from a terminal."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "arena", "league", "run", str(folder), "--concurrency", "2",
                             *flags], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=as_from_a_terminal)


def saved(folder) -> int:
    db = LeagueDB.open(database_url(folder))
    try:
        return db.game_count()
    finally:
        db.close()


def claim_of(folder) -> str | None:
    db = LeagueDB.open(database_url(folder))
    try:
        return db.runner_claim()
    finally:
        db.close()


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def _refused_then_taken_over(folder) -> None:
    first = running(folder)
    try:
        wait_for(lambda: saved(folder) >= 3, "three saved games")
        second = arena("league", "run", folder, "--games", "2")
        assert second.returncode == 2
        assert second.stdout == ""  # (it says nothing of playing)
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert f"host {socket.gethostname()}, pid {first.pid}, since " in lines[0]
        assert "another league run holds this league" in lines[0]
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=60)
    assert Claim.from_text(claim_of(folder)).pid == first.pid  # the killed runner's claim is left behind
    before = saved(folder)
    again = arena("league", "run", folder, "--games", "4", "--concurrency", "2")
    assert again.returncode == 0, again.stderr
    assert "4 games played" in again.stdout
    assert saved(folder) == before + 4
    assert claim_of(folder) is None  # given back when it stopped


def test_a_second_runner_is_refused_in_one_line_and_a_killed_one_taken_over(tmp_path):
    folder = league_folder(tmp_path)
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    _refused_then_taken_over(folder)


def test_a_second_runner_is_refused_and_a_killed_one_taken_over_on_postgresql(tmp_path, postgres):
    folder = tmp_path / "league"
    made = arena("league", "init", folder, *FAST, "--database", postgres("league_lock"))
    assert made.returncode == 0, made.stderr
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    _refused_then_taken_over(folder)


def test_games_n_after_an_interrupted_run_plays_n_games(tmp_path):
    folder = league_folder(tmp_path, "--boards", "--time-per-move", "5000", "--variant", "three-handed")
    for name, bot in (("greedy", "greedy"), ("random", "random"), ("first-legal", "first-legal")):
        add(folder, name, bot)
    first = running(folder)
    try:
        wait_for(lambda: saved(folder) >= 3, "three saved games")
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=120) == 130
    finally:
        if first.poll() is None:
            first.kill()
    assert claim_of(folder) is None  # Ctrl-C gives the league back
    for games in (4, 1):
        before = saved(folder)
        again = arena("league", "run", folder, "--games", str(games), "--concurrency", "2")
        assert again.returncode == 0, again.stderr
        assert f"{games} games played" in again.stdout
        assert saved(folder) == before + games  # (a table of three seats has six games: some are left for later)


def test_one_entrant_says_why_and_exits(tmp_path):
    folder = league_folder(tmp_path)
    add(folder, "greedy", "greedy")
    alone = arena("league", "run", folder, "--games", "2")
    assert alone.returncode == 2 and alone.stdout == ""
    assert alone.stderr.strip().splitlines() == [
        f"pinochle-arena: error: league {folder}: too few active entrants to fill a table: 1 active, a table needs 2 "
        f"(league add, or league update or restore a paused one, then run again)"]
    assert saved(folder) == 0 and claim_of(folder) is None


# ------------------------------------------------------------------ the claim itself

def _db(tmp_path) -> LeagueDB:
    return LeagueDB.create(f"sqlite:///{tmp_path / 'league.db'}", {})


def test_a_live_claim_is_refused_and_a_dead_one_taken_over(tmp_path):
    db = _db(tmp_path)
    mine = Hold.take(db)
    assert Claim.from_text(db.runner_claim()) == mine.claim
    live = attrs.evolve(mine.claim, pid=os.getppid())  # a process that runs, on this host and boot
    assert db.swap_runner_claim(mine.claim.to_text(), live.to_text())
    try:
        Hold.take(db)
        raise AssertionError("a live runner's claim was taken")
    except LeagueHeld as e:
        assert f"pid {os.getppid()}" in str(e)
    assert not mine.refresh()  # the league is no longer this hold's
    dead = attrs.evolve(live, pid=dead_pid())
    assert db.swap_runner_claim(live.to_text(), dead.to_text())
    taken = Hold.take(db)
    assert taken.claim.pid == os.getpid()
    assert taken.refresh() and Claim.from_text(db.runner_claim()) == taken.claim
    taken.release()
    assert db.runner_claim() is None


def test_a_claim_from_elsewhere_waits_for_its_heartbeat_to_go_stale(tmp_path):
    db = _db(tmp_path)
    now = time.time()
    elsewhere = Claim("another-host", 1, "another-boot", now, now)
    assert not elsewhere.is_gone(now + STALE - 1)  # (it cannot be looked at from here)
    assert elsewhere.is_gone(now + STALE + 1)
    rebooted = Claim(socket.gethostname(), os.getppid(), "a-boot-before-this-one", now, now)
    assert rebooted.is_gone(now)
    assert Claim.from_text("not a claim") is None
    assert db.swap_runner_claim(None, "not a claim")
    assert Hold.take(db).claim.pid == os.getpid()  # an unreadable claim is taken over
