"""One door to a game of any variant: start it, replay it, step through it.

In the spirit of python-chess's ``Board``: a bot author or a checker builds
a game from a seed, from a given deal (any hands, turn-up and stock order,
any dealer, any scores), or from a game record the referee wrote, and asks
any position for its decision, its legal actions and what each seat may
see::

    from referee.rules import Game
    game = Game.new("two-handed", seed=7)
    game.decision().legal                   # the seat to act, what kind of decision, every legal action
    for step in Game.replay(line):          # a line of games.jsonl, parsed or not
        print(step.seat, step.action.to_text(), step.game.legal_actions())

Every method returns the state machine of the variant's family
(:class:`~.stock_game.StockGame` or :class:`~.auction_game.AuctionGame`);
both answer the questions of :class:`~.state.GameState`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs

from .actions import Action, IllegalActionError, Pass, action_from_text
from .dealing import Deal
from .events import DecisionKind
from .families import new_game
from .state import GameState
from .variants import RULES_VERSION, Variant, get_variant, rules_of_version


@attrs.frozen
class Step:
    """A position of a replayed game and the action taken there (by ``seat``)."""

    game: GameState  # the live game, before ``action``: copy it (Game.copy) to keep it past this step
    seat: int
    action: Action


class Game:
    """Constructors of games (see the module's docstring)."""

    @staticmethod
    def new(variant: Variant | str, seed: int = 0, *, options: Mapping[str, str] | None = None,
            deal: Deal | None = None, dealer: int = 0, totals: Iterable[int] | None = None) -> GameState:
        """A new game: the first hand dealt by ``dealer`` from ``deal`` (else from ``seed``'s shuffle)."""
        if isinstance(variant, str):
            variant = get_variant(variant, options)
        game, _ = new_game(variant, seed, deal=deal, dealer=dealer, totals=None if totals is None else list(totals))
        return game

    @staticmethod
    def replay(record: Any) -> Iterator[Step]:
        """Every position of a recorded game, with the action taken there, in order.

        ``record`` is a :class:`referee.records.record.GameRecord`, a line of a
        ``games.jsonl`` file (sealed or not) or that line parsed into a dict.
        The seal is not checked here (``pinochle-arena replay`` does that).
        Raises IllegalActionError where the record has an action the rules
        refuse (a game lost by an illegal action ends so). A record is
        replayed under the rules of the version it names (``variants.RULES_VERSION``;
        none: version 1, before the first change).
        """
        recorded = _record_fields(record)
        return _steps(new_game(_rules_of(recorded), recorded.seed)[0], recorded.actions)

    @staticmethod
    def from_record(record: Any) -> GameState:
        """The game after every action of ``record`` (see :meth:`replay`)."""
        recorded = _record_fields(record)
        game = new_game(_rules_of(recorded), recorded.seed)[0]
        for _ in _steps(game, recorded.actions):  # each step's action is applied when the next is asked for
            pass
        return game

    @staticmethod
    def copy(game: GameState) -> GameState:
        """An independent copy of a position (for search: try an action without touching the original)."""
        return copy.deepcopy(game)


def _steps(game: GameState, actions: list[tuple[int, str]]) -> Iterator[Step]:
    """Check each recorded action, yield its position, then apply it to ``game``."""
    for i, (seat, text) in enumerate(actions):
        if game.is_terminal():
            raise ValueError(f"the record goes on after the game is over: {seat}: {text}")
        if game.current_seat() != seat:
            raise ValueError(f"the record has seat {seat} act where seat {game.current_seat()} was to act")
        action = recorded_action(game, text, last=i == len(actions) - 1)
        game.check(action)
        yield Step(game, seat, action)
        game.apply(action)


def recorded_action(game: GameState, text: str, last: bool = False) -> Action:
    """The action a game record's ``text`` stands for in ``game``'s position (:func:`action_from_text`, but for
    records of version 0.1: there a stuck dealer, under ``all-pass=dealer-stuck``, was offered ``pass``, which
    took the hand at the minimum bid; that ``pass`` is read as the minimum bid it meant).

    Never for a record's ``last`` action: in 0.1 the game went on after such a pass, so a pass that ends a
    record is a stuck dealer's illegal action of today, and stays one."""
    action = action_from_text(text)
    if isinstance(action, Pass) and not last and not game.is_terminal():
        decision = game.decision()
        if decision is not None and decision.kind is DecisionKind.BID and Pass() not in decision.legal and len(decision.legal):
            return decision.legal[0]
    return action


@attrs.frozen
class _Recorded:
    """What replaying a record needs of it."""

    variant: str
    options: dict[str, str]
    seed: int
    actions: list[tuple[int, str]]
    rules: int  # the rules version it was played under


def _rules_of(recorded: _Recorded) -> Variant:
    """The rules a record was played under: those of the version it names (``variants.RULES_VERSION``; a record
    without one was written before the first change, version 1)."""
    return rules_of_version(get_variant(recorded.variant, recorded.options), recorded.rules)


def _record_fields(record: Any) -> _Recorded:
    if isinstance(record, str):
        record = json.loads(record)
    if isinstance(record, Mapping):
        try:
            actions = [(int(entry[0]), str(entry[1])) for entry in record["actions"]]
            return _Recorded(str(record["variant"]), dict(record["options"]), int(record["seed"]), actions,
                             int(record.get("rules", 1)))
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise ValueError(f"not a game record: {e!r}") from None
    return _Recorded(record.variant, dict(record.options), record.seed, [(a.seat, a.action) for a in record.actions],
                     record.rules)
