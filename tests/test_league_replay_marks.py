"""An entrant replays its own analysed game with analyse's marks (viewer/site.py's /entrant/NAME/analysis/N/replay/):
the marks of its own seats alone are in the page, the organiser's page has every seat's, the public and other
entrants are refused, and the public replay carries no analysis. The analysis is made by hand
(tests/analysis_lines.py), saved as the league's analyser saves it: no search. And ``league final`` weighs its
games in the background as ``league run`` does."""

from __future__ import annotations

import json
import os
import re
import shutil
import urllib.request

import pytest
import trio
from analysis_lines import weighed
from helpers import arena
from helpers import league_serving as serving
from test_league_analysis import new_league
from test_league_uploads import call, token_of

from analysis import SeatAnalysis
from analysis.values import Budget
from analysis.walk import Weighed
from league.analysis import AnalysisSettings, AnalysisStore, SeatRow, set_analysis_settings
from league.db import LeagueDB, database_url
from league.deadline import close
from league.final import plan_final, play_final
from referee.records.record import GameRecord
from referee.records.seals import check_seal

GAMES = 2  # game 1 weighed for both seats; game 2 with random's decisions counted, none valued


def league_record(db: LeagueDB, number: int) -> GameRecord:
    line = db.record(number)
    assert line is not None
    return GameRecord.from_json(check_seal(line, db.key()))


def save_by_hand(db: LeagueDB, store: AnalysisStore, number: int, unvalued: str | None = None) -> None:
    """Game ``number``'s seats weighed by hand, saved as the analyser saves them; ``unvalued``: that entrant's
    seats' decisions counted, none valued."""
    record = league_record(db, number)
    seats = db.seat_versions(number)
    decisions = weighed(record, {s for s, _ in seats})
    versions, rows = db.versions(), []
    for seat, v in seats:
        own = tuple(w if versions[v].entrant != unvalued else Weighed(w.number, w.hand, w.seat, w.kind, w.chosen)
                    for w in decisions if w.seat == seat)
        rows.append(SeatRow(number, seat, versions[v].entrant, versions[v].label,
                            SeatAnalysis(record.game_id, seat, versions[v].label, Budget(64, 16, 0), own)))
    store.save(number, record.game_id, rows, 0.0)


def analysed_league(folder) -> dict[str, str]:
    """A league of greedy and random that played ``GAMES`` games, analysed by hand; its tokens by name."""
    db = new_league(folder, GAMES)
    store = AnalysisStore.open(folder)
    save_by_hand(db, store, 1)
    save_by_hand(db, store, 2, unvalued="random")
    store.close()
    db.close()
    tokens = {name: token_of(arena("league", "token", name, "--league", folder)) for name in ("greedy", "random")}
    tokens["organiser"] = token_of(arena("league", "token", "--organiser", "--league", folder))
    return tokens


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """The analysed league served: (address, folder, tokens)."""
    folder = tmp_path_factory.mktemp("replay-marks") / "league"
    tokens = analysed_league(folder)
    with serving(folder) as address:
        yield address, folder, tokens


def embedded(page: str) -> dict | None:
    """The marks a replay page hands analysis.js (None: none)."""
    found = re.search(r"pinochleAnalysis\(0, (.*)\);</script>", page)
    return None if found is None else json.loads(found.group(1))


def seats_of(folder, name: str | None, number: int) -> set[int]:
    """The seats ``name`` sat at in game ``number`` (None: every seat)."""
    db = LeagueDB.open(f"sqlite:///{folder / 'league.db'}")
    versions = db.versions()
    seats = {s for s, v in db.seat_versions(number) if name is None or versions[v].entrant == name}
    db.close()
    return seats


def test_an_entrants_replay_has_its_own_seats_marks_alone_and_the_organisers_every_seats(league):
    address, folder, tokens = league
    db = LeagueDB.open(f"sqlite:///{folder / 'league.db'}")
    record = league_record(db, 1)
    db.close()
    every = weighed(record, seats_of(folder, None, 1))  # (as the fixture weighed them)
    for name, who in (("random", "random"), ("greedy", "greedy"), ("random", "organiser")):
        status, page = call(f"{address}/entrant/{name}/analysis/1/replay/", tokens[who], html=True)
        assert status == 200
        seats = seats_of(folder, None if who == "organiser" else name, 1)
        valued = [w for w in every if w.values and w.seat in seats]
        data = embedded(page)
        assert data is not None and [s["seat"] for s in data["seats"]] == sorted(seats)
        assert [(d["number"], d["seat"], d["mark"]) for d in data["decisions"]] == [
            (w.number, w.seat, w.mark) for w in valued]
        assert '"analysis":true' in page and '<script src="/static/analysis.js">' in page
        assert page.index("/static/analysis.js") < page.index("pinochleAnalysis(0,") < page.index("/static/report.js")
        assert f'href="/entrant/{name}/analysis/1"' in page
    status, film = call(f"{address}/entrant/random/analysis/1/replay/films/0.js", tokens["random"])
    assert status == 200 and film == call(f"{address}/game/1/films/0.js")[1]  # the public replay's film


def test_a_game_without_a_valued_decision_of_the_entrants_is_replayed_without_marks(league):
    address, folder, tokens = league
    status, page = call(f"{address}/entrant/random/analysis/2/replay/", tokens["random"], html=True)
    assert status == 200 and embedded(page) is None and '"analysis":false' in page
    assert "none of their decisions was valued" in page
    status, page = call(f"{address}/entrant/greedy/analysis/2/replay/", tokens["organiser"], html=True)
    data = embedded(page)  # (the organiser: greedy's seat, valued)
    assert data is not None and {d["seat"] for d in data["decisions"]} == seats_of(folder, "greedy", 2)


def test_the_replay_with_marks_is_the_entrants_and_the_organisers_alone(league):
    address, _, tokens = league
    for where in ("/entrant/random/analysis/1/replay/", "/entrant/random/analysis/1/replay/films/0.js"):
        assert call(address + where)[0] == 401  # the public
        assert call(address + where, html=True)[0] == 401
        assert call(address + where, tokens["greedy"])[0] == 403  # another entrant
    status, said = call(f"{address}/entrant/random/analysis/99/replay/", tokens["random"])
    assert status == 404 and said == "game 99: none of your seats analysed (not yet, or not your game)\n"
    for where in ("/entrant/random/analysis/1/replay/", "/entrant/random/analysis/1/replay/films/0.js"):
        request = urllib.request.Request(address + where, headers={"Authorization": f"Bearer {tokens['random']}"})
        with urllib.request.urlopen(request, timeout=60) as reply:
            assert reply.headers["Cache-Control"] == "private, no-store"  # kept by no cache on the way


def test_the_analysis_pages_lead_to_it_and_the_public_replay_carries_no_analysis(league):
    address, _, tokens = league
    status, page = call(f"{address}/entrant/random/analysis/1", tokens["random"], html=True)
    assert status == 200 and 'href="/entrant/random/analysis/1/replay/"' in page
    summary = json.loads(call(f"{address}/entrant/random/analysis", tokens["random"])[1])
    assert [g["marked_replay"] for g in summary["games"]] == [f"/entrant/random/analysis/{n}/replay/"
                                                             for n in range(GAMES, 0, -1)]
    game = json.loads(call(f"{address}/entrant/random/analysis/1", tokens["random"])[1])
    assert game["marked_replay"] == "/entrant/random/analysis/1/replay/"
    for token in (None, tokens["random"], tokens["organiser"]):  # whoever asks
        status, page = call(f"{address}/game/1/", token, html=True)
        assert status == 200 and "analysis" not in page and "pinochleAnalysis" not in page


def test_league_final_weighs_its_games_in_the_background_as_league_run_does(league, tmp_path):
    _, folder, _ = league
    copy = tmp_path / "league"
    copy.mkdir()
    assert arena("league", "backup", folder, copy / "league.db").returncode == 0
    shutil.copyfile(folder / "analysis.db", copy / "analysis.db")  # (the ladder's games weighed already)
    db = LeagueDB.open(database_url(copy))
    close(db)
    plan_final(db, top=2, games=2, seed=7)
    set_analysis_settings(db, AnalysisSettings(enabled=True, cpu_share=0.2, worlds=32))
    said: list[str] = []
    seen: dict[str, int] = {}

    def on_game(_record) -> None:
        line = next(line for line in said if "in the background" in line)
        pid = int(line.split("process ")[1].split(",")[0])
        seen.setdefault("pid", pid)
        seen.setdefault("nice", os.getpriority(os.PRIO_PROCESS, pid))  # (running while the final plays)

    assert trio.run(play_final, db, copy, {"tournament": {"concurrency": 1}}, on_game, None, said.append) == 2
    assert seen["nice"] == 19 and "at most 0.2 of a core by " in said[0]
    with pytest.raises(ProcessLookupError):
        os.kill(seen["pid"], 0)  # stopped with the final, and reaped
    db.close()
