"""``league serve``: the league's pages over HTTP, served by the command as a user starts it."""

from __future__ import annotations

import json
import re
import socket
import urllib.error
import urllib.request

import pytest
import sqlalchemy as sa
from helpers import HOSTILE, arena, hostile, league_serving

from league.db import LeagueDB, database_url
from referee.records.record import GameRecord
from referee.records.seals import check_seal, seal


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A league of three sample bots that has played 12 games (unjailed, one hand a game)."""
    folder = tmp_path_factory.mktemp("site") / "league"
    assert arena("league", "init", folder, "--boards", "--isolation", "none").returncode == 0
    for name in ("greedy", "random", "tactician"):
        assert arena("league", "add", name, name, "--league", folder).returncode == 0
    played = arena("league", "run", folder, "--games", "12", "--concurrency", "1")
    assert played.returncode == 0, played.stderr
    return folder


def rewrite(folder, number: int, change) -> None:
    """Game ``number`` of the league in ``folder`` changed by ``change`` (a record to a record), sealed again."""
    db = LeagueDB.open(database_url(folder))
    key = db.key()
    record = change(GameRecord.from_json(check_seal(db.record(number), key)))
    with db.engine.begin() as c:
        c.execute(sa.text("update games set record = :record where id = :number"),
                  {"record": seal(record.to_json(), key), "number": number})


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_pages_show_the_ladder_an_entrant_and_a_game(league):
    with league_serving(league) as address:
        status, ladder = get(address + "/")
        assert status == 200
        for name in ("greedy", "random", "tactician"):
            assert f'href="/entrant/{name}"' in ladder
        status, rows = get(address + "/ladder/rows")
        assert status == 200 and rows.count("<tr>") == 3
        forms = re.findall(r'<td class="games">(\d+)</td><td></td><td class="form">(\w*)</td>', rows)
        assert len(forms) == 3  # (placed by now: no provisional mark)
        for games, form in forms:
            assert len(form) == min(int(games), 5) and set(form) <= set("WDL"), rows  # the latest five results
        status, page = get(address + "/entrant/greedy")
        assert status == 200
        assert "Against every opponent" in page and 'href="/entrant/random"' in page
        assert "<polyline" in page  # its rating along the league's games
        assert 'href="/game/' in page
        status, game = get(address + "/game/1/")
        assert status == 200 and "openGame(0)" in game and 'id="viewer"' in game
        status, script = get(address + "/game/1/films/0.js")
        assert status == 200 and script.startswith('pinochleFilm(0, "')
        assert get(address + "/game/999/")[0] == 404
        assert get(address + "/game/99999999999999999999999/")[0] == 404  # past the database's integers
        assert get(address + "/entrant/nobody")[0] == 404
        with urllib.request.urlopen(address + "/", timeout=60) as reply:  # no framing by other sites, no sniffing
            assert reply.headers["X-Frame-Options"] == "DENY"
            assert reply.headers["X-Content-Type-Options"] == "nosniff"


def test_text_on_the_pages_is_escaped_and_a_record_whose_seal_fails_is_not_shown(league, tmp_path):
    db = LeagueDB.open(database_url(league))
    db.set_status("random", "paused", "<script>alert(1)</script>")
    try:
        with league_serving(league) as address:
            page = get(address + "/entrant/random")[1]
            assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
            with db.engine.begin() as c:
                c.exec_driver_sql("""update games set record = replace(record, '"format":1', '"format": 1') where id = 2""")
            status, text = get(address + "/game/2/")
            assert status == 500 and "fails its seal" in text
    finally:
        db.set_status("random", "active", "")


def test_bot_text_in_a_games_record_stays_inside_its_pages_script(league):
    rewrite(league, 3, lambda record: hostile(record, fault=True))
    with league_serving(league) as address:
        status, page = get(address + "/game/3/")
    assert status == 200 and HOSTILE not in page
    script = re.search(r"<script>window.REPORT_GAMES = (.*?);</script>", page).group(1)
    assert not set(script) & set("<>&") and json.loads(script)[0]["detail"] == f"said {HOSTILE}"
    assert "&lt;!--&lt;script&gt;" in page  # the names in the heading, as HTML text


def test_serve_says_what_is_wrong_in_one_line(league, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = arena("league", "serve", league, "--port", port)
    assert busy.returncode == 2 and busy.stderr.strip().splitlines() == [
        f"pinochle-arena: error: cannot listen on 127.0.0.1:{port}: Address already in use"]
    for args, said in ((("league", "serve", tmp_path), "holds no league"),
                       (("league", "serve", league, "--port", "70000"), "a port is 0 to 65535")):
        run = arena(*args)
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1 and said in run.stderr, run.stderr


def test_logging_out_ends_the_session_on_the_server_so_a_copy_of_its_cookie_is_refused(league):
    import http.cookiejar
    import urllib.parse

    made = arena("league", "token", "--organiser", "--league", league)
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip().splitlines()[-1]
    with league_serving(league) as address:
        jar = http.cookiejar.CookieJar()
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

        def ask(path: str, form: dict | None = None, cookie: str | None = None) -> tuple[int, str]:
            request = urllib.request.Request(address + path, headers={"Accept": "text/html"},
                                             data=None if form is None else urllib.parse.urlencode(form).encode())
            if cookie is not None:  # as a thief replays it: not through the jar
                request.add_header("Cookie", f"league_session={cookie}")
            try:
                with (urllib.request.build_opener() if cookie else browser).open(request, timeout=60) as reply:
                    return reply.status, reply.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        def csrf(page: str) -> str:
            return re.search(r'name="csrf" value="([^"]+)"', page).group(1)

        def log_in() -> str:
            status, page = ask("/login", {"token": token, "csrf": csrf(ask("/login")[1])})
            assert status == 200 and 'id="entrants"' in page, page  # the organiser's page
            return page

        page = log_in()
        copied = next(c.value for c in jar if c.name == "league_session")
        assert ask("/organiser", cookie=copied)[0] == 200  # the copy works while the session lasts
        status, _ = ask("/logout", {"csrf": csrf(page)})
        assert status == 200 and copied not in {c.value for c in jar}  # (the ladder it goes to begins another)
        assert ask("/organiser", cookie=copied)[0] == 403  # logged out: the copy is nobody's
        assert ask("/organiser")[0] == 403
        log_in()  # a new login works
        assert ask("/organiser")[0] == 200
        assert ask("/organiser", cookie=copied)[0] == 403  # and does not bring the old session back


def test_ctrl_c_stops_the_server_cleanly_while_a_browser_holds_a_connection_open(league):
    """A KeyboardInterrupt raised inside one of the server's connection tasks once broke out of its nurseries as a
    traceback: Ctrl-C now cancels the server, whatever its connections are doing (league_serving asserts no
    traceback on the way out)."""
    with league_serving(league) as address:
        host, port = address.removeprefix("http://").split(":")
        kept = socket.create_connection((host, int(port)))
        kept.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n")
        assert kept.recv(12).startswith(b"HTTP/1.1 200")
        half = socket.create_connection((host, int(port)))
        half.sendall(b"GET /ladder.json HTTP/1.1\r\nHost: x\r\n")  # a request still on its way
    kept.close()
    half.close()
