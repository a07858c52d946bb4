"""Game records: one JSON object per line, appended as each game ends.

A record holds everything needed to replay the game through the rules
engine and to check it: variant and options, seed, seats and bots, every
deal, every action with its seat and the time it took, every meld with its
points, the points of each hand, the result and how the game ended.

Every line is sealed (:mod:`referee.records.seals`): its last field, ``"mac"``,
is an HMAC of the rest made with the output directory's ``secret.key``.
Reading with the key rejects a line whose seal is missing or wrong; reading
with ``key=None`` skips that check and is for callers that ask for it
explicitly (old records, tests).
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterator
from pathlib import Path

import attrs

from ..rules.variants import RULES_VERSION
from .seals import KEY_FILE, SealError, check_seal, mac_in, seal

RECORD_FORMAT = 1


class Termination(enum.Enum):
    COMPLETED = "completed"
    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal-action"
    PROTOCOL_ERROR = "protocol-error"
    CRASH = "crash"


@attrs.frozen
class SeatInfo:
    entrant: str  # the name the user gave this entrant (or the sample bot's name)
    bot_name: str  # what the bot called itself in 'id name'
    command: str
    ids: dict[str, str] = attrs.field(factory=dict)  # every 'id KEY TEXT' line the bot sent (version, url, ...)
    protocol: int = 2  # the version the bot spoke (3 when it said 'protocol 3')
    options: dict[str, str] = attrs.field(factory=dict)  # protocol 3: the value of every option it declares
    program: str = ""  # "sha256:HEX" of the bot's files as the machine that played ran them (referee.bots.fingerprint)

    def to_dict(self) -> dict:
        return attrs.asdict(self)


@attrs.frozen
class ActionEntry:
    seat: int
    action: str
    ms: float | None  # time charged; None for actions the referee did not time

    def to_list(self) -> list:
        return [self.seat, self.action, None if self.ms is None else round(self.ms, 2)]


def _forget_line(record: GameRecord, attribute: attrs.Attribute, value: object) -> object:
    """(attrs' on_setattr) A field set after :meth:`GameRecord.passed_on`: the kept line is no longer its JSON."""
    if attribute.name != "_line":
        object.__setattr__(record, "_line", None)
    return value


@attrs.define(on_setattr=[attrs.setters.convert, attrs.setters.validate, _forget_line])
class GameRecord:
    game_id: str
    variant: str
    options: dict[str, str]
    seed: int
    seats: list[SeatInfo]
    time_control: dict
    deals: list[dict] = attrs.Factory(list)
    actions: list[ActionEntry] = attrs.Factory(list)
    melds: list[dict] = attrs.Factory(list)  # {"hand", "seat", "meld", "points", "cards"}
    hands: list[dict] = attrs.Factory(list)  # {"hand", "points", "totals"}
    termination: Termination = Termination.COMPLETED
    culprit: int | None = None
    detail: str = ""
    result: tuple[float, ...] = ()
    totals: tuple[int, ...] = ()
    started: float = 0.0
    seconds: float = 0.0
    extra: dict = attrs.Factory(dict)  # tournament bookkeeping (pairing, round...)
    rules: int = RULES_VERSION  # the rules version it was played under (1: a record that names none)
    # the JSON it was read from, by passed_on: what to_json gives (until a field is set)
    _line: str | None = attrs.field(default=None, init=False, eq=False, repr=False)

    def to_json(self) -> str:
        if self._line is not None:
            return self._line
        data = {
            "format": RECORD_FORMAT,
            "game_id": self.game_id,
            "variant": self.variant,
            "options": self.options,
            "seed": self.seed,
            "seats": [s.to_dict() for s in self.seats],
            "time_control": self.time_control,
            "deals": self.deals,
            "actions": [[a.seat, a.action, None if a.ms is None else round(a.ms, 2)] for a in self.actions],  # to_list
            "melds": self.melds,
            "hands": self.hands,
            "termination": self.termination.value,
            "culprit": self.culprit,
            "detail": self.detail,
            "result": list(self.result),
            "totals": list(self.totals),
            "started": round(self.started, 3),
            "seconds": round(self.seconds, 3),
            "rules": self.rules,
        }
        if self.extra:
            data["extra"] = self.extra
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def passed_on(cls, text: str) -> GameRecord:
        """The record of ``text``, a record's JSON as another referee process made it (:meth:`to_json`), to be
        passed on unchanged: its :meth:`to_json` is ``text`` itself, not made again.

        A tournament's parent process seals and saves the records its
        referee workers send it, which is then a seal on the very bytes the
        worker made (the same bytes as its JSON made again: the JSON of a
        record read back is the JSON it was read from), without the work of
        writing a record's every action again. Setting a field drops the
        kept text; a record read so must not be changed in place otherwise
        (its lists), or its JSON would not say so.
        """
        record = cls.from_json(text)
        record._line = text
        return record

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a record is a JSON object")
        if data.get("format") != RECORD_FORMAT:
            raise ValueError(f"unknown record format {data.get('format')!r} (this version reads {RECORD_FORMAT})")
        try:
            return cls(
                game_id=str(data["game_id"]),
                variant=str(data["variant"]),
                options={str(k): str(v) for k, v in data["options"].items()},
                seed=int(data["seed"]),
                seats=[SeatInfo(**s) for s in data["seats"]],
                time_control=dict(data["time_control"]),
                deals=list(data["deals"]),
                actions=[ActionEntry(int(s), str(a), None if ms is None else float(ms)) for s, a, ms in data["actions"]],
                melds=list(data["melds"]),
                hands=list(data["hands"]),
                termination=Termination(data["termination"]),
                culprit=None if data["culprit"] is None else int(data["culprit"]),
                detail=str(data["detail"]),
                result=tuple(float(x) for x in data["result"]),
                totals=tuple(int(x) for x in data["totals"]),
                started=float(data["started"]),
                seconds=float(data["seconds"]),
                rules=int(data.get("rules", 1)),
                extra=dict(data.get("extra", {})),
            )
        except KeyError as e:
            raise ValueError(f"missing field {e.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError, OverflowError) as e:  # (int() of 1e999 overflows)
            raise ValueError(f"malformed field: {e}") from None


class RecordError(ValueError):
    """A record file that cannot be read; the message names the file and line."""


def append_record(path: Path, record: GameRecord, key: bytes) -> str:
    """Append one sealed record and force it to disk, so a crash loses no finished game; returns its line."""
    return append_records(path, [record], key)[0]


def append_records(path: Path, records: list[GameRecord], key: bytes) -> list[str]:
    """Append sealed records with one write and one fsync (a group commit); returns their lines (no newline)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [seal(record.to_json(), key) for record in records]
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
        f.flush()
        os.fsync(f.fileno())
    return lines


def record_from_line(line: bytes) -> GameRecord:
    """The record of one line, sealed or not; ValueError (or UnicodeDecodeError, RecursionError) if it is none."""
    return GameRecord.from_json(line.decode("utf-8"))


def seal_problem(line: bytes, key: bytes, key_file: Path) -> str | None:
    """Why ``line`` was not sealed with ``key`` (read from ``key_file``), or None when its seal matches."""
    try:
        check_seal(line.decode("utf-8"), key)
    except (SealError, UnicodeDecodeError) as e:
        return f"not written by this referee: {e} {key_file}"
    return None


def scan_records(path: Path, key: bytes | None) -> Iterator[tuple[int, GameRecord, str | None, str]]:
    """(line number, record, why its seal fails or None, its mac or "") for each record of a JSONL file.

    With ``key=None`` seals are not checked (and the mac is ""). A line that is
    no record at all ends the scan with a RecordError naming it.
    """
    key_file = path.parent / KEY_FILE
    try:
        f = open(path, "rb")
    except OSError as e:
        raise RecordError(f"{path}: cannot open: {e.strerror}") from None
    with f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            line = raw.removesuffix(b"\n")
            try:
                record = record_from_line(line)
            except (ValueError, UnicodeDecodeError, RecursionError) as e:
                cut = "" if raw.endswith(b"\n") else " (the line is cut short: was the writer killed?)"
                raise RecordError(f"{path}:{number}: not a valid game record{cut}: {e}; "
                                  "a tournament's --resume sets bad lines aside") from None
            unsealed = None if key is None else seal_problem(line, key, key_file)
            mac = "" if key is None or unsealed is not None else mac_in(line.decode("utf-8"))
            yield number, record, unsealed, mac


def read_records(path: Path, key: bytes | None) -> Iterator[GameRecord]:
    """Records of a JSONL file; RecordError names the first bad line (with a key: or badly sealed line).

    ``key=None`` reads without checking seals: only for callers that ask for unverified records.
    """
    for number, record, unsealed, _ in scan_records(path, key):
        if unsealed is not None:
            raise RecordError(f"{path}:{number}: {unsealed}")
        yield record
