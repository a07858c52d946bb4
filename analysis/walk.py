"""A game record walked through the rules, every decision of the chosen seats weighed.

The record is replayed from its variant, seed and decks (as
referee/records/replay.py does); before each recorded action of a chosen
seat, the position is valued by :class:`~analysis.values.Searcher` from
that seat's observation, and the recorded action's shortfall against the
best action is kept with the search's noise and a class.

Classes, in points of the variant's ace (its counter value: 10 or 11
points in the 10-point and 11-point countings, 1 on the unit scale), and
only where the loss is more than ``NOISE_FACTOR`` standard errors of the
search (an exact value has none):

* inaccuracy: a loss of at least ``INACCURACY`` of an ace,
* mistake: at least ``MISTAKE``,
* blunder: at least ``BLUNDER`` (a whole ace thrown away).
"""

from __future__ import annotations

from collections.abc import Collection

import attrs

from referee.records.deals import record_decks
from referee.records.record import GameRecord, Termination
from referee.rules import IllegalActionError, Rank, Variant, VariantError, get_variant, new_game, recorded_action
from referee.rules.actions import Action
from referee.rules.events import DecisionKind
from referee.rules.state import GameState
from referee.rules.variants import rules_of_version

from .house import AnalysisError
from .values import Budget, Searcher, Valuation

INACCURACY, MISTAKE, BLUNDER = 0.2, 0.5, 1.0  # of the ace's counter value
NOISE_FACTOR = 2.0  # a loss is marked only beyond this many standard errors of the search
DIGITS = 3  # a value's decimals, as kept (in analysis.jsonl too)
FAMILIES = ("stock", "auction")  # the state machines whose decisions the search can value

PHASES = ("bidding", "trump and passing", "meld", "trick play")
PHASE_OF = {
    DecisionKind.BID: "bidding",
    DecisionKind.TRUMP: "trump and passing", DecisionKind.CALL: "trump and passing",
    DecisionKind.GIVE: "trump and passing", DecisionKind.BURY: "trump and passing",
    DecisionKind.MELD: "meld",
    DecisionKind.LEAD: "trick play", DecisionKind.FOLLOW: "trick play", DecisionKind.TAKE_LAST: "trick play",
}


@attrs.frozen
class Weighed:
    """One decision of a seat: where it was (the record's action number, the hand), what was chosen, the best
    action, and each legal action's value (None: a decision the search does not value)."""

    number: int
    hand: int
    seat: int
    kind: str
    chosen: str
    best: str | None = None
    values: dict[str, float] | None = None
    loss: float = 0.0
    noise: float = 0.0
    exact: bool = False
    mark: str = ""

    @property
    def phase(self) -> str:
        return PHASE_OF[DecisionKind(self.kind)]

    def to_dict(self) -> dict:
        return attrs.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Weighed:
        return cls(**data)


def mark(loss: float, noise: float, ace: int) -> str:
    """The class of a loss of ``loss`` points with a standard error of ``noise`` ("" for none)."""
    if loss <= NOISE_FACTOR * noise or loss <= 0:
        return ""
    for name, share in (("blunder", BLUNDER), ("mistake", MISTAKE), ("inaccuracy", INACCURACY)):
        if loss >= share * ace - 1e-9:
            return name
    return ""


def variant_of(record: GameRecord) -> Variant:
    """The record's variant under the rules of its version; AnalysisError if the search cannot value it."""
    try:
        variant = rules_of_version(get_variant(record.variant, record.options), record.rules)
    except VariantError as error:
        raise AnalysisError(f"{record.game_id}: variant: {error}") from None
    if variant.family not in FAMILIES:
        raise AnalysisError(f"{record.game_id}: the search does not analyse the {variant.family} family of "
                            f"{record.variant}")
    return variant


def analyse_record(record: GameRecord, seats: set[int], budget: Budget,
                   only: Collection[int] | None = None) -> list[Weighed]:
    """Every decision of ``seats`` in ``record``, in order, weighed (see the module's docstring); with ``only``,
    those before these action numbers alone (each decision's search is seeded by its own key, so its values are
    the same either way). Raises AnalysisError when the record does not replay."""
    variant = variant_of(record)
    ace = variant.counter_values[Rank.ACE]
    searcher = Searcher(variant, budget)
    try:
        game, _ = new_game(variant, record.seed, record_decks(record, variant))
    except (KeyError, ValueError, TypeError) as error:
        raise AnalysisError(f"{record.game_id}: the record's deals cannot be read back ({error})") from None
    weighed = []
    faulted = record.termination is not Termination.COMPLETED
    for number, entry in enumerate(record.actions, 1):
        if game.is_terminal() or (faulted and number == len(record.actions)):
            break  # a fault's last action is the bot's failing, not a decision of the game
        d = game.decision()
        assert d is not None
        try:
            action = recorded_action(game, entry.action)
            game.check(action)
        except IllegalActionError as error:
            raise AnalysisError(f"{record.game_id}: action {number} does not replay ({error})") from None
        if d.seat in seats and (only is None or number in only):
            valuation = _valued(searcher, game, record, number, action)
            weighed.append(_weigh(number, game.hand_number, d.seat, d.kind, action.to_text(), valuation, ace))
        game.apply(action)
    return weighed


def _valued(searcher: Searcher, game: GameState, record: GameRecord, number: int,
            chosen: Action) -> Valuation | None:
    """The decision before action ``number`` (``chosen`` was played) valued; AnalysisError where the search cannot
    read it (a rule of the variant its compiled core does not model)."""
    try:
        return searcher.value(game, f"{record.game_id}:{number}", chosen)
    except AnalysisError:
        raise
    except ValueError as error:
        raise AnalysisError(f"{record.game_id}: action {number}: the search does not support this decision of "
                            f"{record.variant} ({error})") from None


def _weigh(number: int, hand: int, seat: int, kind: DecisionKind, chosen: str, valuation: Valuation | None,
           ace: int) -> Weighed:
    if valuation is None or chosen not in valuation.actions:
        return Weighed(number, hand, seat, kind.value, chosen)
    loss, noise = (round(x, DIGITS) for x in valuation.loss(chosen))
    return Weighed(number, hand, seat, kind.value, chosen, valuation.actions[valuation.best],
                   {a: round(x, DIGITS) for a, x in zip(valuation.actions, valuation.values)}, loss, noise,
                   valuation.exact, mark(loss, noise, ace))
