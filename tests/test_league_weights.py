"""The league's working fit gives every game one unit of weight, whatever its seats."""

import random

import pytest

from league.ratings import comparisons, fit, tally


def _weight(games) -> float:
    return sum(weight for _points, weight in tally(games).pairs.values())


def test_a_four_handed_game_weighs_what_a_two_handed_game_with_the_same_outcome_weighs():
    two = [(1, 0.7), (2, 0.3)]
    partnership = [(1, 0.7), (2, 0.3), (1, 0.7), (2, 0.3)]  # each side a version in two seats
    assert tally([partnership]).pairs == tally([two]).pairs == {(1, 2): [1.0, 1.0]}
    assert _weight([[(1, 0.5), (2, 0.3), (3, 0.2)]]) == pytest.approx(1.0)  # cutthroat: three comparisons


def test_partners_of_one_version_are_not_compared_with_each_other():
    compared = comparisons([(1, 0.7), (2, 0.3), (1, 0.7), (2, 0.3)])
    assert sorted(tuple(sorted((a, b))) for (a, _), (b, _) in compared) == [(1, 2)] * 4  # across the table only
    assert _weight([[(4, 0.5), (4, 0.5)]]) == 0


TOLERANCE = 0.01  # Elo; with the 4/3 weight of before, every interval here was 13% (3 to 3.5 Elo) narrower


def test_a_league_of_four_handed_games_has_the_interval_of_as_many_two_seat_games():
    rng = random.Random(56)
    strength = {1: 0.0, 2: 0.3, 3: 0.6, 4: 1.0}
    two_seat, four_seat = [], []
    for _ in range(300):
        a, b = rng.sample(sorted(strength), 2)
        won = rng.random() < 1 / (1 + 10 ** (strength[b] - strength[a]))
        share = 0.6 if won else 0.4
        two_seat.append([(a, share), (b, 1 - share)])
        four_seat.append([(a, share), (b, 1 - share), (a, share), (b, 1 - share)])
    pairs, fours = fit(two_seat), fit(four_seat)
    for version in strength:
        assert fours[version].sigma == pytest.approx(pairs[version].sigma, abs=TOLERANCE)
        assert fours[version].rating == pytest.approx(pairs[version].rating, abs=TOLERANCE)
        assert 15 < pairs[version].sigma < 100  # a real interval, not the prior's
