"""Invariants over many seeded random games of every preset (hypothesis picks the seeds)."""

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import random_playout
from referee.rules import PRESETS, action_from_text, get_variant, new_game
from referee.rules import events as ev
from referee.rules.cards import make_deck
from referee.wire import event_message

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


@games(500)
@given(seed=seeds, name=presets)
def test_no_message_reveals_a_hidden_card(seed, name):
    """Every card named in a line sent to a seat is one that seat holds or has held,
    or one that has been face up on the table (played, melded, turned up, shown)."""
    variant = get_variant(name)
    game, notices = new_game(variant, seed)
    import random

    rng = random.Random(seed)
    public: set[str] = set()
    held = [set(), set()]

    def learn(game):
        for seat in (0, 1):
            held[seat] |= {c.to_text() for c in game.hands[seat]}
        if game.turnup is not None:
            public.add(game.turnup.to_text())

    shows_last = variant.last_stock_card.value == "shown"

    def deliver(notices, turnup_before=None, stock_before=0):
        for n in notices:
            e = n.event
            if isinstance(e, ev.Drew) and e.card is not None and set(n.seats) != {e.seat}:
                # only a face-up card may be shown to others: the turn-up, or 001's shown last card
                assert e.card == turnup_before or (shows_last and stock_before == 1), f"draw of {e.card} shown"
                public.add(e.card.to_text())
            message = event_message(e)
            if message is None:
                continue
            line = message.to_text()
            if isinstance(e, (ev.Played, ev.Melded, ev.Exchanged)):
                assert set(n.seats) == {0, 1}, "a card put face up on the table is seen by everybody"
                public.update(card_tokens(line))
            for seat in n.seats:
                for token in card_tokens(line):
                    assert token in held[seat] or token in public, f"seat {seat} was told {token!r}: {line}"

    learn(game)
    deliver(notices)
    while not game.is_terminal():
        action = rng.choice(game.decision().legal)
        turnup_before, stock_before = game.turnup, len(game.stock)
        produced = game.apply(action)
        learn(game)
        deliver(produced, turnup_before, stock_before)
    # and the deal itself: a seat's deal names exactly its own twelve cards
    for n in notices:
        if isinstance(n.event, ev.HandDealt):
            assert len(n.seats) == 1


@pytest.mark.parametrize("name", STOCK_PRESETS)
def test_many_games_finish(name):
    """A plain loop (no shrinking) over many seeds: every game ends with a result."""
    variant = get_variant(name)
    for seed in range(60):
        game, _, _ = random_playout(variant, seed)
        assert game.is_terminal()
