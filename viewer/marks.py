"""A game's analysis as the replay viewer shows it: the marks, the chosen action beside the best, the evaluation line.

``pinochle-arena analyse`` (docs/analysis.md) writes ``analysis.jsonl``
beside the records: one line per game and seat, every weighed decision
with its place in the record. :func:`game_marks` turns the lines of one
game into what a page embeds for ``viewer/static/analysis.js``::

    {"seats": [{"seat", "worlds", "seed"}, ...],
     "decisions": [{"number", "seat", "hand", "kind", "chosen", "best", "chosen_value", "best_value",
                    "values": [[ACTION, VALUE], ...], "loss", "noise", "exact", "mark"}, ...]}

``number`` is the action's place in the record, from 1, which is also
its step in the viewer's film (step 0 is the deal). Only the decisions
the search valued are kept, in the record's order, each with every legal
action's value, best first (points for the seat's side). A seat's lines
are shown only if they fit the record: every decision at an action of
that seat, the action chosen being the one recorded, and the numbers
readable; lines of another record under the same game id (a folder run
again) or edited by hand are left out whole. Where a seat was analysed
with several budgets, the one with the most worlds is shown (of equals,
the one written last).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

from analysis.summary import SeatAnalysis, read_analyses
from analysis.walk import Weighed
from referee.records.record import GameRecord
from referee.rules import action_from_text

MARKS = ("", "inaccuracy", "mistake", "blunder")


def read_marks(path: Path, records: Sequence[GameRecord]) -> dict[str, dict]:
    """The analysis of each of ``records`` found in ``path`` (an ``analysis.jsonl``), as :func:`game_marks` makes
    it, by game id; a game without lines that fit it is left out, and so is everything when the file is missing
    or cannot be read."""
    try:
        found = read_analyses(path)
    except (OSError, ValueError):  # (unreadable, or not text: the report is written without it)
        return {}
    chosen: dict[tuple[str, int], SeatAnalysis] = {}
    for line in found.values():  # (in the file's order)
        key = (line.game_id, line.seat)
        if key not in chosen or line.budget.worlds >= chosen[key].budget.worlds:
            chosen[key] = line
    by_game: dict[str, list[SeatAnalysis]] = {}
    for line in chosen.values():
        by_game.setdefault(line.game_id, []).append(line)
    marks = {}
    for record in records:
        data = game_marks(record, by_game.get(record.game_id, []))
        if data is not None:
            marks[record.game_id] = data
    return marks


def game_marks(record: GameRecord, lines: Iterable[SeatAnalysis]) -> dict | None:
    """What the viewer embeds of ``record``'s analysis ``lines`` (see the module's docstring); None when no line
    fits the record or none has a valued decision."""
    seats = sorted((line for line in lines if fits(record, line)), key=lambda line: line.seat)
    decisions = sorted((_decision(w) for line in seats for w in line.decisions if w.values),
                       key=lambda d: d["number"])
    if not decisions:
        return None
    return {"seats": [{"seat": line.seat, "worlds": line.budget.worlds, "seed": line.budget.seed} for line in seats],
            "decisions": decisions}


def fits(record: GameRecord, line: SeatAnalysis) -> bool:
    """Whether ``line`` is an analysis of this record's seat: its entrant, each decision at an action of that
    seat, the action chosen the one recorded there, every value a finite number."""
    if line.game_id != record.game_id or not 0 <= line.seat < len(record.seats) \
            or line.entrant != record.seats[line.seat].entrant:
        return False
    return all(_fits_action(record, line.seat, w) and (not w.values or _readable(w)) for w in line.decisions)


def _fits_action(record: GameRecord, seat: int, w: Weighed) -> bool:
    if not isinstance(w.number, int) or not 1 <= w.number <= len(record.actions) or w.seat != seat:
        return False
    entry = record.actions[w.number - 1]
    if entry.seat != seat:
        return False
    try:
        return action_from_text(entry.action).to_text() == w.chosen
    except (ValueError, TypeError):
        return False


def _readable(w: Weighed) -> bool:
    values = w.values or {}
    numbers = [*values.values(), w.loss, w.noise]
    return (all(isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in numbers)
            and all(isinstance(a, str) for a in values) and w.chosen in values and w.best in values
            and w.mark in MARKS and isinstance(w.hand, int) and isinstance(w.kind, str)
            and isinstance(w.exact, bool))


def _decision(w: Weighed) -> dict:
    values = w.values or {}
    best = w.best or ""
    return {"number": w.number, "seat": w.seat, "hand": w.hand, "kind": w.kind, "chosen": w.chosen, "best": best,
            "chosen_value": values[w.chosen], "best_value": values[best],
            "values": sorted(values.items(), key=lambda item: -item[1]), "loss": w.loss, "noise": w.noise,
            "exact": w.exact, "mark": w.mark}
