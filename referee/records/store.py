"""The results folder of a run (a match, an SPRT or a tournament): durable appends, and recovery for --resume.

``games.jsonl`` gets one line per finished game, written and fsynced before
the next game is scheduled. A SIGKILL can leave at most a partial last line;
``recover`` keeps every intact record, sets aside anything else (with the
line numbers) and truncates the file to its intact part so appends stay
clean. A metadata file (``tournament.json``, ``match.json``, ``sprt.json``)
keeps the run's fingerprint, so a resume with a changed configuration is
refused instead of mixing results.

``start`` also makes the directory's ``secret.key`` and ``schedule.jsonl``
(:mod:`referee.records.seals`, :mod:`referee.records.audit`); every record is sealed
with that key, and ``recover`` sets aside, like a damaged line, a record
whose seal does not match or that the schedule rules out (a game not in it,
a second record of one game, a wrong seating, a result its termination
cannot give), so a resumed tournament plays those games again.

A run started here also keeps ``ledger.jsonl`` (:mod:`referee.records.ledger`):
after each append to ``games.jsonl``, a sealed line per record with its count
and its seal. ``recover`` sets aside a record that is not the one the run
wrote of its game, lists a record written just before a stop but not yet in
the ledger, and refuses (StoreError, nothing changed) when a record the run
wrote is gone: a resume must not play that game again with a new outcome.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import attrs

from .audit import Schedule, ScheduleError, check_records, read_schedule, schedule_path, write_schedule
from .ledger import (
    WRITTEN,
    Entry,
    Ledger,
    LedgerError,
    append_entries,
    check_written,
    cut_to_intact,
    ledger_path,
    new_ledger,
    read_ledger,
)
from .record import GameRecord, append_records, record_from_line, seal_problem
from .seals import KeyFileError, SealError, Unsealed, key_path, load_key, mac_in, new_key, read_sealed_json, sealed_json


class StoreError(ValueError):
    """A results directory that cannot be used as asked; the message says why."""


@attrs.define
class Recovery:
    records: list[GameRecord]
    bad_lines: list[tuple[int, str]]  # (line number, reason)
    listed: list[str] = attrs.Factory(list)  # games whose record was written but not yet in the ledger: added now


STARTED: list[ResultStore] = []  # new runs started by this process, for the command line to tidy up at its end


@attrs.define
class ResultStore:
    directory: Path
    meta_name: str = "tournament.json"  # the run's fingerprint: tournament.json, match.json or sprt.json
    _key: bytes | None = attrs.field(default=None, init=False, repr=False)
    _written: int | None = attrs.field(default=None, init=False, repr=False)  # records in the ledger, once read
    _ledgered: bool | None = attrs.field(default=None, init=False, repr=False)  # whether the run keeps a ledger
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, repr=False)  # appends from threads

    @property
    def games_path(self) -> Path:
        return self.directory / "games.jsonl"

    @property
    def meta_path(self) -> Path:
        return self.directory / self.meta_name

    def exists(self) -> bool:
        return bool(self._existing())

    def _existing(self) -> list[str]:
        """The names of the run's files already in the directory."""
        return [p.name for p in (self.games_path, self.meta_path, key_path(self.directory),
                                 schedule_path(self.directory), ledger_path(self.directory)) if p.exists()]

    def has_games(self) -> bool:
        """Whether a game is saved here (games.jsonl is not empty)."""
        return self.games_path.is_file() and self.games_path.stat().st_size > 0

    def start(self, fingerprint: dict, games: Schedule) -> None:
        """Make the directory (mode 0700 if new), its secret key, its ledger, its schedule (which says that the
        run keeps a ledger), the metadata file and games.jsonl.

        Never over another run's files, even one with no game saved: a key,
        schedule or metadata left without records may be the evidence of
        records deleted. (A run of this process that ends before its first
        game takes its own files away again: :meth:`discard_if_unplayed`.)
        """
        self.check_free()
        STARTED.append(self)  # before its first file: a Ctrl-C from here on finds what to take away
        try:
            self._key = new_key(self.directory)
            new_ledger(self.directory)
            write_schedule(self.directory, attrs.evolve(games, ledger=True), self._key)
        except (KeyFileError, ScheduleError, LedgerError) as e:
            raise StoreError(str(e)) from None
        self._ledgered, self._written = True, 0
        self._write_meta(fingerprint)
        self.games_path.touch()

    def check_free(self) -> None:
        """StoreError unless a new run may start here: no run's files at all."""
        found = self._existing()
        if not found:
            return
        unplayed = "" if self.has_games() else "; no game saved: records deleted, or a run stopped by kill -9"
        raise StoreError(f"{self.directory} already holds results ({', '.join(found)} already "
                         f"{'exists' if len(found) == 1 else 'exist'}{unplayed}): add --resume {self.directory} to "
                         f"continue that run, or choose another --out (or, to start afresh there, delete "
                         f"{self.directory} first)")

    def discard_if_unplayed(self) -> None:
        """Remove the files :meth:`start` made if no game was saved since (the run stopped before its first game),
        so that the same command may start there again; the logs stay."""
        if self.has_games():
            return
        metas = {self.meta_path, *(self.directory / name for name in ("match.json", "sprt.json", "tournament.json",
                                                                        "config.json"))}
        for path in (self.games_path, key_path(self.directory), schedule_path(self.directory),
                     ledger_path(self.directory), *metas):
            path.unlink(missing_ok=True)

    def resume(self, fingerprint: dict, games: Schedule) -> Recovery:
        if not self.meta_path.exists():
            raise StoreError(f"nothing to resume in {self.directory} (no {self.meta_name})")
        saved = {k: v for k, v in self.read_meta().items() if k != ENDED}
        if saved != fingerprint:
            changed = sorted(k for k in set(saved) | set(fingerprint) if saved.get(k) != fingerprint.get(k))
            raise StoreError(f"the configuration changed since this run started ({', '.join(changed)}); "
                             "resume with the same configuration, or start a new run elsewhere")
        if self.schedule() != games:
            raise StoreError(f"{schedule_path(self.directory)} does not list the games this configuration schedules "
                             "(a bot now gives another 'id name', or the run was started by another version); "
                             "start a new run elsewhere")
        return self.recover()

    @property
    def key(self) -> bytes:
        """The directory's secret key (StoreError when it cannot be read)."""
        if self._key is None:
            try:
                self._key = load_key(self.directory)
            except KeyFileError as e:
                raise StoreError(f"{e}; a run started before records were sealed cannot be resumed "
                                 "(start it again elsewhere)") from None
        return self._key

    def schedule(self) -> Schedule:
        try:
            return read_schedule(self.directory, self.key)
        except ScheduleError as e:
            raise StoreError(str(e)) from None

    def recover(self) -> Recovery:
        """Read every intact, sealed and scheduled record; set aside the other lines; truncate a partial last line.

        With a ledger, a record that is not the one the run wrote of its game
        is set aside too, and a record not yet in the ledger (written just
        before the run was stopped) is added to it. A record the run wrote
        that is gone (deleted, or replaced) is refused with StoreError,
        before anything is changed: a resume would play that game again.
        """
        if not self.games_path.exists() and not ledger_path(self.directory).exists():
            return Recovery([], [])
        key = self.key
        games = self.schedule()
        ledger = self._ledger(games)
        raw = self.games_path.read_bytes() if self.games_path.exists() else b""
        read: list[tuple[int, GameRecord, str]] = []
        bad: list[tuple[int, str]] = []
        lines = raw.split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = record_from_line(line)
            except (ValueError, UnicodeDecodeError, RecursionError) as e:
                partial = number == len(lines) and not raw.endswith(b"\n")
                bad.append((number, "cut short (the process was killed while writing)" if partial else str(e)))
                continue
            unsealed = seal_problem(line, key, key_path(self.directory))
            mac = "" if unsealed is not None else mac_in(line.decode("utf-8"))
            if unsealed is None and ledger is not None:
                unsealed = ledger.impostor(record.game_id, mac)
            if unsealed is None:
                read.append((number, record, mac))
            else:
                bad.append((number, unsealed))
        problems = check_records([record for _, record, _ in read], games)
        for problem in problems:
            bad.append((read[problem.index][0], f"game {problem.game_id}: {problem.reason}"))
        bad.sort()
        rejected = {problem.index for problem in problems}
        kept = [entry for i, entry in enumerate(read) if i not in rejected]
        if ledger is not None:
            self._check_nothing_lost(ledger, [mac for *_, mac in kept])
        records = [record for _, record, _ in kept]
        good_lines = [lines[number - 1] for number, *_ in kept]
        if bad:
            aside = self.games_path.with_suffix(".jsonl.bad")
            with open(aside, "ab") as f:
                for number, _ in bad:
                    f.write(lines[number - 1] + b"\n")
            tmp = self.games_path.with_suffix(".jsonl.tmp")
            tmp.write_bytes(b"".join(line + b"\n" for line in good_lines))
            os.replace(tmp, self.games_path)
        listed = [] if ledger is None else self._list_unlisted(ledger, kept)
        return Recovery(records, bad, listed)

    def _ledger(self, games: Schedule | None = None) -> Ledger | None:
        """The run's ledger as it is on the disk (None: the run was begun before ledgers, as its schedule
        ``games`` says); StoreError if it was changed."""
        if not (games or self.schedule()).ledger:
            self._ledgered = False
            return None
        try:
            ledger = read_ledger(self.directory, self.key)
        except LedgerError as e:
            raise StoreError(f"{e}; the run cannot be resumed: start it again elsewhere") from None
        self._ledgered, self._written = True, ledger.written
        return ledger

    def _check_nothing_lost(self, ledger: Ledger, macs: list[str]) -> None:
        """StoreError if a record the ledger lists is not among ``macs`` (the records kept), or if the ledger
        lists fewer records than the run had written when it ended."""
        try:
            ended = self.read_meta().get(ENDED) if self.meta_path.exists() else None
            check_written(self.directory, ledger, ended, self.meta_path)
        except LedgerError as e:
            raise StoreError(f"{e}; the run cannot be resumed: put the folder back as it was, or start the run "
                             "again elsewhere") from None
        lost = ledger.lost(macs)
        if lost:
            shown = ", ".join(e.game_id for e in lost[:8]) + (", ..." if len(lost) > 8 else "")
            raise StoreError(f"{self.games_path} no longer holds the record this run wrote of {len(lost)} game(s) "
                             f"({shown}; deleted or replaced: {ledger_path(self.directory).name} lists them), and "
                             "a resume does not play a game twice: put the records back from a copy of "
                             f"{self.directory}, or start the run again elsewhere")

    def _list_unlisted(self, ledger: Ledger, kept: list[tuple[int, GameRecord, str]]) -> list[str]:
        """Add to the ledger the records kept that it does not list (written just before the run was stopped)."""
        cut_to_intact(self.directory, ledger)
        unlisted = [(record.game_id, mac) for _, record, mac in kept if ledger.of_game(record.game_id) is None]
        entries = [Entry(ledger.written + i, game_id, mac) for i, (game_id, mac) in enumerate(unlisted, 1)]
        if entries:
            append_entries(self.directory, self.key, entries)
        self._written = ledger.written + len(entries)
        return [e.game_id for e in entries]

    def append(self, record: GameRecord) -> None:
        self.append_many([record])

    def append_many(self, records: list[GameRecord]) -> None:
        """Append the records to games.jsonl (one write, one fsync), then list them in the ledger the same way."""
        with self._lock:
            lines = append_records(self.games_path, records, self.key)
            if self._ledgered is None:
                self._ledger()
            if self._ledgered:
                first = self._written or 0
                append_entries(self.directory, self.key, [Entry(first + i, record.game_id, mac_in(line))
                                                          for i, (record, line) in enumerate(zip(records, lines), 1)])
                self._written = first + len(records)

    def read_meta(self) -> dict:
        """The run's fingerprint (and, once it ended, how: ``ENDED``), its seal checked: an edited seed or
        configuration must not be taken up by a resume (a silent re-deal of every game left)."""
        try:
            return read_sealed_json(self.meta_path, self.key)
        except Unsealed as e:
            raise StoreError(f"{self.meta_path}: {e}: finish the run with pinochle-arena 0.1, or start it again "
                             "elsewhere") from None
        except (SealError, OSError) as e:
            raise StoreError(f"{self.meta_path}: {e}: the run cannot be resumed; start it again elsewhere") \
                from None

    def mark_ended(self, how: dict) -> None:
        """Keep, sealed, how the run ended (an SPRT: its verdict and the games it played), so that a record
        deleted from it is missed by ``replay`` and ``ratings``; with a ledger, how many records the run had
        written, so that the ledger's last lines taken away with their records are missed too."""
        if self._ledgered is None:
            self._ledger()
        written = {WRITTEN: self._written} if self._ledgered else {}
        self._write_meta({**self.read_meta(), ENDED: {**how, **written}})

    def _write_meta(self, fingerprint: dict) -> None:
        tmp = self.meta_path.with_suffix(".json.tmp")
        tmp.write_text(sealed_json(fingerprint, self.key), encoding="utf-8")
        os.replace(tmp, self.meta_path)


ENDED = "ended"  # in the metadata file: how the run ended, once it has
