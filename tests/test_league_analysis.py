"""The league weighs its games in the background (league.analysis, league.analyser): newest first within a bounded
backlog, each game saved whole (a crash loses the game in hand only), in a process of its own at nice 19 and
SCHED_IDLE within its share of a core; and an entrant sees the analysis of its own seats alone, the organiser every
seat, the public nothing. Over HTTP for who sees what, with a budget of 32 worlds a decision."""

from __future__ import annotations

import json
import os
import random
import time

import pytest
import trio
from helpers import arena
from helpers import league_serving as serving
from test_league_uploads import call, token_of

from league.analyser import DutyCycle, Pace, weigh_game, work
from league.analysis import AnalysisSettings, AnalysisStore, analysis_settings, backlog, next_game, \
    set_analysis_settings
from league.db import LeagueDB, database_url, games
from league.runner import LeagueRunner

WORLDS = 32  # the smallest budget: the tests check where the values go, not how good they are
GAMES = 4


def new_league(folder, games: int = GAMES) -> LeagueDB:
    """A league of greedy and random (one hand a game, unjailed) that has played ``games`` games, its analysis off
    at a budget of ``WORLDS``."""
    assert arena("league", "init", folder, "--boards", "--isolation", "none").returncode == 0
    for name in ("greedy", "random"):
        assert arena("league", "add", name, name, "--league", folder).returncode == 0
    db = LeagueDB.open(database_url(folder))
    runner = LeagueRunner(folder, db, {"tournament": {"concurrency": 1}}, random.Random(3), say=lambda _: None)
    assert trio.run(runner.run, games) == games
    set_analysis_settings(db, AnalysisSettings(worlds=WORLDS))
    return db


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A league whose games are all weighed, with its entrants' and organiser's tokens."""
    folder = tmp_path_factory.mktemp("analysis") / "league"
    db = new_league(folder)
    store = AnalysisStore.open(folder)
    assert work(db, store, Pace(None, None), until_empty=True) == GAMES
    tokens = {name: token_of(arena("league", "token", name, "--league", folder)) for name in ("greedy", "random")}
    tokens["organiser"] = token_of(arena("league", "token", "--organiser", "--league", folder))
    yield folder, db, store, tokens
    store.close()
    db.close()


def copied(league, folder):
    """A copy of the fixture's league (its database alone), to change without changing the fixture's."""
    folder.mkdir()
    assert arena("league", "backup", league[0], folder / "league.db").returncode == 0
    return LeagueDB.open(database_url(folder))


def test_the_newest_games_go_first_and_those_beyond_the_backlog_are_skipped_and_counted(league, tmp_path):
    _, db, _, _ = league
    store = AnalysisStore.open(tmp_path)  # (a queue of its own over the league's games)
    assert backlog(db, store, 2).text() == "2 games waiting for analysis, 2 skipped (older than the backlog), 0 analysed"
    assert next_game(db, store, 2) == GAMES  # the newest; games 1 and 2 are skipped
    assert store.state()[:2] == (2, 2)
    weigh_game(db, store, GAMES, AnalysisSettings(worlds=WORLDS).budget, Pace(None, None))
    store.close()
    store = AnalysisStore.open(tmp_path)  # (what was weighed, and skipped, outlives the process)
    assert next_game(db, store, 2) == GAMES - 1
    weigh_game(db, store, GAMES - 1, AnalysisSettings(worlds=WORLDS).budget, Pace(None, None))
    assert next_game(db, store, 2) is None
    figure = backlog(db, store, 2)
    assert (figure.waiting, figure.skipped, figure.analysed, figure.failed) == (0, 2, 2, 0)
    assert store.state()[0] == GAMES  # the floor is past every game: a look costs nothing however long the league
    store.close()


class Killed(Exception):
    """The analyser stopped between two slices of a game, as a SIGKILL would stop it."""


def test_a_game_is_saved_whole_so_a_crash_loses_the_game_in_hand_only(league, tmp_path):
    _, db, whole, _ = league
    store = AnalysisStore.open(tmp_path)
    budget = AnalysisSettings(worlds=WORLDS).budget

    class Dies(Pace):
        def step(self) -> None:
            raise Killed

    with pytest.raises(Killed):
        weigh_game(db, store, GAMES, budget, Dies(None, None))  # (after its first slice of decisions)
    assert store.done_after(0) == set() and store.seats([GAMES], None) == []  # nothing of it saved
    assert next_game(db, store, 1) == GAMES  # so it is weighed again, from its start
    weigh_game(db, store, GAMES, budget, Pace(None, None))
    assert store.seats([GAMES], None) == whole.seats([GAMES], None)  # as in one go (each decision has its seeds)
    assert [s.seat for s in store.seats([GAMES], None)] == [0, 1]
    store.save(GAMES, "late", [], 0.0, note="an orphaned analyser's late word")  # (a killed run's analyser)
    assert store.status(GAMES) == ("analysed", "")  # the game saved first stays as it was
    assert next_game(db, store, 1) is None  # (the older ones skipped: a backlog of one)
    store.close()


def test_a_record_that_fails_its_seal_is_one_game_not_weighed_and_the_analysis_goes_on(league, tmp_path):
    folder = tmp_path / "copy"
    db = copied(league, folder)
    changed = db.record(GAMES).replace('"seed":', '"seed": ', 1)  # (a changed record: its seal fails)
    with db.engine.begin() as c:
        c.execute(games.update().where(games.c.id == GAMES).values(record=changed))
    store = AnalysisStore.open(folder)
    assert next_game(db, store, 2) == GAMES
    weigh_game(db, store, GAMES, AnalysisSettings(worlds=WORLDS).budget, Pace(None, None))
    assert store.status(GAMES) == ("failed", "its seal does not match")
    assert next_game(db, store, 2) == GAMES - 1  # the next newest, as if nothing happened
    assert backlog(db, store, 2).text() == ("1 game waiting for analysis, 2 skipped (older than the backlog), "
                                            "0 analysed, 1 could not be")
    store.close()
    db.close()


def test_the_duty_cycle_keeps_the_cpu_within_its_share():
    slept = []
    duty = DutyCycle(0.25, burst=0.0, sleep=slept.append)
    wall, cpu = time.monotonic(), time.process_time()
    for _ in range(3):
        spin = time.process_time()
        while time.process_time() - spin < 0.05:  # a slice of work
            pass
        duty.rest()
        used, elapsed = time.process_time() - cpu, time.monotonic() - wall + sum(slept)
        assert used <= 0.25 * elapsed + 0.01, (used, elapsed)  # (the rest itself costs a little CPU)
    assert sum(slept) > 0  # a busy slice on a quiet core is four times its length in wall time


def test_league_run_starts_the_analyser_at_the_lowest_priority_within_its_share_and_stops_it(league, tmp_path):
    folder = tmp_path / "league"
    db = copied(league, folder)
    set_analysis_settings(db, AnalysisSettings(enabled=True, cpu_share=0.2, worlds=WORLDS))
    said, seen = [], {}

    def on_game(_record) -> None:
        if seen:
            return
        line = next(line for line in said if "in the background" in line)
        pid = int(line.split("process ")[1].split(",")[0])
        seen.update(pid=pid, nice=os.getpriority(os.PRIO_PROCESS, pid), policy=os.sched_getscheduler(pid), line=line)
        group = line.rpartition("(")[2].rstrip(")") if "control group" in line else None
        if group is not None:
            seen.update(group=group, procs=open(f"{group}/cgroup.procs").read().split(),
                        quota=open(f"{group}/cpu.cfs_quota_us" if os.path.exists(f"{group}/cpu.cfs_quota_us")
                                   else f"{group}/cpu.max").read().split()[0])

    runner = LeagueRunner(folder, db, {"tournament": {"concurrency": 1}}, random.Random(4), say=said.append,
                          on_game=on_game)
    assert trio.run(runner.run, 1) == 1
    assert seen["nice"] == 19 and seen["policy"] == os.SCHED_IDLE
    assert "at most 0.2 of a core by " in seen["line"]
    if "group" in seen:  # (as root, where the jail makes control groups)
        assert str(seen["pid"]) in seen["procs"] and seen["quota"] == "20000"  # of a period of 100,000 us
        assert not os.path.exists(seen["group"])  # removed with the analyser
    else:
        assert "a duty cycle in its process" in seen["line"]
    with pytest.raises(ProcessLookupError):
        os.kill(seen["pid"], 0)  # stopped, and reaped
    db.close()


def test_the_settings_are_set_in_one_command_and_bad_ones_refused_in_one_line(league, tmp_path):
    folder = tmp_path / "off"
    assert arena("league", "init", folder).returncode == 0
    assert not analysis_settings(LeagueDB.open(database_url(folder))).enabled  # off unless the organiser says
    done = arena("league", "analysis", folder, "--on", "--cpu-share", "0.5", "--backlog", "30")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "analysis on: at most 0.5 of a core at the lowest priority, 1024 worlds a decision, a backlog of 30 games "
        "(from the next league run)",
        "0 games waiting for analysis, 0 skipped (older than the backlog), 0 analysed"]
    settings = analysis_settings(LeagueDB.open(database_url(folder)))
    assert (settings.enabled, settings.cpu_share, settings.backlog, settings.worlds) == (True, 0.5, 30, 1024)
    for bad, said in ((["--cpu-share", "2"], "a share of one core, 0.01 to 1"),
                      (["--cpu-share", "many"], "'many' is not a number"),
                      (["--worlds", "8"], "8 worlds: at least 32")):
        refused = arena("league", "analysis", folder, *bad)
        assert refused.returncode == 2 and said in refused.stderr and "Traceback" not in refused.stderr
    shown = arena("league", "analysis", league[0])
    assert shown.stdout.splitlines()[1] == f"0 games waiting for analysis, 0 skipped (older than the backlog), " \
                                          f"{GAMES} analysed"


def seats_of(db: LeagueDB, name: str) -> dict[int, set[int]]:
    """The seats ``name`` sat at, by game."""
    mine = {v.id for v in db.versions().values() if v.entrant == name}
    return {n: {s for s, v in db.seat_versions(n) if v in mine} for n in range(1, GAMES + 1)}


def test_an_entrant_sees_its_own_seats_only_the_organiser_all_and_the_public_nothing(league):
    folder, db, _, tokens = league
    with serving(folder) as address:
        mine = f"{address}/entrant/random/analysis"
        for token, status in ((None, 401), (tokens["greedy"], 403)):  # the public, another entrant
            assert call(mine, token)[0] == status
            assert call(f"{mine}/1", token)[0] == status
            assert call(mine, token, html=True)[0] == status
        status, text = call(mine, tokens["random"])
        assert status == 200
        summary = json.loads(text)
        assert {row["version"] for row in summary["phases"]} == {"random"}
        assert [g["number"] for g in summary["games"]] == list(range(GAMES, 0, -1))  # newest first
        assert summary["games"][0]["replay"] == f"/game/{GAMES}/"
        trick_play = next(r for r in summary["phases"] if r["phase"] == "trick play")
        assert trick_play["hands"] == GAMES and trick_play["low"] < trick_play["mean"] < trick_play["high"]
        random_seats, greedy_seats = seats_of(db, "random"), seats_of(db, "greedy")
        for number in range(1, GAMES + 1):
            status, text = call(f"{mine}/{number}", tokens["random"])
            game = json.loads(text)
            assert status == 200 and {s["seat"] for s in game["seats"]} == random_seats[number]
            assert {w["seat"] for s in game["seats"] for w in s["decisions"]} == random_seats[number]
            status, text = call(f"{mine}/{number}", tokens["organiser"])  # the organiser: every seat
            assert {s["seat"] for s in json.loads(text)["seats"]} == random_seats[number] | greedy_seats[number]
        status, text = call(f"{address}/entrant/greedy/analysis/1", tokens["random"])
        assert status == 403  # not by another entrant's address either
        status, page = call(mine, tokens["random"], html=True)
        assert status == 200 and 'id="phases"' in page and "trick play" in page and "greedy" not in page
        assert f'href="/entrant/random/analysis/{GAMES}"' in page and f'href="/game/{GAMES}/"' in page
        status, page = call(f"{mine}/1", tokens["random"], html=True)
        assert status == 200 and "Seat " in page and "greedy" not in page and 'href="/game/1/"' in page
        assert call(f"{mine}/99", tokens["random"])[0] == 404
        assert "analysis-link" in call(f"{address}/entrant/random", tokens["random"], html=True)[1]
        assert "analysis-link" not in call(f"{address}/entrant/random", html=True)[1]  # (the public's page)
        status, page = call(f"{address}/organiser", tokens["organiser"], html=True)  # how it keeps up
        assert status == 200 and f"Analysis off (pinochle-arena league analysis DIR --on): 0 games waiting for " \
                                 f"analysis, 0 skipped (older than the backlog), {GAMES} analysed." in page
