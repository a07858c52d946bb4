"""A newcomer's mistakes with a league meet one clear line (curl, the command line) or the site's own page (a
browser), never a bare text page or a driver's ImportError."""

from __future__ import annotations

import sys

import pytest
from helpers import arena

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
