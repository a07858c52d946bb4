"""The analysis of the decisions before the tricks (bids, calls, passing, burying, melds) and of the bidding games'
exact last tricks (analysis/rollout.py, analysis/exact.py; docs/analysis.md).

Cheap on purpose: a tiny budget, and each test values a few decisions of one or two games.
"""

from __future__ import annotations

import copy
import random
import sys

import attrs
import pytest
from test_analysis import RandomPlayer, record_of

from analysis import Budget, analyse_record
from analysis.exact import best_play, enumerate_worlds
from analysis.values import Searcher
from referee.bots.samples import SAMPLE_DIR
from referee.records.deals import record_decks
from referee.records.record import GameRecord
from referee.rules import PRESETS, Claim, action_from_text, new_game
from referee.rules.state import GameState

sys.path.insert(0, str(SAMPLE_DIR))
from greedy_bot import Bot as Greedy  # noqa: E402  (a sample bot, not a package: found by its folder)

TINY = Budget(worlds=64, batches=8, seed=1)  # 8 worlds a rolled-out decision: enough to tell a blunder


class OverBidder(Greedy):
    """Greedy, except that it bids the highest legal amount whenever it may bid: a contract it cannot make."""

    def choose_bid(self, legal):
        bids = [t for t in legal if t.startswith("bid:")]
        if not bids:
            return "pass"
        high = bids[-1][4:].split("..")[-1].split("/")[0]
        return f"bid:{high}"


def positions(record: GameRecord):
    """Each decision of ``record`` in order: (action number, the game before it, the action played)."""
    variant = PRESETS[record.variant]
    game, _ = new_game(variant, record.seed, record_decks(record, variant))
    for number, entry in enumerate(record.actions, 1):
        action = action_from_text(entry.action)
        yield number, game, action
        game.apply(action)


def hidden(game: GameState, seat: int) -> tuple:
    """What ``seat`` cannot see of ``game``: the other hands and the face-down piles."""
    hands = tuple(tuple(sorted(c.to_text() for c in h)) for s, h in enumerate(game.hands) if s != seat)
    piles = tuple(tuple(c.to_text() for c in getattr(game, name, ())) for name in ("stock", "kitty", "buried"))
    return hands, piles


@pytest.mark.parametrize(("name", "kinds"), [("call-for-partner", {"bid", "call", "give"}),
                                             ("three-handed", {"bury"}), ("two-handed", {"meld"})])
def test_bids_calls_passing_burying_and_melds_are_valued_from_the_seats_view_only(name, kinds):
    """The first decision of each kind valued in the real game and in a game whose hidden cards were dealt anew
    consistently with the seat's view (its observation the same, the other hands not): the same values."""
    players = [Greedy() for _ in range(PRESETS[name].players)]
    record = record_of(name, 2, players, [f"s{i}" for i in range(len(players))], actions=60)
    searcher, rng, left = Searcher(PRESETS[name], TINY), random.Random(0), set(kinds)
    for number, game, action in positions(record):
        d = game.decision()
        if d.kind.value not in left:
            continue
        other = game.determinize(d.seat, rng)
        assert other.observation(d.seat) == game.observation(d.seat)
        assert hidden(other, d.seat) != hidden(game, d.seat)
        valued = searcher.value(game, f"g:{number}", action)
        assert valued is not None and valued.actions.count(action.to_text()) == 1
        assert searcher.value(other, f"g:{number}", action) == valued
        left.discard(d.kind.value)
    assert not left, f"no decision of {left} in the record"


def test_the_last_tricks_of_the_bidding_games_are_exact_and_read_only_the_seats_view():
    """Where few worlds agree with the view, the last tricks are searched to the end of the hand in each: no noise,
    and the same values with the hidden cards dealt anew."""
    record = record_of("three-handed", 5, [Greedy(), Greedy(), Greedy()], ["a", "b", "c"], actions=60)
    searcher, rng, checked = Searcher(PRESETS["three-handed"], TINY), random.Random(1), 0
    for number, game, action in positions(record):
        if game.decision().kind.value not in ("lead", "follow") or len(game.hands[game.decision().seat]) > 3:
            continue
        valued = searcher.value(game, f"g:{number}", action)
        if valued is None or not valued.exact:
            continue
        assert valued.noise == (0.0,) * len(valued.actions)
        other = game.determinize(game.decision().seat, rng)
        assert searcher.value(other, f"g:{number}", action) == valued
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_where_the_view_leaves_one_world_the_exact_value_is_best_play_of_the_true_hands():
    """Every world the sampler may draw is among those enumerated; where the enumeration finds one, each card's value
    is the hand's result under best play of the true game (the test may look at the hidden cards: it is the oracle)."""
    one_world = 0
    for seed in (10, 1, 2):  # the first hand of each (seed 10's has two such decisions)
        if one_world >= 2:
            break
        record = record_of("three-handed", seed, [Greedy(), Greedy(), Greedy()], ["a", "b", "c"], actions=70)
        searcher = Searcher(PRESETS["three-handed"], TINY)
        for number, game, action in positions(record):
            d = game.decision()
            if d.kind.value not in ("lead", "follow") or len(game.hands[d.seat]) > 2 or len(d.legal) < 2:
                continue
            sampler = game.observation(d.seat).sampler()
            worlds = enumerate_worlds(sampler, 1_000)
            assert worlds is not None
            dealt = [w.hands for _, w in worlds]
            assert len(set(dealt)) == len(dealt)
            for _ in range(20):
                assert sampler.sample(random.Random(number + _)).hands in dealt
            if len(worlds) != 1:
                continue
            valued = searcher.value(game, f"g:{number}", action)
            assert valued is not None and valued.exact
            for text, value in zip(valued.actions, valued.values):
                true = copy.deepcopy(game)
                true.apply(action_from_text(text))
                assert value == pytest.approx(best_play(true, d.seat))
            one_world += 1
    assert one_world >= 2


def test_a_planted_overbid_is_marked():
    """A seat that bids the highest amount there is, a contract nobody makes: a blunder, against passing."""
    record = record_of("three-handed", 3, [OverBidder(), Greedy(), Greedy()], ["over", "b", "c"], actions=10)
    number = next(i for i, e in enumerate(record.actions, 1) if e.seat == 0 and e.action.startswith("bid:"))
    (weighed,) = analyse_record(record, {0}, TINY, only={number})
    assert weighed.kind == "bid" and weighed.values is not None
    assert weighed.mark == "blunder" and weighed.best != weighed.chosen, weighed
    assert weighed.loss > 10 * weighed.noise


def test_a_forced_choice_is_never_valued_or_marked():
    """A decision with one legal action (claims aside) has nothing to weigh, in every kind and phase."""
    record = record_of("two-handed", 3, [RandomPlayer(3), Greedy()], ["random", "greedy"])
    forced = {n for n, game, _ in positions(record)
              if len([a for a in game.decision().legal if not isinstance(a, Claim)]) == 1}
    assert len(forced) >= 3
    for weighed in analyse_record(record, {0, 1}, TINY, only=forced):
        assert weighed.values is None and weighed.mark == "" and weighed.loss == 0.0


def test_a_stuck_dealers_lowest_bid_is_not_weighed():
    """Everyone else passed and the dealer must bid: any bid but the lowest only raises its own contract, so the
    lowest has nothing to be weighed against (a higher one would be, against the lowest)."""
    record = record_of("call-for-partner", 1, [Greedy() for _ in range(5)], [f"s{i}" for i in range(5)], actions=6)
    assert [e.action for e in record.actions[:5]] == ["pass"] * 4 + ["bid:50"]
    (weighed,) = analyse_record(record, {0}, TINY, only={5})
    assert weighed.kind == "bid" and weighed.values is None and weighed.mark == ""


def test_a_large_choice_weighs_the_card_played_and_the_policys_favourites_whatever_the_seed():
    """A card to pass among more than six: the card passed and the policy's favourites, the same under two seeds
    (so a second seed weighs the same choices, and only the worlds differ)."""
    record = record_of("call-for-partner", 2, [Greedy() for _ in range(5)], [f"s{i}" for i in range(5)], actions=20)
    number, seat = next((i, e.seat) for i, e in enumerate(record.actions, 1) if e.action.startswith("give:"))
    one, = analyse_record(record, {seat}, TINY, only={number})
    other, = analyse_record(record, {seat}, attrs.evolve(TINY, seed=2), only={number})
    assert one.kind == "give" and one.values is not None and len(one.values) == 6
    assert one.chosen in one.values and set(one.values) == set(other.values) and one.values != other.values
