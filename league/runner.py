"""``league run``: the loop that plays the league, table after table, until it is told to stop.

Each round reads the entrants (afresh at least every second, so an entrant
added, updated, paused or removed while it runs is taken up within about a
second), checks that every active version's files are still the ones it was
entered with (a changed file pauses the entrant, with why: its games would
otherwise be rated under a program that is not the one entered), asks the
matchmaker for a round of tables (two per concurrent slot) from the working
ratings, allocates them in the database in one transaction, and plays them as
a tournament plays its games (:func:`tournaments.runner.run_games`: the
referee, jail, fresh processes, several referee processes, or the Dask
cluster). Finished games are saved, sealed, in transactions of their own (the
games that finish within a tenth of a second of each other in one); a unit
begun and not finished (the league was stopped) is finished first on the next
run, with its own deal. Each game's seat writes a stderr log of its own, and
once a game is saved its entrants' oldest logs go beyond their quota
(:mod:`league.logs`).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import trio

from referee.bots.fingerprint import fingerprint
from referee.match.client import STARTUP_ALLOWANCE
from referee.records.record import GameRecord
from referee.records.seals import seal
from referee.rules.variants import Partners
from tournaments.config import ConfigError, TournamentConfig, parse_config
from tournaments.runner import run_games
from tournaments.schedule import GameSpec, seatings

from . import standing
from .analyser import Analyser, start_if_on
from .db import LeagueDB, Unit, Version
from .lock import Hold
from .logs import MIB, LogQuota, quota_mib
from .matchmaking import Candidate, next_table


def league_config(db: LeagueDB, folder: Path, versions: list[Version], overrides: dict | None = None
                  ) -> TournamentConfig:
    """The configuration the league's games are played under, with ``versions`` as its bots (named by their
    labels; fewer than a table's seats are filled in with sample bots that play no game); ``overrides`` set keys
    of the [tournament] and [cluster] tables (how it runs: concurrency...)."""
    settings = db.settings()
    overrides = overrides or {}
    tournament = {**settings.get("tournament", {}), **overrides.get("tournament", {}), "name": "league",
                  "seed": db.seed(), "games_per_pairing": games_per_unit(settings)}
    tournament.pop("boards", None)
    bots = [{**v.bot, "name": v.label} for v in versions]
    bots += [{"name": f"seat-filler-{i}", "sample": "random"} for i in range(len(bots), SEATS_CHECKED)]
    data = {"tournament": tournament, "bot": bots}
    for table in ("time", "limits"):
        if settings.get(table):
            data[table] = settings[table]
    if overrides.get("cluster"):
        data["cluster"] = overrides["cluster"]
    config = parse_config(data, folder / "league.toml", games_folder(folder), where=f"league {folder}")
    startup = settings.get("league", {}).get("startup_timeout", STARTUP_ALLOWANCE)  # (league init --startup-timeout)
    entrants = tuple(attrs.evolve(e, startup_timeout=startup) for e in config.entrants)
    return attrs.evolve(config, entrants=entrants, game_logs=True)  # (so that the quota removes old logs whole)


def games_folder(folder: Path) -> Path:
    """Where a league's games write (its bots' logs, and unjailed bots' working folders): a folder that no bot's
    jail shows. The league's own files (its database) are never shown either: a bot whose folders would hold a
    league is refused (:mod:`referee.bots.apart`), and uploaded bots, in ``bots/``, see their own folder only."""
    return folder / "games"


SEATS_CHECKED = 5  # bots a configuration is checked with at least (the most seats of a variant): the rest fill in


def games_per_unit(settings: dict) -> int:
    """Games at one table: every seating of one deal (two seats: 2; three: 6; call-for-partner: 5)."""
    from referee.rules import get_variant

    variant = get_variant(settings.get("tournament", {}).get("variant", "two-handed"))
    return {3: 6, 5: 5}.get(variant.players, 2)


def seats_needed(settings: dict) -> int:
    """Entrants a table needs: a variant's seats, or two in a partnership variant (each entrant a team)."""
    from referee.rules import get_variant

    variant = get_variant(settings.get("tournament", {}).get("variant", "two-handed"))
    return 2 if variant.partners is Partners.OPPOSITE else variant.players


class TooFewEntrants(Exception):
    """``league run`` began with too few active entrants to fill one table."""


def unit_games(config: TournamentConfig, unit: Unit, labels: tuple[str, ...]) -> list[GameSpec]:
    """A unit's games: its deal in every seating of its table (``labels``: the versions, in table order)."""
    bot_of = config.member_bots()
    return [GameSpec(f"u{unit.id}{chr(97 + i)}", seats, unit.seed, labels, unit.id, sides,
                     tuple(bot_of.get(x, x) for x in seats), turn=i)
            for i, (seats, sides) in enumerate(seatings(config, labels))]


@attrs.define
class _LeagueStore:
    """What :func:`tournaments.runner.run_games` writes to: each record sealed and saved in the database in a
    transaction of its own, with who sat where; a record whose seat ran another program than its version's is
    not saved, and its entrant is paused. Then the games' logs are counted against their entrants' quota."""

    directory: Path
    db: LeagueDB
    key: bytes
    unit_of: dict[str, int]  # game id -> unit
    version_of: dict[str, Version]  # seat entrant (a label, or a team member's name) -> its version
    say: Callable[[str], None]
    history: _History
    paused: Callable[[], None]  # an entrant was paused: the runner reads the entrants again
    logs: LogQuota
    counted: Callable[[int], None]  # so many more games saved

    def append_many(self, records: list[GameRecord]) -> None:
        kept, finished = [], []
        for record in records:
            changed = [s.entrant for s in record.seats
                       if s.program and s.program != self.version_of[s.entrant].program]
            if changed:
                _pause_changed(self.db, self.version_of[changed[0]], self.say)
                self.paused()
                continue
            seats = [(i, self.version_of[s.entrant].id, share)
                     for i, (s, share) in enumerate(zip(record.seats, record.result, strict=True))]
            kept.append(record)
            finished.append((self.unit_of[record.game_id], record.game_id, seal(record.to_json(), self.key), seats))
        self.db.save_games(finished)  # (which adds them to the working fit's tally: league.standing)
        self.counted(len(kept))
        self.logs.saved(records)  # (after the records: a log goes, a game never)


def _pause_changed(db: LeagueDB, version: Version, say: Callable[[str], None]) -> None:
    note = (f"its program's files changed since version {version.number} was entered; enter them as a new "
            f"version: pinochle-arena league update {version.entrant} COMMAND")
    db.set_status(version.entrant, "paused", note)
    say(f"paused {version.entrant}: {note}")


@attrs.define
class _History:
    """What the matchmaker asks of the league so far besides the ratings (those are fitted from the tally the
    database keeps, :func:`league.standing.refit`): the tables each version and each pair has had, read once
    from the database (a unit at a time) and kept up as the runner allocates tables."""

    tables: Counter = attrs.Factory(Counter)
    meetings: Counter = attrs.Factory(Counter)

    @classmethod
    def of(cls, db: LeagueDB) -> _History:
        tables, meetings = db.meetings()
        return cls(tables, meetings)

    def seat(self, table: Sequence[int]) -> None:
        """A table allocated: each version's and each pair's count goes up."""
        for a in set(table):
            self.tables[a] += 1
        for pair in {frozenset((a, b)) for a in table for b in table if a != b}:
            self.meetings[pair] += 1


@attrs.frozen
class Round:
    """The next tables: the configuration to play them under, their games, and what the store needs to know."""

    config: TournamentConfig
    specs: list[GameSpec]
    unit_of: dict[str, int]
    version_of: dict[str, Version]
    active: frozenset[int]  # the versions that could play when it was chosen


@attrs.define
class LeagueRunner:
    folder: Path
    db: LeagueDB
    overrides: dict = attrs.Factory(dict)  # [tournament] concurrency, processes...; [cluster]
    rng: random.Random = attrs.Factory(random.Random)
    say: Callable[[str], None] = print
    on_game: Callable[[GameRecord], None] | None = None
    _checked: dict[int, float] = attrs.Factory(dict)  # version id -> when its files were last found unchanged
    _configs: dict[tuple, TournamentConfig] = attrs.Factory(dict)  # by the versions in it
    _history: _History | None = None
    _logs: LogQuota | None = None
    _read: tuple[float, list[Version], dict[int, Version]] | None = None  # when; the active versions; every version
    _played: int = 0  # games saved by this run

    async def run(self, games: int | None = None, until: float | None = None, hold: Hold | None = None) -> int:
        """Play until ``games`` more games are saved or the clock passes ``until`` (time.time()), or for ever;
        returns the games saved. :class:`TooFewEntrants` if too few entrants can play when it begins (while it
        runs, it waits for them instead).

        The league is this run's alone (:mod:`league.lock`): ``hold``, if the caller took it, else taken here
        (:class:`league.lock.LeagueHeld` if another runner holds it); its heartbeat is kept while it plays, and
        it is given back when the run ends. Should another runner take it over, this one stops.

        One call of :func:`tournaments.runner.run_games` plays round after round, its referee processes kept,
        until the entrants that can play change; then it ends once the games in play are over, and the next
        call plays under the new configuration. (On a cluster, each round is a call of its own.)"""
        held = hold if hold is not None else await trio.to_thread.run_sync(Hold.take, self.db)
        self._played = 0
        analyser = None
        try:
            await trio.to_thread.run_sync(self.check_enough)
            analyser = await trio.to_thread.run_sync(self._start_analyser)
            async with trio.open_nursery() as nursery:
                def lost() -> None:
                    self.say("another league run took this league over (this one's heartbeat was late): stopping")
                    nursery.cancel_scope.cancel()

                nursery.start_soon(held.keep, lost)
                await self._run(games, until)
                nursery.cancel_scope.cancel()
        finally:
            if analyser is not None:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(analyser.stop)
            held.release()
        return self._played

    def _start_analyser(self) -> Analyser | None:
        """The background analysis of the games (:mod:`league.analyser`), if the league's is on: a process of its
        own at the lowest priority, never in this one."""
        return start_if_on(self.db, self.folder, self.say)

    def _history_read(self) -> _History:
        """Who met whom, read when the run began (:meth:`_run`)."""
        if self._history is None:
            raise RuntimeError("the league's history is read when a run begins")
        return self._history

    def _logs_read(self) -> LogQuota:
        """The logs' quota, read when the run began (:meth:`_run`)."""
        if self._logs is None:
            raise RuntimeError("the league's logs are counted when a run begins")
        return self._logs

    def check_enough(self) -> None:
        """:class:`TooFewEntrants` if too few entrants are active to fill one table."""
        active, needed = len(self._entrants()[0]), seats_needed(self.db.settings())
        if active < needed:
            raise TooFewEntrants(f"too few active entrants to fill a table: {active} active, a table needs {needed} "
                                 f"(league add, or league update or restore a paused one, then run again)")

    async def _run(self, games: int | None, until: float | None) -> None:
        waiting = False
        self._history = await trio.to_thread.run_sync(_History.of, self.db)
        self._logs = await trio.to_thread.run_sync(LogQuota.of, games_folder(self.folder) / "logs",
                                                   quota_mib(self.db.settings()) * MIB)
        while (games is None or self._played < games) and (until is None or time.time() < until):
            left = None if games is None else games - self._played
            first = await trio.to_thread.run_sync(self._next_round, left, True)
            if first is None:
                if not waiting:
                    self.say("waiting: too few active entrants to fill a table (league add, or league update a "
                             "paused one)")
                waiting = True
                await trio.sleep(WAIT)
                continue
            waiting = False
            await self._play(first, left, until)
        await trio.to_thread.run_sync(standing.refit, self.db)  # the ladder as the run leaves it, for the pages

    async def _play(self, first: Round, left: int | None, until: float | None) -> None:
        """Play ``first`` and the rounds after it under its configuration, until the entrants that can play
        change, ``left`` games have been handed out or the clock passes ``until``; the games saved are counted
        in ``_played`` as they are saved."""
        store = _LeagueStore(games_folder(self.folder), self.db, self.db.key(), dict(first.unit_of), dict(first.version_of),
                             self.say, self._history_read(), self._read_again, self._logs_read(), self._count)
        handed = len(first.specs)

        async def more() -> list[GameSpec]:
            nonlocal handed
            remaining = None if left is None else left - handed
            if remaining is not None and remaining <= 0 or until is not None and time.time() >= until:
                return []
            after = await trio.to_thread.run_sync(self._next_round, remaining, False)
            if after is None or after.active != first.active:
                return []  # the entrants changed: this configuration's games end here
            store.unit_of.update(after.unit_of)
            handed += len(after.specs)
            return after.specs

        await run_games(first.config, first.specs, store, self.on_game,
                        more=more if first.config.cluster is None else None, gather=GATHER, say=self.say)

    def _next_round(self, left: int | None, resume: bool) -> Round | None:
        """The next round of tables (as many as games are ``left`` for, at most ``TABLES_PER_SLOT`` per slot), or None
        when too few entrants can play. With ``resume``, the units left unfinished (by a league stopped in the
        middle of them) come first; without, they are in play."""
        active, versions = self._entrants()
        active = [v for v in active if self._unchanged(v)]
        config = self._config(active) if active else None
        seats = 2 if config is None or config.partnership else config.variant.players
        units = (resume and self._resume_units(active)) or self._new_units(active, seats, config, left)
        if not units:
            return None
        playing = sorted({v.id for v in active} | {vid for unit in units for vid in unit.version_ids})
        config = self._config([versions[v] for v in playing])
        specs: list[GameSpec] = []
        unit_of: dict[str, int] = {}
        for unit in units:
            labels = tuple(versions[v].label for v in unit.version_ids)
            for spec in unit_games(config, unit, labels):
                if spec.game_id not in unit.played and (left is None or len(specs) < left):
                    specs.append(spec)  # (a unit's games beyond ``left`` are left for the next run)
                    unit_of[spec.game_id] = unit.id
        version_of = {versions[v].label: versions[v] for v in playing}
        for team in config.teams:
            if team.bots[0] in version_of:  # (not the seat fillers')
                for member in team.members():
                    version_of[member] = version_of[team.bots[0]]
        return Round(config, specs, unit_of, version_of, frozenset(v.id for v in active))

    def _entrants(self) -> tuple[list[Version], dict[int, Version]]:
        """The active entrants' versions, and every version by id: read from the database at most every
        ``REREAD`` seconds (so a change by league add, update or remove is taken up within that), and after an
        entrant is paused."""
        read = self._read  # (once: the writer's thread may forget it at any moment)
        if read is None or time.monotonic() - read[0] >= REREAD:
            active = self.db.players()
            read = self._read = (time.monotonic(), active, self.db.versions())
        return read[1], read[2]

    def _count(self, saved: int) -> None:
        self._played += saved

    def _read_again(self) -> None:
        self._read = None

    def _config(self, versions: list[Version]) -> TournamentConfig:
        """The configuration with ``versions`` as its bots (made once for each set of versions)."""
        key = tuple(sorted(v.id for v in versions))
        if key not in self._configs:
            overrides = {**self.overrides, "tournament": {**self.overrides.get("tournament", {})}}
            self._configs[key] = league_config(self.db, self.folder, versions, overrides)
        return self._configs[key]

    def _unchanged(self, version: Version) -> bool:
        """Whether ``version``'s files are still those it was entered with (checked at most every few seconds);
        if not, its entrant is paused."""
        if time.monotonic() - self._checked.get(version.id, -1e9) < RECHECK:
            return True
        try:
            now = fingerprint(next(e for e in self._config([version]).entrants if e.name == version.label).command)
        except ConfigError:  # its program or script is gone (a bot added from the organiser's disk): changed too
            now = None
        if now != version.program:
            _pause_changed(self.db, version, self.say)
            self._read_again()
            return False
        self._checked[version.id] = time.monotonic()
        return True

    def _resume_units(self, active: list[Version]) -> list[Unit]:
        """The units a stopped league left unfinished whose versions all still play (others are dropped)."""
        playing = {v.id for v in active}
        kept = []
        for unit in self.db.unfinished_units():
            if set(unit.version_ids) <= playing:
                kept.append(unit)
            else:
                self.db.abandon(unit.id)
        return kept

    def _new_units(self, active: list[Version], seats: int, config: TournamentConfig | None,
                   left: int | None) -> list[Unit]:
        if config is None or len(active) < seats:
            return []
        per_unit = games_per_unit(self.db.settings())
        count = TABLES_PER_SLOT * config.concurrency
        count = count if left is None else min(count, -(-left // per_unit))
        history = self._history_read()
        ratings = standing.refit(self.db, [v.id for v in active], running=True)  # (and stored, for the pages)
        estimates = ratings.estimates
        tables = []
        for _ in range(count):
            candidates = [Candidate(v.id, estimates[v.id].rating, estimates[v.id].sigma, history.tables[v.id])
                          for v in active]
            table = next_table(candidates, history.meetings, seats, self.rng, gap_sigma=ratings.gap_sigma)
            if table is None:  # (not while as many are active as a table seats)
                break
            tables.append(table)
            history.seat(table)  # the round's later tables see this one as played
        return self.db.new_units(tables, per_unit)


GATHER = 0.1  # seconds the writer waits for more finished games to save in the same transaction
TABLES_PER_SLOT = 2  # tables a round chooses for each concurrent slot (one transaction allocates them)
RECHECK = 5.0  # seconds between two looks at a version's files
REREAD = 1.0  # seconds between two reads of the entrants
WAIT = 2.0  # seconds between two looks for entrants, while too few can play


__all__ = ["LeagueRunner", "TooFewEntrants", "games_folder", "games_per_unit", "league_config", "seats_needed",
           "unit_games"]
