"""The seatings of one deal for one bot are never played at once: the runner holds a game back while another
game of its deal with one of its bots is in play (docs/competition.md, Running a competition)."""

from __future__ import annotations

import collections

import pytest
from helpers import play_tournament

from referee.match.stream import SeatingsApart
from tournaments.schedule import GameSpec


def spec(game_id, seed, bots):
    return GameSpec(game_id, bots, seed, bots, 1, bots=bots)


def test_a_game_waits_while_its_deal_is_in_play_for_one_of_its_bots():
    apart = SeatingsApart(collections.deque([spec("ab-1a", 1, ("a", "b")), spec("ab-1b", 1, ("b", "a")),
                                             spec("ac-1a", 1, ("a", "c")), spec("cd-1a", 1, ("c", "d")),
                                             spec("ab-2a", 2, ("a", "b"))]))
    assert apart.take().game_id == "ab-1a"
    assert apart.take().game_id == "cd-1a"  # ab-1b and ac-1a deal deal 1 to a (or b) again: they wait
    assert apart.take().game_id == "ab-2a"  # another deal
    assert apart.take() is None
    apart.done("ab-1a")
    assert apart.take().game_id == "ab-1b"
    assert apart.take() is None  # ac-1a: a holds deal 1 in ab-1b now
    apart.done("ab-1b")
    assert apart.take() is None  # ac-1a: c holds deal 1 in cd-1a
    apart.done("cd-1a")
    assert apart.take().game_id == "ac-1a"
    assert not apart.todo


@pytest.mark.parametrize("processes", [1, 2])
def test_a_tournament_at_concurrency_two_never_plays_two_seatings_of_a_deal_at_once(processes, tmp_path):
    data = {"tournament": {"games_per_pairing": 4, "concurrency": 2, "processes": processes, "seed": 3,
                           "options": {"target": 200}},
            "bot": [{"name": "random", "sample": "random"}, {"name": "greedy", "sample": "greedy"}]}
    games, records = play_tournament(data, tmp_path)
    assert sorted(r.game_id for r in records) == sorted(g.game_id for g in games)
    by_deal = collections.defaultdict(list)
    for r in records:
        by_deal[r.seed].append(r)
    for seatings in by_deal.values():
        first, second = sorted(seatings, key=lambda r: r.started)
        # the second seating began only once the first had ended (its end is noted after its last line)
        assert second.started >= first.started + first.seconds - 0.05
