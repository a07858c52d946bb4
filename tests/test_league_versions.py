"""A version is shown with its bot's options wherever it is named, and ``league show`` names its two models."""

from __future__ import annotations

import pytest
from helpers import arena

from league.db import LeagueDB, Version, database_url
from league.ladder import entrant_view
from viewer.site import TEMPLATES, ladder_shown


def test_a_versions_bot_reads_with_its_options():
    assert Version(1, "noisy", 1, {"sample": "greedy", "options": {"noise": "20"}}, "").command == "greedy noise=20"
    assert Version(2, "plain", 1, {"sample": "greedy"}, "").command == "greedy"
    assert Version(3, "mine", 1, {"command": "/bots/mine --fast"}, "").command == "/bots/mine --fast"


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """Two entrants of the same sample bot, one with an option, after 4 games (unjailed, one hand a game)."""
    folder = tmp_path_factory.mktemp("versions") / "league"
    assert arena("league", "init", folder, "--boards", "--isolation", "none").returncode == 0
    assert arena("league", "add", "plain", "greedy", "--league", folder).returncode == 0
    assert arena("league", "add", "noisy", "greedy", "option.noise=20", "--league", folder).returncode == 0
    played = arena("league", "run", folder, "--games", "4", "--concurrency", "1")
    assert played.returncode == 0, played.stderr
    return folder


def test_league_list_and_show_tell_versions_apart_by_their_options(league):
    listed = arena("league", "list", league).stdout
    assert [line.split("|")[-2].strip() for line in listed.splitlines() if "plain" in line or "noisy" in line] == [
        "greedy", "greedy noise=20"]
    shown = arena("league", "show", league, "--bootstrap", "0").stdout
    ladder = [line for line in shown[:shown.index("The tables below")].splitlines()
              if line.startswith("|") and ("noisy" in line or "plain" in line)]
    assert len(ladder) == 2 and any("noisy" in line and "greedy noise=20" in line for line in ladder)
    assert "versions: plain = greedy; noisy = greedy noise=20" in shown


def test_league_show_names_each_model_and_says_why_they_differ(league):
    shown = arena("league", "show", league, "--bootstrap", "0").stdout
    ladder, tables = shown.index("The ladder: "), shown.index("The tables below: ")
    assert ladder < shown.index("rank | entrant") < tables < shown.index("They differ because") < shown.index(
        "every version, by ratings:")
    assert "95% interval against the pool's average" in shown and "bootstrap over deals" in shown


def test_the_ladder_page_and_the_entrant_page_show_the_options(league):
    db = LeagueDB.open(database_url(league))
    rows = TEMPLATES.get_template("ladder_rows.html").render(**ladder_shown(db))
    assert "<code>greedy noise=20</code>" in rows and "<code>greedy</code>" in rows
    assert [v.command for v in entrant_view(db, "noisy").versions] == ["greedy noise=20"]
