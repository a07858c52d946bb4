"""The rating systems behind one interface (tournaments.systems), the one Elo scale and the one linear solve."""

import math
import random

import pytest
from helpers import arena

import league.ratings  # noqa: F401  (enters the league's fit in the table)
from league.ratings import fit
from referee.records.record import GameRecord, SeatInfo
from tournaments.elo import ELO_PER_DECADE, NATURAL, ORDO_SCALE, elo_from_score, score_from_elo, solve_linear
from tournaments.multi import openskill_ratings
from tournaments.ratings import pool_ratings
from tournaments.report import units
from tournaments.summary import games_of, rate
from tournaments.systems import SYSTEMS, RatingTable, rating_system


def two_player(seed: int = 5, deals: int = 30) -> list[GameRecord]:
    """Duplicate pairs among three bots of different strengths."""
    rng = random.Random(seed)
    strength = {"ann": 150, "bob": 0, "cy": -100}
    out = []
    for deal in range(deals):
        a, b = rng.sample(sorted(strength), 2)
        for swap in (False, True):
            won = rng.random() < score_from_elo(strength[a] - strength[b])
            seats, result = ([b, a], (1.0 - won, float(won))) if swap else ([a, b], (float(won), 1.0 - won))
            out.append(GameRecord(f"g{deal}-{int(swap)}", "two-handed", {}, deal, [SeatInfo(s, s, s) for s in seats],
                                  {}, result=result, totals=(100, 90)))
    return out


def test_the_scale_is_spelt_once_and_agrees_with_itself():
    assert NATURAL * math.log(10) == pytest.approx(ELO_PER_DECADE)
    assert score_from_elo(ORDO_SCALE) == pytest.approx(0.76)  # Ordo's -z: the better side scores 76% at that gap
    assert elo_from_score(score_from_elo(123.4)) == pytest.approx(123.4)
    assert score_from_elo(NATURAL) == pytest.approx(1 / (1 + math.exp(-1)))  # one natural unit of log-odds


def test_the_linear_solve_solves_and_refuses_a_singular_system():
    assert solve_linear([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]) == pytest.approx([0.8, 1.4])
    assert solve_linear([], []) == []
    with pytest.raises(ValueError, match="undetermined"):
        solve_linear([[1.0, 1.0], [1.0, 1.0]], [1.0, 2.0])


def test_every_system_in_the_table_rates_the_same_games_and_orders_them_alike():
    games = games_of(two_player())
    assert {"elo", "openskill", "bradley-terry"} <= set(SYSTEMS)
    for name, system in SYSTEMS.items():
        table = system.rate(games, bootstrap=50)
        assert isinstance(table, RatingTable) and table.system == name == system.name
        assert [row.name for row in table.rows] == ["ann", "bob", "cy"], name  # the made-up strengths' order
        assert [row.rating for row in table.rows] == sorted((row.rating for row in table.rows), reverse=True)
        assert all(row.interval is None or row.interval[0] < row.rating < row.interval[1] for row in table.rows)


def test_the_elo_system_is_the_pool_maximum_likelihood():
    records = two_player()
    table = rate(records, "elo", bootstrap=60)
    pool = pool_ratings(units(records), bootstrap=60)
    assert {row.name: (row.rating, row.interval, row.games) for row in table.rows} == {
        p: (pool.ratings[p], pool.intervals[p], pool.games[p]) for p in pool.players}


def test_the_bradley_terry_system_is_the_leagues_fit_and_an_anchor_is_pinned():
    records = two_player()
    names = ["ann", "bob", "cy"]
    league_fit = fit([[(names.index(s.entrant), r.result[i]) for i, s in enumerate(r.seats)] for r in records])
    table = rate(records, "bradley-terry")
    assert {row.name: row.rating for row in table.rows} == pytest.approx(
        {name: league_fit[i].rating for i, name in enumerate(names)})
    pinned = rate(records, "bradley-terry", anchor="bob", level=1500)
    by_name = {row.name: row for row in pinned.rows}
    assert by_name["bob"].rating == 1500 and by_name["bob"].interval is None  # fixed by definition
    assert by_name["ann"].rating - 1500 == pytest.approx(league_fit[0].rating - league_fit[1].rating)


def test_the_openskill_system_is_the_multi_player_reports_and_refuses_what_it_cannot_rate():
    records = two_player()
    table = rate(records, "openskill")
    assert [(row.name, row.rating) for row in table.rows] == [(r.name, r.mu) for r in openskill_ratings(records)]
    with pytest.raises(ValueError, match="no anchor"):
        rate(records, "openskill", anchor="bob")
    with pytest.raises(ValueError, match="there are: bradley-terry, elo, openskill"):
        rating_system("glicko")


def test_ratings_picks_a_system_by_name(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "games.jsonl").write_text("".join(r.to_json() + "\n" for r in two_player()), encoding="utf-8")
    shown = arena("ratings", str(folder), "--no-verify", "--system", "bradley-terry", "--out", str(tmp_path / "o"))
    assert shown.returncode == 0, shown.stderr
    assert "Bradley-Terry with a normal prior" in shown.stdout and "| 1      | ann " in shown.stdout
    assert (tmp_path / "o" / "ratings.csv").read_text().startswith("rank,entrant,rating,95% interval,results\n1,ann,")
    wrong = arena("ratings", str(folder), "--no-verify", "--system", "glicko")
    assert wrong.returncode == 2 and "no rating system 'glicko'" in wrong.stderr and "Traceback" not in wrong.stderr
