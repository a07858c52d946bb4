"""Invariants over many seeded random games of every preset (hypothesis picks the seeds)."""

from collections import Counter

import pytest
from helpers import random_playout
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import PRESETS, action_from_text, get_variant, new_game
from referee.rules import events as ev
from referee.rules.cards import make_deck


def games(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# About 2,500 complete random games (over 10,000 hands) across the presets in all.
seeds = st.integers(min_value=0, max_value=2**63 - 1)
STOCK_PRESETS = sorted(n for n, v in PRESETS.items() if v.family == "stock")  # the bidding games: test_auction_game.py
presets = st.sampled_from(STOCK_PRESETS)


def all_cards(game):
    held = [c for h in game.hands for c in h]
    table = [c for b in game.boards for c in b.cards()]
    stock = list(game.stock) + ([game.turnup] if game.turnup is not None else [])
    trick = [p.card for _, p in game.trick]
    captured = [c for pile in game.captured for c in pile]
    return Counter(held + table + stock + trick + captured)


@games(400)
@given(seed=seeds, name=presets)
def test_cards_conserved_and_a_legal_action_always_exists(seed, name):
    variant = get_variant(name)
    deck = Counter(make_deck(variant.deck_copies, variant.deck_ranks))

    def check(game, decision, action, produced):
        if not game.is_terminal():
            assert game.decision().legal
            assert all_cards(game) == deck

    game, actions, _ = random_playout(variant, seed, on_step=check)
    assert game.is_terminal()
    assert sorted(game.returns()) in ([0.0, 1.0], [0.5, 0.5])


@games(1000)
@given(seed=seeds, name=presets)
def test_trick_points_per_hand_are_constant(seed, name):
    variant = get_variant(name)
    expected = variant.trick_points_per_hand
    assert expected == (250 if variant.counting != "1-1-1" else 25)
    _, _, log = random_playout(variant, seed)
    per_hand, melds, bonus = 0, 0, 0
    for notice in log:
        e = notice.event
        if isinstance(e, ev.TrickWon):
            per_hand += e.points
        elif isinstance(e, ev.Melded):
            melds += e.points
        elif isinstance(e, ev.Scored):
            bonus += e.points
        elif isinstance(e, ev.Claimed):
            return  # a claim ends the hand early
        elif isinstance(e, ev.HandEnded):
            assert per_hand + variant.last_trick == expected
            assert sum(e.points) == expected + melds + bonus
            per_hand, melds, bonus = 0, 0, 0


@games(400)
@given(seed=seeds, name=presets)
def test_replay_from_seed_and_action_texts_reproduces_the_game(seed, name):
    variant = get_variant(name)
    game, actions, log = random_playout(variant, seed)
    again, notices = new_game(variant, seed)
    replayed = list(notices)
    for seat, action in actions:
        assert again.current_seat() == seat
        replayed += again.apply(action_from_text(action.to_text()))
    assert replayed == log
    assert again.totals == game.totals and again.deals == game.deals


def card_tokens(line: str) -> list[str]:
    """Card names in a protocol line, including inside action tokens like table:AS or royal:KH,QH."""
    found = []
    for word in line.split()[1:]:
        for piece in word.replace(":", ",").split(","):
            if len(piece) == 2 and piece[0] in "ATKQJ9" and piece[1] in "CDHS":
                found.append(piece)
    return found




@pytest.mark.parametrize("name", STOCK_PRESETS)
def test_many_games_finish(name):
    """A plain loop (no shrinking) over many seeds: every game ends with a result."""
    variant = get_variant(name)
    for seed in range(60):
        game, _, _ = random_playout(variant, seed)
        assert game.is_terminal()
