"""No line the referee sends names a card its seat may not know at that moment.

Over every preset and thousands of random deals, every line sent to a seat
(events and requests, formatted exactly as on the wire) is checked against
what that seat may know *now*, kept by this test from the game state:

* cards it holds or has held (dealt, drawn, taken with the kitty, passed to
  it), as many copies of each as it has held at once;
* cards that have been face up for everybody: the turn-up, cards played,
  melded, the kitty once shown, the dummy's turned cards, the called card.

Everything else is hidden: the other hands, the stock, the kitty before it
is shown, cards passed between other seats, cards another seat buried, the
dummy before a card is turned. A line naming such a card fails the test,
and so does a line naming more copies of a card than the seat may know.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from helpers import sensible
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.match.wire import event_message, request_message, state_message
from referee.rules import PRESETS, get_variant, new_game
from referee.rules import events as ev
from referee.rules.events import DecisionKind
from referee.rules.observation import Observer

GAMES_PER_PRESET = 30  # x 8 presets: 240 random games to the target, about 2,700 deals (new seeds every run)
FACE_UP = (ev.Played, ev.Melded, ev.KittyShown, ev.KittyCardTurned, ev.DummyTaken, ev.CardCalled, ev.Exchanged)


def card_tokens(line: str) -> Counter:
    found = Counter()
    for word in line.split()[1:]:
        for piece in word.replace(":", ",").split(","):
            if len(piece) == 2 and piece[0] in "ATKQJ9" and piece[1] in "CDHS":
                found[piece] += 1
    return found


class Knowledge:
    """What each seat may know, built from the game state (not from the lines being checked)."""

    def __init__(self, players: int, copies: int):
        self.copies = copies
        self.held = [Counter() for _ in range(players)]
        self.public = Counter()

    def learn_hands(self, game) -> None:
        for seat, hand in enumerate(game.hands):
            now = Counter(c.to_text() for c in hand)
            self.held[seat] |= now  # union of Counters keeps the larger count
        turnup = getattr(game, "turnup", None)
        if turnup is not None:
            self.public[turnup.to_text()] = max(self.public[turnup.to_text()], 1)

    def show(self, line: str) -> None:
        self.public |= card_tokens(line)

    def check(self, seat: int, line: str) -> None:
        for card, count in card_tokens(line).items():
            # a copy it played is counted both as held and as public: never more than the deck has
            allowed = min(self.held[seat][card] + self.public[card], self.copies)
            assert count <= allowed, f"seat {seat} was told {card} ({count}x, may know {allowed}): {line}"


def check_game(name: str, seed: int, options: dict | None = None) -> None:
    variant = get_variant(name, options)
    game, notices = new_game(variant, seed)
    know = Knowledge(variant.players, variant.deck_copies)
    everybody = set(range(variant.players))
    shows_last = variant.name.startswith("two-handed") and variant.settings().get("last-stock-card") == "shown"

    # version 3's state line, for one seat (following every seat's events costs more than it finds: the seats
    # take every role in turn as the deal moves round)
    watched = seed % variant.players
    observer = Observer(variant, watched)

    def deliver(items, turnup_before=None, stock_before=0):
        for notice in items:
            e = notice.event
            if watched in notice.seats:
                observer.see(e)
            message = event_message(e)
            if message is None:
                continue
            line = message.to_text()
            if isinstance(e, FACE_UP):
                assert set(notice.seats) == everybody, f"a face-up card is shown to everybody: {line}"
                know.show(line)
            elif isinstance(e, ev.Drew) and e.card is not None and set(notice.seats) != {e.seat}:
                assert e.card == turnup_before or (shows_last and stock_before == 1), f"face-down draw shown: {line}"
                know.show(line)
            elif isinstance(e, ev.Buried) and None not in e.cards:
                assert notice.seats == (e.seat,), f"buried cards are the burier's secret: {line}"
            elif isinstance(e, ev.HandDealt):
                assert len(notice.seats) == 1, "a hand is dealt to its seat alone"
            for seat in notice.seats:
                know.check(seat, line)

    know.learn_hands(game)
    deliver(notices)
    choose = sensible(random.Random(seed))
    while not game.is_terminal():
        decision = game.decision()
        if decision.kind is not DecisionKind.CALL:  # a call lists cards of the whole deck, not anybody's
            meld_value = game.meld_value if decision.kind is DecisionKind.MELD else None  # version 3's points
            request = request_message(decision, 1000, 1000, meld_value).to_text()
            for token in request.split()[4:]:  # each legal action on its own (they overlap)
                know.check(decision.seat, "go " + token)
        if decision.seat == watched:
            # each card the state line names, but the unseen ones (named for their count), is one the seat may
            # know (each on its own: two tables or a trick may each show a copy)
            state = state_message(observer.observation())
            named = {card for key, value in state.fields if key != "unseen"
                     for card in value.replace("/", ",").split(",")}
            know.check(watched, "state " + ",".join(sorted(named)))
        turnup_before, stock_before = getattr(game, "turnup", None), len(getattr(game, "stock", ()))
        produced = game.apply(choose(decision))
        know.learn_hands(game)
        deliver(produced, turnup_before, stock_before)


@pytest.mark.parametrize("name", sorted(PRESETS))
@settings(max_examples=GAMES_PER_PRESET, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1))
def test_no_line_names_a_card_the_seat_may_not_know(name, seed):
    check_game(name, seed)


@pytest.mark.parametrize("name", ["two-handed-dummy", "three-handed"])
@settings(max_examples=GAMES_PER_PRESET // 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1))
def test_the_kitty_auction_turns_only_kitty_cards_face_up(name, seed):
    """003's kitty auction shows kitty cards one by one during the auction, to everybody alike."""
    check_game(name, seed, {"bidding": "kitty-auction"})


def test_the_checker_catches_a_leak():
    """The test above would notice: the other seat's hand named to a seat fails the check."""
    variant = get_variant("two-handed")
    game, _ = new_game(variant, 1)
    know = Knowledge(2, 2)
    know.learn_hands(game)
    other = " ".join(c.to_text() for c in game.hands[1])
    with pytest.raises(AssertionError, match="seat 0 was told"):
        know.check(0, "deal 1 0 - " + other)
    mine = [c.to_text() for c in game.hands[0]]
    single = next(c for c in mine if mine.count(c) == 1)
    with pytest.raises(AssertionError, match="2x"):
        know.check(0, f"deal 1 0 - {single} {single}")  # the second copy is somebody else's
