"""The league's database as one object, :class:`LeagueDB`: making and opening it, and every question and change the
league asks of it, each change one transaction."""

from __future__ import annotations

import json
import secrets
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager

import attrs
import sqlalchemy as sa
from sqlalchemy import exc

from referee.rules.dealing import derive_seed

from ..errors import LeagueError, LeagueUnreadable
from ..ratings import Tally
from .connect import engine_for, error_line, safe_url, token_hash, writing
from .rows import Build, Entrant, Holder, Standing, Unit, Version
from .schema import (
    GAMES_BY_UNIT,
    HISTORY_GROWTH,
    KIND,
    NEW_TALLY,
    PAIRS_BY_CHANGE,
    PAUSED_BY_ORGANISER,
    RUNNER_KEY,
    SCHEMA_VERSION,
    SEATS_BY_VERSION,
    STATUSES,
    builds,
    entrants,
    final_units,
    game_seats,
    games,
    league_meta,
    metadata,
    pair_tally,
    rating_history,
    sessions,
    standing,
    tally_state,
    tokens,
    units,
    version_tally,
    versions,
    voided,
)
from .tally import add_tables, count_again, count_played, history_point, is_counted, recount
from .upgrades import UPGRADES


# The statements saving a game, made once (building a statement costs more than running it).
_INSERT_GAMES = games.insert().returning(games.c.id, sort_by_parameter_order=True)
_INSERT_SEATS = game_seats.insert()
_FINISH_UNIT = (units.update()
                .where((units.c.id == sa.bindparam("unit"))
                       & (sa.select(sa.func.count()).where(games.c.unit_id == units.c.id).correlate(units)
                          .scalar_subquery() >= units.c.games))
                .values(finished=sa.bindparam("now")))


@attrs.define
class LeagueDB:
    engine: sa.Engine
    url: str
    _fixed: dict[str, str] = attrs.Factory(dict)  # meta values that never change once made (settings, seed, key)

    # ------------------------------------------------------------------ making and opening
    @classmethod
    def create(cls, url: str, settings: dict) -> LeagueDB:
        """A new league in an empty database; LeagueError if it holds anything."""
        db = cls(engine_for(url), url)
        try:
            with db._write() as c:
                if sa.inspect(c).get_table_names():
                    raise LeagueError(f"database {safe_url(url)} is not empty: a league needs a database of its own")
                metadata.create_all(c)
                SEATS_BY_VERSION.create(c, checkfirst=True)
                GAMES_BY_UNIT.create(c, checkfirst=True)
                PAIRS_BY_CHANGE.create(c, checkfirst=True)
                c.execute(tally_state.insert().values(**NEW_TALLY))
                c.execute(league_meta.insert(), [
                    {"key": "kind", "value": KIND},
                    {"key": "schema", "value": str(SCHEMA_VERSION)},
                    {"key": "settings", "value": json.dumps(settings)},
                    {"key": "seed", "value": str(secrets.randbits(128))},
                    {"key": "key", "value": secrets.token_hex(32)},
                    {"key": "created", "value": str(time.time())},
                ])
        except exc.SQLAlchemyError as e:
            raise LeagueError(f"database {safe_url(url)}: {error_line(e)}") from None
        return db

    @classmethod
    def open(cls, url: str) -> LeagueDB:
        """The league in ``url``, upgraded to this version's schema; LeagueError (one line) if it is none."""
        db = cls(engine_for(url), url)
        try:
            with db.engine.connect() as c:
                tables = set(sa.inspect(c).get_table_names())
                kind = c.execute(sa.select(league_meta.c.value).where(league_meta.c.key == "kind")).scalar() \
                    if "league_meta" in tables else None
                schema = c.execute(sa.select(league_meta.c.value).where(league_meta.c.key == "schema")).scalar() \
                    if kind == KIND else None
        except exc.SQLAlchemyError as e:
            raise LeagueUnreadable(f"{safe_url(url)} is not a league's database ({error_line(e)})") from None
        if kind != KIND or schema is None or not schema.isdigit():
            raise LeagueError(f"{safe_url(url)} is not a pinochle-arena league's database")
        if int(schema) > SCHEMA_VERSION:
            raise LeagueError(f"{safe_url(url)} was made by a newer pinochle-arena (league schema {schema}, this one "
                              f"reads up to {SCHEMA_VERSION}): upgrade pinochle-arena")
        if int(schema) < SCHEMA_VERSION:
            db._upgrade(int(schema))
            with db.engine.connect() as c:
                tables = set(sa.inspect(c).get_table_names())
        missing = sorted(set(metadata.tables) - tables)  # (a look at the catalogue: cheap at every open)
        if missing:
            raise LeagueUnreadable(f"{safe_url(url)}: the league's table{'s' if len(missing) > 1 else ''} "
                                   f"{', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing")
        return db

    def _upgrade(self, schema: int) -> None:
        with self._write() as c:
            for version in range(schema + 1, SCHEMA_VERSION + 1):
                UPGRADES[version](c)
            c.execute(league_meta.update().where(league_meta.c.key == "schema").values(value=str(SCHEMA_VERSION)))

    def _write(self) -> AbstractContextManager[sa.Connection]:
        """One transaction that writes (:func:`.connect.writing`)."""
        return writing(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ what the league is
    def meta(self, key: str) -> str:
        if key not in self._fixed:
            with self.engine.connect() as c:
                self._fixed[key] = c.execute(sa.select(league_meta.c.value)
                                             .where(league_meta.c.key == key)).scalar_one()
        return self._fixed[key]

    def settings(self) -> dict:
        return json.loads(self.meta("settings"))

    def key(self) -> bytes:
        return bytes.fromhex(self.meta("key"))

    def seed(self) -> int:
        return int(self.meta("seed"))

    # ------------------------------------------------------------------ entrants and versions
    def add(self, name: str, bot: dict, program: str) -> Version:
        """A new entrant with its first version; LeagueError if the name is taken."""
        with self._write() as c:
            entrant = self._new_entrant(c, name)
            return self._new_version(c, entrant, name, 1, bot, program)

    def add_entrant(self, name: str) -> None:
        """A new entrant without a version yet (its first comes as an upload); LeagueError if the name is taken."""
        with self._write() as c:
            self._new_entrant(c, name)

    def _new_entrant(self, c, name: str) -> int:
        if c.execute(sa.select(entrants.c.id).where(entrants.c.name == name)).first() is not None:
            raise LeagueError(f"there is already an entrant {name!r}: 'league update {name} COMMAND' gives it a "
                              "new version")
        return c.execute(entrants.insert().values(name=name, status="active", note="",
                                                  created=time.time())).inserted_primary_key[0]

    def update(self, name: str, bot: dict, program: str, organiser: bool = True) -> Version:
        """A new version of ``name``; its older versions stop playing. The organiser's update makes a paused entrant
        active again; an entrant's own (an upload) lifts only a pause for changed files, never the organiser's."""
        with self._write() as c:
            row = self._entrant_row(c, name)
            number = (c.execute(sa.select(sa.func.max(versions.c.number))
                                .where(versions.c.entrant_id == row.id)).scalar_one() or 0) + 1
            if organiser or (row.status == "paused" and row.note != PAUSED_BY_ORGANISER):
                c.execute(entrants.update().where(entrants.c.id == row.id).values(status="active", note=""))
            return self._new_version(c, row.id, name, number, bot, program)

    def set_status(self, name: str, status: str, note: str = "") -> None:
        """Pause (with why), remove or restore an entrant; its games and ratings stay."""
        assert status in STATUSES
        with self._write() as c:
            row = self._entrant_row(c, name)
            c.execute(entrants.update().where(entrants.c.id == row.id).values(status=status, note=note))

    def _new_version(self, c, entrant: int, name: str, number: int, bot: dict, program: str) -> Version:
        version = c.execute(versions.insert().values(entrant_id=entrant, number=number, bot=json.dumps(bot),
                                                     program=program, created=time.time())).inserted_primary_key[0]
        return Version(version, name, number, bot, program)

    def _entrant_row(self, c, name: str):
        row = c.execute(sa.select(entrants).where(entrants.c.name == name)).first()
        if row is None:
            raise LeagueError(f"no entrant {name!r} in this league ('league list' shows them)")
        return row

    def entrants(self) -> list[Entrant]:
        """Every entrant, in the order they joined, with its newest version (None before its first)."""
        newest = (sa.select(versions.c.entrant_id, sa.func.max(versions.c.number).label("number"))
                  .group_by(versions.c.entrant_id).subquery())
        query = (sa.select(entrants, versions.c.id.label("version_id"), versions.c.number, versions.c.bot,
                           versions.c.program)
                 .outerjoin(newest, newest.c.entrant_id == entrants.c.id)
                 .outerjoin(versions, (versions.c.entrant_id == entrants.c.id)
                            & (versions.c.number == newest.c.number))
                 .order_by(entrants.c.id))
        with self.engine.connect() as c:
            return [Entrant(r.name, r.status, r.note, None if r.version_id is None else
                            Version(r.version_id, r.name, r.number, json.loads(r.bot), r.program))
                    for r in c.execute(query)]

    def players(self) -> list[Version]:
        """The versions that play: the newest of each active entrant that has one, unless it was voided."""
        void = self.voided()
        return [e.version for e in self.entrants()
                if e.status == "active" and e.version is not None and e.version.id not in void]

    # ------------------------------------------------------------------ voided versions
    def void(self, name: str, number: int, undo: bool = False) -> Version:
        """Disqualify version ``number`` of ``name`` (``undo``: count it again): its games stay in the database
        but the ratings leave out every game it sat at, and it plays no more; LeagueError if there is no such
        version. The tally loses (or gets back) those games only, so a void of a league of millions of games
        holds the database for as long as that version's games take to read, not the league's."""
        with self._write() as c:
            row = self._entrant_row(c, name)
            version = c.execute(sa.select(versions).where((versions.c.entrant_id == row.id)
                                                          & (versions.c.number == number))).first()
            if version is None:
                raise LeagueError(f"{name} has no version {number} ('league list' shows its newest)")
            was = c.execute(voided.delete().where(voided.c.version_id == version.id)).rowcount > 0
            if not undo:
                c.execute(voided.insert().values(version_id=version.id, created=time.time()))
            if was == undo:  # (voiding a voided version, or restoring a counted one, changes nothing)
                count_again(c, version.id, 1 if undo else -1)
        return Version(version.id, name, number, json.loads(version.bot), version.program)

    def voided(self) -> set[int]:
        """The ids of the versions voided."""
        with self.engine.connect() as c:
            return set(c.execute(sa.select(voided.c.version_id)).scalars())

    # ------------------------------------------------------------------ tokens
    def new_token(self, name: str | None) -> str:
        """A new secret token for entrant ``name`` (None: the organiser), which replaces the one it had; only its
        hash is kept."""
        token = secrets.token_urlsafe(32)
        with self._write() as c:
            entrant = None if name is None else self._entrant_row(c, name).id
            c.execute(tokens.delete().where(tokens.c.entrant_id.is_(None) if entrant is None
                                            else tokens.c.entrant_id == entrant))
            c.execute(tokens.insert().values(hash=token_hash(token), entrant_id=entrant, created=time.time()))
        return token

    def holder(self, token: str) -> Holder | None:
        """Who ``token`` belongs to, or None if it is nobody's."""
        return self.holder_by_hash(token_hash(token))

    def holder_by_hash(self, hashed: str) -> Holder | None:
        """Who the token with this hash belongs to, or None."""
        query = (sa.select(tokens.c.entrant_id, entrants.c.name)
                 .outerjoin(entrants, entrants.c.id == tokens.c.entrant_id)
                 .where(tokens.c.hash == hashed))
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return None if row is None else Holder(row.name)

    # ------------------------------------------------------------------ sessions
    def new_session(self, token: str, lifetime: float) -> str:
        """A new session of ``token``'s holder for ``lifetime`` seconds; returns its id, of which only the hash is
        kept. Sessions that ended by themselves are dropped on the way."""
        session = secrets.token_urlsafe(32)
        now = time.time()
        with self._write() as c:
            c.execute(sessions.delete().where(sessions.c.expires <= now))
            c.execute(sessions.insert().values(hash=token_hash(session), token=token_hash(token),
                                               expires=now + lifetime))
        return session

    def holder_by_session(self, session: str) -> Holder | None:
        """Who holds the session ``session``, or None: it was ended, ran out, or its token was replaced since."""
        query = (sa.select(tokens.c.entrant_id, entrants.c.name)
                 .select_from(sessions.join(tokens, tokens.c.hash == sessions.c.token))
                 .outerjoin(entrants, entrants.c.id == tokens.c.entrant_id)
                 .where((sessions.c.hash == token_hash(session)) & (sessions.c.expires > time.time())))
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return None if row is None else Holder(row.name)

    def end_session(self, session: str) -> None:
        """End the session ``session`` (logging out): its cookie, or any copy of it, is nobody's from now on."""
        with self._write() as c:
            c.execute(sessions.delete().where(sessions.c.hash == token_hash(session)))

    # ------------------------------------------------------------------ builds
    def new_build(self, name: str) -> int:
        """A build for ``name``'s upload, being received (its files go to the league's folder, by the build's number;
        then :meth:`queue_build`)."""
        with self._write() as c:
            entrant = self._entrant_row(c, name).id
            return c.execute(builds.insert().values(entrant_id=entrant, status="receiving", message="", log="",
                                                    created=time.time())
                             .returning(builds.c.id)).scalar_one()

    def queue_build(self, build: int) -> None:
        """A received build's files are in place: it may be built. An older upload of the same entrant still
        waiting is dropped (superseded): an entrant has at most one build in the queue, so one entrant's uploads
        cannot hold everyone else's back for longer than one build."""
        with self._write() as c:
            entrant = c.execute(sa.select(builds.c.entrant_id).where(builds.c.id == build)).scalar_one()
            c.execute(builds.update().where((builds.c.entrant_id == entrant) & (builds.c.status == "queued"))
                      .values(status="failed", message=f"superseded by build {build}", finished=time.time()))
            c.execute(builds.update().where(builds.c.id == build).values(status="queued"))

    def take_build(self) -> Build | None:
        """The oldest queued build, now marked building; None if none waits."""
        with self._write() as c:
            row = c.execute(sa.select(builds.c.id).where(builds.c.status == "queued")
                            .order_by(builds.c.id).limit(1)).first()
            if row is None:
                return None
            c.execute(builds.update().where(builds.c.id == row.id).values(status="building"))
        return self.build(row.id)

    def requeue_builds(self) -> None:
        """When the server starts: builds a stopped one left building are queued again; an upload it was
        receiving is lost (the entrant sends it again)."""
        with self._write() as c:
            c.execute(builds.update().where(builds.c.status == "building").values(status="queued"))
            c.execute(builds.update().where(builds.c.status == "receiving")
                      .values(status="failed", message="the upload was interrupted: send it again",
                              finished=time.time()))

    def finish_build(self, build: int, status: str, message: str, log: str, version: int | None = None) -> None:
        assert status in ("failed", "passed")
        with self._write() as c:
            c.execute(builds.update().where(builds.c.id == build)
                      .values(status=status, message=message, log=log, version_id=version, finished=time.time()))

    def build(self, build: int) -> Build | None:
        rows = self._builds(builds.c.id == build)
        return rows[0] if rows else None

    def builds(self, name: str) -> list[Build]:
        """``name``'s builds, newest first."""
        return self._builds(entrants.c.name == name)

    def _builds(self, where) -> list[Build]:
        query = (sa.select(builds, entrants.c.name, versions.c.number)
                 .join(entrants, entrants.c.id == builds.c.entrant_id)
                 .outerjoin(versions, versions.c.id == builds.c.version_id)
                 .where(where).order_by(builds.c.id.desc()))
        with self.engine.connect() as c:
            return [Build(r.id, r.name, r.status, r.message, r.log, r.number, r.created, r.finished)
                    for r in c.execute(query)]

    def versions(self) -> dict[int, Version]:
        """Every version ever entered, by id."""
        query = sa.select(versions, entrants.c.name).join(entrants, entrants.c.id == versions.c.entrant_id)
        with self.engine.connect() as c:
            return {r.id: Version(r.id, r.name, r.number, json.loads(r.bot), r.program) for r in c.execute(query)}

    # ------------------------------------------------------------------ units and games
    def new_units(self, tables: Sequence[Sequence[int]], games_per_unit: int) -> list[Unit]:
        """Allocate the next tables (in one transaction): each its versions and its deal (from the league's seed
        and the unit's number)."""
        if not tables:
            return []
        seed = self.seed()
        rows = [{"versions": json.dumps(list(t)), "games": games_per_unit, "created": time.time()} for t in tables]
        with self._write() as c:
            ids = c.execute(units.insert().returning(units.c.id, sort_by_parameter_order=True), rows).scalars().all()
            deals = [derive_seed(seed, "league-unit", unit) for unit in ids]
            c.execute(units.update().where(units.c.id == sa.bindparam("unit")).values(seed=sa.bindparam("deal")),
                      [{"unit": unit, "deal": deal} for unit, deal in zip(ids, deals, strict=True)])
            add_tables(c, tables)
        return [Unit(unit, tuple(t), deal, games_per_unit, frozenset())
                for unit, t, deal in zip(ids, tables, deals, strict=True)]

    def unfinished_units(self) -> list[Unit]:
        """The units begun and not finished (a league stopped in the middle of them), oldest first."""
        with self.engine.connect() as c:
            rows = list(c.execute(sa.select(units).where(units.c.finished.is_(None)
                                                         & units.c.id.not_in(sa.select(final_units.c.unit_id)))
                                  .order_by(units.c.id)))
        return self._with_played(rows)

    def _with_played(self, rows) -> list[Unit]:
        """The units of ``rows`` (of the units table), each with the ids of its games saved so far."""
        played: dict[int, set[str]] = {}
        with self.engine.connect() as c:
            for unit_id, game_id in c.execute(sa.select(games.c.unit_id, games.c.game_id)
                                              .where(games.c.unit_id.in_([r.id for r in rows]))):
                played.setdefault(unit_id, set()).add(game_id)
        return [Unit(r.id, tuple(json.loads(r.versions)), r.seed, r.games, frozenset(played.get(r.id, ())))
                for r in rows]


    def save_games(self, finished: Sequence[tuple[int, str, str, Sequence[tuple[int, int, float]]]]) -> None:
        """Finished games, each whole: (unit, game id, sealed record line, (seat, version id, share) per seat).
        The games given together are saved in one transaction (a group commit: the games that finished while
        the last were being written), so a game is saved with all its seats or not at all; a unit is finished
        with its last game."""
        if not finished:
            return
        now = time.time()
        rows = [{"unit_id": unit, "game_id": game_id, "record": line, "finished": now}
                for unit, game_id, line, _ in finished]
        with self._write() as c:
            ids = c.execute(_INSERT_GAMES, rows).scalars().all()
            c.execute(_INSERT_SEATS, [{"game": game, "seat": s, "version_id": v, "share": share}
                                      for game, (*_, seats) in zip(ids, finished, strict=True)
                                      for s, v, share in seats])
            count_played(c, [[(v, share) for _, v, share in sorted(seats)] for *_, seats in finished])
            c.execute(_FINISH_UNIT, [{"unit": unit, "now": now} for unit in {unit for unit, *_ in finished}])

    def abandon(self, unit: int) -> None:
        """Finish a unit without its remaining games (a version at its table no longer plays); its games stay."""
        with self._write() as c:
            c.execute(units.update().where(units.c.id == unit).values(finished=time.time()))

    def tables(self) -> list[tuple[int, ...]]:
        """The versions at every table allocated so far."""
        with self.engine.connect() as c:
            return [tuple(json.loads(v)) for v in c.execute(sa.select(units.c.versions).order_by(units.c.id))
                    .scalars()]

    def record(self, number: int) -> str | None:
        """Game ``number``'s sealed record line (games are numbered in the order they finished), or None."""
        with self.engine.connect() as c:
            return c.execute(sa.select(games.c.record).where(games.c.id == number)).scalar_one_or_none()

    def game_by_id(self, game_id: str) -> tuple[int, str] | None:
        """The game whose id in the schedule is ``game_id``: (its number, its sealed record line), or None."""
        with self.engine.connect() as c:
            row = c.execute(sa.select(games.c.id, games.c.record).where(games.c.game_id == game_id)).one_or_none()
        return None if row is None else (row.id, row.record)

    def records(self, counted: bool = False) -> list[str]:
        """Every game's sealed record line, in the order they finished (``counted``: only those the ratings
        count, without the games of voided versions)."""
        query = sa.select(games.c.record).order_by(games.c.id)
        if counted:
            query = query.where(~sa.exists().where((game_seats.c.game == games.c.id)
                                                   & game_seats.c.version_id.in_(sa.select(voided.c.version_id))))
        with self.engine.connect() as c:
            return list(c.execute(query).scalars())

    def results(self) -> list[tuple[int, list[tuple[int, float]]]]:
        """Every game the ratings count, in the order they finished: (its number, [(version id, share)] by seat).
        A game at which a voided version sat is left out, all its seats."""
        games: dict[int, list[tuple[int, float]]] = {}
        void = self.voided()
        with self.engine.connect() as c:
            for game, version, share in c.execute(sa.select(game_seats.c.game, game_seats.c.version_id,
                                                            game_seats.c.share)
                                                  .order_by(game_seats.c.game, game_seats.c.seat)):
                games.setdefault(game, []).append((version, share))
        return [(game, seats) for game, seats in games.items() if not void & {v for v, _ in seats}]

    def game_count(self) -> int:
        with self.engine.connect() as c:
            return c.execute(sa.select(sa.func.count()).select_from(games)).scalar_one()

    def numbers_after(self, number: int) -> list[int]:
        """The numbers of the games saved after game ``number``, oldest first (the background analysis's queue:
        :mod:`league.analysis`)."""
        with self.engine.connect() as c:
            return list(c.execute(sa.select(games.c.id).where(games.c.id > number).order_by(games.c.id)).scalars())

    def count_after(self, number: int) -> int:
        """How many games were saved after game ``number``."""
        with self.engine.connect() as c:
            return c.execute(sa.select(sa.func.count()).select_from(games).where(games.c.id > number)).scalar_one()

    def seat_versions(self, number: int) -> list[tuple[int, int]]:
        """Game ``number``'s seats: (seat, the version that sat there), in seat order."""
        with self.engine.connect() as c:
            return [(s, v) for s, v in c.execute(sa.select(game_seats.c.seat, game_seats.c.version_id)
                                                 .where(game_seats.c.game == number).order_by(game_seats.c.seat))]

    # ------------------------------------------------------------------ the contest's end (league.final)
    def contest_value(self, key: str) -> str | None:
        """A value of the contest's end kept in league_meta (its deadline, when it was closed, its final's plan),
        read afresh (it may change while the league runs); None if it is not set."""
        with self.engine.connect() as c:
            return c.execute(sa.select(league_meta.c.value).where(league_meta.c.key == key)).scalar()

    def set_contest_value(self, key: str, value: str | None) -> None:
        """Set (None: clear) a value of the contest's end."""
        with self._write() as c:
            c.execute(league_meta.delete().where(league_meta.c.key == key))
            if value is not None:
                c.execute(league_meta.insert().values(key=key, value=value))

    def start_final(self, key: str, plan: str, tables: Sequence[tuple[Sequence[int], int]],
                    games_per_unit: int) -> None:
        """The final's plan (kept under ``key``) and its units, (versions, deal's seed) each, in one transaction:
        a final is planned whole or not at all. LeagueError if one was planned already."""
        now = time.time()
        with self._write() as c:
            if c.execute(sa.select(league_meta.c.key).where(league_meta.c.key == key)).first() is not None:
                raise LeagueError("this league's final was planned already")
            c.execute(league_meta.insert().values(key=key, value=plan))
            ids = c.execute(units.insert().returning(units.c.id, sort_by_parameter_order=True),
                            [{"versions": json.dumps(list(t)), "seed": seed, "games": games_per_unit,
                              "created": now} for t, seed in tables]).scalars().all()
            c.execute(final_units.insert(), [{"unit_id": unit} for unit in ids])

    def final_units(self) -> list[Unit]:
        """The final's units, in the order they were planned, each with its games saved so far."""
        query = sa.select(units).join(final_units, final_units.c.unit_id == units.c.id).order_by(units.c.id)
        with self.engine.connect() as c:
            rows = list(c.execute(query))
        return self._with_played(rows)

    def final_records(self) -> list[tuple[int, str]]:
        """The final's games the standings count, in the order they finished: (its number, its sealed record line).
        A game at which a voided version sat is left out, as :meth:`records` leaves it out."""
        query = (sa.select(games.c.id, games.c.record).join(final_units, final_units.c.unit_id == games.c.unit_id)
                 .where(~sa.exists().where((game_seats.c.game == games.c.id)
                                           & game_seats.c.version_id.in_(sa.select(voided.c.version_id))))
                 .order_by(games.c.id))
        with self.engine.connect() as c:
            return [(r.id, r.record) for r in c.execute(query)]

    def ladder_seeds(self) -> set[int]:
        """The deals' seeds of every unit not the final's (the ladder's): a final deals none of them."""
        query = sa.select(units.c.seed).where(units.c.id.not_in(sa.select(final_units.c.unit_id)))
        with self.engine.connect() as c:
            return {seed for seed in c.execute(query).scalars() if seed is not None}

    # ------------------------------------------------------------------ who runs it
    def runner_claim(self) -> str | None:
        """The claim of the ``league run`` that holds the league (its text, as :mod:`league.lock` writes it), if any."""
        with self.engine.connect() as c:
            return c.execute(sa.select(league_meta.c.value).where(league_meta.c.key == RUNNER_KEY)).scalar()

    def swap_runner_claim(self, old: str | None, new: str | None) -> bool:
        """Put the claim ``new`` (None: no claim) in place of ``old`` (None: no claim), in one step and only if
        ``old`` is still the one held; whether it was. Of two runners swapping the same claim at once, one wins."""
        held = (league_meta.c.key == RUNNER_KEY) & (league_meta.c.value == old)
        try:
            with self._write() as c:
                if old is None:
                    if new is not None:
                        c.execute(league_meta.insert().values(key=RUNNER_KEY, value=new))
                    return True
                if new is None:
                    return c.execute(league_meta.delete().where(held)).rowcount == 1
                return c.execute(league_meta.update().where(held).values(value=new)).rowcount == 1
        except exc.IntegrityError:
            return False  # another runner made its claim first

    # ------------------------------------------------------------------ the working fit's tally, the stored ratings
    def tally(self, since: tuple[int, int] | None = None) -> tuple[tuple[int, int], int, Tally]:
        """What the working fit needs of the games the ratings count (:class:`league.ratings.Tally`: each pair's
        points and weight, each version's games), read in one transaction: the size of the pairs that met,
        however many games they played. With it, its stamp (the generation it was last counted again from the
        games at, and its generation now) and the games it counts. Given the stamp of a tally read before
        (``since``), only the pairs and versions changed since then, if it was not counted again meanwhile (see
        the stamp's first number)."""
        out = Tally()
        with self.engine.connect() as c:
            state = c.execute(sa.select(tally_state)).one()
            after = since[1] if since is not None and since[0] == state.recounted else -1
            pairs = sa.select(pair_tally.c.first, pair_tally.c.second, pair_tally.c.points, pair_tally.c.weight)
            for rows in c.execute(pairs.where(pair_tally.c.changed > after)).partitions(50_000):
                for first, second, points, weight in rows:
                    out.pairs[first, second] = [points, weight]
            out.games.update(c.execute(sa.select(version_tally.c.version_id, version_tally.c.games)
                                       .where((version_tally.c.games > 0)
                                              & (version_tally.c.changed > after))).all())
        return (state.recounted, state.generation), state.counted, out

    def standing(self) -> Standing:
        """The stored ratings, with the tally's generation now."""
        with self.engine.connect() as c:
            state = c.execute(sa.select(tally_state)).one()
            ratings = {v: (r, s, g) for v, r, s, g in c.execute(sa.select(standing.c.version_id, standing.c.rating,
                                                                          standing.c.sigma, standing.c.games)).all()}
        return Standing(state.generation, state.counted, state.rated, state.rated_at, ratings)

    def store_standing(self, generation: int, counted: int, ratings: dict[int, tuple[float, float, int]],
                       running: bool = False) -> bool:
        """Store ``ratings`` (version -> (rating, sigma, games)), fitted at the tally's ``generation`` when it
        counted ``counted`` games, unless ratings of a newer generation are stored already; whether they were.
        ``running``: by a running league, which will store them again after its next round (when is kept).
        Once the counted games have grown by ``HISTORY_GROWTH`` since the last, they are also a history point
        of every version whose games changed since its own last."""
        with self._write() as c:
            state = c.execute(sa.select(tally_state)).one()
            if state.rated > generation:
                return False
            c.execute(standing.delete())
            if ratings:
                c.execute(standing.insert(), [{"version_id": v, "rating": r, "sigma": s, "games": g}
                                              for v, (r, s, g) in ratings.items()])
            values = {"rated": generation, **({"rated_at": time.time()} if running else {})}
            if counted and counted >= max(state.history_at + 1, state.history_at * HISTORY_GROWTH):
                history_point(c, counted, ratings)
                values["history_at"] = counted
            c.execute(tally_state.update().values(**values))
        return True

    def version_tallies(self) -> dict[int, tuple[int, int, str]]:
        """Each version's (games counted, tables allocated, latest results: W, D or L each, oldest first)."""
        with self.engine.connect() as c:
            return {r.version_id: (r.games, r.tables, r.form) for r in c.execute(sa.select(version_tally))}

    def rating_history(self, ids: Sequence[int]) -> dict[int, list[tuple[int, float]]]:
        """The stored history points of the versions ``ids``: (the league's counted games, the rating then)."""
        query = (sa.select(rating_history.c.version_id, rating_history.c.counted, rating_history.c.rating)
                 .where(rating_history.c.version_id.in_(list(ids))).order_by(rating_history.c.counted))
        out: dict[int, list[tuple[int, float]]] = {v: [] for v in ids}
        with self.engine.connect() as c:
            for version, counted, rating in c.execute(query):
                out[version].append((counted, rating))
        return out

    def meetings(self) -> tuple[Counter[int], Counter[frozenset[int]]]:
        """The tables allocated to each version and to each pair of versions (read a unit at a time: the league's
        units are not all held at once)."""
        tables: Counter[int] = Counter()
        pairs: Counter[frozenset[int]] = Counter()
        with self.engine.connect() as c:
            for text in c.execute(sa.select(units.c.versions).execution_options(yield_per=10_000)).scalars():
                table = json.loads(text)
                tables.update(set(table))
                pairs.update({frozenset((a, b)) for a in table for b in table if a != b})
        return tables, pairs

    def recent_games(self, ids: Sequence[int], count: int) -> list[tuple[int, list[tuple[int, float]]]]:
        """The latest ``count`` games the ratings count at which one of the versions ``ids`` sat, newest first:
        (its number, [(version id, share)] by seat)."""
        mine = (sa.select(game_seats.c.game).where(game_seats.c.version_id.in_(list(ids))
                                                   & is_counted(game_seats.c.game))
                .group_by(game_seats.c.game).order_by(game_seats.c.game.desc()).limit(count))
        seats: dict[int, list[tuple[int, float]]] = {}
        with self.engine.connect() as c:
            last = list(c.execute(mine).scalars())
            for game, version, share in c.execute(sa.select(game_seats.c.game, game_seats.c.version_id,
                                                            game_seats.c.share)
                                                  .where(game_seats.c.game.in_(last))
                                                  .order_by(game_seats.c.game, game_seats.c.seat)):
                seats.setdefault(game, []).append((version, share))
        return [(game, seats[game]) for game in last]

    def meetings_of(self, ids: Sequence[int]) -> dict[int, tuple[int, int, int, int]]:
        """The results of the versions ``ids`` against each other version, counted in SQL over the games the
        ratings count: opponent -> (seat against seat, won, drawn, lost), from the side of ``ids``."""
        mine, theirs = game_seats.alias("mine"), game_seats.alias("theirs")
        query = (sa.select(theirs.c.version_id, sa.func.count(),
                           sa.func.sum(sa.case((mine.c.share > theirs.c.share, 1), else_=0)),
                           sa.func.sum(sa.case((mine.c.share == theirs.c.share, 1), else_=0)),
                           sa.func.sum(sa.case((mine.c.share < theirs.c.share, 1), else_=0)))
                 .select_from(mine.join(theirs, mine.c.game == theirs.c.game))
                 .where(mine.c.version_id.in_(list(ids)) & theirs.c.version_id.not_in(list(ids))
                        & is_counted(mine.c.game))
                 .group_by(theirs.c.version_id))
        with self.engine.connect() as c:
            return {r[0]: (int(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in c.execute(query)}

    def retally(self) -> None:
        """Count the tally again from every game (after games were written into the database by other means than
        :meth:`save_games`, as the scale benchmark does)."""
        with self._write() as c:
            recount(c, tables=True)
