"""A newcomer's mistakes with a league meet one clear line (curl, the command line) or the site's own page (a
browser), never a bare text page or a driver's ImportError."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

import pytest
from helpers import arena
from helpers import league_serving as serving

from league.db import LeagueError, engine_for


def test_a_database_a_league_cannot_use_is_named_with_those_it_can(tmp_path):
    made = arena("league", "init", tmp_path / "league", "--database", "mysql://alice:secret@db.example/contest")
    assert made.returncode == 2 and "Traceback" not in made.stderr and "MySQLdb" not in made.stderr
    (line,) = made.stderr.strip().splitlines()
    assert "mysql://alice:***@db.example/contest is not supported" in line and "secret" not in line
    assert "SQLite" in line and "postgresql://USER@HOST/NAME" in line and "pinochle-arena[postgres]" in line
    assert arena("league", "init", tmp_path / "league").returncode == 0  # nothing left behind blocks the next try


def test_postgresql_without_its_driver_says_which_extra_installs_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the postgres extra were not installed
    with pytest.raises(LeagueError, match=r"its driver is missing .*pip install 'pinochle-arena\[postgres\]'"):
        engine_for("postgresql://alice@db.example/contest")


def too_large(address: str, browser: bool) -> tuple[int, str, str]:
    """An upload whose Content-Length passes the limit, as the form (or curl) sends it: status, type, body."""
    request = urllib.request.Request(f"{address}/entrant/alice/upload", data=b"x", method="POST")
    request.add_header("Content-Length", str(17 << 20))
    request.add_header("Content-Type", "multipart/form-data; boundary=x")
    if browser:
        request.add_header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    return refused.value.code, refused.value.headers["content-type"], refused.value.read().decode()


def test_an_upload_past_the_limit_is_the_sites_page_for_a_browser_and_one_line_for_curl(tmp_path):
    folder = tmp_path / "league"
    assert arena("league", "init", folder).returncode == 0
    with serving(folder) as address:
        status, kind, page = too_large(address, browser=True)
        assert status == 413 and kind.startswith("text/html")
        assert '<link rel="stylesheet" href="/static/league.css">' in page  # base.html, as every page
        assert 'id="refused">the request passes 16 MiB, the most the league takes' in page
        assert 'href="javascript:history.back()">back</a>' in page and 'href="/"' in page
        status, kind, text = too_large(address, browser=False)
        assert status == 413 and kind.startswith("text/plain")
        assert text.startswith("the request passes 16 MiB, the most the league takes") and text.count("\n") == 1
