"""The ladder: every entrant's newest version, ranked by the working ratings (:mod:`league.ratings`), with the
games it has and a provisional mark until it has played its placement tables."""

from __future__ import annotations

from .db import LeagueDB
from .matchmaking import PLACEMENT
from .ratings import fit


def ladder_rows(db: LeagueDB) -> list[list]:
    """[rank, entrant, version, Elo, +/- (95%), games, mark] for every entrant not removed, best first; empty
    before the first game."""
    games: dict[int, list[tuple[int, float]]] = {}
    for game, _seat, version, share in db.results():
        games.setdefault(game, []).append((version, share))
    if not games:
        return []
    current = [e for e in db.entrants() if e.status != "removed"]
    estimates = fit(games.values(), [e.version.id for e in current])
    tables = {}
    for unit in db.tables():
        for v in set(unit):
            tables[v] = tables.get(v, 0) + 1
    ranked = sorted(current, key=lambda e: -estimates[e.version.id].rating)
    rows = []
    for rank, e in enumerate(ranked, 1):
        est = estimates[e.version.id]
        mark = "*" if tables.get(e.version.id, 0) < PLACEMENT else ""
        if e.status == "paused":
            mark = (mark + " paused").strip()
        rows.append([rank, e.name, e.version.number, f"{est.rating:+.0f}", f"{1.96 * est.sigma:.0f}", est.games, mark])
    return rows


__all__ = ["ladder_rows"]
