"""Lines of ``analysis.jsonl`` made by hand for a record, as ``pinochle-arena analyse`` writes them, without its
search: the tests of the viewer's marks (tests/test_report_marks.py, tests/browser/test_report_analysis.py) need
decisions at the record's real actions, with known marks, values and losses, in no time.

Each card played by a chosen seat is weighed: in turn unmarked (the card played was the best), an inaccuracy, a
mistake and a blunder, with the losses in :data:`LOSSES`; a marked decision's best action is ``best`` (any
text: the viewer shows it, it need not be legal). Every other decision is counted, not valued (as the analysis
leaves bids and melds)."""

from __future__ import annotations

from analysis.summary import SeatAnalysis
from analysis.values import Budget
from analysis.walk import Weighed
from referee.records.deals import record_decks
from referee.records.record import GameRecord
from referee.rules import PlayCard, action_from_text, get_variant, new_game, recorded_action

MARKS = ("", "inaccuracy", "mistake", "blunder")
LOSSES = {"": (0.0, 0.0), "inaccuracy": (3.0, 1.0), "mistake": (7.0, 1.5), "blunder": (20.0, 2.0)}  # loss, noise


def weighed(record: GameRecord, seats: set[int], best: str = "AS") -> list[Weighed]:
    """The decisions of ``seats`` in ``record``, weighed as the module's docstring says."""
    variant = get_variant(record.variant, record.options)
    game, _ = new_game(variant, record.seed, record_decks(record, variant))
    out: list[Weighed] = []
    cards = 0
    for number, entry in enumerate(record.actions, 1):
        if game.is_terminal():
            break
        action = recorded_action(game, entry.action)
        kind = game.decision().kind.value
        if entry.seat in seats:
            if isinstance(action, PlayCard):
                mark = MARKS[cards % len(MARKS)]
                cards += 1
                out.append(decision(number, game.hand_number, entry.seat, kind, action.to_text(), mark, best))
            else:
                out.append(Weighed(number, game.hand_number, entry.seat, kind, action.to_text()))
        game.apply(action)
    return out


def decision(number: int, hand: int, seat: int, kind: str, chosen: str, mark: str, best: str) -> Weighed:
    """One valued decision: the chosen action's value falls and rises with the number (a line to draw)."""
    loss, noise = LOSSES[mark]
    value = float(number % 17 - 8)
    best = best if best != chosen else "TS"  # (never the card played: "AS" may be)
    if not mark:
        return Weighed(number, hand, seat, kind, chosen, chosen, {chosen: value}, 0.0, 0.0, False, "")
    return Weighed(number, hand, seat, kind, chosen, best, {chosen: value - loss, best: value}, loss, noise,
                   False, mark)


def lines(record: GameRecord, seats: set[int], worlds: int = 64, best: str = "AS") -> list[str]:
    """``analysis.jsonl``'s lines for ``seats`` of ``record``."""
    decisions = weighed(record, seats, best)
    return [SeatAnalysis(record.game_id, seat, record.seats[seat].entrant, Budget(worlds, 16, 0),
                         tuple(w for w in decisions if w.seat == seat)).to_json() for seat in sorted(seats)]


def played(record: GameRecord, number: int) -> str:
    """The card text of the record's action ``number`` (from 1)."""
    return action_from_text(record.actions[number - 1].action).to_text()
