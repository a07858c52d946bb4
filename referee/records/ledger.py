"""The ledger of a results folder: every record the run wrote, in the order it wrote them, each line sealed.

``games.jsonl`` can lose a line without a trace: a record taken away reads
like a game not played yet, and ``--resume`` would play it again, with a new
outcome and a good seal. So a run that keeps a ledger (its schedule's header
says ``"ledger":true``; runs begun before the ledger do not) appends to
``OUT/ledger.jsonl``, after each record reaches the disk, one sealed line::

    {"n":3,"game_id":"g2","record":"<the mac of that record's line>","mac":"..."}

``n`` counts the records written (1 for the first), so a line taken out of
the middle or moved breaks the count; ``record`` names the exact line written
(its seal), so a record replaced by another sealed record of the same game
is told from the one the run wrote. A game is listed once: the referee never
plays a game again once its record was written.

What the ledger cannot tell alone is its own last lines taken away together
with the last records: that reads like a run stopped earlier. A run that
ends keeps its count in its sealed metadata (:meth:`ResultStore.mark_ended`
in :mod:`referee.records.store`), and from then on that is caught too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from .seals import KEY_FILE, SealError, check_seal, seal

LEDGER_FILE = "ledger.jsonl"
WRITTEN = "written"  # in how a run ended (its sealed metadata): the records it had written
_MAC = re.compile(r"[0-9a-f]{64}")


class LedgerError(ValueError):
    """A ledger that is missing or was changed; the message names the file (and line) and says why."""


@attrs.frozen
class Entry:
    n: int  # its place in the ledger: the n-th record the run wrote
    game_id: str
    record: str  # the mac of the record's line in games.jsonl

    def to_text(self) -> str:
        return json.dumps({"n": self.n, "game_id": self.game_id, "record": self.record}, separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str) -> Entry:
        """The entry of an unsealed line; ValueError says what is wrong."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        n, game_id, record = data.get("n"), data.get("game_id"), data.get("record")
        if type(n) is not int or not isinstance(game_id, str) or not isinstance(record, str) \
                or not _MAC.fullmatch(record):
            raise ValueError("not a ledger entry (n, game_id, record)")
        return cls(n, game_id, record)


@attrs.frozen
class Ledger:
    entries: tuple[Entry, ...]
    intact: int  # bytes up to the end of its last whole line: less than the file's size if the last was cut short
    _by_game: dict[str, Entry] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_game", {e.game_id: e for e in self.entries})

    @property
    def written(self) -> int:
        """How many records the run wrote."""
        return len(self.entries)

    def of_game(self, game_id: str) -> Entry | None:
        return self._by_game.get(game_id)

    def impostor(self, game_id: str, mac: str) -> str | None:
        """Why a sealed record of ``game_id`` whose line carries ``mac`` is not the one the run wrote, or None
        (it is, or the ledger does not list its game yet: written just before a stop, the store adds it)."""
        entry = self.of_game(game_id)
        if entry is None or entry.record == mac:
            return None
        return (f"not the record this run wrote of game {game_id!r} ({LEDGER_FILE}:{entry.n} names another): "
                "a record replaced")

    def lost(self, macs: Iterable[str]) -> list[Entry]:
        """The entries whose record is not among ``macs`` (the seals of the records there are)."""
        there = set(macs)
        return [e for e in self.entries if e.record not in there]


def ledger_path(directory: Path) -> Path:
    return directory / LEDGER_FILE


def new_ledger(directory: Path) -> None:
    """Make an empty ``directory/ledger.jsonl``; never over an existing one."""
    path = ledger_path(directory)
    try:
        open(path, "x").close()
    except FileExistsError:
        raise LedgerError(f"{path} already exists: {directory} holds the results of another run") from None


def read_ledger(directory: Path, key: bytes) -> Ledger:
    """The ledger in ``directory``, every line's seal and count checked; LedgerError says what is wrong.

    A last line cut short (the writer was killed) is left out: its record, on
    the disk before it, reads as a record the ledger does not list yet.
    """
    path = ledger_path(directory)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise LedgerError(f"{path} is missing, so a record taken from the run cannot be told from a game not "
                          "played yet") from None
    except OSError as e:
        raise LedgerError(f"{path}: cannot read: {e.strerror}") from None
    *whole, cut = raw.split(b"\n")  # cut: what follows the last newline, a line cut short (or nothing)
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(whole, 1):
        try:
            entry = Entry.from_text(check_seal(line.decode("utf-8"), key))
        except (SealError, UnicodeDecodeError) as e:
            raise LedgerError(f"{path}:{number}: not written by this referee: {e} {directory / KEY_FILE}") from None
        except (ValueError, RecursionError) as e:
            raise LedgerError(f"{path}:{number}: {e}") from None
        if entry.n != number:
            raise LedgerError(f"{path}:{number}: counts record {entry.n} where record {number} should be: "
                              "lines were taken out of the ledger or moved")
        if entry.game_id in seen:
            raise LedgerError(f"{path}:{number}: game {entry.game_id!r} again (first at line "
                              f"{seen[entry.game_id]}): a game is written once")
        seen[entry.game_id] = number
        entries.append(entry)
    return Ledger(tuple(entries), len(raw) - len(cut))


def check_written(directory: Path, ledger: Ledger, ended: dict | None, meta: Path) -> None:
    """LedgerError if the ledger lists fewer records than the run had written when it ended (``ended``, as
    kept in ``meta``): its last lines were taken away."""
    written = ended.get(WRITTEN) if isinstance(ended, dict) else None
    if isinstance(written, int) and ledger.written < written:
        raise LedgerError(f"{ledger_path(directory)} lists {ledger.written} record(s), but the run had written "
                          f"{written} when it ended ({meta}): its last lines were taken away")


def append_entries(directory: Path, key: bytes, entries: Sequence[Entry]) -> None:
    """Append sealed ``entries`` with one write and one fsync."""
    data = "".join(seal(e.to_text(), key) + "\n" for e in entries)
    with open(ledger_path(directory), "a", encoding="utf-8") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def cut_to_intact(directory: Path, ledger: Ledger) -> None:
    """Take away a last line cut short, so that appends start on a line of their own."""
    path = ledger_path(directory)
    if path.stat().st_size > ledger.intact:
        os.truncate(path, ledger.intact)


__all__ = ["Entry", "LEDGER_FILE", "Ledger", "LedgerError", "WRITTEN", "append_entries", "check_written",
           "cut_to_intact", "ledger_path", "new_ledger", "read_ledger"]
