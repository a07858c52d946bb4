"""The final phase of a contest (``league final``): the ladder's top entrants play a round robin of their own, on
fresh deals, and its games alone make the final standings.

Once submissions are closed (:mod:`league.contest`), :func:`plan_final`
takes the top ``N`` of the ladder among the entrants that play (each by its
newest version, the one the ladder ranks) and plans, in one transaction,
every table of that many versions as a table of the variant seats them (for
two seats every pair, for three every three), each playing the same fresh
deals: ``rounds`` deals, each in every seating of its table (every seating
of a board, in a league of boards), round after round. The deals come from
a seed of the final's own and none is a deal any ladder game was dealt. The
plan is kept in the database with its units, so :func:`play_final` plays
what is left of it after a Ctrl-C or a SIGKILL: a game is saved whole or
not at all, and a saved game is never played again.

The standings (:func:`final_standings`) are those ``pinochle-arena ratings``
gives over the final's games (:func:`tournaments.summary.summarise`): its
Elo of the pool with 95% intervals from its bootstrap over deals (for two
seats the pool's maximum likelihood, for more its pairwise Elo, for boards
the boards' ratings), so ``league export --final`` then ``ratings`` gives the
same order.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import attrs
import trio

from referee.bots.fingerprint import fingerprint
from referee.records.record import GameRecord
from referee.records.seals import seal
from referee.rules.dealing import derive_seed
from tournaments.runner import run_games

from .analyser import start_if_on
from .db import LeagueDB, LeagueError, Version
from .deadline import FINAL, closed_at
from .errors import LeagueRefused
from .ladder import ladder
from .lock import Hold
from .logs import MIB, LogQuota, quota_mib
from .runner import GATHER, games_folder, games_per_unit, league_config, seats_needed, unit_games

STANDINGS = "final_standings"  # league_meta's key of the standings, kept once measured for the games played
DEFAULT_TOP = 10
DEFAULT_DEALS = 20  # deals each table of the final plays unless --games says otherwise
BOOTSTRAP = 300  # resamples of the standings' intervals (as ratings' default)


class FinalError(LeagueRefused):
    """A final that cannot be planned or played as asked; the message is one line."""


@attrs.frozen
class FinalPlan:
    top: int  # the entrants it takes from the ladder (fewer if fewer play)
    versions: tuple[int, ...]  # their versions' ids, in the ladder's order when it was planned
    seed: int  # the final's own seed, from which its deals come
    rounds: int  # deals every table plays
    tables: int  # tables of the round robin
    games: int  # games planned in all
    created: float

    def to_dict(self) -> dict:
        return attrs.asdict(self) | {"versions": list(self.versions)}

    @classmethod
    def from_text(cls, text: str) -> FinalPlan:
        data = json.loads(text)
        return cls(**{**data, "versions": tuple(data["versions"])})


@attrs.frozen
class FinalRow:
    """One finalist's line of the final standings."""

    rank: int
    entrant: str
    version: int | None  # its version's number (None: a name that is no version's, as a seat filler's)
    label: str  # its name in the records and in ``ratings``'s tables
    elo: float  # Elo of the pool (its average 0), by ratings' model over the final's games
    low: float | None  # its 95% interval (None: not measured, or open at that end)
    high: float | None
    games: int  # comparisons counted: games for two seats, pairs of seats for more, boards' pairs for boards
    score: float  # its points in them (1 a win, 0.5 a draw)

    def to_dict(self) -> dict:
        return attrs.asdict(self)


@attrs.frozen
class FinalGame:
    """One game of the final, as ``/final.json`` lists it."""

    number: int  # its number in the league: its page is /game/NUMBER/
    game: str  # its id in the records
    seats: tuple[str, ...]  # the version at each seat (its label)
    result: tuple[float, ...]  # each seat's share

    def to_dict(self) -> dict:
        return {"number": self.number, "game": self.game, "seats": list(self.seats), "result": list(self.result)}


def plan_of(db: LeagueDB) -> FinalPlan | None:
    text = db.contest_value(FINAL)
    return None if text is None else FinalPlan.from_text(text)


def finalists(db: LeagueDB, top: int) -> list[Version]:
    """The ladder's top ``top`` among the entrants that play (active, not voided), by their newest version."""
    playing = {v.entrant: v for v in db.players()}
    ranked = [playing[row.entrant] for row in ladder(db)
              if row.entrant in playing and playing[row.entrant].number == row.version]
    return ranked[:top]


def plan_final(db: LeagueDB, top: int = DEFAULT_TOP, games: int | None = None, seed: int | None = None) -> FinalPlan:
    """Plan the final (kept in the database with its units); FinalError if submissions are still open, the final
    was planned already, or too few entrants play."""
    if closed_at(db) is None:
        raise FinalError("submissions are still open: close them first (league close, or league deadline)")
    if plan_of(db) is not None:
        raise FinalError("the final is planned already: league final DIR plays what is left of it")
    settings = db.settings()
    seats = seats_needed(settings)
    chosen = finalists(db, top)
    if len(chosen) < seats:
        raise FinalError(f"too few entrants on the ladder for a final: {len(chosen)} play, a table needs {seats} "
                         "(league run plays the ladder first)")
    tables = list(itertools.combinations([v.id for v in chosen], seats))
    per_unit = games_per_unit(settings)
    rounds = DEFAULT_DEALS if games is None else rounds_for(games, len(tables), per_unit)
    seed = secrets.randbits(63) if seed is None else seed
    deals = fresh_deals(seed, rounds, db.ladder_seeds())
    plan = FinalPlan(top, tuple(v.id for v in chosen), seed, rounds, len(tables), rounds * len(tables) * per_unit,
                     time.time())
    units = [(table, deal) for deal in deals for table in tables]  # round after round: a stopped final is even
    try:
        db.start_final(FINAL, json.dumps(plan.to_dict()), units, per_unit)
    except LeagueError as e:
        raise FinalError(str(e)) from None
    return plan


def rounds_for(games: int, tables: int, per_unit: int) -> int:
    """Deals every table plays for ``games`` games in all, rounded up so that every table plays as many."""
    return max(1, math.ceil(games / (tables * per_unit)))


def check_as_planned(plan: FinalPlan, top: int | None, games: int | None, seed: int | None) -> None:
    """FinalError if ``top``, ``games`` or ``seed`` (None: not asked for) differ from the final planned already:
    a final goes on as it was planned."""
    per_unit = plan.games // (plan.tables * plan.rounds)
    rounds = None if games is None else rounds_for(games, plan.tables, per_unit)
    asked = ((top, plan.top), (seed, plan.seed), (rounds, plan.rounds))
    if any(given is not None and given != planned for given, planned in asked):
        raise FinalError(f"the final is planned already ({plan.top} top, {plan.games} games, seed {plan.seed}): "
                         "run league final without --top, --games or --seed to play what is left of it")


def fresh_deals(seed: int, rounds: int, used: set[int]) -> list[int]:
    """``rounds`` deals' seeds from the final's ``seed``, none of them in ``used`` (the ladder's)."""
    deals: list[int] = []
    for n in itertools.count():
        deal = derive_seed(seed, "league-final", n)
        if deal not in used and deal not in deals:
            deals.append(deal)
        if len(deals) == rounds:
            return deals
    raise AssertionError("unreachable")


@attrs.define
class _FinalStore:
    """Where :func:`tournaments.runner.run_games` writes the final's games: each sealed and saved with who sat
    where (a game whose seat ran another program than its version's is not saved: the final stops, with why)."""

    directory: Path
    db: LeagueDB
    unit_of: dict[str, int]
    version_of: dict[str, Version]
    logs: LogQuota
    changed: list[Version] = attrs.Factory(list)

    def append_many(self, records: list[GameRecord]) -> None:
        key, finished = self.db.key(), []
        for record in records:
            changed = [self.version_of[s.entrant] for s in record.seats
                       if s.program and s.program != self.version_of[s.entrant].program]
            if changed:
                self.changed.extend(changed)
                continue
            seats = [(i, self.version_of[s.entrant].id, share)
                     for i, (s, share) in enumerate(zip(record.seats, record.result, strict=True))]
            finished.append((self.unit_of[record.game_id], record.game_id, seal(record.to_json(), key), seats))
        self.db.save_games(finished)
        self.logs.saved(records)


def left_to_play(db: LeagueDB) -> int:
    return sum(max(u.games - len(u.played), 0) for u in db.final_units())


async def play_final(db: LeagueDB, folder: Path, overrides: dict | None = None,
                     on_game: Callable[[GameRecord], None] | None = None, hold: Hold | None = None,
                     say: Callable[[str], None] = print) -> int:
    """Play the final's games not saved yet; returns how many were saved. The league is held as ``league run``
    holds it (``hold``, if the caller took it, else taken here; given back at the end). FinalError if no final is
    planned, or a finalist's files changed since its version was entered. With the league's analysis on, its games
    are weighed in the background as the ladder's are (:func:`league.analyser.start_if_on`, the same settings)."""
    held = hold if hold is not None else await trio.to_thread.run_sync(Hold.take, db)
    analyser = None
    try:
        store, specs, config = await trio.to_thread.run_sync(_prepare, db, folder, overrides)
        if specs:
            analyser = await trio.to_thread.run_sync(start_if_on, db, folder, say)
        before = len(db.final_records())
        async with trio.open_nursery() as nursery:
            def lost() -> None:
                say("another league run took this league over (this one's heartbeat was late): stopping")
                nursery.cancel_scope.cancel()

            nursery.start_soon(held.keep, lost)
            if specs:
                await run_games(config, specs, store, on_game, gather=GATHER)
            nursery.cancel_scope.cancel()
    finally:
        if analyser is not None:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(analyser.stop)
        held.release()
    if store.changed:
        v = store.changed[0]
        raise FinalError(f"{v.label}'s program files changed while the final played; its games since were not "
                         f"saved: put back the files of version {v.number} and run league final again")
    return len(db.final_records()) - before


def _prepare(db: LeagueDB, folder: Path, overrides: dict | None):
    """The final's store, its games not saved yet, and the configuration they are played under."""
    plan = plan_of(db)
    if plan is None:
        raise FinalError("no final is planned: league final DIR plans one")
    versions = db.versions()
    finalists = [versions[v] for v in plan.versions]
    config = league_config(db, folder, finalists, overrides)
    check_unchanged(config, finalists)
    version_of = {v.label: v for v in finalists}
    for team in config.teams:
        if team.bots[0] in version_of:  # (a partnership's members are its version too)
            for member in team.members():
                version_of[member] = version_of[team.bots[0]]
    specs, unit_of = [], {}
    for unit in db.final_units():
        for spec in unit_games(config, unit, tuple(versions[v].label for v in unit.version_ids)):
            if spec.game_id not in unit.played:
                specs.append(spec)
                unit_of[spec.game_id] = unit.id
    logs = LogQuota.of(games_folder(folder) / "logs", quota_mib(db.settings()) * MIB)
    return _FinalStore(games_folder(folder), db, unit_of, version_of, logs), specs, config


def check_unchanged(config, finalists: list[Version]) -> None:
    """FinalError if a finalist's program files are not those its version was entered with: the final plays the
    versions entered, or none."""
    commands = {e.name: e.command for e in config.entrants}
    for v in finalists:
        if fingerprint(commands[v.label]) != v.program:
            raise FinalError(f"{v.label}'s program files changed since version {v.number} was entered: put them "
                             "back (the final plays the versions entered)")


def final_games(db: LeagueDB) -> list[FinalGame]:
    """The games the final standings count, in the order they finished."""
    games = []
    for number, line in db.final_records():
        record = GameRecord.from_json(line)
        games.append(FinalGame(number, record.game_id, tuple(s.entrant for s in record.seats), tuple(record.result)))
    return games


def final_standings(db: LeagueDB, bootstrap: int = BOOTSTRAP) -> tuple[list[FinalRow], int]:
    """The final's standings over its games played so far (none counted: none), and how many games made them.
    Measured once for a set of games (the bootstrap takes a while) and kept in the database."""
    lines = db.final_records()
    if not lines:
        return [], 0
    mark = hashlib.sha256(" ".join(str(n) for n, _ in lines).encode()).hexdigest() + f"/{bootstrap}"
    kept = db.contest_value(STANDINGS)
    if kept is not None and json.loads(kept)["games"] == mark:
        return [FinalRow(**row) for row in json.loads(kept)["rows"]], len(lines)
    rows = standings_of([GameRecord.from_json(line) for _, line in lines], db.versions(), bootstrap)
    db.set_contest_value(STANDINGS, json.dumps({"games": mark, "rows": [row.to_dict() for row in rows]}))
    return rows, len(lines)


def standings_of(records: list[GameRecord], versions: dict[int, Version], bootstrap: int) -> list[FinalRow]:
    """The ratings of ``records`` as ``pinochle-arena ratings`` measures them, as rows, best first."""
    from tournaments.multi import MultiReport
    from tournaments.summary import summarise

    report = summarise(records, bootstrap=bootstrap).report
    pool = report.elo if isinstance(report, MultiReport) else report.ratings  # (three or more seats: pairwise Elo)
    by_label = {v.label: v for v in versions.values()}
    rows = []
    for rank, name in enumerate(pool.players, 1):
        version = by_label.get(name)
        low, high = pool.intervals.get(name) or (None, None)
        rows.append(FinalRow(rank, version.entrant if version else name, version.number if version else None, name,
                             round(pool.ratings[name], 1), _finite(low), _finite(high), pool.games[name],
                             pool.scores[name]))
    return rows


def _finite(value: float | None) -> float | None:
    return None if value is None or math.isinf(value) else round(value, 1)


__all__ = ["BOOTSTRAP", "DEFAULT_DEALS", "DEFAULT_TOP", "FINAL", "FinalError", "FinalGame", "FinalPlan",
           "FinalRow", "check_as_planned", "final_games", "final_standings", "finalists", "left_to_play",
           "plan_final", "plan_of", "play_final", "rounds_for", "standings_of"]
