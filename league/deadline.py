"""A contest's deadline for submissions and its closing by hand (:mod:`league.contest` says what they mean).

Both are kept in ``league_meta`` (an instant, in seconds since the epoch), so
every command and page reads the same; :func:`check_open` is what ``league
add``, ``update``, ``entrant add`` and uploads ask before they enter anything.
"""

from __future__ import annotations

import datetime as dt
import time

from .db import LeagueDB
from .errors import LeagueError, LeagueRefused

FINAL = "final"  # league_meta's key of the final's plan (league.final): once it is there, the end is fixed

DEADLINE = "deadline"  # league_meta's keys: the deadline for submissions
CLOSED = "closed"  # when the organiser closed submissions by hand


class ContestClosed(LeagueError):
    """A submission after the contest closed; the message says when it closed."""


def parse_when(text: str) -> float:
    """An instant from ISO 8601 text (``2026-12-24T18:00Z``, ``2026-12-24 18:00+01:00``; a time without a zone is
    UTC, a date alone its midnight UTC); ValueError (one line) if it is none."""
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r}: give a date and time as 2026-12-24T18:00Z (UTC, or with an offset such as "
                         "+01:00)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp()


def when_text(instant: float) -> str:
    """An instant as the messages and pages give it: ``2026-12-24 18:00 UTC``."""
    when = dt.datetime.fromtimestamp(instant, dt.UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC" if when.second else "%Y-%m-%d %H:%M UTC")


def when_iso(instant: float | None) -> str | None:
    """An instant as data: ISO 8601 in UTC (``2026-12-24T18:00:00Z``)."""
    if instant is None:
        return None
    return dt.datetime.fromtimestamp(instant, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def deadline(db: LeagueDB) -> float | None:
    value = db.contest_value(DEADLINE)
    return None if value is None else float(value)


def closed_by_hand(db: LeagueDB) -> float | None:
    value = db.contest_value(CLOSED)
    return None if value is None else float(value)


def closed_at(db: LeagueDB, now: float | None = None) -> float | None:
    """When submissions closed (by hand, or at the deadline once it has passed), or None while they are open."""
    now = time.time() if now is None else now
    ends = [t for t in (closed_by_hand(db), deadline(db)) if t is not None and t <= now]
    return min(ends) if ends else None


def check_open(db: LeagueDB, now: float | None = None) -> None:
    """:class:`ContestClosed` if submissions are closed: no new entrant, version or upload after that."""
    closed = closed_at(db, now)
    if closed is not None:
        raise ContestClosed(f"the contest closed at {when_text(closed)}: no new entrants or versions")


def set_deadline(db: LeagueDB, instant: float | None) -> None:
    """Set, move or (None) drop the deadline; LeagueRefused once the final phase has begun."""
    _check_not_final(db, "the deadline")
    db.set_contest_value(DEADLINE, None if instant is None else repr(instant))


def close(db: LeagueDB, undo: bool = False) -> float | None:
    """Close submissions now (``undo``: open them again, unless a deadline has passed); returns when they closed
    (None: they are open). LeagueRefused once the final phase has begun."""
    _check_not_final(db, "the contest's closing")
    if undo:
        db.set_contest_value(CLOSED, None)
    elif closed_by_hand(db) is None:
        db.set_contest_value(CLOSED, repr(time.time()))
    return closed_at(db)


def _check_not_final(db: LeagueDB, what: str) -> None:
    if db.contest_value(FINAL) is not None:
        raise LeagueRefused(f"the final phase has begun: {what} can no longer change")


__all__ = ["CLOSED", "DEADLINE", "FINAL", "ContestClosed", "check_open", "close", "closed_at", "closed_by_hand",
           "deadline", "parse_when", "set_deadline", "when_iso", "when_text"]
