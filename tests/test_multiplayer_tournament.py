"""Tournaments of three to five seats and of partnerships: seatings, teams, multi-player ratings."""

import json
from collections import Counter
from pathlib import Path

import pytest
from helpers import arena

from referee.records.record import GameRecord, SeatInfo
from tournaments.config import ConfigError, parse_config
from tournaments.multi import finishing_order, openskill_ratings, pairwise_units
from tournaments.schedule import schedule

ROOT = Path(__file__).resolve().parent.parent


def config(variant, bots=("random", "greedy", "tactician"), games=None, teams=None, **tournament):
    # (a seed as a run draws one when it starts: no deal is made before, see test_tournament.py)
    data = {"tournament": {"variant": variant, "seed": 1, **tournament}, "bot": [{"name": b, "sample": b} for b in bots]}
    if games is not None:
        data["tournament"]["games_per_pairing"] = games
    if teams is not None:
        data["team"] = teams
    return parse_config(data, ROOT / "x.toml")


def test_three_handed_plays_every_deal_in_all_six_seatings():
    games = schedule(config("three-handed", games=12))
    assert len(games) == 12  # one table of three bots, two deals
    for deal in (1, 2):
        group = [g for g in games if g.pair == deal]
        assert len(group) == 6 and len({g.seed for g in group}) == 1
        assert len({g.seating for g in group}) == 6
        for seat in range(3):  # every bot holds every seat's hand of this deal twice (6 orders / 3 bots)
            assert Counter(g.seating[seat] for g in group) == Counter({"random": 2, "greedy": 2, "tactician": 2})


def test_three_handed_games_per_table_must_be_a_multiple_of_six():
    with pytest.raises(ConfigError, match="multiple of 6"):
        config("three-handed", games=8)


def test_five_players_rotate_through_five_seatings():
    games = _five()
    assert len(games) == 5
    for seat in range(5):
        assert len({g.seating[seat] for g in games}) == 5  # each bot holds each seat's hand once


def _five():
    data = {"tournament": {"variant": "call-for-partner", "games_per_pairing": 5, "seed": 1},
            "bot": [{"name": n, "sample": s} for n, s in
                    (("a", "random"), ("b", "greedy"), ("c", "random"), ("d", "greedy"), ("e", "random"))]}
    return schedule(parse_config(data, ROOT / "x.toml"))


def test_partnership_teams_play_both_sides_of_each_deal():
    teams = [{"name": "g", "bots": ["greedy", "greedy"]}, {"name": "m", "bots": ["tactician", "random"]}]
    cfg = config("four-handed", games=4, teams=teams)
    games = schedule(cfg)
    assert len(games) == 4
    first, second = games[0], games[1]
    assert first.seed == second.seed
    assert first.sides == ("g", "m", "g", "m") and second.sides == ("m", "g", "m", "g")
    assert first.seating == ("g.1", "m.1", "g.2", "m.2")
    assert first.bots == ("greedy", "tactician", "greedy", "random")
    seats = cfg.seat_entrants()
    assert set(seats) == {"g.1", "g.2", "m.1", "m.2"} and seats["m.2"].command == SAMPLE_CMD("random")


def SAMPLE_CMD(name):
    from referee.bots.samples import SAMPLES

    return SAMPLES[name].command()


def test_partnership_without_teams_pairs_each_bot_with_a_copy_of_itself():
    cfg = config("four-handed", games=2)
    assert [t.bots for t in cfg.teams] == [("random", "random"), ("greedy", "greedy"), ("tactician", "tactician")]


@pytest.mark.parametrize("teams, message", [
    ([{"name": "x", "bots": ["greedy"]}], "should name two bots"),
    ([{"name": "x", "bots": ["greedy", "nobody"]}], "no bot named 'nobody'"),
    ([{"name": "x", "bots": ["greedy", "greedy"]}, {"name": "x", "bots": ["random", "random"]}], "repeated: x"),
])
def test_bad_teams(teams, message):
    with pytest.raises(ConfigError, match=message):
        config("four-handed", games=2, teams=teams)


def test_teams_only_in_partnership_variants():
    with pytest.raises(ConfigError, match="only applies to partnership variants"):
        config("three-handed", games=6, teams=[{"name": "x", "bots": ["greedy", "greedy"]}])


def record(seats, result, totals, sides=None, seed=1, game_id="g"):
    return GameRecord(game_id=game_id, variant="three-handed", options={}, seed=seed,
                      seats=[SeatInfo(s, s, s) for s in seats], time_control={}, result=tuple(result),
                      totals=tuple(totals), extra={"sides": sides} if sides else {})


def test_finishing_order_by_result_then_total():
    r = record(["a", "b", "c"], (0.0, 1.0, 0.0), (120, 160, 120))
    assert finishing_order(r) == [("b", 1), ("a", 2), ("c", 2)]
    r = record(["a", "b", "c"], (0.0, 1.0, 0.0), (90, 160, 120))
    assert finishing_order(r) == [("b", 1), ("c", 2), ("a", 3)]
    team = record(["x.1", "y.1", "x.2", "y.2"], (1.0, 0.0, 1.0, 0.0), (150, 90, 150, 90), sides=["x", "y", "x", "y"])
    assert finishing_order(team) == [("x", 1), ("y", 2)]


def test_pairwise_units_group_a_deal_and_openskill_ranks_the_winner_first():
    games = [record(["a", "b", "c"], (1.0, 0.0, 0.0), (150, 100, 90), seed=s, game_id=f"g{s}{i}")
             for s in (1, 2) for i in range(3)]
    units = pairwise_units(games)
    assert len(units) == 2 and all(len(u) == 9 for u in units)  # 3 games x 3 pairs per deal
    rows = openskill_ratings(games)
    assert [r.name for r in rows] == ["a", "b", "c"]
    assert rows[0].wins == 6 and rows[0].mean_place == 1.0


@pytest.mark.parametrize("example", ["three_handed.toml", "partnership.toml"])
def test_example_configs_run_and_print_multiplayer_ratings(example, tmp_path):
    games = {"three_handed.toml": "6", "partnership.toml": "4"}[example]  # one deal per table: half the example's
    run = arena("tournament", str(ROOT / "tournaments" / example), "--out", str(tmp_path / "t"), "--bootstrap", "50",
                "--games", games, "--option", "max-hands=2")  # two hands a game: the tables, not long games
    assert run.returncode == 0, run.stderr
    assert "Multi-player ratings" in run.stdout and "openskill" in run.stdout and "Pairwise Elo" in run.stdout
    data = json.loads((tmp_path / "t" / "ratings.json").read_text())
    assert data["openskill"] and data["pairwise_elo"]
    if example == "partnership.toml":
        assert "Individual bots" in run.stdout and {r["name"] for r in data["individual"]} == {"greedy", "tactician", "random"}
        assert "Individual crosstable" in run.stdout
    assert "fault" not in run.stdout.split("written:")[1]
    ratings = arena("ratings", str(tmp_path / "t"), "--bootstrap", "20")
    assert ratings.returncode == 0 and "Multi-player ratings" in ratings.stdout
