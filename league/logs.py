"""The bots' stderr logs a league keeps: one a game and seat, and a quota for each entrant.

Every seat of a league game writes a log of its own, ``games/logs/LABEL.GAME.stderr.log`` (``LABEL`` the
seat's version, ``alice`` or ``alice.v2``; games played on a cluster come back under ``cluster/WORKER/``):
the first ``GAME_LOG_CAP`` bytes of what its bot wrote to stderr (the referee's cap on one process: a league
game's seat has a process of its own, and a process kept from game to game with ``persist`` writes to the
log of the game it was started for), with the referee's notes (starts, faults).

All of an entrant's logs together take at most its quota, the league setting ``stderr_quota_mib``
(``DEFAULT_QUOTA_MIB`` unless ``league init --stderr-quota`` says otherwise): once a game is saved, its logs
join their entrants' and the oldest are removed until the rest fit. A log counts from when its game is
saved, so the logs of the games in play are not removed; records never are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import attrs

from referee.bots.transport import STDERR_CAP
from referee.match import game_log_name
from referee.records.record import GameRecord

GAME_LOG_CAP = STDERR_CAP  # bytes of a bot's stderr one game's log keeps (and the referee's notes besides)
DEFAULT_QUOTA_MIB = 64  # each entrant's logs together, unless the league says otherwise
SMALLEST_QUOTA_MIB = 4  # room for the newest game's logs (two for an entrant with both seats of a partnership)
MIB = 1 << 20

LOG_NAME = re.compile(r"([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)\.stderr\.log")
GAME_ID = re.compile(r"u[0-9]+[a-z]")  # a league game's id: its unit and seating (league.runner.unit_games)


def quota_mib(settings: dict) -> int:
    """The league's stderr quota for each entrant, in MiB."""
    return settings.get("league", {}).get("stderr_quota_mib", DEFAULT_QUOTA_MIB)


def removed_text(settings: dict) -> str:
    """What a removed log's page says instead of it."""
    return f"log removed: the entrant's stderr quota ({quota_mib(settings)} MiB) keeps only its latest logs"


def entrant_of(file: str) -> str | None:
    """The entrant a stderr log belongs to (``NAME[.MORE...].stderr.log``), or None for a name that is no log's."""
    match = LOG_NAME.fullmatch(file)
    return match.group(1) if match else None


def game_of(file: str) -> tuple[str, str] | None:
    """(seat, game id) of a league game's log, ``SEAT.GAME.stderr.log``; None for another log."""
    match = LOG_NAME.fullmatch(file)
    if match is None:
        return None
    seat, _, game = (match.group(1) + match.group(2)).rpartition(".")
    return (seat, game) if seat and GAME_ID.fullmatch(game) else None


def taken(path: Path) -> int:
    """The bytes a log takes: its length, or the blocks it holds on disk if they are more (a short log takes a
    whole block); 0 once it is gone."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return 0
    return max(st.st_size, st.st_blocks * 512)


@attrs.define
class LogQuota:
    """Each entrant's logs, oldest first, with the bytes each takes; keeps every entrant within ``quota`` bytes.

    Made once by :meth:`of` (reading the folder), then told of each game saved (:meth:`saved`). A log is
    measured when its game is saved."""

    folder: Path
    quota: int
    kept: dict[str, dict[Path, int]] = attrs.Factory(dict)  # entrant -> its logs, oldest first -> bytes
    totals: dict[str, int] = attrs.Factory(dict)

    @classmethod
    def of(cls, folder: Path, quota: int) -> LogQuota:
        """The logs in ``folder`` (and below it), oldest first by their last change, each entrant's cut to
        ``quota``."""
        logs = cls(folder, quota)
        found = [(path.stat().st_mtime, path.name, path) for path in folder.rglob("*.stderr.log") if path.is_file()]
        for _, _, path in sorted(found):
            logs._add(path)
        for entrant in list(logs.kept):
            logs._trim(entrant)
        return logs

    def saved(self, records: Iterable[GameRecord]) -> list[Path]:
        """Games just saved: their seats' logs join their entrants', newest; returns the logs removed to keep
        each of those entrants within the quota."""
        entrants: set[str] = set()
        for record in records:
            for path in self._logs_of(record):
                entrant = self._add(path)
                if entrant is not None:
                    entrants.add(entrant)
        return [path for entrant in sorted(entrants) for path in self._trim(entrant)]

    def _logs_of(self, record: GameRecord) -> list[Path]:
        """The logs of ``record``'s seats, wherever they were written (here, or back from a cluster's worker)."""
        names = [game_log_name(seat.entrant, record.game_id) for seat in record.seats]
        cluster = self.folder / "cluster"
        folders = [self.folder, *(sorted(p for p in cluster.iterdir() if p.is_dir()) if cluster.is_dir() else [])]
        return [folder / name for name in names for folder in folders if (folder / name).is_file()]

    def _add(self, path: Path) -> str | None:
        """``path`` as its entrant's newest log; its entrant (None if the name is no entrant's log)."""
        entrant = entrant_of(path.name)
        if entrant is None:
            return None
        logs, size = self.kept.setdefault(entrant, {}), taken(path)
        self.totals[entrant] = self.totals.get(entrant, 0) - logs.pop(path, 0) + size
        logs[path] = size
        return entrant

    def _trim(self, entrant: str) -> list[Path]:
        """Remove ``entrant``'s oldest logs until the rest fit the quota; returns those removed."""
        logs, removed = self.kept[entrant], []
        while self.totals[entrant] > self.quota and logs:
            path = next(iter(logs))
            self.totals[entrant] -= logs.pop(path)
            path.unlink(missing_ok=True)
            removed.append(path)
        return removed


__all__ = ["DEFAULT_QUOTA_MIB", "GAME_LOG_CAP", "LogQuota", "MIB", "SMALLEST_QUOTA_MIB", "entrant_of", "game_of",
           "quota_mib", "removed_text", "taken"]
