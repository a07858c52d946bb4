"""Shared test helpers: stacked decks and random playouts."""

from __future__ import annotations

import random
from collections import Counter

from referee.rules import cards, new_game
from referee.rules.actions import Bid, Claim, Pass
from referee.rules.cards import Card, make_deck, sort_cards
from referee.rules.events import DecisionKind


def stacked_deck(variant, non_dealer: str, dealer: str, turnup: str, stock: str = "") -> list[Card]:
    """A deck that deals the given hands (in threes, non-dealer first), the turn-up and the
    stock (top first); the rest of the stock is filled with the remaining cards."""
    first, second = cards(non_dealer), cards(dealer)
    packet = variant.deal_packet
    deck: list[Card] = []
    for i in range(0, variant.hand_size, packet):
        deck += first[i:i + packet] + second[i:i + packet]
    deck.append(cards(turnup)[0])
    deck += cards(stock)
    rest = Counter(make_deck(variant.deck_copies, variant.deck_ranks))
    rest.subtract(Counter(deck))
    if any(n < 0 for n in rest.values()):
        raise ValueError(f"stacked deck uses a card too often: {[c for c, n in rest.items() if n < 0]}")
    deck += sort_cards(rest.elements())
    return deck


def random_playout(variant, seed: int, rng: random.Random | None = None, on_step=None):
    """Play a whole game with uniformly random legal actions; return (game, actions, all notices)."""
    rng = rng or random.Random(seed)
    game, notices = new_game(variant, seed)
    log = list(notices)
    actions = []
    while not game.is_terminal():
        decision = game.decision()
        assert decision.legal, "a seat to act must have a legal action"
        action = rng.choice(decision.legal)
        actions.append((decision.seat, action))
        produced = game.apply(action)
        log.extend(produced)
        if on_step is not None:
            on_step(game, decision, action, produced)
    return game, actions, log


def sensible(rng: random.Random):
    """Random play that bids like a person (mostly pass, else the lowest legal bid), so auctions end,
    and seldom claims where a variant allows it (a random claim ends the game after one deal)."""
    def choose(decision):
        if Claim() in decision.legal and len(decision.legal) > 1 and rng.random() < 0.98:
            return rng.choice([a for a in decision.legal if a != Claim()])
        if decision.kind is DecisionKind.BID:
            bids = [a for a in decision.legal if isinstance(a, Bid)]
            if bids and (rng.random() < 0.35 or Pass() not in decision.legal):
                return bids[0]
            return Pass() if Pass() in decision.legal else bids[0]
        return rng.choice(decision.legal)
    return choose
