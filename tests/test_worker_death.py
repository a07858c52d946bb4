"""A referee worker process that dies mid-tournament is replaced, and the games it took along are played again.

The worker is killed from the runner's ``on_record`` test seam, on the
tournament's first record, before that worker is handed its next game: that
game is then certainly lost with it, whatever the machine's load, so the
test does not depend on timing.
"""

import collections
import functools
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from helpers import arena, command_line, descendants, process_stat

from referee.records.record import read_records
from referee.records.replay import replay_record
from tournaments.config import parse_config
from tournaments.runner import CRASH_LOOP, WorkerFailed, WorkerHooks, WorkersAhead, run_games
from tournaments.schedule import schedule
from tournaments.store import ResultStore, tournament_schedule

ROOT = Path(__file__).resolve().parent.parent


def small_tournament(tmp_path):
    """8 short two-handed games, 4 at once over 2 worker processes: at the first record, 4 games are still to go."""
    data = {
        "tournament": {"games_per_pairing": 8, "concurrency": 4, "processes": 2, "seed": 7, "isolation": "none",
                       "options": {"target": 200}},
        "time": {"bank": 60000, "increment": 0, "move": 10000},  # roomy: a CPU hog must not turn games into forfeits
        "bot": [{"name": "random", "sample": "random"}, {"name": "greedy", "sample": "greedy"}],
    }
    config = parse_config(data, tmp_path / "t.toml", output=tmp_path / "out")
    games = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, games))
    return config, games, store


def test_a_worker_killed_mid_game_is_replaced_and_its_games_are_played_again(tmp_path, capfd):
    config, games, store = small_tournament(tmp_path)
    assert len(games) == 8
    before = set(_children())  # only what this test starts is its to check
    killed = {}

    def on_record(index: int, pid: int, record) -> None:
        # the first record whose worker still has a game in play (its other slot's: on a busy machine both its
        # games can end together, and it then has none until the parent, which waits here, hands it more): that
        # game, and the next one handed to the worker, go down with it
        bots = descendants(pid)
        if not killed and bots:
            killed.update(index=index, first=record.game_id, bots=bots)
            os.kill(pid, signal.SIGKILL)

    said: list[str] = []
    trio.run(functools.partial(run_games, config, games, store, hooks=WorkerHooks(on_record=on_record),
                               say=said.append))

    assert killed, "no record arrived while its worker had a game in play"
    err = capfd.readouterr().err
    deaths = [re.fullmatch(r"pinochle-arena: referee worker (\d) died \(killed by SIGKILL\) with ([12]) games? in "
                           r"flight; starting a new one and playing (?:them|it) again", line) for line in said]
    assert len(deaths) == 1 and deaths[0] and deaths[0][1] == str(killed["index"] + 1), said
    assert "Traceback" not in err

    records = list(read_records(store.games_path, store.key))  # sealed by the parent
    played = collections.Counter(r.game_id for r in records)
    assert played == collections.Counter(g.game_id for g in games)  # every game once: none lost, none twice
    assert played[killed["first"]] == 1  # the record that arrived before the kill was not played again
    assert {r.game_id: problems for r in records if (problems := replay_record(r).problems)} == {}

    assert killed["bots"], "the killed worker should have had bots running"
    left = _gone(killed["bots"])
    assert left == [], [command_line(pid) for pid in left]  # its orphaned bots saw their input end and exited
    left = _gone([pid for pid in _children() if pid not in before])  # (a bot forked as its worker was
    # killed ends a moment later, orphaned to us)
    assert left == [], [command_line(pid) for pid in left]


def test_a_worker_that_keeps_dying_stops_the_tournament_with_a_clear_error(tmp_path, capfd):
    config, games, store = small_tournament(tmp_path)
    before = set(_children())  # only what this test starts is its to check
    hooks = WorkerHooks(command=(sys.executable, "-c", "raise SystemExit(3)"))

    said: list[str] = []
    with pytest.raises(BaseExceptionGroup) as caught:
        trio.run(functools.partial(run_games, config, games, store, hooks=hooks, say=said.append))

    failures = _leaves(caught.value)
    assert failures and all(isinstance(e, WorkerFailed) for e in failures), failures
    assert re.fullmatch(rf"referee worker [12] died {CRASH_LOOP} times in a row before finishing a game "
                        r"\(last: exit status 3\); this is a bug in the referee, not a bot's fault",
                        str(failures[0])), str(failures[0])
    assert any("died (exit status 3) with 2 games in flight; starting a new one" in line for line in said), said
    assert store.games_path.read_text() == ""
    left = _gone([pid for pid in _children() if pid not in before])  # (a bot forked as its worker was
    # killed ends a moment later, orphaned to us)
    assert left == [], [command_line(pid) for pid in left]


def test_workers_started_ahead_play_the_games_and_one_not_needed_exits_saying_nothing(tmp_path, capfd):
    """The tournament command starts its referee workers before it checks the bots (runner.WorkersAhead), so that
    their start overlaps the check: the run plays on those processes and starts none of its own; one it does not
    take sees its input end before any setup and exits at once, with no traceback."""
    config, games, store = small_tournament(tmp_path)  # two referee processes
    played_on = set()
    with WorkersAhead(3) as ahead:
        trio.run(functools.partial(run_games, config, games, store, ahead=ahead,
                                   hooks=WorkerHooks(on_record=lambda index, pid, record: played_on.add(pid))))
    assert played_on == {p.pid for p in ahead.started[:2]}
    assert [p.returncode for p in ahead.started] == [0, 0, 0]
    assert len(list(read_records(store.games_path, store.key))) == len(games)
    assert "Traceback" not in capfd.readouterr().err


def test_a_worker_started_ahead_that_died_is_not_reaped_by_an_unjailed_bots_stop():
    """An unjailed bot's stop reaps the zombie children of this process that are no bots (orphans it adopted):
    never a referee worker started ahead, whose exit status the runner reads (reaped there, it read 0)."""
    from referee.bots import sandbox

    with WorkersAhead(1) as ahead:
        (popen,) = ahead.started
        popen.kill()
        while (process_stat(popen.pid) or ("Z",))[0] != "Z":
            time.sleep(0.01)
        sandbox.kill_leftovers("no-bot-carries-this-marker", None)
        worker = ahead.take()
        assert worker is not None
        assert trio.run(worker.wait) == -signal.SIGKILL


def test_a_tournament_whose_bot_cannot_start_leaves_no_worker_started_ahead(tmp_path):
    before = set(_children())
    run = arena("tournament", "--bot", "random", "--bot", "false", "--games", "2", "--concurrency", "2",
                "--processes", "2", "--isolation", "none", "--out", str(tmp_path / "t"))
    assert run.returncode == 2 and "bot false cannot start" in run.stderr and "Traceback" not in run.stderr
    assert [command_line(pid) for pid in _children() if pid not in before] == []


def test_the_worker_does_not_import_the_runner():
    """The runner starts workers and uses their wire; a worker plays slots (lanes of the one game loop): no import
    cycle between them."""
    code = "import sys, tournaments.worker; print(sorted(m for m in sys.modules if m.startswith(('tournaments.', 'referee.match.'))))"
    modules = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "tournaments.runner" not in modules and "tournaments.slot" in modules and "referee.match.lane" in modules


def _leaves(group: BaseException) -> list[BaseException]:
    if isinstance(group, BaseExceptionGroup):
        return [leaf for e in group.exceptions for leaf in _leaves(e)]
    return [group]


def _children() -> list[int]:
    return [pid for pid in descendants(os.getpid()) if process_stat(pid) and process_stat(pid)[1] == os.getpid()]


def _gone(pids: list[int], patience: float = 60) -> list[int]:
    """Wait for processes to end; reap those that ended as our children (if this process is a child subreaper,
    as it is once a referee ran bots in it, orphans come to it). Returns the ones still there after ``patience``."""
    deadline = time.monotonic() + patience
    while True:
        left = []
        for pid in pids:
            stat = process_stat(pid)
            if stat is not None and stat[0] == "Z" and stat[1] == os.getpid():
                os.waitpid(pid, os.WNOHANG)
                stat = process_stat(pid)
            if stat is not None and stat[0] != "Z":
                left.append(pid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def test_the_worker_processes_are_told_their_run_so_their_bots_share_its_control_group(tmp_path):
    """Every playing bot of a tournament has the same CPU weight whichever referee process plays it: the workers
    put their bots' groups in the run's folder, not one each (cgroups.run_name)."""
    from referee.bots import cgroups

    config, games, store = small_tournament(tmp_path)
    told = set()

    def on_record(index: int, pid: int, record) -> None:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        told.update(v.split(b"=", 1)[1].decode() for v in environ if v.startswith(cgroups.RUN_ENV.encode() + b"="))

    trio.run(functools.partial(run_games, config, games, store, hooks=WorkerHooks(on_record=on_record)))
    assert told == {cgroups.run_name()}
