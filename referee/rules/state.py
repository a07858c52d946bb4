"""The questions every game state answers, in the spirit of OpenSpiel's State.

:class:`GameState` is an abstract base: a game class (one per family of
variants) derives from it, holds the fields it names and provides the
abstract methods; the questions themselves (``decision``, ``legal_actions``,
``apply``, ``observation``, ``determinize``, ...) are answered here, once for
every family.
"""

from __future__ import annotations

import abc
import copy
import random
from collections.abc import Sequence
from typing import Any, Self, TypeVar

from .actions import Action, IllegalActionError, Meld
from .cards import Card
from .dealing import Deal
from .events import Decision, GameEnded, HandEnded, Notice
from .observation import Observation, Observer, World
from .variants import Variant


T = TypeVar("T")


def known(value: T | None) -> T:
    """A field that an earlier stage of the hand sets (the bid winner, trump, the turn-up...), asked in a later
    one: the order of the stages sets it first, so a None here is a bug of the game class."""
    if value is None:
        raise RuntimeError("a stage of the hand asked for a field that an earlier stage sets")
    return value


class GameState(abc.ABC):
    # What a game class holds (as attrs fields): the questions below read and write them.
    variant: Variant
    seed: int  # every shuffle comes from it
    totals: list[int]  # the game's score, per seat
    hand_number: int
    meld_points: list[int]  # this hand's, per seat
    trick_points: list[int]  # this hand's, per seat
    hands_ended: list[HandEnded]  # every hand's result so far
    result: GameEnded | None  # None while the game runs
    decision_cache: Decision | None  # the decision now, once asked for
    checked: tuple[Decision, Action] | None  # (decision, action) that check() has just passed
    log: list[Notice]  # this hand's notices (from the action that dealt it), for observations
    deals: list[dict[str, Any]]  # every hand's deal, as the record writes it
    fixed_decks: tuple[tuple[Card, ...], ...]  # tests and worked examples: the deck of each hand, in order

    @classmethod
    @abc.abstractmethod
    def new(cls, variant: Variant, seed: int, decks: Sequence[Sequence[Card]] = (), deal: Deal | None = None,
            dealer: int = 0, totals: Sequence[int] | None = None) -> tuple[Self, list[Notice]]:
        """A new game and the notices of its first deal (see :func:`referee.rules.new_game`)."""

    @property
    @abc.abstractmethod
    def seats(self) -> int:
        """How many seats play."""

    @property
    @abc.abstractmethod
    def target(self) -> int:
        """The score that wins the game now."""

    @abc.abstractmethod
    def _decide(self) -> Decision:
        """Who acts now, to do what, and every legal action (asked only while the game runs)."""

    @abc.abstractmethod
    def _act(self, decision: Decision, action: Action) -> list[Notice]:
        """Play ``action``, a legal answer to ``decision``: its effect, and what each seat sees of it."""

    @abc.abstractmethod
    def _why_illegal(self, decision: Decision, action: Action) -> str:
        """Why ``action`` is not a legal answer to ``decision``, in words fit for a bot author."""

    @abc.abstractmethod
    def _place(self, world: World, seat: int, rng: random.Random) -> None:
        """Put the hidden cards where ``world`` says (every card ``seat`` cannot see): see :meth:`determinize`."""

    def meld_value(self, action: Meld) -> int:
        """What ``action``, one of the legal melds now, would score: a family whose seats choose their melds (the
        stock game) says; in the others a meld is counted, never chosen, so no decision offers one."""
        raise IllegalActionError(f"{action.to_text()}: melds are counted in this game, not chosen")

    def is_terminal(self) -> bool:
        return self.result is not None

    def returns(self) -> tuple[float, ...]:
        """Per seat: 1 for a win, 0 for a loss, a share for a shared first place."""
        if self.result is None:
            raise ValueError("the game is not over")
        return self.result.returns

    def decision(self) -> Decision | None:
        """The seat to act, the kind of decision and every legal action; None once the game is over."""
        if self.result is not None:
            return None
        if self.decision_cache is None:
            self.decision_cache = self._decide()
        return self.decision_cache

    def current_seat(self) -> int | None:
        d = self.decision()
        return None if d is None else d.seat

    def legal_actions(self) -> Sequence[Action]:
        d = self.decision()
        return () if d is None else d.legal

    def check(self, action: Action) -> None:
        """Raise IllegalActionError, with the reason, unless ``action`` is legal now."""
        d = self.decision()
        if d is None:
            raise IllegalActionError("the game is over")
        if action not in d.legal:
            raise IllegalActionError(self._why_illegal(d, action))
        self.checked = (d, action)

    def apply(self, action: Action) -> list[Notice]:
        """Play ``action`` for the seat to act; return what each seat sees of it."""
        d = self._checked_decision(action)
        self.decision_cache = None
        notices = self._act(d, action)
        self.log += notices  # a deal starts a new log (so it opens with the end of the hand before: harmless)
        return notices

    def notices(self, seat: int | None = None) -> list[Notice]:
        """What the hand in play has shown so far, from the action that dealt it (of a new game: its first
        deal, each seat's cards); only the notices shown to ``seat`` if given. :meth:`apply` returns the next."""
        return [n for n in self.log if seat is None or seat in n.seats]

    def observation(self, seat: int) -> Observation:
        """What ``seat`` knows of the hand in play: everything it was shown since the deal."""
        observer = Observer(self.variant, seat, self.totals, target=self.target)  # the log starts at the deal: a
        # target raised before it (tiebreak=play-on) is not in it
        for notice in self.log:
            if seat in notice.seats:
                observer.see(notice.event)
        return observer.observation()

    def determinize(self, seat: int, rng: random.Random) -> GameState:
        """A copy of this game with every card ``seat`` cannot see dealt anew, consistently with what it saw.

        The hidden cards come from ``self.observation(seat).sample(rng)``;
        nothing else of the true hidden cards survives in the copy (later
        hands follow a new seed, and its log keeps only what ``seat`` saw).
        The basis of a Monte Carlo search: play the copy out.
        """
        world = self.observation(seat).sample(rng)
        game = copy.deepcopy(self)
        game._place(world, seat, rng)
        game.seed = rng.getrandbits(63)
        game.deals, game.fixed_decks = [], ()
        game.log = [n for n in self.log if seat in n.seats]
        game.decision_cache, game.checked = None, None
        return game

    def _checked_decision(self, action: Action) -> Decision:
        """The decision ``action`` answers, checking the action unless :meth:`check` just passed it."""
        d = self.decision()
        if d is None or self.checked is None or self.checked[0] is not d or self.checked[1] is not action:
            self.check(action)  # raises when the game is over (d is None)
        assert d is not None
        self.checked = None
        return d

    def _hand_ended(self, points: Sequence[int], notices: list[Notice]) -> None:
        """Tell everybody the hand is over: what each seat scored, the totals, its meld and trick points."""
        ended = HandEnded(self.hand_number, tuple(points), tuple(self.totals), tuple(self.meld_points),
                          tuple(self.trick_points))
        self.hands_ended.append(ended)
        notices.append(Notice(tuple(range(self.seats)), ended))

    def can(self, action: Action) -> bool:
        d = self.decision()
        return d is not None and action in d.legal
