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
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from .audit import Schedule, ScheduleError, check_records, read_schedule, schedule_path, write_schedule
from .record import GameRecord, append_record, append_records, record_from_line, seal_problem
from .seals import KeyFileError, SealError, Unsealed, key_path, load_key, new_key, read_sealed_json, sealed_json


class StoreError(ValueError):
    """A results directory that cannot be used as asked; the message says why."""


@attrs.define
class Recovery:
    records: list[GameRecord]
    bad_lines: list[tuple[int, str]]  # (line number, reason)


STARTED: list[ResultStore] = []  # new runs started by this process, for the command line to tidy up at its end


@attrs.define
class ResultStore:
    directory: Path
    meta_name: str = "tournament.json"  # the run's fingerprint: tournament.json, match.json or sprt.json
    _key: bytes | None = attrs.field(default=None, init=False, repr=False)

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
                                 schedule_path(self.directory)) if p.exists()]

    def has_games(self) -> bool:
        """Whether a game is saved here (games.jsonl is not empty)."""
        return self.games_path.is_file() and self.games_path.stat().st_size > 0

    def start(self, fingerprint: dict, games: Schedule) -> None:
        """Make the directory (mode 0700 if new), its secret key, its schedule, the metadata file and games.jsonl.

        Never over another run's files, even one with no game saved: a key,
        schedule or metadata left without records may be the evidence of
        records deleted. (A run of this process that ends before its first
        game takes its own files away again: :meth:`discard_if_unplayed`.)
        """
        self.check_free()
        try:
            self._key = new_key(self.directory)
            write_schedule(self.directory, games, self._key)
        except (KeyFileError, ScheduleError) as e:
            raise StoreError(str(e)) from None
        self._write_meta(fingerprint)
        self.games_path.touch()
        STARTED.append(self)

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
        metas = [self.directory / name for name in ("match.json", "sprt.json", "tournament.json", "config.json")]
        for path in (self.games_path, key_path(self.directory), schedule_path(self.directory), *metas):
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
        """Read every intact, sealed and scheduled record; set aside the other lines; truncate a partial last line."""
        if not self.games_path.exists():
            return Recovery([], [])
        key = self.key
        games = self.schedule()
        raw = self.games_path.read_bytes()
        read: list[tuple[int, GameRecord]] = []
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
            if unsealed is None:
                read.append((number, record))
            else:
                bad.append((number, unsealed))
        problems = check_records([record for _, record in read], games)
        for problem in problems:
            bad.append((read[problem.index][0], f"game {problem.game_id}: {problem.reason}"))
        bad.sort()
        rejected = {problem.index for problem in problems}
        kept = [(number, record) for i, (number, record) in enumerate(read) if i not in rejected]
        records = [record for _, record in kept]
        good_lines = [lines[number - 1] for number, _ in kept]
        if bad:
            aside = self.games_path.with_suffix(".jsonl.bad")
            with open(aside, "ab") as f:
                for number, _ in bad:
                    f.write(lines[number - 1] + b"\n")
            tmp = self.games_path.with_suffix(".jsonl.tmp")
            tmp.write_bytes(b"".join(line + b"\n" for line in good_lines))
            os.replace(tmp, self.games_path)
        return Recovery(records, bad)

    def append(self, record: GameRecord) -> None:
        append_record(self.games_path, record, self.key)

    def append_many(self, records: list[GameRecord]) -> None:
        append_records(self.games_path, records, self.key)

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
        deleted from it is missed by ``replay`` and ``ratings``."""
        self._write_meta({**self.read_meta(), ENDED: how})

    def _write_meta(self, fingerprint: dict) -> None:
        tmp = self.meta_path.with_suffix(".json.tmp")
        tmp.write_text(sealed_json(fingerprint, self.key), encoding="utf-8")
        os.replace(tmp, self.meta_path)


ENDED = "ended"  # in the metadata file: how the run ended, once it has
