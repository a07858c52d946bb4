"""The league: entrants join, send new versions and leave while it plays; it survives SIGKILL; a changed program
pauses its entrant; its games export as a results folder that replay verifies; the matchmaker spreads its
tables; and its database is one SQLite file (or PostgreSQL) that refuses what is not a league."""

from __future__ import annotations

import collections
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from helpers import ROOT, arena

from league.db import PAUSED_BY_ORGANISER, SCHEMA_VERSION, LeagueDB, LeagueError
from league.db.queries import _FINISH_UNIT
from league.matchmaking import PLACEMENT, Candidate, next_table

FAST = ("--boards", "--time-per-move", "5000")


def league_folder(tmp_path, *flags) -> object:
    folder = tmp_path / "league"
    made = arena("league", "init", folder, *(flags or FAST))
    assert made.returncode == 0, made.stderr
    return folder


def add(folder, name, *bot):
    added = arena("league", "add", name, *bot, "--league", folder)
    assert added.returncode == 0, added.stderr
    return added


def games_of(folder) -> list[dict]:
    with sqlite3.connect(folder / "league.db") as c:
        return [json.loads(line) for (line,) in c.execute("select record from games order by id")]


def entrants_in(records) -> collections.Counter:
    return collections.Counter(s["entrant"] for r in records for s in r["seats"])


def league_running(folder, concurrency: int) -> subprocess.Popen:
    """``league run FOLDER`` as a separate process (it plays until it is stopped)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "arena", "league", "run", str(folder), "--concurrency",
                             str(concurrency)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(condition, what: str, deadline: float = 240) -> None:
    """Wait until ``condition()`` (a deadline against a hang, not a measure of speed)."""
    end = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.2)


# ------------------------------------------------------------------ the whole flow

def test_a_league_of_a_python_a_node_and_a_c_bot_plays_shows_and_exports(tmp_path):
    folder = league_folder(tmp_path)
    for name in ("greedy", "tactician", "first-legal"):
        add(folder, name, name)
    run = arena("league", "run", folder, "--games", "12", "--concurrency", "2", "--seed", "3")
    assert run.returncode == 0, run.stderr
    records = games_of(folder)
    assert len(records) >= 12
    assert set(entrants_in(records)) == {"greedy", "tactician", "first-legal"}
    listing = arena("league", "list", folder)
    assert listing.returncode == 0 and "tactician" in listing.stdout and "active" in listing.stdout
    show = arena("league", "show", folder, "--bootstrap", "0")
    assert show.returncode == 0, show.stderr
    assert "| rank" in show.stdout and "greedy" in show.stdout and "every version" in show.stdout
    out = tmp_path / "export"
    exported = arena("league", "export", folder, out)
    assert exported.returncode == 0, exported.stderr
    replay = arena("replay", out)
    assert replay.returncode == 0 and f"replayed {len(records)} game(s): {len(records)} consistent" in replay.stdout
    assert "no ledger.jsonl" not in replay.stdout  # the export lists the records it wrote
    assert arena("ratings", out, "--bootstrap", "0").returncode == 0


def test_entrants_added_updated_and_removed_while_it_runs_are_taken_up(tmp_path):
    folder = league_folder(tmp_path)
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    running = league_running(folder, concurrency=1)
    try:
        wait_for(lambda: len(games_of(folder)) >= 2, "the first games")
        add(folder, "late", "first-legal")
        wait_for(lambda: entrants_in(games_of(folder))["late"] >= 1, "games of the entrant added while it runs")
        updated = arena("league", "update", "random", "first-legal", "--league", folder)
        assert updated.returncode == 0 and "version 2" in updated.stdout, updated.stderr
        wait_for(lambda: entrants_in(games_of(folder))["random.v2"] >= 1, "games of the new version")
        assert arena("league", "remove", "late", "--league", folder).returncode == 0
        wait_for(lambda: _games_after_last(folder, "late") >= 4, "games after the removal was taken up")
    finally:
        running.send_signal(signal.SIGINT)
        running.wait(timeout=120)
    records = games_of(folder)
    old = [r for r in records if "random" in entrants_in([r])]
    newer = [r for r in records if "random.v2" in entrants_in([r])]
    assert old and newer and records.index(old[-1]) < records.index(newer[0])  # the old version stopped playing
    listing = arena("league", "list", folder)
    assert "removed" in listing.stdout and "late" in listing.stdout


def _games_after_last(folder, entrant: str) -> int:
    records = games_of(folder)
    last = max((i for i, r in enumerate(records) if entrant in entrants_in([r])), default=-1)
    return len(records) - 1 - last


def test_a_league_killed_with_sigkill_keeps_every_saved_game_and_goes_on(tmp_path):
    folder = league_folder(tmp_path)
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    running = league_running(folder, concurrency=2)
    try:
        wait_for(lambda: len(games_of(folder)) >= 5, "five saved games")
    finally:
        os.kill(running.pid, signal.SIGKILL)
        running.wait(timeout=60)
    saved = games_of(folder)
    with sqlite3.connect(folder / "league.db") as c:
        assert c.execute("pragma integrity_check").fetchone() == ("ok",)
    again = arena("league", "run", folder, "--games", "4", "--concurrency", "1")
    assert again.returncode == 0, again.stderr
    after = games_of(folder)
    assert after[:len(saved)] == saved  # nothing saved was lost or changed
    ids = [r["game_id"] for r in after]
    assert len(ids) == len(set(ids))
    out = tmp_path / "export"
    assert arena("league", "export", folder, out).returncode == 0
    assert arena("replay", out).returncode == 0


def league_with_a_bot_of_its_own(tmp_path):
    """A league of greedy, random and 'mine', a copy of the random bot from the organiser's disk: (folder, its file)."""
    bot = tmp_path / "mine" / "bot.py"
    bot.parent.mkdir()
    bot.write_text((ROOT / "sample_bots" / "random_bot.py").read_text())
    folder = league_folder(tmp_path)
    add(folder, "mine", f"{sys.executable} {bot}")
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    return folder, bot


def test_a_program_changed_behind_the_leagues_back_pauses_its_entrant(tmp_path):
    folder, bot = league_with_a_bot_of_its_own(tmp_path)
    bot.write_text(bot.read_text() + "\n# a change nobody entered\n")
    run = arena("league", "run", folder, "--games", "4", "--concurrency", "1")
    assert run.returncode == 0, run.stderr
    assert "paused mine: its program's files changed since version 1" in run.stdout + run.stderr
    assert "mine" not in entrants_in(games_of(folder))
    listing = arena("league", "list", folder)
    assert "paused: its program's files changed" in listing.stdout
    again = arena("league", "update", "mine", f"{sys.executable} {bot}", "--league", folder)
    assert again.returncode == 0 and "version 2" in again.stdout


def test_a_program_gone_behind_the_leagues_back_pauses_its_entrant_and_the_others_play_on(tmp_path):
    """Its script deleted: the entrant is paused as changed; the run does not stop on it for everyone (the script
    is now looked for before a start, and that refusal reached the league's whole run)."""
    folder, bot = league_with_a_bot_of_its_own(tmp_path)
    bot.unlink()
    run = arena("league", "run", folder, "--games", "4", "--concurrency", "1")
    assert run.returncode == 0, run.stderr
    assert f"league {folder}: playing until 4 games more" in run.stdout  # (this run's: not a total)
    assert "paused mine: its program's files changed since version 1" in run.stdout + run.stderr
    assert len(games_of(folder)) >= 4 and "mine" not in entrants_in(games_of(folder))


# ------------------------------------------------------------------ the command line's errors

def test_league_commands_say_what_is_wrong_in_one_line(tmp_path):
    nothing = arena("league", "list", tmp_path)
    assert nothing.returncode == 2 and "holds no league" in nothing.stderr
    folder = league_folder(tmp_path)
    again = arena("league", "init", folder)
    assert again.returncode == 2 and "already holds a league" in again.stderr
    add(folder, "greedy", "greedy")
    twice = arena("league", "add", "greedy", "random", "--league", folder)
    assert twice.returncode == 2 and "already an entrant 'greedy'" in twice.stderr
    ghost = arena("league", "add", "ghost", str(tmp_path / "no-such-bot"), "--league", folder)
    assert ghost.returncode == 2 and "ghost" in ghost.stderr
    unknown = arena("league", "remove", "nobody", "--league", folder)
    assert unknown.returncode == 2 and "no entrant 'nobody'" in unknown.stderr
    bad = arena("league", "init", tmp_path / "other", "--variant", "nine-handed")
    assert bad.returncode == 2 and not (tmp_path / "other").exists()
    loose = tmp_path / "bots" / "loose.py"  # beside an earlier match's results: the bot would be shown them
    loose.parent.mkdir()
    loose.write_text((ROOT / "sample_bots" / "random_bot.py").read_text())
    (tmp_path / "bots" / "last-week").mkdir()
    (tmp_path / "bots" / "last-week" / "secret.key").write_text("0" * 64)
    shown = arena("league", "add", "loose", f"{sys.executable} {loose}", "--league", folder)
    assert shown.returncode == 2 and "would be shown the results folder" in shown.stderr
    assert "give the bot a folder of its own elsewhere" in shown.stderr and "--out" not in shown.stderr
    for run in (nothing, again, twice, ghost, unknown, bad, shown):
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_a_file_that_is_no_league_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "league"
    folder.mkdir()
    (folder / "league.db").write_text("not a database at all\n" * 100)
    damaged = arena("league", "list", folder)
    assert damaged.returncode == 2 and "is not a league's database" in damaged.stderr
    (folder / "league.db").unlink()
    with sqlite3.connect(folder / "league.db") as c:
        c.execute("create table something (x)")
    foreign = arena("league", "list", folder)
    assert foreign.returncode == 2 and "is not a pinochle-arena league's database" in foreign.stderr
    a_file = tmp_path / "notes.txt"  # a file given for the folder: said so, not "make one with league init" on it
    a_file.write_text("x\n")
    shown = arena("league", "show", a_file)
    assert shown.returncode == 2 and shown.stderr.strip() == \
        f"pinochle-arena: error: {a_file} is a file, not a league's folder: give the folder 'league init' made"


# ------------------------------------------------------------------ the database

def test_an_older_league_is_upgraded_and_a_newer_one_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'l.db'}"
    LeagueDB.create(url, {"tournament": {}}).close()
    with sqlite3.connect(tmp_path / "l.db") as c:  # as schema 1 left it: no indexes, no tokens
        c.execute("drop index game_seats_by_version")
        c.execute("drop index games_by_unit")
        c.execute("drop table tokens")
        c.execute("drop table builds")
        c.execute("drop table sessions")
        c.execute("drop table voided")
        c.execute("update league_meta set value = '1' where key = 'schema'")
    db = LeagueDB.open(url)
    db.add_entrant("a")
    token = db.new_token("a")
    assert db.holder(token).entrant == "a" and db.new_build("a") == 1
    assert db.holder_by_session(db.new_session(token, 60)).entrant == "a"
    assert db.voided() == set()
    db.close()
    with sqlite3.connect(tmp_path / "l.db") as c:
        assert c.execute("select value from league_meta where key = 'schema'").fetchone() == (str(SCHEMA_VERSION),)
        assert c.execute("select count(*) from sqlite_master where name in ('game_seats_by_version', 'games_by_unit')"
                         ).fetchone() == (2,)
        c.execute("update league_meta set value = ? where key = 'schema'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(LeagueError, match="made by a newer pinochle-arena"):
        LeagueDB.open(url)


def test_a_session_ends_when_logged_out_when_it_runs_out_and_when_its_token_is_replaced(tmp_path):
    db = LeagueDB.create(f"sqlite:///{tmp_path / 'l.db'}", {"tournament": {}})
    db.add_entrant("a")
    token = db.new_token("a")
    kept, ended, over = db.new_session(token, 60), db.new_session(token, 60), db.new_session(token, -1)
    db.end_session(ended)
    assert db.holder_by_session(kept).entrant == "a"
    assert db.holder_by_session(ended) is None and db.holder_by_session(over) is None
    assert db.holder_by_session("made up") is None
    with db.engine.connect() as c:
        stored = c.exec_driver_sql("select hash, token from sessions").all()
    assert stored and kept not in str(stored) and token not in str(stored)  # hashes only
    db.new_token("a")
    assert db.holder_by_session(kept) is None  # a new token ends the old one's sessions
    db.close()


def test_saving_a_game_reads_its_units_games_only(tmp_path):
    """Finishing a unit counts its games: through an index, not by reading every game of the league (which made
    each save slower the longer a league ran)."""
    db = LeagueDB.create(f"sqlite:///{tmp_path / 'l.db'}", {"tournament": {}})
    with db.engine.connect() as c:
        finish = _FINISH_UNIT.compile(c)
        values = finish.construct_params({"unit": 1, "now": 0.0})
        plan = " / ".join(row[-1] for row in c.exec_driver_sql(
            f"explain query plan {finish}", tuple(values[name] for name in finish.positiontup)))
    assert "games_by_unit" in plan and "SCAN games" not in plan, plan


def test_the_database_runs_in_wal_mode_with_its_writers_waiting_their_turn(tmp_path):
    url = f"sqlite:///{tmp_path / 'l.db'}"
    db = LeagueDB.create(url, {"tournament": {}})
    with db.engine.connect() as c:
        assert c.exec_driver_sql("pragma journal_mode").scalar() == "wal"
        assert c.exec_driver_sql("pragma synchronous").scalar() == 2  # FULL
    other = LeagueDB.open(url)
    db.add("a", {"sample": "random"}, "sha256:a")
    other.add("b", {"sample": "random"}, "sha256:b")
    assert [e.name for e in db.entrants()] == ["a", "b"]


def test_tokens_are_kept_hashed_and_an_upload_never_lifts_the_organisers_pause(tmp_path):
    db = LeagueDB.create(f"sqlite:///{tmp_path / 'l.db'}", {"tournament": {}})
    db.add_entrant("a")
    assert db.entrants()[0].version is None and db.players() == []
    old, token, boss = db.new_token("a"), db.new_token("a"), db.new_token(None)
    assert db.holder(old) is None and db.holder(token).entrant == "a" and db.holder(boss).organiser
    assert token.encode() not in (tmp_path / "l.db").read_bytes() + (tmp_path / "l.db-wal").read_bytes()
    db.update("a", {"sample": "random"}, "sha256:1", organiser=False)
    assert db.players()[0].number == 1
    db.set_status("a", "paused", PAUSED_BY_ORGANISER)
    db.update("a", {"sample": "random"}, "sha256:2", organiser=False)  # a build that finished after the pause
    assert db.entrants()[0].status == "paused" and db.players() == []
    db.set_status("a", "paused", "its program's files changed")
    db.update("a", {"sample": "random"}, "sha256:3", organiser=False)  # the entrant's fix
    assert db.entrants()[0].status == "active" and db.players()[0].number == 3


# ------------------------------------------------------------------ matchmaking

@pytest.mark.parametrize("seed", range(5))
def test_matchmaking_never_plays_a_pair_far_more_than_the_others(seed):
    """However the ratings fall (two entrants of nearly equal strength, whose order stays in doubt, included), no
    pair meets more than four times the average (plus one), and none is starved."""
    from league.ratings import fit_pool

    rng = random.Random(seed)
    true = {i: rng.gauss(0, 250) for i in range(8)}
    games, meetings, tables = [], collections.Counter(), collections.Counter()
    for _ in range(400):
        ratings = fit_pool(games, list(true))
        estimates = ratings.estimates
        candidates = [Candidate(i, estimates[i].rating, estimates[i].sigma, tables[i]) for i in true]
        a, b = next_table(candidates, meetings, 2, rng, gap_sigma=ratings.gap_sigma)
        meetings[frozenset((a, b))] += 1
        tables[a] += 1
        tables[b] += 1
        p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
        for _ in range(2):
            won = 1.0 if rng.random() < p else 0.0
            games.append([(a, won), (b, 1 - won)])
    counts = [meetings[frozenset((a, b))] for a in true for b in true if a < b]
    average = sum(counts) / len(counts)
    assert min(counts) >= 1 and max(counts) <= 4 * (average + 1), sorted(counts)


def test_the_gap_between_two_who_met_often_is_surer_than_either_rating():
    """Two versions that played each other 200 times and the others twice are known relative to each other far
    better than either is known relative to the pool: the matchmaker's doubt about their order uses the gap's
    own uncertainty, not the two ratings' uncertainties as if they were independent."""
    from league.ratings import fit_pool

    games = [[(0, 1.0), (1, 0.0)], [(1, 1.0), (0, 0.0)]] * 100
    games += [[(0, 1.0), (2, 0.0)], [(2, 1.0), (1, 0.0)], [(3, 1.0), (0, 0.0)], [(1, 1.0), (3, 0.0)]]
    ratings = fit_pool(games)
    sigma = {v: e.sigma for v, e in ratings.estimates.items()}
    assert ratings.gap_sigma(0, 1) < 0.3 * (sigma[0] ** 2 + sigma[1] ** 2) ** 0.5
    assert ratings.gap_sigma(0, 1) == pytest.approx(ratings.gap_sigma(1, 0)) and ratings.gap_sigma(2, 2) == 0
    assert ratings.gap_sigma(2, 3) > ratings.gap_sigma(0, 1)


def test_a_new_version_is_placed_against_the_spread_before_it_is_ranked():
    """Its first opponent is the one rated nearest to it, and each next one the farthest from all it has met."""
    candidates = [Candidate(i, 100.0 * i, 30.0, 20) for i in range(6)] + [Candidate(9, 120.0, 300.0, 0)]
    meetings: collections.Counter = collections.Counter()
    met = []
    for placed in range(PLACEMENT):
        table = next_table(candidates, meetings, 2, random.Random(1))
        assert 9 in table
        met.append(table[1] if table[0] == 9 else table[0])
        meetings[frozenset(table)] += 1
        candidates = [c if c.id != 9 else Candidate(9, 120.0, 300.0, placed + 1) for c in candidates]
    assert met == [1, 5]  # ratings 100 (the nearest to its 120), then 500 (the farthest from 100)
    assert PLACEMENT == 2


# ------------------------------------------------------------------ on PostgreSQL

def test_a_league_on_postgresql_plays_exports_and_refuses_what_is_no_league(tmp_path, postgres):
    url = postgres("league_one")
    folder = tmp_path / "league"
    made = arena("league", "init", folder, *FAST, "--database", url)
    assert made.returncode == 0, made.stderr
    assert (folder / "database.url").read_text().strip() == url and not (folder / "league.db").exists()
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    run = arena("league", "run", folder, "--games", "6", "--concurrency", "2")
    assert run.returncode == 0, run.stderr
    db = LeagueDB.open(url)
    assert db.game_count() >= 6 and {e.name for e in db.entrants()} == {"greedy", "random"}
    out = tmp_path / "export"
    assert arena("league", "export", folder, out).returncode == 0
    replay = arena("replay", out)
    assert replay.returncode == 0 and f"{db.game_count()} consistent" in replay.stdout
    again = arena("league", "init", tmp_path / "other", "--database", url)
    assert again.returncode == 2 and "is not empty" in again.stderr
    empty = postgres("not_a_league")
    with pytest.raises(LeagueError, match="is not a pinochle-arena league's database"):
        LeagueDB.open(empty)


@pytest.mark.parametrize("variant, games_at_a_table", [("three-handed", 6), ("four-handed", 2)])
def test_leagues_of_more_seats_play_every_seating_of_a_deal(variant, games_at_a_table, tmp_path):
    """Three seats: the six orders of the three bots; partnerships (each bot with a copy of itself): each side of
    the table."""
    folder = league_folder(tmp_path, "--variant", variant, "--boards")
    for name in ("greedy", "random", "first-legal"):
        add(folder, name, name)
    run = arena("league", "run", folder, "--games", str(games_at_a_table), "--concurrency", "1")
    assert run.returncode == 0, run.stderr
    records = games_of(folder)
    assert len(records) == games_at_a_table
    seatings = {tuple(s["entrant"] for s in r["seats"]) for r in records}
    assert len(seatings) == games_at_a_table and len({r["seed"] for r in records}) == 1  # one deal, every seating
    assert arena("league", "show", folder, "--bootstrap", "0").returncode == 0


def test_one_entrant_has_one_build_in_the_queue_and_a_broken_build_never_stops_the_builder(tmp_path, monkeypatch):
    import trio

    from league import builds

    db = LeagueDB.create(f"sqlite:///{tmp_path / 'l.db'}", {"tournament": {}})
    db.add_entrant("a")
    first, second = db.new_build("a"), db.new_build("a")
    db.queue_build(first)
    db.queue_build(second)  # the newer upload replaces the one still waiting
    assert db.build(first).status == "failed" and db.build(first).message == f"superseded by build {second}"
    taken = db.take_build()
    assert taken.id == second and db.take_build() is None
    trio.run(builds.build_one, tmp_path, db, taken)  # its files are gone: failed, with why
    assert db.build(second).status == "failed" and "send it again" in db.build(second).message

    third = db.new_build("a")
    db.queue_build(third)
    (builds.build_folder(tmp_path, third) / "src").mkdir(parents=True)

    async def broken(*_args):
        raise RuntimeError("a bug an upload found")

    monkeypatch.setattr(builds, "_build_one", broken)
    trio.run(builds.build_one, tmp_path, db, db.take_build())  # no exception out of it
    assert db.build(third).status == "failed" and "internal error" in db.build(third).message
