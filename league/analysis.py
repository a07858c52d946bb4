"""Each game's decisions weighed in the background, kept beside the league, and shown to the entrant that made them.

The analysis is :mod:`analysis`'s (``analyse_record``: every decision of
every seat valued by the house bot's search); this module is what the league
keeps of it and who reads it:

* **Settings** (:class:`AnalysisSettings`), in ``league_meta`` under
  ``analysis`` and read afresh, so ``league analysis DIR on`` takes effect
  at the next ``league run``: off by default; the share of one core it may
  use, its worlds a decision, the backlog and the games an entrant's
  summary counts.
* **The store** (:class:`AnalysisStore`): a SQLite file of its own beside
  the league's database, ``DIR/analysis.db``, so that the analysis never
  holds the league's write lock (a process at the lowest priority holding
  it would hold up the games being saved). A game's analysis is saved in
  one transaction, all its seats or nothing: a killed analyser loses the
  game it was weighing, nothing else.
* **The queue** (:func:`next_game`): the games saved after a floor, newest
  first; past ``backlog`` games waiting, the oldest are skipped (counted),
  so an analysis that cannot keep up weighs the latest games rather than
  falling further behind. :func:`backlog` is the figure ``league analysis``
  and the pages show: games waiting, skipped, analysed.
* **What an entrant sees** (:func:`entrant_analysis`, :func:`game_analysis`):
  only the seats it sat at, by the league's record of who sat where
  (``game_seats``), never another entrant's; the pages decide who is asking
  (:mod:`viewer.site`).

The process that does the weighing, at the lowest priority and within its
share of the CPU, is :mod:`league.analyser`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import attrs
import sqlalchemy as sa

from analysis import SeatAnalysis, losses_by_bot
from analysis.summary import PLURAL
from analysis.values import Budget

from .db import LeagueDB, engine_for, writing
from .errors import LeagueError

STORE_FILE = "analysis.db"
SETTINGS_KEY = "analysis"  # league_meta's row holding the settings, as JSON
SMALLEST_WORLDS = 32  # two a batch, as the analyse command asks
MARKS = ("inaccuracy", "mistake", "blunder")


@attrs.frozen
class AnalysisSettings:
    """Whether ``league run`` weighs its games in the background, and how hard."""

    enabled: bool = False
    cpu_share: float = 0.25  # of one core, at most, over time
    worlds: int = 1024  # a decision (the analyse command's default, whose marks docs/analysis.md measured)
    backlog: int = 200  # games waiting at most; older ones are skipped
    recent: int = 50  # an entrant's latest analysed games its summary counts

    def __attrs_post_init__(self) -> None:
        if not 0.01 <= self.cpu_share <= 1:
            raise LeagueError(f"analysis: cpu share {self.cpu_share:g}: give a share of one core, 0.01 to 1")
        if self.worlds < SMALLEST_WORLDS:
            raise LeagueError(f"analysis: {self.worlds} worlds: at least {SMALLEST_WORLDS} (two a batch)")
        if self.backlog < 1 or self.recent < 1:
            raise LeagueError("analysis: the backlog and the recent games are at least 1")

    @property
    def budget(self) -> Budget:
        return Budget(worlds=self.worlds)

    def to_json(self) -> str:
        return json.dumps(attrs.asdict(self))

    @classmethod
    def from_json(cls, text: str | None) -> AnalysisSettings:
        if not text:
            return cls()
        known = {f.name for f in attrs.fields(cls)}
        return cls(**{k: v for k, v in json.loads(text).items() if k in known})


def analysis_settings(db: LeagueDB) -> AnalysisSettings:
    """The league's analysis settings, read afresh (the defaults: off)."""
    return AnalysisSettings.from_json(db.contest_value(SETTINGS_KEY))


def set_analysis_settings(db: LeagueDB, settings: AnalysisSettings) -> None:
    db.set_contest_value(SETTINGS_KEY, settings.to_json())


# ---------------------------------------------------------------------- the store
metadata = sa.MetaData()
analyses = sa.Table(  # one row a game weighed (or that could not be)
    "analyses", metadata,
    sa.Column("game", sa.Integer, primary_key=True),  # its number in the league (games.id)
    sa.Column("game_id", sa.String(96), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # "analysed" or "failed"
    sa.Column("note", sa.Text, nullable=False, default=""),  # why it failed, in one line
    sa.Column("cpu", sa.Float, nullable=False),  # seconds of CPU it took
    sa.Column("finished", sa.Float, nullable=False),
)
analysed_seats = sa.Table(  # one row a seat of a game weighed
    "analysed_seats", metadata,
    sa.Column("game", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("entrant", sa.String(64), nullable=False),  # who sat there (the league's game_seats), by name
    sa.Column("label", sa.String(96), nullable=False),  # its version's label (alice, alice.v2)
    sa.Column("decisions", sa.Text, nullable=False),  # analysis.SeatAnalysis as JSON
)
SEATS_BY_ENTRANT = sa.Index("analysed_seats_by_entrant", analysed_seats.c.entrant, analysed_seats.c.game)
queue_state = sa.Table(  # one row
    "queue_state", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("floor", sa.Integer, nullable=False),  # every game up to this number is analysed, failed or skipped
    sa.Column("skipped", sa.Integer, nullable=False),  # games skipped for being older than the backlog
    sa.Column("note", sa.Text, nullable=False),  # the analyser's last word when it stopped by itself
)


@attrs.frozen
class SeatRow:
    """One seat of a game weighed: who sat there and its decisions."""

    game: int
    seat: int
    entrant: str
    label: str
    analysis: SeatAnalysis


@attrs.define
class AnalysisStore:
    """``DIR/analysis.db``: the games weighed, their seats, and the queue's floor."""

    engine: sa.Engine

    @classmethod
    def open(cls, folder: Path) -> AnalysisStore:
        """The store of the league in ``folder``, made if it is not there yet."""
        store = cls(engine_for(f"sqlite:///{(folder / STORE_FILE).absolute()}"))
        with store._write() as c:
            metadata.create_all(c)
            SEATS_BY_ENTRANT.create(c, checkfirst=True)
            if c.execute(sa.select(queue_state.c.id)).first() is None:
                c.execute(queue_state.insert().values(id=1, floor=0, skipped=0, note=""))
        return store

    def _write(self) -> AbstractContextManager[sa.Connection]:
        return writing(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def state(self) -> tuple[int, int, str]:
        """The queue's floor, the games skipped, and the analyser's last word."""
        with self.engine.connect() as c:
            row = c.execute(sa.select(queue_state)).one()
        return row.floor, row.skipped, row.note

    def set_queue(self, floor: int, skipped: int) -> None:
        with self._write() as c:
            c.execute(queue_state.update().values(floor=floor, skipped=skipped))

    def set_note(self, note: str) -> None:
        with self._write() as c:
            c.execute(queue_state.update().values(note=note))

    def done_after(self, floor: int) -> set[int]:
        """The games after ``floor`` that were analysed (or failed)."""
        with self.engine.connect() as c:
            return set(c.execute(sa.select(analyses.c.game).where(analyses.c.game > floor)).scalars())

    def counts(self) -> dict[str, int]:
        """Games analysed and failed."""
        with self.engine.connect() as c:
            found: dict[str, int] = {status: n for status, n in c.execute(
                sa.select(analyses.c.status, sa.func.count()).group_by(analyses.c.status))}
        return {"analysed": found.get("analysed", 0), "failed": found.get("failed", 0)}

    def save(self, game: int, game_id: str, seats: Sequence[SeatRow], cpu: float, note: str = "") -> None:
        """A game weighed, all its seats in one transaction (``note``: it could not be, and why); a game saved
        already is left as it is (an analyser orphaned by a killed run may finish the game a new one took up)."""
        with self._write() as c:
            if c.execute(sa.select(analyses.c.game).where(analyses.c.game == game)).first() is not None:
                return
            c.execute(analyses.insert().values(game=game, game_id=game_id, status="failed" if note else "analysed",
                                               note=note, cpu=cpu, finished=time.time()))
            if seats:
                c.execute(analysed_seats.insert(), [
                    {"game": s.game, "seat": s.seat, "entrant": s.entrant, "label": s.label,
                     "decisions": s.analysis.to_json()} for s in seats])

    def seats(self, games: Sequence[int], entrant: str | None) -> list[SeatRow]:
        """The seats of ``games`` weighed, ``entrant``'s alone (None: every seat), by game then seat."""
        query = sa.select(analysed_seats).where(analysed_seats.c.game.in_(list(games)))
        if entrant is not None:
            query = query.where(analysed_seats.c.entrant == entrant)
        with self.engine.connect() as c:
            rows = list(c.execute(query.order_by(analysed_seats.c.game, analysed_seats.c.seat)))
        return [SeatRow(r.game, r.seat, r.entrant, r.label, SeatAnalysis.from_json(r.decisions)) for r in rows]

    def recent_games(self, entrant: str, count: int) -> list[int]:
        """``entrant``'s latest ``count`` games weighed, newest first."""
        query = (sa.select(analysed_seats.c.game).where(analysed_seats.c.entrant == entrant)
                 .group_by(analysed_seats.c.game).order_by(analysed_seats.c.game.desc()).limit(count))
        with self.engine.connect() as c:
            return list(c.execute(query).scalars())

    def status(self, game: int) -> tuple[str, str] | None:
        """Game ``game``'s status and note, or None if it was not weighed."""
        with self.engine.connect() as c:
            row = c.execute(sa.select(analyses.c.status, analyses.c.note).where(analyses.c.game == game)).first()
        return None if row is None else (row.status, row.note)


# ---------------------------------------------------------------------- the queue
@attrs.frozen
class Backlog:
    """How the analysis keeps up: games waiting (at most the backlog), skipped, analysed and failed."""

    waiting: int
    skipped: int
    analysed: int
    failed: int
    note: str  # the analyser's last word, if it stopped by itself

    def text(self) -> str:
        failed = f", {self.failed} could not be" if self.failed else ""
        return (f"{self.waiting} game{'s' if self.waiting != 1 else ''} waiting for analysis, {self.skipped} skipped "
                f"(older than the backlog), {self.analysed} analysed{failed}")


def backlog(db: LeagueDB, store: AnalysisStore, size: int) -> Backlog:
    """The figure: what waits beyond ``size`` counts as skipped, as the analyser will skip it when it looks."""
    floor, skipped, note = store.state()
    waiting = db.count_after(floor) - len(store.done_after(floor))
    counts = store.counts()
    return Backlog(min(waiting, size), skipped + max(0, waiting - size), counts["analysed"], counts["failed"], note)


def next_game(db: LeagueDB, store: AnalysisStore, size: int) -> int | None:
    """The newest game waiting for analysis, or None. On the way, the games beyond the newest ``size`` waiting
    are skipped (counted), and the floor rises past every game analysed, failed or skipped."""
    floor, was_skipped, _ = store.state()
    numbers = db.numbers_after(floor)
    done = store.done_after(floor)
    waiting = [n for n in numbers if n not in done]
    skipped = was_skipped + max(0, len(waiting) - size)
    waiting = waiting[-size:]
    new_floor = max(floor, waiting[0] - 1 if waiting else (numbers[-1] if numbers else floor))
    if (new_floor, skipped) != (floor, was_skipped):
        store.set_queue(new_floor, skipped)
    return waiting[-1] if waiting else None


def status_line(db: LeagueDB, folder: Path) -> str:
    """The analysis in a line, for the organiser: on or off, its share of a core, and how it keeps up."""
    settings = analysis_settings(db)
    if not settings.enabled:
        said = "Analysis off (pinochle-arena league analysis DIR --on)"
        if not (folder / STORE_FILE).exists():
            return said  # (never on: nothing to count, and no file made for it)
    else:
        said = f"Analysis on, at most {settings.cpu_share:g} of a core at the lowest priority"
    store = AnalysisStore.open(folder)
    try:
        figure = backlog(db, store, settings.backlog)
    finally:
        store.close()
    return f"{said}: {figure.text()}" + (f"; {figure.note}" if figure.note else "")


# ---------------------------------------------------------------------- what an entrant sees
@attrs.frozen
class PhaseRow:
    """One version's points lost per hand in one phase, with its 95% interval and marks."""

    label: str
    phase: str
    hands: int
    mean: float | None  # None: the search values none of the phase's decisions yet
    low: float | None
    high: float | None
    valued: int
    decisions: int
    marks: str

    @property
    def interval(self) -> str:
        if self.mean is None:
            return "not analysed"
        if self.low is None or self.high is None:
            return f"{self.mean:.2f}"
        return f"{self.mean:.2f} ({self.low:.2f} to {self.high:.2f})"


def phase_rows(seats: Sequence[SeatAnalysis]) -> list[PhaseRow]:
    """The per-phase table (analysis.summary's) of ``seats``: a row per version and phase it played."""
    rows = []
    for label, (hands, phases) in losses_by_bot(seats).items():
        for phase, loss in phases.items():
            if not loss.decisions:
                continue
            marks = " ".join(f"{n} {m if n == 1 else PLURAL[m]}" for m, n in loss.marks.items() if n) or "-"
            finite = math.isfinite(loss.low)
            rows.append(PhaseRow(label, phase, hands, loss.mean if loss.valued else None,
                                 loss.low if finite and loss.valued else None,
                                 loss.high if finite and loss.valued else None, loss.valued, loss.decisions, marks))
    return rows


@attrs.frozen
class GameLine:
    """One of an entrant's games weighed, as its summary lists it."""

    number: int
    game_id: str
    labels: tuple[str, ...]  # its seats' versions
    lost: float  # points lost, its seats together
    marks: dict[str, int]


@attrs.frozen
class EntrantAnalysis:
    name: str
    rows: tuple[PhaseRow, ...]  # over its latest games weighed
    games: tuple[GameLine, ...]  # those games, newest first
    backlog: Backlog


def entrant_analysis(db: LeagueDB, store: AnalysisStore, name: str) -> EntrantAnalysis:
    """``name``'s seats in its latest games weighed: the per-phase table over them and a line a game."""
    settings = analysis_settings(db)
    numbers = store.recent_games(name, settings.recent)
    seats = store.seats(numbers, name)
    by_game: dict[int, list[SeatRow]] = {}
    for s in seats:
        by_game.setdefault(s.game, []).append(s)
    lines = [_game_line(n, by_game[n]) for n in numbers if n in by_game]
    return EntrantAnalysis(name, tuple(phase_rows([s.analysis for s in seats])), tuple(lines),
                           backlog(db, store, settings.backlog))


def _game_line(number: int, seats: list[SeatRow]) -> GameLine:
    decisions = [w for s in seats for w in s.analysis.decisions]
    return GameLine(number, seats[0].analysis.game_id, tuple(sorted({s.label for s in seats})),
                    round(sum(w.loss for w in decisions), 1), {m: sum(w.mark == m for w in decisions) for m in MARKS})


@attrs.frozen
class GameAnalysis:
    """One game's seats weighed, as an entrant (its own seats) or the organiser (every seat) sees them."""

    number: int
    game_id: str
    seats: tuple[SeatRow, ...]
    rows: tuple[PhaseRow, ...]


def game_analysis(store: AnalysisStore, number: int, entrant: str | None) -> GameAnalysis | None:
    """Game ``number`` weighed: ``entrant``'s seats (None: all); None if it was not weighed or ``entrant`` did not
    sit at it."""
    seats = store.seats([number], entrant)
    if not seats:
        return None
    return GameAnalysis(number, seats[0].analysis.game_id, tuple(seats), tuple(phase_rows([s.analysis for s in seats])))


__all__ = ["AnalysisSettings", "AnalysisStore", "Backlog", "EntrantAnalysis", "GameAnalysis", "PhaseRow", "SeatRow",
           "analysis_settings", "backlog", "entrant_analysis", "game_analysis", "next_game", "phase_rows",
           "set_analysis_settings", "status_line"]
