"""The ladder's ratings kept between games, so that neither a page nor a round reads the league's games.

The database keeps what the working fit needs (:meth:`league.db.LeagueDB.tally`: each pair of versions' points
and weight, each version's games and latest results), added to as games are saved and counted again when a
version is voided or restored; and the ratings last fitted from it, with the tally's generation they were
fitted at. ``league run`` fits and stores them at every round (:func:`refit`); a page or ``league show``
reads them (:func:`ratings`) and fits them itself only when they are behind the tally and a running league
did not store them in the last ``FRESH`` seconds, or when they lack an entrant's newest version. Each fit
begins from the ratings stored, so after a round it takes a Newton step or two; and a process keeps the tally it read, so
that the next fit reads only the pairs changed since (all of them again once a void has counted the tally
again).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

import attrs

from .db import LeagueDB
from .ratings import Estimate, Fit, Tally, fit_pool

FRESH = 10.0  # seconds for which ratings stored by a running league are shown though newer games were saved


def refit(db: LeagueDB, players: Iterable[int] = (), running: bool = False) -> Fit:
    """Fit the tally in the database (with ``players`` and every entrant's newest version, at the prior if they
    have not played), begun from the stored ratings, and store the result; returns the fit. ``running``: by the
    league's runner, which stores them again at its next round (so pages may show them until ``FRESH``)."""
    return _refit(db, players, running)[1]


def _refit(db: LeagueDB, players: Iterable[int] = (), running: bool = False) -> tuple[int, Fit]:
    """:func:`refit`, and the games the tally fitted counts."""
    stored = db.standing()
    start = {v: rating for v, (rating, _, _) in stored.ratings.items()}
    wanted = set(players) | ladder_versions(db)
    kept = _KEPT.setdefault((db.url, db.meta("seed")), _Kept())
    with kept.lock:
        kept.read(db)
        fitted = fit_pool(kept.tally, wanted, start)
        stamp, counted = kept.stamp, kept.counted
    if stamp is None:
        raise ValueError("the tally was read without its stamp")  # (read() sets it)
    db.store_standing(stamp[1], counted, {v: (e.rating, e.sigma, e.games) for v, e in fitted.estimates.items()},
                      running)
    return counted, fitted


@attrs.define
class _Kept:
    """The tally as this process last read it from a league's database, and the stamp it was read at."""

    stamp: tuple[int, int] | None = None  # (the generation it was counted again at, the generation)
    counted: int = 0
    tally: Tally = attrs.Factory(Tally)
    lock: threading.Lock = attrs.Factory(threading.Lock)  # (pages fit in threads of their own)

    def read(self, db: LeagueDB) -> None:
        """Bring the tally up to date: the pairs and versions changed since it was read, or all of it if it was
        counted again from the games since."""
        stamp, self.counted, changed = db.tally(self.stamp)
        if self.stamp is None or stamp[0] != self.stamp[0]:
            self.tally = changed
        else:
            self.tally.pairs.update(changed.pairs)
            self.tally.games.update(changed.games)
        self.stamp = stamp


_KEPT: dict[tuple[str, str], _Kept] = {}  # by the league's database and seed


def ratings(db: LeagueDB, shown: set[int] | None = None) -> tuple[int, dict[int, Estimate]]:
    """The games the ratings count, and the ratings of every version that played and of every entrant's newest
    (``shown``: those, if the caller has them already): those stored if they are up to date (or a running
    league stored them within ``FRESH`` seconds: it stores them every round), else fitted now (and stored)."""
    stored = db.standing()
    current = stored.rated == stored.generation or time.time() - stored.rated_at < FRESH
    if stored.rated >= 0 and current and (ladder_versions(db) if shown is None else shown) <= set(stored.ratings):
        return stored.counted, {v: Estimate(*values) for v, values in stored.ratings.items()}
    counted, fitted = _refit(db)
    return counted, fitted.estimates


def ladder_versions(db: LeagueDB) -> set[int]:
    """The newest version of every entrant not removed, unless it was voided: those the ladder shows."""
    void = db.voided()
    return {e.version.id for e in db.entrants()
            if e.status != "removed" and e.version is not None and e.version.id not in void}


__all__ = ["FRESH", "ladder_versions", "ratings", "refit"]
