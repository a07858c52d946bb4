"""Match statistics against published values and against their own definitions."""

import math

import pytest

from tournaments.stats import (
    Sprt,
    elo_estimate,
    elo_from_score,
    llr_logistic,
    los_from_wdl,
    mean_interval,
    score_from_elo,
)


def test_fishtest_published_example():
    # fishtest: W136 L96 D111 -> +40.70 +/- 30.43, LOS 99.60%
    e = elo_estimate([96, 111, 136])
    assert round(e.elo, 2) == 40.70
    assert round(e.elo95, 2) == 30.43
    assert round(100 * e.los, 2) == 99.60
    assert e.games == 343 and e.model == "trinomial"


def test_elo_and_score_are_inverse():
    for elo in (-400, -35.5, 0, 12, 200.24094022767414, 600):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    assert score_from_elo(200.24094022767414) == pytest.approx(0.76)  # Ordo's -z 200.24...: 76% at that difference


def test_pentanomial_score_counts_games_not_pairs():
    # 10 pairs: LL, 2 x LD, 4 x (WL or DD), 2 x DW, WW -> 20 games scoring 10 points
    e = elo_estimate([1, 2, 4, 2, 1])
    assert e.games == 20 and e.score == pytest.approx(0.5) and e.model == "pentanomial"
    assert elo_estimate([0, 0, 0, 3, 1]).score == pytest.approx((3 * 1.5 + 2) / 8, abs=1e-3)  # empty cells get 1e-3


def test_correlated_pairs_give_a_narrower_interval():
    # 100 pairs, 94 of which split (W+L): the same 200 games (98 W, 4 D, 98 L) counted as pairs vary far less.
    # (When every pair splits there is no spread at all, and no interval: tests/test_stats_edges.py.)
    split = elo_estimate([1, 2, 94, 2, 1])
    independent = elo_estimate([98, 4, 98])
    assert split.score == pytest.approx(0.5) and independent.score == pytest.approx(0.5)
    assert split.elo95 < independent.elo95 / 4


def test_los_from_decisive_games():
    assert los_from_wdl(10, 10) == pytest.approx(0.5)
    assert los_from_wdl(136, 96) == pytest.approx(0.9957, abs=1e-4)


def test_llr_exact_agrees_with_the_gsprt_approximation():
    results = [10789, 19328, 33806, 19402, 10543]
    exact = llr_logistic(-3, 1, results)
    # fishtest's LLR_alt2 approximation: N (s1 - s0)(2s - s0 - s1) / (2 var), on the pair-score scale
    n = sum(results)
    pdf = [(i / 4, r / n) for i, r in enumerate(results)]
    mean = sum(a * p for a, p in pdf)
    var = sum(p * (a - mean) ** 2 for a, p in pdf)
    s0, s1 = score_from_elo(-3), score_from_elo(1)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / var / 2
    assert exact == pytest.approx(approx, rel=0.02)
    assert exact == pytest.approx(2.131, abs=0.005)


def test_sprt_bounds_and_verdicts():
    test = Sprt(0, 5, 0.05, 0.05)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95))
    assert test.upper == pytest.approx(math.log(0.95 / 0.05))
    assert test.verdict([0, 0, 0, 0, 0]) is None
    assert test.verdict([0, 10, 100, 300, 50]) == "H1"
    assert test.verdict([50, 300, 100, 10, 0]) == "H0"
    with pytest.raises(ValueError):
        Sprt(5, 0)


def test_mean_interval():
    mean, half = mean_interval([1, 2, 3, 4, 5])
    assert mean == 3
    assert half == pytest.approx(1.959964 * math.sqrt(2.5 / 5))


def test_normalized_elo_is_the_scaled_t_value():
    # nElo = 800 / ln 10 * (score - 0.5) / sd per game; for fishtest's W136 L96 D111: 49.77
    e = elo_estimate([96, 111, 136])
    n = 343
    mean = (136 + 0.5 * 111) / n
    sd = math.sqrt((136 * (1 - mean) ** 2 + 111 * (0.5 - mean) ** 2 + 96 * mean**2) / n)
    assert e.nelo == pytest.approx(800 / math.log(10) * (mean - 0.5) / sd)
    assert round(e.nelo, 2) == 49.77
