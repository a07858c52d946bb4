"""The value of every legal action of one decision, from the deciding seat's information only.

Everything here starts from ``game.observation(seat)``: the seat's hand,
what it was shown and what it can infer, never another seat's cards. The
worlds consistent with it are dealt by the rules library's ``Sampler``
(through the compiled core, as the montecarlo bot deals them) and each
legal action is played out in each world by the bot's fast policy. A
value is the mean result of the hand for the seat's side: its score less
the other sides' mean (the bot's own ``utility``), in the variant's points.

The worlds are searched in ``Budget.batches`` batches of equal size, each
with its own seed drawn from the analysis seed and the decision's key: the
spread of the batches' means is the search's own uncertainty (the
standard error of each action's shortfall against the best one). The
same seed gives the same values.

Exact values, where every card is known: the two-handed second phase,
once the stock is gone, searched to the end of the hand by the core's
exact solver (a noise of 0); and the bidding games' last tricks where few
worlds agree with the view, each searched to the end (exact.py).

Bids, calls, cards passed or buried and the two-handed melds are valued by
playing the hand out in the rules library after each candidate, in worlds
dealt from the seat's view, by a cheap policy for every seat (rollout.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import attrs

from referee.rules import Claim, Observation, PlayCard, TakeLast, Variant
from referee.rules.actions import Action, DeclareTrump
from referee.rules.events import DecisionKind
from referee.rules.state import GameState
from referee.rules.tricks import winning_index

from .exact import exact_values
from .house import core, montecarlo
from .rollout import ROLLOUT_SHARE, Policy, candidates, rollout_rows

DEFAULT_WORLDS = 1024  # worlds per decision at the default budget (docs/analysis.md: cost and stability)
DEFAULT_BATCHES = 16  # the batches they are split in, whose spread is the noise
NO_LIMIT = 2**62  # the exact solver's node budget: none
EXACT_CARDS = 3  # the bidding games: an exact search of the rest of the hand is tried from this many cards a hand
MIN_ROLLOUTS = 8  # the fewest worlds a rolled-out decision plays (a noise needs a few)
ROLLED_OUT = (DecisionKind.BID, DecisionKind.CALL, DecisionKind.GIVE, DecisionKind.BURY, DecisionKind.MELD)


@attrs.frozen
class Budget:
    """How hard each decision is searched: ``worlds`` in ``batches`` (at least two), seeded by ``seed``."""

    worlds: int = DEFAULT_WORLDS
    batches: int = DEFAULT_BATCHES
    seed: int = 0

    @property
    def per_batch(self) -> int:
        return max(1, self.worlds // self.batches)


@attrs.frozen
class Valuation:
    """Each legal action's value for the seat's side (points, the mean over every world), its shortfall against
    the best action and the noise of that shortfall (a standard error; 0 where exact)."""

    actions: tuple[str, ...]
    values: tuple[float, ...]
    shortfalls: tuple[float, ...]
    noise: tuple[float, ...]
    exact: bool

    @property
    def best(self) -> int:
        return max(range(len(self.values)), key=lambda i: self.values[i])

    def loss(self, action: str) -> tuple[float, float]:
        """The points ``action`` gives up against the best action, and the noise of that figure."""
        i = self.actions.index(action)
        return self.shortfalls[i], self.noise[i]


class Searcher:
    """Values decisions of one variant; keeps what it may reuse (the bot's table of the variant, the exact
    solver of the hand in play)."""

    def __init__(self, variant: Variant, budget: Budget) -> None:
        self.variant, self.budget = variant, budget
        self.bot = montecarlo()
        self.core = core()
        self.table = self.bot.Table(variant)
        self.endgame: Any = None
        self.policy: Policy | None = None

    def value(self, game: GameState, key: str, chosen: Action | None = None) -> Valuation | None:
        """The decision in ``game`` valued for its seat (``key`` names it, for its seeds; ``chosen``, the action
        played, is always among the actions valued where only some are); None for a decision the search does
        not value (a claim; a single legal action)."""
        d = game.decision()
        if d is None:
            return None
        if d.kind in ROLLED_OUT:
            return self.rolled_out(game, key, chosen)
        actions = [a for a in d.legal if not isinstance(a, Claim)]
        if len(actions) < 2:
            return None
        obs = game.observation(d.seat)
        if d.kind in (DecisionKind.LEAD, DecisionKind.FOLLOW) and self.table.stock_game and obs.phase == 2:
            return self.exact(obs, actions)
        if self.table.stock_game and all(type(a) in (PlayCard, TakeLast) for a in actions):
            return self.in_stock(obs, actions, key)
        if d.kind in (DecisionKind.LEAD, DecisionKind.FOLLOW):
            return self.ending(game, d.seat, actions) or self.trick_play(obs, actions, key)
        if d.kind is DecisionKind.TRUMP:
            return self.trump(obs, actions, key)
        return None

    # ------------------------------------------------------------ sampled
    def trick_play(self, obs: Observation, actions: Sequence[Action], key: str) -> Valuation | None:
        """A card of the bidding games, in the compiled core's worlds (``mc_play``)."""
        cards = [_card(a) for a in actions]
        side = self.table.sides(obs)
        won = list(obs.tricks_won) or [0] * self.table.seats
        words = self.bot.core_decision(self.table, obs, obs.seat, side, won, cards, obs.sampler())
        return self.batched(self.core.play, words, actions, key)

    def in_stock(self, obs: Observation, actions: Sequence[Action], key: str) -> Valuation | None:
        """Two-handed while the stock lasts: a card, or which last stock card to take (``mc_stock``)."""
        words = self.bot.core_stock_decision(self.table, obs, obs.seat, actions, obs.sampler())
        return self.batched(self.core.stock, words, actions, key)

    def batched(self, search: Any, words: list[int], actions: Sequence[Action], key: str) -> Valuation | None:
        rng = random.Random(f"{self.budget.seed}:{key}")
        rows = []
        for _ in range(max(4, self.budget.batches)):
            found = search(words, len(actions), rng.getrandbits(64), self.budget.per_batch, None)
            if found is None:  # no world agrees with the view: the core's sampler gave up
                return None
            rows.append(found[0])
        return _from_rows(actions, rows)

    def trump(self, obs: Observation, actions: Sequence[Action], key: str) -> Valuation:
        """The bidding games' trump: the bot's own valuation (``suit_values``: per world, the points the side
        makes with each suit as trump, the hand played out from the bid winner's lead), one row a world."""
        bot = self.bot.MonteCarlo(worlds=self.budget.worlds, seed=self.budget.seed)
        bot.table, bot.seat = self.table, obs.seat
        bot.rng = random.Random(f"{self.budget.seed}:{key}")
        bot.limit = bot.deadline = math.inf
        suits = [a.suit for a in actions if isinstance(a, DeclareTrump)]
        rows = bot.suit_values(obs, suits, bidding=False)
        return _from_rows(actions, rows)

    def rolled_out(self, game: GameState, key: str, chosen: Action | None) -> Valuation | None:
        """A bid, call, card passed or buried, or meld: its candidates (rollout.py) each played in the same
        worlds, the hand then played out by the rollout policy; one row a world (budget.worlds / ROLLOUT_SHARE
        of them). None with fewer than two candidates (a forced choice)."""
        if self.policy is None:
            self.policy = Policy(self.variant)
        rng = random.Random(f"{self.budget.seed}:{key}")
        d = game.decision()
        assert d is not None
        some = candidates(game, chosen if chosen is not None else d.legal[0], self.policy)
        if len(some) < 2:
            return None
        worlds = max(MIN_ROLLOUTS, self.budget.worlds // ROLLOUT_SHARE)
        return _from_rows(some, rollout_rows(game, some, self.policy, worlds, rng))

    # ------------------------------------------------------------ exact
    def ending(self, game: GameState, seat: int, actions: Sequence[Action]) -> Valuation | None:
        """The bidding games' last tricks, where few worlds agree with the seat's view: each searched to the end
        of the hand (exact.py); None where that is not cheap."""
        if len(game.observation(seat).hand) > EXACT_CARDS:
            return None
        values = exact_values(game, seat, actions)
        if values is None:
            return None
        return Valuation(tuple(a.to_text() for a in actions), tuple(values), tuple(max(values) - x for x in values),
                         (0.0,) * len(actions), True)

    def exact(self, obs: Observation, actions: Sequence[Action]) -> Valuation:
        """The two-handed second phase: the other hand is every card this seat has not seen, so each card's
        value is the margin of the rest of the hand under best play by both seats, plus the hand so far."""
        assert obs.trump is not None, "the second phase has a trump"
        if self.endgame is None or self.endgame.trump is not obs.trump or self.endgame.hand != obs.hand_number:
            self.endgame = self.core.endgame(obs.trump, self.table.duty, self.table.rank_values,
                                             self.variant.last_trick)
            self.endgame.hand = obs.hand_number
        world = obs.sample(random.Random(0))  # the one world there is
        mine, theirs = list(obs.hand), list(world.hands[1 - obs.seat])
        led = obs.trick[0][1] if obs.trick else None
        other = 1 - obs.seat
        so_far = (obs.meld_points[obs.seat] + obs.trick_points[obs.seat]
                  - obs.meld_points[other] - obs.trick_points[other])
        values = [so_far + self.card_value(mine, theirs, led, _card(a)) for a in actions]
        return Valuation(tuple(a.to_text() for a in actions), tuple(values), tuple(max(values) - x for x in values),
                         (0.0,) * len(actions), True)

    def card_value(self, mine: list, theirs: list, led: Any, card: Any) -> float:
        """The margin of the rest of the hand (this trick included) for the seat holding ``mine`` when it plays
        ``card``, leading (``led`` None) or following ``led``, both seats playing best from then on."""
        rest = _without(mine, card)
        if led is None:
            return -float(self.solve(theirs, rest, card))
        trick = self.table.values[led] + self.table.values[card] + (self.variant.last_trick if not rest else 0)
        if winning_index([led, card], self.endgame.trump) == 1:
            return float(trick + self.solve(rest, theirs, None))
        return -float(trick + self.solve(theirs, rest, None))

    def solve(self, mine: list, theirs: list, led: Any) -> int:
        """The exact margin for the seat holding ``mine`` (to lead, or to follow ``led``); 0 with no card left."""
        if not mine:
            return 0
        found = self.endgame.best(mine, theirs, led, NO_LIMIT, None)
        assert found is not None, "the exact solver has no limit"
        return int(found[1])


def _card(action: Action) -> Any:
    assert isinstance(action, PlayCard), f"not a card: {action}"
    return action.card


def _without(cards: list, card: Any) -> list:
    rest = list(cards)
    rest.remove(card)
    return rest


def _from_rows(actions: Sequence[Action], rows: Sequence[Sequence[float]]) -> Valuation:
    """Each action's mean over ``rows`` (one per batch or world; the same worlds serve every action), its
    shortfall against the best mean, and the standard error of that shortfall, from the spread of the rows'
    differences (paired: the luck of a world that every action shares cancels out)."""
    k = len(actions)
    means = _means(rows, k)
    best = max(range(k), key=lambda i: means[i])
    noise = [_standard_error([row[best] - row[i] for row in rows]) for i in range(k)]
    return Valuation(tuple(a.to_text() for a in actions), tuple(means), tuple(means[best] - m for m in means),
                     tuple(noise), False)


def _means(rows: Sequence[Sequence[float]], k: int) -> list[float]:
    return [sum(row[i] for row in rows) / len(rows) for i in range(k)]


def _standard_error(xs: Sequence[float]) -> float:
    n = len(xs)
    mean = sum(xs) / n
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n)


__all__ = ["Budget", "Searcher", "Valuation"]
