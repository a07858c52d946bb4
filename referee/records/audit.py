"""What a results directory should hold, and the checks of its records against it.

A run writes ``OUT/schedule.jsonl`` when it starts, every line sealed like
the records (:mod:`referee.records.seals`): a header (what kind of run, the
variant and its options) and one line per scheduled game (its id and the
entrant in each seat). An SPRT's games are not known in advance: its header
names NEW and OLD and the most pairs, and its game ids follow the pattern
``sprt-<k>a`` (NEW in seat 0) and ``sprt-<k>b`` (OLD in seat 0). A knockout's
header names its bracket (:mod:`referee.records.knockout`), and which games it
should hold follows from its records: every game of every match the bracket
has reached.

:func:`check_records` finds the records that no honest run could have
written even with a good seal: a game that is not in the schedule, a second
record of one game, a seating other than the scheduled one, a variant other
than the run's, and a result its termination cannot give (a fault must cost
the seat at fault the game, the way :func:`referee.rules.fault_returns` says).
Whether a completed game's result is the one the rules give is for
:func:`referee.records.replay.replay_record`, which replays every action.

A run that keeps a ledger of what it wrote (:mod:`referee.records.ledger`)
is checked against it too: :func:`audit_results` rejects a record that is not
the one the run wrote of its game, and lists apart (``Audit.lost``) every
record the run wrote that is gone, which no ``--partial`` excuses.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from ..rules import VariantError, fault_returns, get_variant
from ..rules.variants import Variant
from .knockout import Knockout, results_of
from .ledger import Entry, check_written, read_ledger
from .record import GameRecord, Termination, scan_records
from .seals import KEY_FILE, SealError, Unsealed, check_seal, load_key, read_sealed_json, seal

SCHEDULE_FILE = "schedule.jsonl"
SCHEDULE_FORMAT = 1
KINDS = ("match", "tournament", "sprt")
_SPRT_ID = re.compile(r"sprt-([1-9][0-9]*)([ab])")


class ScheduleError(ValueError):
    """A schedule file that is missing, badly sealed or malformed; the message names the file."""


@attrs.frozen
class ScheduledGame:
    game_id: str
    seating: tuple[str, ...]  # the entrant in each seat


@attrs.frozen
class SprtPairs:
    """An SPRT's open-ended schedule: pair k is ``sprt-<k>a`` (NEW, OLD) and ``sprt-<k>b`` (OLD, NEW)."""

    new: str
    old: str
    pairs: int  # the most pairs it may play

    def game(self, game_id: str) -> ScheduledGame | None:
        found = _SPRT_ID.fullmatch(game_id)
        if found is None or int(found.group(1)) > self.pairs:
            return None
        seating = (self.new, self.old) if found.group(2) == "a" else (self.old, self.new)
        return ScheduledGame(game_id, seating)


@attrs.frozen
class Schedule:
    kind: str  # one of KINDS
    variant: str
    options: dict[str, str] = attrs.field(factory=dict, hash=False)
    games: tuple[ScheduledGame, ...] = ()
    sprt: SprtPairs | None = None
    knockout: Knockout | None = None  # a knockout's bracket: its games follow from its results
    ledger: bool = attrs.field(default=False, eq=False)  # its run lists every record it writes in ledger.jsonl
    _by_id: dict[str, ScheduledGame] = attrs.field(init=False, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {g.game_id: g for g in self.games})

    @classmethod
    def of_games(cls, kind: str, variant: Variant, games: Iterable[tuple[str, Sequence[str]]]) -> Schedule:
        return cls(kind, variant.name, variant.settings(), tuple(ScheduledGame(g, tuple(s)) for g, s in games))

    @classmethod
    def of_sprt(cls, variant: Variant, new: str, old: str, pairs: int) -> Schedule:
        return cls("sprt", variant.name, variant.settings(), sprt=SprtPairs(new, old, pairs))

    @classmethod
    def of_knockout(cls, kind: str, variant: Variant, knockout: Knockout) -> Schedule:
        return cls(kind, variant.name, variant.settings(), knockout=knockout)

    def reached(self, records: Sequence[GameRecord]) -> Schedule:
        """A knockout's schedule as far as ``records`` take its bracket: every game it has asked for, listed;
        any other schedule as it is."""
        if self.knockout is None:
            return self
        games = [ScheduledGame(g.game_id, g.seating) for g in self.knockout.walk(results_of(records)).games()]
        return attrs.evolve(self, games=tuple(games), knockout=None)

    def game(self, game_id: str) -> ScheduledGame | None:
        if self.sprt is not None:
            return self.sprt.game(game_id)
        return self._by_id.get(game_id)

    def rules(self) -> Variant:
        return get_variant(self.variant, self.options)

    def to_lines(self) -> list[str]:
        header = {"format": SCHEDULE_FORMAT, "schedule": self.kind, "variant": self.variant, "options": self.options}
        if self.sprt is not None:
            header["sprt"] = attrs.asdict(self.sprt)
        if self.knockout is not None:
            header["knockout"] = self.knockout.to_dict()
        if self.ledger:
            header["ledger"] = True
        lines = [header] + [{"game_id": g.game_id, "seating": list(g.seating)} for g in self.games]
        return [json.dumps(line, separators=(",", ":")) for line in lines]

    @classmethod
    def from_lines(cls, lines: Sequence[str]) -> Schedule:
        """The schedule of unsealed lines; ValueError says what is wrong."""
        if not lines:
            raise ValueError("it is empty")
        header = json.loads(lines[0])
        if not isinstance(header, dict) or header.get("format") != SCHEDULE_FORMAT:
            raise ValueError(f"line 1 is not a schedule header of format {SCHEDULE_FORMAT}")
        kind = header.get("schedule")
        if kind not in KINDS:
            raise ValueError(f"unknown kind of run {kind!r}")
        try:
            pairs = header.get("sprt")
            sprt = None if pairs is None else SprtPairs(str(pairs["new"]), str(pairs["old"]), int(pairs["pairs"]))
            bracket = header.get("knockout")
            knockout = None if bracket is None else Knockout.from_dict(bracket)
            games = []
            for text in lines[1:]:
                line = json.loads(text)
                games.append(ScheduledGame(str(line["game_id"]), tuple(str(s) for s in line["seating"])))
            schedule = cls(kind, str(header["variant"]), {str(k): str(v) for k, v in header["options"].items()},
                           tuple(games), sprt, knockout, ledger=header.get("ledger") is True)
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise ValueError(f"malformed: {e!r}") from None
        if (kind == "sprt") != (sprt is not None):
            raise ValueError("an SPRT's schedule, and only an SPRT's, gives its pairs")
        return schedule


def schedule_path(directory: Path) -> Path:
    return directory / SCHEDULE_FILE


def write_schedule(directory: Path, schedule: Schedule, key: bytes) -> None:
    """Write ``directory/schedule.jsonl``, every line sealed with ``key``; never over an existing one."""
    path = schedule_path(directory)
    data = "".join(seal(line, key) + "\n" for line in schedule.to_lines())
    try:
        f = open(path, "x", encoding="utf-8")
    except FileExistsError:
        raise ScheduleError(f"{path} already exists: {directory} holds the results of another run") from None
    with f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def read_schedule(directory: Path, key: bytes) -> Schedule:
    """The schedule in ``directory``, every line's seal checked; ScheduleError says what is wrong."""
    path = schedule_path(directory)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScheduleError(f"{path} is missing, so the records next to it cannot be checked against their "
                            "schedule") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScheduleError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    lines = []
    for number, line in enumerate(raw.removesuffix("\n").split("\n"), 1):
        try:
            lines.append(check_seal(line, key))
        except SealError as e:
            raise ScheduleError(f"{path}:{number}: not written by this referee: {e} {directory / KEY_FILE}") from None
    try:
        schedule = Schedule.from_lines(lines)
        schedule.rules()
    except (ValueError, RecursionError, VariantError) as e:
        raise ScheduleError(f"{path}: not a schedule: {e}") from None
    return schedule


@attrs.frozen
class Problem:
    index: int  # the record's place in the list checked
    game_id: str
    reason: str


def check_records(records: Sequence[GameRecord], schedule: Schedule) -> list[Problem]:
    """Every record that the run of ``schedule`` cannot have written, with the reason.

    Of two records of one game the first that passes is kept and the other is
    a problem.
    """
    schedule = schedule.reached(records)
    variant = schedule.rules()
    problems = []
    kept: set[str] = set()
    for index, record in enumerate(records):
        reason = _problem_of(record, schedule, variant, kept)
        if reason is None:
            kept.add(record.game_id)
        else:
            problems.append(Problem(index, record.game_id, reason))
    return problems


def _problem_of(record: GameRecord, schedule: Schedule, variant: Variant, kept: set[str]) -> str | None:
    planned = schedule.game(record.game_id)
    if planned is None:
        return f"game {record.game_id!r} is not in the {schedule.kind}'s schedule"
    if record.game_id in kept:
        return f"a second record of game {record.game_id!r} (the first is kept)"
    seating = tuple(s.entrant for s in record.seats)
    if seating != planned.seating:
        return f"seating {', '.join(seating)}; the schedule seats {', '.join(planned.seating)}"
    if record.variant != schedule.variant or record.options != schedule.options:
        return (f"variant {record.variant} {record.options}; the {schedule.kind} plays {schedule.variant} "
                f"{schedule.options}")
    return _result_problem(record, variant)


def _result_problem(record: GameRecord, variant: Variant) -> str | None:
    """Why ``record``'s result cannot come from its termination, or None."""
    if len(record.result) != variant.players:
        return f"result {record.result} does not give one score per seat ({variant.players})"
    how = record.termination.value
    if record.termination is Termination.COMPLETED:
        return None if record.culprit is None else f"a completed game names seat {record.culprit} at fault"
    if record.culprit is None or not 0 <= record.culprit < variant.players:
        return f"{how} names no seat of the game at fault (culprit {record.culprit})"
    expected = fault_returns(variant, record.culprit)
    if record.result[record.culprit] != 0.0:
        return f"seat {record.culprit} was at fault ({how}) but did not lose: result {record.result}"
    if tuple(record.result) != expected:
        return f"result {record.result}; a {how} by seat {record.culprit} gives {expected}"
    return None


@attrs.frozen
class Finding:
    line: int
    game_id: str
    reason: str


@attrs.define
class Audit:
    records: list[GameRecord]  # the records that passed
    findings: list[Finding]  # the ones that did not, in file order
    missing: list[str] = attrs.Factory(list)  # scheduled games with no record: not played yet, or deleted
    unfinished: bool = False  # an SPRT that has not ended: which of its games there should be is not known
    lost: list[Entry] = attrs.Factory(list)  # records the run wrote (its ledger says) that are no longer there
    ledgered: bool = False  # the run keeps a ledger, so a record taken away is told from a game not played

    @property
    def complete(self) -> bool:
        return not self.missing and not self.unfinished and not self.lost


def audit_results(path: Path) -> Audit:
    """Read the records of ``path`` and check each against the key, schedule and ledger in its directory, and list
    the scheduled games that have no record and the records the run wrote that are gone.

    KeyFileError, ScheduleError or LedgerError when the key, schedule or
    ledger is missing or unusable; RecordError (from
    :mod:`referee.records.record`) for a line that is no record.
    """
    directory = path.parent
    key = load_key(directory)
    schedule = read_schedule(directory, key)
    ledger = read_ledger(directory, key) if schedule.ledger else None  # before the records: it never runs ahead
    sealed: list[tuple[int, GameRecord, str]] = []
    findings = []
    for number, record, unsealed, mac in scan_records(path, key):
        reason = unsealed if unsealed is not None or ledger is None else ledger.impostor(record.game_id, mac)
        if reason is None:
            sealed.append((number, record, mac))
        else:
            findings.append(Finding(number, record.game_id, reason))
    problems = check_records([record for _, record, _ in sealed], schedule)
    for problem in problems:
        findings.append(Finding(sealed[problem.index][0], problem.game_id, problem.reason))
    rejected = {problem.index for problem in problems}
    findings.sort(key=lambda f: f.line)
    records = [record for i, (_, record, _) in enumerate(sealed) if i not in rejected]
    meta, ended = ending(directory, schedule, key)
    lost: list[Entry] = []
    if ledger is not None:
        check_written(directory, ledger, ended, meta)
        lost = ledger.lost(mac for _, _, mac in sealed)  # a record there but rejected is a finding already
    expected = _expected_games(schedule.reached(records), ended)
    recorded = {r.game_id for r in records}
    missing = [] if expected is None else [g for g in expected if g not in recorded]
    return Audit(records, findings, missing, unfinished=expected is None, lost=lost, ledgered=ledger is not None)


def ending(directory: Path, schedule: Schedule, key: bytes) -> tuple[Path, dict | None]:
    """(the run's metadata file, how the run ended as kept there, sealed, or None: not ended, or not known)."""
    meta = directory / f"{schedule.kind}.json"
    try:
        ended = read_sealed_json(meta, key).get("ended")
    except (FileNotFoundError, Unsealed):  # no metadata, or 0.1's: how it ended is not known
        return meta, None
    except SealError as e:
        raise ScheduleError(f"{meta}: {e}") from None
    return meta, ended if isinstance(ended, dict) and ended else None


def _expected_games(schedule: Schedule, ended: dict | None) -> list[str] | None:
    """Every game the run's records should hold: a match's or tournament's whole schedule (a knockout's as far
    as its records take it); an SPRT's games as it kept them, sealed, when it ended (None before: an SPRT's
    schedule is open-ended)."""
    if schedule.sprt is None:
        return [g.game_id for g in schedule.games]
    return None if ended is None else sprt_ids(ended.get("games", {}))


def sprt_ids(ranges: dict[str, str]) -> list[str]:
    """``{"a": "1-3,5", "b": "1-3"}`` -> sprt-1a, sprt-2a, sprt-3a, sprt-5a, sprt-1b, ... (see :func:`sprt_ranges`)."""
    ids = []
    for half, text in sorted(ranges.items()):
        for part in filter(None, text.split(",")):
            first, _, last = part.partition("-")
            ids += [f"sprt-{k}{half}" for k in range(int(first), int(last or first) + 1)]
    return ids


def sprt_ranges(game_ids: Iterable[str]) -> dict[str, str]:
    """The SPRT games ``game_ids`` as ranges of pair numbers for each half: a short record of which were played."""
    numbers: dict[str, list[int]] = {}
    for game_id in game_ids:
        found = _SPRT_ID.fullmatch(game_id)
        if found:
            numbers.setdefault(found.group(2), []).append(int(found.group(1)))
    out = {}
    for half, values in numbers.items():
        values.sort()
        parts: list[str] = []
        start: int | None = values[0]
        for previous, value in zip(values, values[1:] + [None]):
            if value != previous + 1 if value is not None else True:
                parts.append(str(start) if start == previous else f"{start}-{previous}")
                start = value
        out[half] = ",".join(parts)
    return out


__all__ = ["Audit", "Finding", "Problem", "SCHEDULE_FILE", "Schedule", "ScheduleError", "ScheduledGame", "SprtPairs",
           "audit_results", "check_records", "ending", "read_schedule", "schedule_path", "sprt_ids", "sprt_ranges",
           "write_schedule"]
