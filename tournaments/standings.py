"""Per-entrant totals from game records: games, wins, draws, losses, score, faults."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

import attrs

from referee.records.record import GameRecord, Termination


@attrs.define
class Standing:
    entrant: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = 0.0
    points: int = 0  # game points (totals) summed over games
    faults: Counter = attrs.Factory(Counter)

    @property
    def percent(self) -> float:
        return 100.0 * self.score / self.games if self.games else 0.0


def standings(records: Iterable[GameRecord]) -> list[Standing]:
    """One row per entrant, best score first."""
    table: dict[str, Standing] = {}
    for r in records:
        for seat, info in enumerate(r.seats):
            row = table.setdefault(info.entrant, Standing(info.entrant))
            row.games += 1
            share = r.result[seat]
            row.score += share
            if share == 1.0:  # won alone, or with a partner
                row.wins += 1
            elif share == 0.0:
                row.losses += 1
            else:  # a shared first place
                row.draws += 1
            if seat < len(r.totals):
                row.points += r.totals[seat]
            if r.culprit == seat and r.termination is not Termination.COMPLETED:
                row.faults[r.termination.value] += 1
    return sorted(table.values(), key=lambda s: (-s.percent, s.entrant))


@attrs.define
class Leader:
    """The entrant that :func:`standings` would put first, kept up game by game for a progress line (standings of
    every record after each game would cost a tournament time in proportion to the square of its games)."""

    score: defaultdict[str, float] = attrs.Factory(lambda: defaultdict(float))  # results won (a shared place: its share)
    games: Counter[str] = attrs.Factory(Counter)

    def add(self, record: GameRecord) -> None:
        for seat, info in enumerate(record.seats):
            self.games[info.entrant] += 1
            self.score[info.entrant] += record.result[seat]

    def now(self) -> tuple[str, float] | None:
        """(entrant, score %) of the first place, or None before any game."""
        if not self.games:
            return None
        first = min(self.games, key=lambda e: (-self.score[e] / self.games[e], e))
        return first, 100.0 * self.score[first] / self.games[first]


def standings_rows(rows: list[Standing]) -> list[list]:
    out = []
    for s in rows:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(s.faults.items())) or "-"
        out.append([s.entrant, s.games, s.wins, s.draws, s.losses, f"{s.score:g}", f"{s.percent:.1f}%",
                    round(s.points / s.games) if s.games else 0, faults])
    return out


STANDINGS_HEADERS = ["bot", "games", "won", "drawn", "lost", "score", "score %", "avg points", "faults"]


def fault_rows(records) -> list[list]:
    """[bot, fault kind, games, the first game's reason] for every bot and kind of fault, in order of first sight."""
    seen: dict[tuple[str, str], list] = {}
    for r in records:
        if r.termination is Termination.COMPLETED or r.culprit is None or r.culprit >= len(r.seats):
            continue
        key = (r.seats[r.culprit].entrant, r.termination.value)
        if key in seen:
            seen[key][2] += 1
        else:
            seen[key] = [*key, 1, f"{r.game_id}: {r.detail}"[:160]]
    return list(seen.values())
