"""The end of a contest: a deadline (or closing by hand) refuses new entrants, versions and uploads in one line; the
final phase plays a round robin of the ladder's top N, each by its last version, on deals no ladder game was dealt;
a final stopped by Ctrl-C or SIGKILL goes on to the same set of games, none twice; and its standings come out in the
same order from ``league export --final`` and ``ratings``. With the sample bots, on boards, so that it is quick."""

from __future__ import annotations

import collections
import csv
import json
import os
import signal
import subprocess
import sys

import pytest
from helpers import ROOT, arena, interrupted_after_first_game
from test_league import FAST, add, league_folder, wait_for
from helpers import league_serving as serving
from test_league_site import get
from test_league_uploads import call, kit_zip, multipart, token_of

from league.contest import contest_state
from league.db import LeagueDB, database_url
from league.final import plan_of
from referee.records.record import GameRecord

TOP = 3
FINAL_GAMES = 24  # three tables (the pairs of three finalists), four deals each in both seatings


def db_of(folder) -> LeagueDB:
    return LeagueDB.open(database_url(folder))


def ok(*args):
    done = arena(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def refused(*args) -> str:
    """The one line a refused command prints (exit status 2, no traceback)."""
    done = arena(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


# ------------------------------------------------------------------ the deadline and closing by hand

def test_after_the_deadline_no_entrant_joins_and_no_version_is_entered(tmp_path):
    folder = league_folder(tmp_path, *FAST, "--deadline", "2099-12-24T18:00Z")
    add(folder, "greedy", "greedy")  # before the deadline
    shown = ok("league", "show", folder)
    assert "contest: open, submissions close at 2099-12-24 18:00 UTC" in shown.stdout
    ok("league", "deadline", folder, "2020-01-01T12:00+01:00")  # moved into the past: closed since then
    closed = "the contest closed at 2020-01-01 11:00 UTC: no new entrants or versions"
    assert closed in refused("league", "add", "random", "random", "--league", folder)
    assert closed in refused("league", "update", "greedy", "random", "--league", folder)
    assert closed in refused("league", "entrant", "add", "alice", "--league", folder)
    db = db_of(folder)
    assert [(e.name, e.version.number) for e in db.entrants()] == [("greedy", 1)]  # nothing was entered
    assert contest_state(db).phase == "closed"

    ok("league", "deadline", folder, "--none")
    add(folder, "random", "random")
    assert contest_state(db).phase == "open"
    closing = ok("league", "close", folder)
    assert "submissions closed at" in closing.stdout
    assert "the contest closed at" in refused("league", "add", "late", "random", "--league", folder)
    ok("league", "close", folder, "--undo")
    add(folder, "late", "random")
    assert "give a date and time as 2026-12-24T18:00Z" in arena("league", "deadline", folder, "tomorrow").stderr
    assert "submissions are still open: close them first" in refused("league", "final", folder)
    db.close()


def test_after_closing_an_upload_is_refused_in_one_line_and_as_a_page(tmp_path):
    folder = league_folder(tmp_path)
    token = token_of(arena("league", "entrant", "add", "alice", "--league", folder))
    ok("league", "close", folder)
    with serving(folder) as address:
        body, kind = multipart({}, kit_zip())
        status, text = call(f"{address}/entrant/alice/upload", token, body, kind)
        assert status == 403 and text.startswith("upload refused: the contest closed at "), text
        assert len(text.strip().splitlines()) == 1
        status, page = call(f"{address}/entrant/alice/upload", token, body, kind, html=True)  # the form's reply
        assert status == 403 and 'id="refused"' in page and "the contest closed at" in page, page
        status, data = get(f"{address}/final.json")
        assert status == 200 and json.loads(data)["phase"] == "closed" and json.loads(data)["standings"] == []
    db = db_of(folder)
    assert db.builds("alice") == []  # nothing was received
    db.close()


# ------------------------------------------------------------------ the final phase

@pytest.fixture(scope="module")
def final(tmp_path_factory):
    """A closed league of four entrants (one of them at its second version) whose final, among the top three, was
    stopped by Ctrl-C, then by SIGKILL, then played to its end; what the stops left saved, and the ladder's top
    three when the final began."""
    folder = league_folder(tmp_path_factory.mktemp("final"))
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    add(folder, "noisy", "greedy", "option.noise=30")
    add(folder, "second", "random")
    ok("league", "run", folder, "--games", "8", "--concurrency", "2", "--seed", "1")  # a ladder to pick the top from
    ok("league", "update", "second", "greedy", "option.noise=10", "--league", folder)
    ok("league", "run", folder, "--games", "6", "--concurrency", "2", "--seed", "2")
    ok("league", "close", folder)
    db = db_of(folder)
    from league.final import finalists

    top = [v.label for v in finalists(db, TOP)]
    ladder_games = db.game_count()
    command = ("league", "final", folder, "--top", TOP, "--games", FINAL_GAMES, "--seed", "7", "--concurrency", "2")

    stopped = interrupted_after_first_game(*command, total=FINAL_GAMES)
    assert stopped.returncode == 130, stopped.stderr
    assert "games of the final are left; go on with: pinochle-arena league final" in stopped.stderr
    after_ctrl_c = db.final_records()
    assert 0 < len(after_ctrl_c) < FINAL_GAMES

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    running = subprocess.Popen([sys.executable, "-m", "arena", *map(str, command)], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: len(db.final_records()) >= len(after_ctrl_c) + 2, "two more games of the final")
    finally:
        os.kill(running.pid, signal.SIGKILL)
        running.wait(timeout=60)
    after_kill = db.final_records()
    assert len(after_kill) < FINAL_GAMES, "the final ended before it was killed: give it more games"
    playing = contest_state(db)  # half played: its ratings so far, the intervals once it is done
    assert playing.phase == "final" and playing.played == len(after_kill) and len(playing.games) == len(after_kill)
    assert all(row.low is None and row.high is None for row in playing.standings)

    done = ok(*command)  # the same command goes on where it stopped
    assert f"Final standings: the final's games alone ({FINAL_GAMES} games" in done.stdout
    yield folder, db, top, ladder_games, after_ctrl_c, after_kill, done.stdout
    db.close()


def test_a_stopped_final_goes_on_to_the_same_games_none_twice(final):
    folder, db, _, _, after_ctrl_c, after_kill, _ = final
    games = db.final_records()
    assert games[:len(after_ctrl_c)] == after_ctrl_c and games[:len(after_kill)] == after_kill  # nothing lost
    ids = [GameRecord.from_json(line).game_id for _, line in games]
    planned = {f"u{unit.id}{chr(97 + i)}" for unit in db.final_units() for i in range(unit.games)}
    assert len(ids) == len(set(ids)) == FINAL_GAMES and set(ids) == planned
    assert contest_state(db).phase == "done"
    again = ok("league", "final", folder)  # nothing left: it says the standings again and plays nothing
    assert "Final standings" in again.stdout and len(db.final_records()) == FINAL_GAMES


def test_the_final_plays_the_top_n_last_versions_round_robin_on_fresh_deals(final):
    folder, db, top, ladder_games, *_ = final
    plan = plan_of(db)
    versions = db.versions()
    assert [versions[v].label for v in plan.versions] == top and len(top) == TOP
    assert "second" not in top  # (its first version never plays in the final: its label would be 'second')
    records = [GameRecord.from_json(line) for _, line in db.final_records()]
    seated = collections.Counter(frozenset(s.entrant for s in r.seats) for r in records)
    assert set().union(*seated) == set(top)  # the finalists' newest versions, and nobody else
    assert len(seated) == 3 and len(set(seated.values())) == 1  # every pair equally often
    seats = collections.Counter((r.seed, tuple(s.entrant for s in r.seats)) for r in records)
    assert all(n == 1 for n in seats.values())
    for r in records:  # every deal in both seatings of its table
        assert (r.seed, tuple(reversed([s.entrant for s in r.seats]))) in seats
    final_units = {u.id for u in db.final_units()}
    ladder_deals = db.ladder_seeds()
    assert ladder_games and ladder_deals and not ladder_deals & {r.seed for r in records}
    assert len({r.seed for r in records}) == plan.rounds == FINAL_GAMES // 6
    assert "the final phase has begun" in refused("league", "run", folder, "--games", "2")
    assert "can no longer change" in refused("league", "deadline", folder, "--none")
    assert final_units and db.unfinished_units() == []  # (the ladder's runner never resumes the final's units)


def test_the_final_standings_are_what_ratings_gives_over_the_exported_final(final, tmp_path):
    folder, db, top, _, _, _, printed = final
    standings = contest_state(db).standings
    assert sorted(row.label for row in standings) == sorted(top)
    assert all(row.low is not None or row.high is not None for row in standings)  # with intervals
    out = tmp_path / "final"
    exported = ok("league", "export", folder, out, "--final")
    assert f"exported {FINAL_GAMES} final games" in exported.stdout
    ok("ratings", out, "--out", tmp_path / "tables")
    with open(tmp_path / "tables" / "ratings.csv", newline="") as f:
        rows = list(csv.reader(f))
    column = rows[0].index(next(h for h in rows[0] if h in ("bot", "entrant", "contestant")))
    assert [row[column] for row in rows[1:]] == [row.label for row in standings]
    shown = ok("league", "show", folder)
    assert "contest: final phase done" in shown.stdout
    assert f"Final standings: the final's games alone ({FINAL_GAMES} games, the top 3's last versions" in shown.stdout
    assert f"league export {folder} OUT --final, then pinochle-arena ratings OUT" in shown.stdout
    table = shown.stdout.split("Final standings")[1].split("\n\n")[0].splitlines()[3:]  # (after its header)
    assert [line.split("|")[2].strip() for line in table] == [row.entrant for row in standings]
    with serving(folder) as address:
        status, data = get(f"{address}/final.json")
    data = json.loads(data)
    assert status == 200 and data["phase"] == "done" and data["final"]["games"] == FINAL_GAMES
    assert [row["label"] for row in data["standings"]] == [row.label for row in standings]
    assert len(data["games"]) == FINAL_GAMES and {g["number"] for g in data["games"]} == \
        {n for n, _ in db.final_records()}
