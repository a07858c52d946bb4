"""A league's settings are checked before it is made (league.settings.check_settings), directly against the
variant, the time control, the limits and the jail, with the line a tournament's configuration gives for the same
tables; and what a league refuses reaches the command line as one line (league.errors)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import arena
from test_league import league_folder

from arena.cli.league.init import settings_from_args
from arena.cli.parser import build_parser
from league.db import LeagueDB, database_url
from league.deadline import FINAL
from league.errors import LeagueError
from league.runner import games_per_unit
from league.settings import check_settings
from tournaments.config import ConfigError, parse_config


def init_settings(*flags: str) -> dict:
    """The settings ``league init DIR FLAGS`` makes."""
    return settings_from_args(build_parser().parse_args(["league", "init", "DIR", *flags]))


def as_a_tournament(settings: dict) -> None:
    """The settings' tables read as a tournament's configuration (as each league run reads them), with three
    bots."""
    data = {"tournament": {**settings["tournament"], "games_per_pairing": games_per_unit(settings)},
            "bot": [{"name": name, "sample": "random"} for name in "xyz"]}
    for table in ("time", "limits"):
        if settings.get(table):
            data[table] = settings[table]
    parse_config(data, Path("league.toml"), where="league init")


def test_the_settings_league_init_makes_pass(tmp_path):
    for flags in ((), ("--boards", "--isolation", "none"), ("--variant", "three-handed", "--option", "target=500"),
                  ("--limit", "memory=512", "--time-bank", "9000", "--read-only", str(tmp_path))):
        settings = init_settings(*flags)
        check_settings(settings)
        as_a_tournament(settings)  # (and a tournament's configuration takes them too)


BAD = [  # (what is changed in the settings, the line)
    (lambda s: s["tournament"]["options"].update(foo="1"),
     "league init: tournament: variant two-handed has no option 'foo'"),
    (lambda s: s["tournament"]["options"].update(target="many"), "league init: tournament: "),
    (lambda s: s["time"].update(bank=0), "league init: time: time bank must be positive"),
    (lambda s: s["time"].update(move=-5), "league init: time: time per move must be positive"),
    (lambda s: s.update(limits={"memory": -1}), "league init: limits: memory should be a whole number"),
    (lambda s: s.update(limits={"wings": 2}), "league init: limits: unknown limit 'wings'"),
]


@pytest.mark.parametrize("change, line", BAD)
def test_bad_settings_are_refused_in_the_line_a_tournament_gives(change, line):
    settings = init_settings("--isolation", "none")
    change(settings)
    with pytest.raises(LeagueError) as refused:
        check_settings(settings)
    with pytest.raises(ConfigError) as configured:
        as_a_tournament(settings)
    assert str(refused.value).startswith(line) and "\n" not in str(refused.value)
    assert str(refused.value) == str(configured.value)


def test_an_unknown_variant_is_named_with_the_known_ones():
    settings = init_settings()
    settings["tournament"]["variant"] = "nine-handed"
    with pytest.raises(LeagueError, match=r"^unknown variant 'nine-handed'; known: two-handed, "):
        check_settings(settings)


def test_a_jail_the_machine_cannot_give_is_refused(monkeypatch):
    from referee.bots import jail

    monkeypatch.setattr(jail, "problem", lambda: "bwrap is not installed")
    with pytest.raises(LeagueError, match=r"^league init: tournament.isolation: no jail for the bots on this "
                                          r"machine: bwrap is not installed\. "):
        check_settings(init_settings())
    check_settings(init_settings("--isolation", "none"))  # (no jail asked for)


def test_league_init_refuses_bad_settings_in_one_line_and_makes_nothing(tmp_path):
    made = arena("league", "init", tmp_path / "league", "--limit", "wings=2")
    assert made.returncode == 2 and made.stdout == ""
    assert made.stderr.strip().splitlines() == [
        "pinochle-arena: error: league init: limits: unknown limit 'wings'; limits: memory, cpu, processes, "
        "open_files, file_size, output, disk, cpus"]
    assert not (tmp_path / "league").exists()


def test_what_a_league_refuses_is_one_line_named_after_its_folder(tmp_path):
    folder = league_folder(tmp_path)
    db = LeagueDB.open(database_url(folder))
    db.set_contest_value(FINAL, "{}")  # (as if the final were planned: the deadline is fixed)
    db.close()
    for words, why in ((("deadline", folder, "--none"), "the final phase has begun: the deadline can no longer change"),
                       (("close", folder), "the final phase has begun: the contest's closing can no longer change"),
                       (("backup", folder, folder / "league.db"), f"{folder / 'league.db'} exists: give a new file")):
        refused = arena("league", *words)
        assert refused.returncode == 2 and refused.stdout == ""
        (line,) = refused.stderr.strip().splitlines()
        assert line.startswith(f"pinochle-arena: error: league {folder}: {why}"), line
    nobody = arena("league", "void", folder, "nobody", "1")  # (a LeagueError that names what it is about)
    assert nobody.returncode == 2
    assert nobody.stderr == "pinochle-arena: error: no entrant 'nobody' in this league ('league list' shows them)\n"
