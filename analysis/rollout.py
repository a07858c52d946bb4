"""The decisions before the tricks valued by playing the hand out: bids, calls, passing, burying, melds.

For each candidate action, worlds consistent with the deciding seat's view
are dealt (``GameState.determinize``: the rules library's ``Sampler``), the
candidate is played in each, and the rest of the hand is played out by the
rollout policy below; a candidate's value is its mean result for the seat's
side (the hand's points of its side less the other sides' mean, the house
bot's ``utility``). Every candidate of a world meets the same cards and the
same random choices, so a world's luck cancels out of the comparison.

The rollout policy is the house bot's cheap one, every seat alike (the
montecarlo bot's searches would cost a search per decision per world):

* a bid: the lowest legal bid while the hand's estimate reaches it (the
  best suit's meld, the trick points a seat takes on average, one more a
  held ace); with one round of bids, the highest bid the estimate reaches;
* trump: the suit with the most meld and the most cards;
* the call (call-for-partner): the card that adds the most to the meld
  (montecarlo's ``call_candidates``);
* passing to the bid winner: its best trumps and aces; the bid winner's
  pass back and burial: montecarlo's ``discard_key`` (keep the meld);
* the tricks: montecarlo's ``rollout_card``; the two-handed hand (melds,
  the last stock card, the tricks): its ``stock_policy``.

Some choice sets are too large to try whole (a bid among hundreds of
amounts, a card to pass among 16): there the candidates are the action
played, the policy's own, and a few more in the policy's order, whatever
the seed (``candidates``); the loss is then against the best of those, a
lower bound of the loss against every action.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

from referee.rules import Claim, Variant
from referee.rules.actions import Action, AuctionChoices, Bid, CallCard, DeclareTrump, Meld, Pass, PlayCard
from referee.rules.cards import Rank, Suit
from referee.rules.events import DecisionKind
from referee.rules.state import GameState

from .house import montecarlo

MAX_CANDIDATES = 6  # a card to pass or bury, a card to call: the most tried in one decision
ROLLOUT_SHARE = 16  # such a decision plays out one world in this many of the budget's worlds (docs/analysis.md)


class Policy:
    """What every seat does in a world once the decision is made (see the module's docstring)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.bot = montecarlo()
        self.table = self.bot.Table(variant)
        self.house = self.bot.MonteCarlo()
        self.house.table = self.table
        deck = sum(self.table.values.values()) * variant.deck_copies + variant.last_trick
        self.tricks_share = deck / variant.players  # the trick points a seat takes on average

    def act(self, game: Any, rng: random.Random) -> Action:
        """The policy's action for the seat to act in ``game`` (a world: every card is there)."""
        d = game.decision()
        if self.table.stock_game:
            return self.bot.stock_policy(game, self.table.values, rng)
        hand = game.hands[d.seat]
        if d.kind is DecisionKind.BID:
            return self.bid(hand, d.legal)
        if d.kind is DecisionKind.TRUMP:
            return DeclareTrump(self.trump(hand))
        if d.kind in (DecisionKind.CALL, DecisionKind.GIVE, DecisionKind.BURY):
            return self.ranked(game, d.seat, d.kind, d.legal, hand)[0]
        return self.card(game, d.seat, [a.card for a in d.legal])

    def ranked(self, game: Any, seat: int, kind: DecisionKind, legal: Sequence[Any], hand: Sequence[Any]) -> list[Any]:
        """A card to call, pass or bury (or a two-handed meld) from ``hand``: the legal actions in the policy's
        order, its own choice first (it reads the seat's own cards and the table, nothing hidden)."""
        trump = game.trump
        if kind is DecisionKind.CALL:
            first = [CallCard(c) for c in self.bot.call_candidates(list(hand), trump, [a.card for a in legal],
                                                                    self.variant)]
            return _distinct([*first, *legal])
        if kind is DecisionKind.GIVE and seat != game.bidder:  # to the bid winner: the best trumps and aces
            return sorted(legal, key=lambda a: (a.card.suit is trump, a.card.rank is Rank.ACE, a.card.strength),
                          reverse=True)
        if kind in (DecisionKind.GIVE, DecisionKind.BURY):
            return sorted(legal, key=lambda a: self.house.discard_key(kind.value, hand, a.card, trump), reverse=True)
        return sorted(legal, key=lambda a: game.meld_value(a) if isinstance(a, Meld) else -1, reverse=True)

    def worth(self, hand: Sequence[Any]) -> float:
        """What a hand is estimated to make as the bid winner: its best suit's meld, the trick points a seat takes
        on average, and a point more for each ace it holds."""
        meld = max(self.bot.meld_points(list(hand), s, self.variant) for s in Suit)
        return float(meld) + self.tricks_share + sum(c.rank is Rank.ACE for c in hand)

    def bid(self, hand: Sequence[Any], legal: AuctionChoices) -> Pass | Bid:
        amounts = [r for r in legal.ranges if len(r)]
        if not amounts:
            return Pass()
        lowest, worth = amounts[0].start, self.worth(hand)
        if worth < lowest:
            return Pass() if legal.may_pass else Bid(lowest)
        if not self.variant.single_round:
            return Bid(lowest)
        return Bid(max(_highest_within(r, worth) for r in amounts if r.start <= worth))

    def trump(self, hand: Sequence[Any]) -> Suit:
        return max(Suit, key=lambda s: (self.bot.meld_points(list(hand), s, self.variant),
                                        sum(c.suit is s for c in hand)))

    def call(self, hand: Sequence[Any], trump: Suit, legal: Sequence[CallCard]) -> CallCard:
        options = self.bot.call_candidates(list(hand), trump, [a.card for a in legal], self.variant)
        return CallCard(options[0]) if options else legal[0]

    def card(self, game: Any, seat: int, cards: list[Any]) -> PlayCard:
        trick = [(s, p.card) for s, p in game.trick]
        side = _side_numbers(game.sides(), game.seats)
        return PlayCard(self.bot.rollout_card(self.table, cards, trick, seat, side, game.trump))


def _highest_within(r: range, worth: float) -> int:
    """The highest amount of ``r`` not above ``worth`` (``r.start`` is)."""
    return r.start + (min(int(worth), r[-1]) - r.start) // r.step * r.step


def _side_numbers(sides: Sequence[Sequence[int]], seats: int) -> list[int]:
    number = [0] * seats
    for i, side in enumerate(sides):
        for s in side:
            number[s] = i
    return number


def candidates(game: GameState, chosen: Action, policy: Policy) -> list[Action]:
    """The actions tried for the decision in ``game`` (``chosen`` always among them; one action: none to weigh):
    every legal action, but for a bid (passing, the lowest bid, the bid made and the policy's) and where there are
    more than MAX_CANDIDATES (the one chosen, then the policy's favourites). The same whatever the seed."""
    d = game.decision()
    assert d is not None
    if d.kind is DecisionKind.BID:
        assert isinstance(d.legal, AuctionChoices)
        bids: list[Action] = [Pass()] if d.legal.may_pass else []
        bids += [Bid(r.start) for r in d.legal.ranges[:1] if len(r)]
        found = _distinct([*bids, chosen, policy.bid(game.observation(d.seat).hand, d.legal)])
        return sorted(found, key=lambda a: a.amount if isinstance(a, Bid) else -1)
    legal: list[Action] = [a for a in d.legal if not isinstance(a, Claim)]
    if len(legal) <= MAX_CANDIDATES:
        return legal
    hand = game.observation(d.seat).hand
    picked = _distinct([chosen, *policy.ranked(game, d.seat, d.kind, legal, hand)])[:MAX_CANDIDATES]
    return [a for a in legal if a in picked]  # in the legal actions' order


def _distinct(actions: Sequence[Action]) -> list[Action]:
    return list(dict.fromkeys(actions))


def rollout_rows(game: GameState, actions: Sequence[Action], policy: Policy, worlds: int,
                 rng: random.Random) -> list[list[float]]:
    """Per world (``worlds`` of them, dealt from the seat's view): each action's result for the seat's side, the
    hand played out by ``policy`` after it."""
    d = game.decision()
    assert d is not None
    rows = []
    for _ in range(worlds):
        world = game.determinize(d.seat, rng)
        world.log = []  # not needed to play on; cheaper to copy
        seed = rng.getrandbits(64)
        rows.append([play_out(copy.deepcopy(world), d.seat, a, policy, random.Random(seed)) for a in actions])
    return rows


def play_out(game: Any, seat: int, action: Action, policy: Policy, rng: random.Random) -> float:
    """``action`` played in ``game`` (a world), then the hand to its end by ``policy``: the hand's points of
    ``seat``'s side less the other sides' mean (0 to every seat when the hand is dealt again, nobody bidding)."""
    deals, ended = getattr(game, "deal_count", 0), len(game.hands_ended)
    sides = game.sides() if hasattr(game, "sides") else [(0,), (1,)]
    game.apply(action)
    while len(game.hands_ended) == ended and getattr(game, "deal_count", 0) == deals and not game.is_terminal():
        if hasattr(game, "sides"):
            sides = game.sides()  # (a called partner joins the bid winner's side)
        game.apply(policy.act(game, rng))
    if len(game.hands_ended) == ended:
        return 0.0
    points = game.hands_ended[ended].points
    others = [points[side[0]] for side in sides if seat not in side]
    return float(points[seat] - (sum(others) / len(others) if others else 0.0))


__all__ = ["MAX_CANDIDATES", "Policy", "ROLLOUT_SHARE", "candidates", "play_out", "rollout_rows"]
