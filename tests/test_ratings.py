"""Pool ratings: Ordo's maximum-likelihood model."""

import math
import random

import pytest

from tournaments.ratings import (
    Outcome,
    expected_scores,
    needs_prior,
    pool_ratings,
    solve,
    unbounded,
)
from tournaments.stats import elo_from_score


def games(a, b, wins, draws, losses):
    return [Outcome(a, b, 1.0)] * wins + [Outcome(a, b, 0.5)] * draws + [Outcome(a, b, 0.0)] * losses


def test_two_players_rating_difference_is_the_elo_of_the_score():
    outcomes = games("x", "y", 30, 10, 20)
    r = solve(outcomes)
    assert r["x"] - r["y"] == pytest.approx(elo_from_score(35 / 60), abs=1e-6)
    assert r["x"] + r["y"] == pytest.approx(0)  # pool average 0


def test_maximum_likelihood_condition_expected_equals_actual():
    rng = random.Random(3)
    strength = {"a": 0, "b": 80, "c": 200, "d": -120, "e": 30}
    outcomes = []
    for _ in range(600):
        a, b = rng.sample(sorted(strength), 2)
        p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
        u = rng.random()
        outcomes.append(Outcome(a, b, 1.0 if u < p * 0.9 else 0.5 if u < p * 0.9 + 0.1 else 0.0))
    ratings = solve(outcomes)
    expected = expected_scores(outcomes, ratings)
    actual = {p: 0.0 for p in strength}
    for o in outcomes:
        actual[o.a] += o.score
        actual[o.b] += 1 - o.score
    for p in strength:
        assert expected[p] == pytest.approx(actual[p], abs=1e-6)
    assert sum(ratings.values()) == pytest.approx(0, abs=1e-6)


def test_anchor_pins_one_rating():
    outcomes = games("x", "y", 30, 10, 20) + games("y", "z", 25, 5, 30)
    free = solve(outcomes)
    pinned = solve(outcomes, anchor="z", anchor_rating=1500)
    assert pinned["z"] == 1500
    assert pinned["x"] - pinned["y"] == pytest.approx(free["x"] - free["y"])


def test_perfect_score_needs_a_prior_and_gets_finite_ratings():
    outcomes = games("x", "y", 10, 0, 0) + games("y", "z", 5, 2, 3)
    assert needs_prior(outcomes)
    assert not needs_prior(games("x", "y", 9, 0, 1))
    result = pool_ratings([[o] for o in outcomes], bootstrap=50)
    assert result.prior == 1.0
    assert all(abs(v) < 2000 for v in result.ratings.values())
    assert result.players[0] == "x"


def test_intervals_and_los_from_the_bootstrap():
    outcomes = games("x", "y", 60, 20, 40)
    result = pool_ratings([[o] for o in outcomes], bootstrap=200, seed=5)
    assert result.prior == 0
    assert 10 < result.errors["x"] < 80
    assert result.los[("x", "y")] > 0.9 and result.los[("y", "x")] < 0.1
    again = pool_ratings([[o] for o in outcomes], bootstrap=200, seed=5)
    assert again.errors == result.errors  # reproducible


def test_three_engine_example_with_exact_ratings():
    # Kai Laskos's check of rating programs (TalkChess, 2012): 75%, 75% and 90% over equal numbers of
    # games have an exact maximum-likelihood fixed point at +191, 0, -191 (75% is 190.85 Elo, 90% twice that).
    # EloStat compresses it to +-180; Ordo, which fits this model, reproduces it.
    outcomes = (games("Houdini", "Komodo", 24, 6, 0) + games("Houdini", "Strelka", 18, 9, 3)
                + games("Strelka", "Komodo", 18, 9, 3))
    r = solve(outcomes)
    assert r["Houdini"] == pytest.approx(elo_from_score(0.75), abs=0.01)
    assert r["Strelka"] == pytest.approx(0, abs=0.01)
    assert r["Komodo"] == pytest.approx(-elo_from_score(0.75), abs=0.01)
    assert round(r["Houdini"]) == 191


def test_level_sets_the_anchor_or_the_pool_average():
    outcomes = games("x", "y", 30, 10, 20)
    assert sum(solve(outcomes, anchor_rating=2300).values()) / 2 == pytest.approx(2300)
    assert solve(outcomes, anchor="y", anchor_rating=1000)["y"] == 1000


def test_extreme_results_are_solved_exactly():
    """A chain of near-sweeps (each bot scores 99.9% against the next, and meets no other) has its maximum at
    exactly the Elo of 99.9% between neighbours. Such results come from boards, whose scores are fractions: a
    solver that crawls there (the textbook minorization-maximization stopped 2e-5 Elo short after 100,000
    rounds, for every bootstrap sample) would stall a one-board match for minutes."""
    names = "abcdef"
    outcomes = [Outcome(names[i], names[i + 1], 0.999) for i in range(len(names) - 1)]
    r = solve(outcomes)
    for better, worse in zip(names, names[1:]):
        assert r[better] - r[worse] == pytest.approx(elo_from_score(0.999), abs=1e-7)
    assert sum(r.values()) == pytest.approx(0, abs=1e-7)


def test_players_who_never_met_are_rated_within_their_own_group():
    outcomes = games("x", "y", 30, 10, 20) + games("z", "w", 10, 0, 30)
    r = solve(outcomes)
    assert r["x"] - r["y"] == pytest.approx(elo_from_score(35 / 60), abs=1e-6)
    assert r["z"] - r["w"] == pytest.approx(elo_from_score(10 / 40), abs=1e-6)
    assert r["x"] + r["y"] == pytest.approx(0, abs=1e-6) and r["z"] + r["w"] == pytest.approx(0, abs=1e-6)


def test_groups_that_never_met_need_no_prior_but_a_group_that_swept_another_does():
    """Virtual draws are added only when no finite maximum exists. Two groups that never met each have one
    (their own); a group that won every game against another (while drawing among itself) has none, and
    every rating there is a bound, since neither group is the larger."""
    apart = games("x", "y", 3, 1, 1) + games("z", "w", 2, 0, 3)
    assert not needs_prior(apart)
    r = pool_ratings([[o] for o in apart], bootstrap=0)
    assert r.prior == 0 and r.unbounded == ()
    assert r.ratings["x"] - r.ratings["y"] == pytest.approx(elo_from_score(3.5 / 5), abs=1e-6)  # +147.2, not shrunk

    blocks = games("a", "b", 0, 4, 0) + games("c", "d", 0, 4, 0) + games("a", "c", 4, 0, 0) + games("b", "d", 4, 0, 0)
    assert needs_prior(blocks) and unbounded(blocks) == ("a", "b", "c", "d")
    one = games("x", "y", 3, 0, 0) + games("x", "z", 3, 0, 0) + games("y", "z", 2, 0, 1)
    assert unbounded(one) == ("x",)  # y and z are measured against each other; x only bounds them


def test_a_score_a_hair_below_one_is_rated_as_a_sweep_not_refused():
    """A board score of 0.9999999999999996 (a margin of some 15 S) implies a gap of 6,000 Elo, which floating
    point cannot resolve beside ordinary results (the solver's system was singular and it raised). It counts
    as a sweep: a prior makes the ratings finite and x's is marked a bound. A score 1e-6 from 1 is measured."""
    outcomes = [Outcome("x", "y", 1 - 4e-16)] + [Outcome("y", "z", 0.3)] * 3
    r = pool_ratings([[o] for o in outcomes], bootstrap=20)
    assert r.prior == 1 and r.unbounded == ("x",) and r.ratings["x"] > r.ratings["y"]

    near = [Outcome("x", "y", 1 - 1e-6)] + [Outcome("y", "z", 0.3)] * 3
    ratings = pool_ratings([[o] for o in near], bootstrap=0).ratings
    assert ratings["x"] - ratings["y"] == pytest.approx(400 * math.log10((1 - 1e-6) / 1e-6), abs=1e-3)  # +2400


def test_resamples_that_split_the_pool_are_left_out_of_the_bootstrap():
    """b and c are linked by one unit alone, in which b scored 90%: every resample that keeps the pool in one
    piece has b above c. A resample without it has two groups each centred on its own, an arbitrary gap that
    would put c above b about half the time."""
    units = [[o] for o in games("a", "b", 5, 2, 5) + games("c", "d", 5, 2, 5)] + [[Outcome("b", "c", 0.9)]]
    r = pool_ratings(units, bootstrap=200)
    assert r.los[("b", "c")] == 1.0
