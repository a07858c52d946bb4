"""Points lost per hand, by bot and phase, and the file that keeps every weighed decision (``analysis.jsonl``).

A seat of a game is analysed once: its decisions go to ``analysis.jsonl``
beside the records (one line per game and seat, with the budget that
weighed them), and a later run with the same budget reads them back.
"""

from __future__ import annotations

import json
import math
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

import attrs

from referee.records.record import GameRecord

from .values import Budget
from .walk import PHASES, Weighed, analyse_record

ANALYSIS_FILE = "analysis.jsonl"
FORMAT = 2  # of a line of ANALYSIS_FILE; a line of another format is analysed again (2: bids, calls, passing,
# burying and melds valued, the bidding games' last tricks exact)
Z95 = 1.959964  # a 95% interval's half-width in standard errors
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


@attrs.frozen
class SeatAnalysis:
    """The weighed decisions of one seat of one game."""

    game_id: str
    seat: int
    entrant: str
    budget: Budget
    decisions: tuple[Weighed, ...]

    @property
    def hands(self) -> list[int]:
        return sorted({w.hand for w in self.decisions})

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "game_id": self.game_id, "seat": self.seat, "entrant": self.entrant,
                           "budget": attrs.asdict(self.budget),
                           "decisions": [w.to_dict() for w in self.decisions]}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> SeatAnalysis:
        data = json.loads(text)
        return cls(data["game_id"], data["seat"], data["entrant"], Budget(**data["budget"]),
                   tuple(Weighed.from_dict(w) for w in data["decisions"]))


def read_analyses(path: Path) -> dict[tuple[str, int, Budget], SeatAnalysis]:
    """The seats already analysed in ``path`` (none if it does not exist), by game, seat and budget; a line
    that cannot be read, or of another format, is left out (and so analysed again)."""
    found: dict[tuple[str, int, Budget], SeatAnalysis] = {}
    if not path.is_file():
        return found
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            if json.loads(line).get("format") != FORMAT:
                continue
            seat = SeatAnalysis.from_json(line)
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        found[seat.game_id, seat.seat, seat.budget] = seat
    return found


def analyse(records: Iterable[GameRecord], seats_of: Callable[[GameRecord], set[int]], budget: Budget, path: Path,
            told: Callable[[GameRecord], None] | None = None, workers: int = 1) -> list[SeatAnalysis]:
    """Each record's seats that ``seats_of`` names, from ``path`` where they were analysed with ``budget``
    before, else analysed now and appended there (a record at a time, in the records' order, so an interrupted
    run keeps its work). ``told`` is called as a record's analysis starts. With ``workers`` above 1 that many
    processes search at once; the values are the same (each decision's search is seeded by its own key)."""
    records = list(records)
    known = read_analyses(path)
    jobs = []
    for record in records:
        missing = {s for s in seats_of(record) if (record.game_id, s, budget) not in known}
        if missing:
            jobs.append((record, missing))
    for record, missing, weighed in _weigh(jobs, budget, workers, told):
        fresh = [SeatAnalysis(record.game_id, s, record.seats[s].entrant if s < len(record.seats) else f"seat {s}",
                              budget, tuple(w for w in weighed if w.seat == s)) for s in sorted(missing)]
        with path.open("a", encoding="utf-8") as out:
            out.writelines(a.to_json() + "\n" for a in fresh)
        known.update({(a.game_id, a.seat, budget): a for a in fresh})
    return [known[record.game_id, s, budget] for record in records for s in sorted(seats_of(record))]


def _weigh(jobs: list[tuple[GameRecord, set[int]]], budget: Budget, workers: int,
           told: Callable[[GameRecord], None] | None) -> Iterator[tuple[GameRecord, set[int], list[Weighed]]]:
    """Each job's weighed decisions, in the jobs' order: here, or in ``workers`` processes (a few jobs ahead of
    the one awaited, so every process stays busy and a stop loses little)."""
    if workers <= 1 or len(jobs) <= 1:
        for record, missing in jobs:
            if told is not None:
                told(record)
            yield record, missing, analyse_record(record, missing, budget)
        return
    # "spawn": a fresh interpreter per process, never a fork of one holding the core or a caller's threads
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        pending: deque[tuple[GameRecord, set[int], Future[list[Weighed]]]] = deque()
        for record, missing in jobs:
            if told is not None:
                told(record)
            pending.append((record, missing, pool.submit(analyse_record, record, missing, budget)))
            if len(pending) > workers:
                done, seats, future = pending.popleft()
                yield done, seats, future.result()
        while pending:
            done, seats, future = pending.popleft()
            yield done, seats, future.result()


@attrs.frozen
class PhaseLoss:
    """One bot's points lost in one phase: the mean per hand with its 95% interval, the decisions (all, and
    those the search valued) and the marks."""

    mean: float
    low: float
    high: float
    decisions: int
    valued: int
    marks: dict[str, int]


def losses_by_bot(analyses: Iterable[SeatAnalysis]) -> dict[str, tuple[int, dict[str, PhaseLoss]]]:
    """Per bot: the hands it played and, per phase, its points lost per hand."""
    hands: dict[str, list[dict[str, float]]] = {}
    decisions: dict[str, list[Weighed]] = {}
    for a in analyses:
        by_hand = {h: dict.fromkeys(PHASES, 0.0) for h in a.hands}
        for w in a.decisions:
            by_hand[w.hand][w.phase] += w.loss
        hands.setdefault(a.entrant, []).extend(by_hand.values())
        decisions.setdefault(a.entrant, []).extend(a.decisions)
    return {bot: (len(rows), {phase: _phase_loss([r[phase] for r in rows],
                                                 [w for w in decisions[bot] if w.phase == phase])
                              for phase in PHASES})
            for bot, rows in sorted(hands.items())}


def _phase_loss(per_hand: list[float], weighed: list[Weighed]) -> PhaseLoss:
    n = len(per_hand)
    mean = sum(per_hand) / n if n else 0.0
    spread = math.sqrt(sum((x - mean) ** 2 for x in per_hand) / (n - 1) / n) if n > 1 else math.inf
    marks = {m: sum(w.mark == m for w in weighed) for m in ("inaccuracy", "mistake", "blunder")}
    return PhaseLoss(mean, mean - Z95 * spread, mean + Z95 * spread, len(weighed),
                     sum(w.values is not None for w in weighed), marks)


def table_rows(analyses: Iterable[SeatAnalysis]) -> list[list[str]]:
    """The table the command prints: a row per bot and phase."""
    rows = []
    for bot, (hands, phases) in losses_by_bot(analyses).items():
        for phase, loss in phases.items():
            if not loss.decisions:
                continue
            figure = (f"{loss.mean:.2f} ({loss.low:.2f} to {loss.high:.2f})" if math.isfinite(loss.low)
                      else f"{loss.mean:.2f}")
            rows.append([bot, phase, str(hands), figure if loss.valued else "not analysed",
                         f"{loss.valued}/{loss.decisions}",
                         " ".join(f"{n} {m if n == 1 else PLURAL[m]}" for m, n in loss.marks.items() if n) or "-"])
    return rows


TABLE_HEADERS = ["bot", "phase", "hands", "points lost a hand (95%)", "valued", "marked"]
