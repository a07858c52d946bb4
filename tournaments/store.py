"""The results file of a tournament: durable appends, and recovery for --resume.

``games.jsonl`` gets one line per finished game, written and fsynced before
the next game is scheduled. A SIGKILL can leave at most a partial last line;
``recover`` keeps every intact record, sets aside anything else (with the
line numbers) and truncates the file to its intact part so appends stay
clean. ``tournament.json`` keeps the configuration's fingerprint, so a
resume with a changed configuration is refused instead of mixing results.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import attrs

from referee.record import GameRecord, append_record, append_records


class StoreError(ValueError):
    """A results directory that cannot be used as asked; the message says why."""


@attrs.define
class Recovery:
    records: list[GameRecord]
    bad_lines: list[tuple[int, str]]  # (line number, reason)


@attrs.define
class ResultStore:
    directory: Path

    @property
    def games_path(self) -> Path:
        return self.directory / "games.jsonl"

    @property
    def meta_path(self) -> Path:
        return self.directory / "tournament.json"

    def exists(self) -> bool:
        return self.games_path.exists() or self.meta_path.exists()

    def start(self, fingerprint: dict) -> None:
        if self.exists():
            raise StoreError(f"{self.directory} already holds a tournament: add --resume to continue it, "
                             "or choose another --out")
        self.directory.mkdir(parents=True, exist_ok=True)
        self._write_meta(fingerprint)
        self.games_path.touch()

    def resume(self, fingerprint: dict) -> Recovery:
        if not self.meta_path.exists():
            raise StoreError(f"nothing to resume in {self.directory} (no tournament.json)")
        saved = json.loads(self.meta_path.read_text(encoding="utf-8"))
        if saved != fingerprint:
            changed = sorted(k for k in set(saved) | set(fingerprint) if saved.get(k) != fingerprint.get(k))
            raise StoreError(f"the configuration changed since this tournament started ({', '.join(changed)}); "
                             "resume with the same configuration, or start a new tournament elsewhere")
        return self.recover()

    def recover(self) -> Recovery:
        """Read every intact record; set aside bad lines; truncate a partial last line."""
        if not self.games_path.exists():
            return Recovery([], [])
        raw = self.games_path.read_bytes()
        records: list[GameRecord] = []
        bad: list[tuple[int, str]] = []
        good_lines: list[bytes] = []
        lines = raw.split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                records.append(GameRecord.from_json(line.decode("utf-8")))
                good_lines.append(line)
            except (ValueError, UnicodeDecodeError, RecursionError) as e:
                partial = number == len(lines) and not raw.endswith(b"\n")
                bad.append((number, "cut short (the process was killed while writing)" if partial else str(e)))
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
        append_record(self.games_path, record)

    def append_many(self, records: list[GameRecord]) -> None:
        append_records(self.games_path, records)

    def _write_meta(self, fingerprint: dict) -> None:
        tmp = self.meta_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(fingerprint, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, self.meta_path)
