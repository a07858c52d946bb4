"""The league's stderr logs: one a game and seat, each entrant's within its quota, oldest first out; the records
stay whole, and the page of a removed log says why."""

from __future__ import annotations

import os
import random

import trio
from helpers import ROOT, arena
from helpers import league_serving as serving
from test_league_uploads import call, token_of

from league.db import LeagueDB, database_url
from league.logs import GAME_LOG_CAP, LogQuota, taken
from league.runner import LeagueRunner, games_folder
from referee.records.record import GameRecord
from referee.records.seals import check_seal

MIB = 1 << 20
QUOTA_MIB = 4  # the smallest quota: room for three logs of a bot that floods stderr
FLOOD = f"python3 {ROOT / 'tests' / 'bots' / 'faulty.py'} stderrflood"  # fills its 1 MiB of stderr every game


def kept(logs, entrant: str, games: set[str] | None = None) -> dict[str, int]:
    """``entrant``'s logs in ``logs`` (of ``games`` only, if given) and the bytes each takes on disk."""
    return {p.name: taken(p) for p in logs.iterdir()
            if p.name.startswith(f"{entrant}.") and (games is None or p.name.split(".")[1] in games)}


def test_an_entrant_that_floods_stderr_keeps_only_its_latest_logs_within_its_quota(tmp_path):
    folder = tmp_path / "league"
    made = arena("league", "init", folder, "--boards", "--isolation", "none", "--stderr-quota", str(QUOTA_MIB))
    assert made.returncode == 0, made.stderr
    for name, bot in (("flood", FLOOD), ("random", "random")):
        assert arena("league", "add", name, bot, "--league", folder).returncode == 0
    logs = games_folder(folder) / "logs"
    db = LeagueDB.open(database_url(folder))
    saved, most = set(), []

    def after_each_game(record: GameRecord) -> None:  # (called once its game is saved, and its logs counted)
        saved.add(record.game_id)  # (the next game's bot has started, and its log is being written: not counted)
        most.append(sum(kept(logs, "flood", saved).values()))

    runner = LeagueRunner(folder, db, {"tournament": {"concurrency": 1}}, random.Random(5), say=lambda _: None,
                          on_game=after_each_game)
    assert trio.run(runner.run, 12) == 12

    assert len(most) == 12 and max(most) <= QUOTA_MIB * MIB  # never more than the quota, after any game
    records = [GameRecord.from_json(check_seal(line, db.key())) for line in db.records()]
    assert len(records) == 12  # no result lost: only logs go
    flood_games = [r.game_id for r in records]  # (flood sits at every table, in the order the games were saved)
    left = sorted(kept(logs, "flood"))
    assert left == sorted(f"flood.{game}.stderr.log" for game in flood_games[-len(left):])  # the latest ones
    assert len(left) == 3  # three of 1 MiB and a little fit 4 MiB; the nine oldest went
    newest = (logs / f"flood.{flood_games[-1]}.stderr.log").read_bytes()
    assert GAME_LOG_CAP <= len(newest) < GAME_LOG_CAP + 4096  # one game's stderr, capped, and the referee's notes
    assert b"[pinochle-arena: stderr capped here]" in newest[-200:]
    assert all((logs / f"random.{game}.stderr.log").exists() for game in flood_games)  # a quiet neighbour keeps all

    organiser = token_of(arena("league", "token", "--organiser", "--league", folder))
    oldest = f"flood.{flood_games[0]}.stderr.log"
    with serving(folder) as address:
        status, text = call(f"{address}/entrant/flood/logs/{oldest}", organiser)
        assert status == 410 and "log removed: the entrant's stderr quota (4 MiB) keeps only its latest logs" in text
        assert "/game/1/" in text  # its game's record is still there
        status, page = call(f"{address}/entrant/flood/logs/{oldest}", organiser, html=True)
        assert status == 410 and "stderr quota (4 MiB)" in page
        status, text = call(f"{address}/entrant/flood/logs/flood.u999a.stderr.log", organiser)
        assert status == 404  # never played: no such log, rather than a removed one
        status, text = call(f"{address}/entrant/flood/logs/{left[-1]}", organiser)
        assert status == 200 and "stderr capped here" in text
        status, page = call(f"{address}/entrant/flood", organiser, html=True)
        listed = [name for name in page.split('"') if name.startswith("/entrant/flood/logs/")]
        newest_first = [f"/entrant/flood/logs/flood.{game}.stderr.log" for game in reversed(flood_games[-3:])]
        assert listed[:3] == newest_first and oldest not in page
        assert "keeps the latest\n4 MiB" in page
    db.close()


def test_the_oldest_logs_go_first_also_those_found_when_the_league_starts(tmp_path):
    logs = tmp_path / "logs"
    (logs / "cluster" / "w1").mkdir(parents=True)
    files = ["alice.w0.stderr.log",  # (one log a slot, as leagues kept them before)
             "alice.u1a.stderr.log", "cluster/w1/alice.u2a.stderr.log", "alice.v2.u3b.stderr.log", "bob.u3b.stderr.log"]
    for age, name in enumerate(files):
        (logs / name).write_bytes(b"x" * (MIB if name.startswith(("alice", "cluster")) else 100))
        os.utime(logs / name, (1000 + age, 1000 + age))
    quota = LogQuota.of(logs, int(2.5 * MIB))
    assert sorted(p.relative_to(logs).as_posix() for p in logs.rglob("*.log")) == sorted(
        ["cluster/w1/alice.u2a.stderr.log", "alice.v2.u3b.stderr.log", "bob.u3b.stderr.log"])
    assert quota.totals["alice"] <= 2.5 * MIB and quota.totals["bob"] == taken(logs / "bob.u3b.stderr.log")


def test_the_quota_is_a_league_setting_of_at_least_4_mib(tmp_path):
    made = arena("league", "init", tmp_path / "default")
    assert made.returncode == 0, made.stderr
    settings = LeagueDB.open(database_url(tmp_path / "default")).settings()
    assert settings["league"] == {"stderr_quota_mib": 64, "startup_timeout": 10.0}  # (and its bots' start allowance)
    small = arena("league", "init", tmp_path / "small", "--stderr-quota", "2")
    assert small.returncode == 2 and "at least 4" in small.stderr and not (tmp_path / "small").exists()
