"""The ladder: every entrant's newest version, ranked by the working ratings (:mod:`league.ratings`), with the
games it has and a provisional mark until it has played its placement tables; and what an entrant's page shows.

Neither reads the league's games whole: the ratings are those kept between games (:mod:`league.standing`), the
games, tables and latest results of each version are kept as games are saved, and an entrant's page asks the
database for its own results only. A league of up to ``REPLAY`` games draws an entrant's rating history by
fitting the games again at ``HISTORY_POINTS`` points; a larger one shows the points stored along the way."""

from __future__ import annotations

import csv
import io
import json

import attrs

from . import standing
from .db import LeagueDB, Version
from .matchmaking import PLACEMENT
from .ratings import Tally, fit


@attrs.frozen
class LadderRow:
    """One entrant's line of the ladder: its newest version, as the page, ``league show`` and the data give it."""

    rank: int
    entrant: str
    version: int
    bot: str  # that version's bot: a sample's name or its command line
    elo: int  # the version's rating (Elo, the pool's average near 0), rounded
    interval: int  # half the width of its 95% interval (Elo)
    games: int  # the games of this version the ratings count
    provisional: bool  # fewer tables than its placement needs
    paused: bool
    last: str  # its latest results, oldest first: W, D or L for each

    def cells(self) -> list:
        """The row as the ladder page and ``league show`` print it."""
        mark = " ".join(m for m, on in (("*", self.provisional), ("paused", self.paused)) if on)
        return [self.rank, self.entrant, self.version, f"{self.elo:+d}", str(self.interval), self.games, mark,
                self.last]

    def to_dict(self) -> dict:
        return attrs.asdict(self)


FIELDS = [field.name for field in attrs.fields(LadderRow)]  # the columns of the ladder's JSON and CSV


def ladder_rows(db: LeagueDB) -> list[list]:
    """[rank, entrant, version, Elo, +/- (95%), games, mark, last games] for every entrant on the ladder
    (:func:`ladder`), as the page shows them."""
    return [row.cells() for row in ladder(db)]


def ladder(db: LeagueDB) -> list[LadderRow]:
    """Every entrant not removed whose newest version is not voided, best first; empty before the first game. The
    last games are the newest version's latest results, oldest first: W (it scored more than an even share of the
    table), D (an even share) or L."""
    void = db.voided()
    current = [(e, e.version) for e in db.entrants()
               if e.status != "removed" and e.version is not None and e.version.id not in void]
    counted, estimates = standing.ratings(db, {version.id for _, version in current})
    if not counted:
        return []
    tallies = db.version_tallies()
    ranked = sorted(current, key=lambda pair: -estimates[pair[1].id].rating)
    rows = []
    for rank, (e, version) in enumerate(ranked, 1):
        est = estimates[version.id]
        games, tables, form = tallies.get(version.id, (0, 0, ""))  # (as the games are saved)
        rows.append(LadderRow(rank, e.name, version.number, version.command, round(est.rating),
                              round(1.96 * est.sigma), games, tables < PLACEMENT, e.status == "paused",
                              form[-FORM:]))
    return rows


def ladder_json(rows: list[LadderRow]) -> str:
    """The ladder as a JSON list of objects, one a row, with the keys of ``FIELDS``."""
    return json.dumps([row.to_dict() for row in rows], indent=1) + "\n"


def ladder_csv(rows: list[LadderRow]) -> str:
    """The ladder as CSV: a header of ``FIELDS``, then one line a row (true and false for the yes-or-no fields)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for row in rows:
        writer.writerow([_csv_cell(value) for value in row.to_dict().values()])
    return out.getvalue()


def _csv_cell(value):
    return ("true" if value else "false") if isinstance(value, bool) else value


FORM = 5  # the latest results the ladder shows (the database keeps as many: league.db.FORM)


@attrs.frozen
class Meeting:
    """An entrant's games against one opponent (any of their versions), from its side of the table."""

    opponent: str
    games: int
    won: int
    drawn: int
    lost: int


@attrs.frozen
class GameLine:
    number: int  # the game's number in the league: its page's address
    seats: tuple[str, ...]  # the version at each seat (its label)
    result: tuple[float, ...]


@attrs.frozen
class VersionLine:
    number: int
    command: str
    games: int
    history: tuple[tuple[int, float], ...]  # (the league's games so far, this version's rating then)


@attrs.frozen
class EntrantView:
    name: str
    status: str
    note: str
    versions: tuple[VersionLine, ...]
    meetings: tuple[Meeting, ...]
    recent: tuple[GameLine, ...]


HISTORY_POINTS = 30  # ratings taken along the league's games for an entrant's plot
REPLAY = 20_000  # counted games up to which an entrant's history is fitted again from the games
RECENT = 20


def entrant_view(db: LeagueDB, name: str) -> EntrantView | None:
    """What an entrant's page shows: its versions with their ratings along the league's games, its results against
    every opponent and its latest games; None if there is no such entrant."""
    entrant = next((e for e in db.entrants() if e.name == name), None)
    if entrant is None:
        return None
    versions = db.versions()
    mine = {v.id for v in versions.values() if v.entrant == name}
    recent = [GameLine(number, tuple(versions[v].label for v, _ in seats), tuple(share for _, share in seats))
              for number, seats in db.recent_games(sorted(mine), RECENT)]
    own = [v for v in versions.values() if v.id in mine]
    counted, estimates = standing.ratings(db)
    lines = _version_lines(db.results(), own) if counted <= REPLAY else _stored_lines(db, own, counted, estimates)
    return EntrantView(name, entrant.status, entrant.note, tuple(lines),
                       tuple(_meetings(db.meetings_of(sorted(mine)), versions)), tuple(recent))


def history_json(view: EntrantView) -> str:
    """An entrant's ratings along the league's games as JSON: for each version, its number, its games and its
    history, a list of {"games": the league's games counted so far, "rating": the version's Elo then}."""
    versions = [{"version": v.number, "games": v.games,
                 "history": [{"games": games, "rating": rating} for games, rating in v.history]}
                for v in view.versions]
    return json.dumps({"entrant": view.name, "versions": versions}, indent=1) + "\n"


def _version_lines(games, versions: list[Version]) -> list[VersionLine]:
    ids = {v.id for v in versions}
    every = max(1, len(games) // HISTORY_POINTS)
    tally = Tally()
    history: dict[int, list[tuple[int, float]]] = {v: [] for v in ids}
    for n, (_, seats) in enumerate(games, 1):
        tally.add(seats)
        if (n % every == 0 or n == len(games)) and ids & set(tally.games):  # (once one of them has played)
            estimates = fit(tally)
            for v in ids & set(estimates):
                history[v].append((n, round(estimates[v].rating, 1)))
    return [VersionLine(v.number, v.command, tally.games.get(v.id, 0), tuple(history[v.id]))
            for v in sorted(versions, key=lambda v: v.number)]


def _stored_lines(db: LeagueDB, versions: list[Version], counted: int, estimates) -> list[VersionLine]:
    """The versions' history as stored along the league (at most ``HISTORY_POINTS`` of the points, evenly
    taken, the last the rating now)."""
    stored = db.rating_history([v.id for v in versions])
    lines = []
    for v in sorted(versions, key=lambda v: v.number):
        points = stored[v.id]
        if v.id in estimates and estimates[v.id].games:
            points = [p for p in points if p[0] < counted] + [(counted, round(estimates[v.id].rating, 1))]
        if len(points) > HISTORY_POINTS:
            step = (len(points) - 1) / (HISTORY_POINTS - 1)
            points = [points[round(k * step)] for k in range(HISTORY_POINTS)]
        games = estimates[v.id].games if v.id in estimates else 0
        lines.append(VersionLine(v.number, v.command, games, tuple(points)))
    return lines


def _meetings(against: dict[int, tuple[int, int, int, int]], versions) -> list[Meeting]:
    """The results against each version (seat against seat) summed by its entrant, most met first."""
    counts: dict[str, list[int]] = {}
    for other, results in against.items():
        c = counts.setdefault(versions[other].entrant, [0, 0, 0, 0])
        for k, n in enumerate(results):
            c[k] += n
    return [Meeting(name, *c) for name, c in sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))]


__all__ = ["FIELDS", "EntrantView", "GameLine", "LadderRow", "Meeting", "VersionLine", "entrant_view", "history_json",
           "ladder", "ladder_csv", "ladder_json", "ladder_rows"]
