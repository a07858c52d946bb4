"""The ladder as data: ``/ladder.json``, ``/ladder.csv`` and ``league show --format``, an entrant's rating history,
and voiding a version. The league's games are written straight into its database (made-up results, no bots), and
the site is asked in this process, as an ASGI application."""

from __future__ import annotations

import csv
import html
import io
import json
import random
import re

import pytest
import trio
from helpers import arena

from league.db import LeagueDB, database_url
from league.ladder import FIELDS
from league.ratings import fit
from viewer.site import league_site

NAMES = ("ace", "bee", "cat", "dog")
STRENGTH = {"ace": 0.8, "bee": 0.6, "cat": 0.45, "dog": 0.3}  # a seat's chance to outscore a weaker one, roughly


@pytest.fixture
def league(tmp_path):
    """A league of four entrants (dog at its second version, cat paused) with 120 made-up games of two seats."""
    folder = tmp_path / "league"
    folder.mkdir()
    db = LeagueDB.create(database_url(folder), {"tournament": {}})
    ids = {name: db.add(name, {"sample": "random"}, "sha256:" + name).id for name in NAMES}
    ids["dog.v1"] = ids["dog"]
    ids["dog"] = db.update("dog", {"sample": "greedy"}, "sha256:dog2").id
    rng = random.Random(56)
    pairs = [(a, b) for a in ids for b in ids if a < b and {a, b} != {"dog", "dog.v1"}]
    for n in range(120):
        a, b = pairs[n % len(pairs)]
        unit, = db.new_units([(ids[a], ids[b])], 1)
        won = rng.random() < 0.5 + STRENGTH[a.split(".")[0]] - STRENGTH[b.split(".")[0]]
        share = 1.0 if won else 0.0
        db.save_games([(unit.id, f"g{n}", "{}", [(0, ids[a], share), (1, ids[b], 1 - share)])])
    db.set_status("cat", "paused", "paused by the organiser")
    yield folder, db, ids
    db.close()


def get(app, path: str) -> tuple[int, str, str]:
    """``GET path`` of the ASGI application ``app``: its status, content type and body."""
    sent = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"league.test")], "client": ("127.0.0.1", 1), "server": ("league.test", 80)}
    trio.run(app, scope, receive, send)
    headers = dict(sent[0]["headers"])
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return sent[0]["status"], headers.get(b"content-type", b"").decode(), body.decode()


def page_rows(page: str) -> list[dict[str, str]]:
    """The ladder page's rows, as text by its columns' headings."""
    text = lambda cell: html.unescape(re.sub(r"<[^>]+>", "", cell))  # noqa: E731
    head, body = page.split("<tbody>", 1)
    headings = [text(cell) for cell in re.findall(r"<th[^>]*>(.*?)</th>", head)]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("</tbody>", 1)[0], re.S)
    return [dict(zip(headings, (text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)), strict=True))
            for row in rows]


def as_shown(entry: dict, headings) -> dict[str, str]:
    """A row of the data as the page prints it, by the page's headings."""
    mark = " ".join(m for m, on in (("*", entry["provisional"]), ("paused", entry["paused"])) if on)
    cells = {"rank": str(entry["rank"]), "entrant": entry["entrant"], "version": str(entry["version"]),
             "bot": entry["bot"], "Elo": f"{entry['elo']:+d}", "\u00b1 (95%)": str(entry["interval"]),
             "games": str(entry["games"]), "": mark, "last games": entry["last"]}
    return {h: cells[h] for h in headings}


def from_csv(text: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == FIELDS
    numbers = {"rank", "version", "elo", "interval", "games"}
    flags = {"provisional", "paused"}
    rows = list(reader)
    assert {row[f] for row in rows for f in flags} <= {"true", "false"}
    return [{k: int(v) if k in numbers else v == "true" if k in flags else v for k, v in row.items()}
            for row in rows]


def test_the_json_csv_and_command_line_give_the_rows_of_the_ladder_page(league):
    folder, db, _ = league
    app = league_site(db, "test")
    status, _, page = get(app, "/")
    assert status == 200
    shown = page_rows(page)
    assert [row["entrant"] for row in shown] == ["ace", "bee", "cat", "dog"]  # (the made-up strengths' order)
    assert shown[2][""] == "paused"

    status, kind, body = get(app, "/ladder.json")
    assert status == 200 and kind.startswith("application/json")
    data = json.loads(body)
    assert [list(entry) for entry in data] == [FIELDS] * 4
    assert [as_shown(entry, shown[0]) for entry in data] == shown
    assert {entry["bot"] for entry in data} == {"random", "greedy"}

    status, kind, body = get(app, "/ladder.csv")
    assert status == 200 and kind.startswith("text/csv")
    assert from_csv(body) == data

    by_json = arena("league", "show", folder, "--format", "json")
    by_csv = arena("league", "show", folder, "--format", "csv")
    assert by_json.returncode == by_csv.returncode == 0, by_json.stderr + by_csv.stderr
    assert json.loads(by_json.stdout) == data
    assert from_csv(by_csv.stdout) == data


def test_the_ladder_data_of_a_league_without_games_is_empty(tmp_path):
    folder = tmp_path / "league"
    folder.mkdir()
    LeagueDB.create(database_url(folder), {"tournament": {}}).close()
    assert json.loads(arena("league", "show", folder, "--format", "json").stdout) == []
    assert arena("league", "show", folder, "--format", "csv").stdout == ",".join(FIELDS) + "\n"


def test_an_entrants_history_ends_at_its_rating_on_the_ladder(league):
    _, db, ids = league
    app = league_site(db, "test")
    status, kind, body = get(app, "/entrant/dog/history.json")
    assert status == 200 and kind.startswith("application/json")
    history = json.loads(body)
    assert history["entrant"] == "dog" and [v["version"] for v in history["versions"]] == [1, 2]
    every = fit([seats for _, seats in db.results()])
    for version, key in zip(history["versions"], ("dog.v1", "dog"), strict=True):
        points = version["history"]
        assert 1 < len(points) <= 30
        assert [p["games"] for p in points] == sorted(p["games"] for p in points)
        assert points[-1] == {"games": 120, "rating": round(every[ids[key]].rating, 1)}
        assert version["games"] == every[ids[key]].games
    assert get(app, "/entrant/nobody/history.json")[0] == 404


def test_a_voided_version_leaves_the_ladder_and_the_others_are_refitted_without_its_games(league):
    folder, db, ids = league
    before = json.loads(arena("league", "show", folder, "--format", "json").stdout)
    without_bee = [seats for _, seats in db.results() if ids["bee"] not in {v for v, _ in seats}]
    voided = arena("league", "void", folder, "bee", "1")
    assert voided.returncode == 0, voided.stderr
    assert "bee: voided" in voided.stdout

    after = json.loads(arena("league", "show", folder, "--format", "json").stdout)
    assert [entry["entrant"] for entry in after] == ["ace", "cat", "dog"]
    assert [seats for _, seats in db.results()] == without_bee
    refit = fit(without_bee)
    for entry in after:
        assert entry["elo"] == round(refit[ids[entry["entrant"]]].rating)
        assert entry["games"] == refit[ids[entry["entrant"]]].games
    assert {e["entrant"]: e["elo"] for e in after} != {e["entrant"]: e["elo"] for e in before if e["entrant"] != "bee"}
    assert ids["bee"] not in {v.id for v in db.players()}
    assert db.game_count() == len(db.records()) == 120  # its games are kept
    assert len(db.records(counted=True)) == len(without_bee)  # (what the tables of 'league show' read)

    assert arena("league", "void", folder, "bee", "1", "--undo").returncode == 0
    assert json.loads(arena("league", "show", folder, "--format", "json").stdout) == before


def test_voiding_a_version_that_does_not_exist_says_so(league):
    folder, *_ = league
    missing = arena("league", "void", folder, "bee", "2")
    assert missing.returncode == 2 and "bee has no version 2" in missing.stderr
    nobody = arena("league", "void", folder, "nobody", "1")
    assert nobody.returncode == 2 and "no entrant 'nobody'" in nobody.stderr


def test_league_show_leaves_out_the_ratings_tables_of_a_big_league_unless_asked(league, monkeypatch, capsys):
    """The tables read every game's record (about 4 ms a game): past TABLES_UP_TO games the ladder, which is stored,
    prints at once and a line says how to have the tables."""
    from arena.cli import main
    from arena.cli.league import show as command

    folder, db, _ = league
    monkeypatch.setattr(command, "TABLES_UP_TO", 100)  # (the fixture's 120 games are more)
    assert main(["league", "show", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "dog" in out.split("left out")[0]  # the ladder, first
    assert "The ratings' tables of every version are left out" in out and "120 games" in out
    assert f"league export {folder} OUT" in out and "--all" in out
    assert command.TABLES_MODEL not in out
