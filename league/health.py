"""Is a league's database sound, and a copy of it: ``league check`` and ``league backup``.

:func:`check` reads the database without changing it (no upgrade, no journal
mode set) and looks at four things in turn, each on its own, so that one kind
of damage does not hide another:

* the file itself (SQLite): ``PRAGMA integrity_check`` and
  ``PRAGMA foreign_key_check``; a PostgreSQL server keeps its own pages;
* the schema: ``league_meta`` names a league, of a schema this version
  reads (older ones are upgraded by any other command; newer ones need a
  newer pinochle-arena);
* every table and column that schema has;
* every game's record against its seal, with the league's key (a record
  changed outside pinochle-arena fails it), in order, with progress.

:func:`damage_line` is the one line a command gives when the database fails
under it (the SQLAlchemy ``DatabaseError`` family: not a database, a
malformed page, a table or column missing), found even inside a trio
nursery's exception group. :func:`backup` copies a SQLite league with
SQLite's online backup API, a consistent snapshot while ``league run`` saves
games.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import attrs
import sqlalchemy as sa
from sqlalchemy import exc

from referee.records.seals import SealError, check_seal

from .db import KIND, SCHEMA_VERSION, engine_for, league_meta, metadata
from .errors import LeagueRefused

# The schema that first had each table (db.UPGRADES); a table not named here is looked for from this version's.
SINCE = {"league_meta": 1, "entrants": 1, "versions": 1, "units": 1, "games": 1, "game_seats": 1,
         "tokens": 3, "builds": 3, "sessions": 5, "voided": 6, "final_units": 7}
SHOWN = 5  # problems of one kind listed before "and more"
INTEGRITY_ROWS = 100  # SQLite's integrity check stops after this many problems
PROGRESS_EVERY = 1000  # games between two progress reports, at least (at most a hundred reports)


@attrs.frozen
class Health:
    """What :func:`check` found: ``problems`` (one line each; none: sound), what to do about them, and notes
    that are no damage (an older schema, which the next command upgrades)."""

    problems: tuple[str, ...]
    advice: tuple[str, ...]
    notes: tuple[str, ...]
    schema: int | None
    tables: int  # the tables found of those its schema has
    games: int  # the records whose seal was checked

    @property
    def sound(self) -> bool:
        return not self.problems


@attrs.frozen
class Copy:
    """What :func:`backup` wrote."""

    path: Path
    games: int | None  # None: the copy's games cannot be counted (a damaged league's copy)
    size: int  # bytes


def damage_line(error: BaseException) -> str | None:
    """The database's own words, on one line, if ``error`` (or an exception inside its group) is the database
    failing (the file is no database, a page is malformed, a table or column is missing); else None."""
    if isinstance(error, exc.DatabaseError):
        return _reason(error)
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            line = damage_line(inner)
            if line is not None:
                return line
    return None


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


# ---------------------------------------------------------------------- checking

@attrs.define
class _Checking:
    url: str
    on_progress: Callable[[int, int], None] | None
    problems: list[str] = attrs.Factory(list)
    notes: list[str] = attrs.Factory(list)
    schema: int | None = None
    tables: int = 0
    games: int = 0
    unreadable: bool = False  # a page could not be read (not only a table missing or a seal failing)
    seals_failed: bool = False
    records_read: bool = False  # every record was read (export can save them)


def check(url: str, on_progress: Callable[[int, int], None] | None = None) -> Health:
    """How sound the league's database at ``url`` is; ``on_progress(done, total)`` along its games' seals."""
    engine = _reading_engine(url)
    state = _Checking(url, on_progress)
    try:
        with engine.connect() as c:
            if is_sqlite(url):
                _check_file(c, state)
            present = _check_tables(c, state)
            key = _check_schema(c, state, present)
        if key is not None and {"id", "game_id", "record"} <= present.get("games", set()):
            _check_seals(engine, key, state)
    except exc.DBAPIError as e:
        state.unreadable = True
        state.problems.append(f"the database cannot be read: {_reason(e)}")
    finally:
        engine.dispose()
    return Health(tuple(state.problems), _advice(state), tuple(state.notes), state.schema, state.tables, state.games)


def _reading_engine(url: str) -> sa.Engine:
    """An engine that only reads: for SQLite without the journal mode and pragmas :func:`engine_for` sets."""
    if is_sqlite(url):
        return sa.create_engine(url, connect_args={"timeout": 30})
    return engine_for(url)


def _check_file(c: sa.Connection, state: _Checking) -> None:
    """SQLite's own checks of the file: every page and index, then every foreign key."""
    c.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()  # (a file that is no database: raises)
    try:
        found = [line for row in c.exec_driver_sql(f"PRAGMA integrity_check({INTEGRITY_ROWS})")
                 for line in row[0].splitlines() if not line.startswith("*** in database")]
    except exc.DBAPIError as e:  # (a page so damaged that the check itself stops)
        found = [_reason(e)]
    if found != ["ok"]:
        state.unreadable = True
        state.problems.append(_listed("SQLite's integrity check", found))
    try:
        broken = list(c.exec_driver_sql("PRAGMA foreign_key_check"))
    except exc.DBAPIError as e:
        state.problems.append(f"SQLite's foreign key check: {_reason(e)}")
        return
    counts: dict[tuple[str, str], int] = {}
    for table, _rowid, parent, _fk in broken:
        counts[table, parent] = counts.get((table, parent), 0) + 1
    for (table, parent), n in sorted(counts.items()):
        state.problems.append(f"{n} row{'s' if n > 1 else ''} of {table} name{'' if n > 1 else 's'} a row of "
                              f"{parent} that is missing")


def _check_tables(c: sa.Connection, state: _Checking) -> dict[str, set[str]]:
    """The tables present and their columns; a problem for each table or column of this version's missing
    (those of a later schema than the league's are looked for in :func:`_check_schema`)."""
    inspector = sa.inspect(c)
    present = {}
    for name in inspector.get_table_names():
        present[name] = {column["name"] for column in inspector.get_columns(name)}
    for table in metadata.sorted_tables:
        if table.name not in present:
            continue
        missing = [column.name for column in table.columns if column.name not in present[table.name]]
        if missing:
            state.problems.append(f"table {table.name} has no column {', '.join(missing)}")
    return present


def _check_schema(c: sa.Connection, state: _Checking, present: dict[str, set[str]]) -> bytes | None:
    """A league's kind and schema in ``league_meta``, every table that schema has; its key (None: none to use)."""
    if not {"key", "value"} <= present.get("league_meta", set()):
        state.problems.append("no league_meta table: this is not a pinochle-arena league's database, or its "
                              "first pages are lost")
        return None
    meta = {key: value for key, value in c.execute(sa.select(league_meta.c.key, league_meta.c.value))}
    if meta.get("kind") != KIND:
        state.problems.append("league_meta does not say this is a pinochle-arena league")
    schema = meta.get("schema", "")
    if not schema.isdigit():
        state.problems.append("league_meta has no schema version")
        return None
    state.schema = int(schema)
    if state.schema > SCHEMA_VERSION:
        state.problems.append(f"league schema {schema} was made by a newer pinochle-arena (this one reads up to "
                              f"{SCHEMA_VERSION}): check it with that version")
        return None
    if state.schema < SCHEMA_VERSION:
        state.notes.append(f"league schema {schema} is older than this version's {SCHEMA_VERSION}: the next "
                           "league command upgrades it in place")
    expected = [t.name for t in metadata.sorted_tables if SINCE.get(t.name, SCHEMA_VERSION) <= state.schema]
    missing = [name for name in expected if name not in present]
    state.tables = len(expected) - len(missing)
    if missing:
        state.problems.append(f"table{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                              f"{'are' if len(missing) > 1 else 'is'} missing")
    try:
        return bytes.fromhex(meta.get("key", ""))
    except ValueError:
        state.problems.append("league_meta's key is not a key: no record's seal can be checked")
        return None


def _check_seals(engine: sa.Engine, key: bytes, state: _Checking) -> None:
    """Every game's record against its seal, in the order they finished."""
    failed: list[str] = []
    with engine.connect() as c:
        total = c.execute(sa.text("SELECT count(*) FROM games")).scalar_one()
        every = max(PROGRESS_EVERY, total // 100)
        if state.on_progress is not None:
            state.on_progress(0, total)
        rows = c.execution_options(yield_per=PROGRESS_EVERY).execute(
            sa.text("SELECT id, game_id, record FROM games ORDER BY id"))
        try:
            for number, game_id, record in rows:
                try:
                    check_seal(record, key)
                except SealError as e:
                    failed.append(f"game {number} ({game_id}): {e}")
                state.games += 1
                if state.on_progress is not None and state.games % every == 0:
                    state.on_progress(state.games, total)
        except exc.DBAPIError as e:
            state.unreadable = True
            state.problems.append(f"the records after the first {state.games} of {total} cannot be read: "
                                  f"{_reason(e)}")
        else:
            state.records_read = True
    if failed:
        state.seals_failed = True
        state.problems.append(_listed("records that fail their seal", failed))


def _listed(what: str, found: list[str]) -> str:
    shown = "; ".join(" ".join(line.split())[:160] for line in found[:SHOWN])
    more = f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return f"{what}: {shown}{more}"


def _advice(state: _Checking) -> tuple[str, ...]:
    """What to do about what was found, in a few plain lines."""
    if not state.problems:
        return ()
    advice = ["stop 'league run' and 'league serve', restore the newest backup (docs/league.md, \"Checking and "
              "backing up\"), then check again"]
    if state.seals_failed:
        advice.append("a record that fails its seal was changed outside pinochle-arena (its game page and replay "
                      "refuse it): the backup holds it as it was played")
    if state.records_read and not state.unreadable:
        advice.append("without a backup, 'pinochle-arena league export DIR OUT' saves every game that can be "
                      "read as a results folder (replay, ratings and report read it)")
    elif is_sqlite(state.url):
        advice.append("without a backup, SQLite's shell salvages what it can read: sqlite3 league.db .recover "
                      "| sqlite3 recovered.db")
    return tuple(advice)


# ---------------------------------------------------------------------- backing up

def backup(url: str, path: Path) -> Copy:
    """Copy the SQLite league at ``url`` to the new file ``path``, consistent while ``league run`` writes (one
    read transaction of SQLite's online backup API); LeagueRefused if ``path`` exists or the league is not in
    SQLite. The copy is one file (rollback journal, not WAL), ready to be copied back."""
    if not is_sqlite(url):
        raise LeagueRefused("this league is kept in PostgreSQL: back it up with pg_dump (pg_dump --format=custom "
                          "--file=FILE URL, as docs/league.md shows)")
    if path.exists():
        raise LeagueRefused(f"{path} exists: give a new file (a backup never overwrites one)")
    if not path.parent.is_dir():
        raise LeagueRefused(f"{path.parent} is no folder: give a file in an existing folder")
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    database = sa.engine.make_url(url).database
    if not database:
        raise LeagueRefused("this league's SQLite URL names no file to back up")
    source = sqlite3.connect(database, timeout=30)
    try:
        games = _copy(source, part)
        os.link(part, path)  # (never over a file made meanwhile)
    except FileExistsError:
        raise LeagueRefused(f"{path} exists: give a new file (a backup never overwrites one)") from None
    except sqlite3.DatabaseError as e:
        raise LeagueRefused(f"the league's database cannot be copied: {e}") from None
    finally:
        source.close()
        part.unlink(missing_ok=True)
    return Copy(path, games, path.stat().st_size)


def _copy(source: sqlite3.Connection, part: Path) -> int | None:
    """Every page of ``source`` into the new file ``part``; the games it holds (None: they cannot be counted, the
    copy of a damaged database being still worth keeping)."""
    copy = sqlite3.connect(part)
    try:
        source.backup(copy)  # every page in one step: one snapshot, whatever the runner writes meanwhile
        copy.execute("PRAGMA journal_mode = DELETE")
        try:
            return copy.execute("SELECT count(*) FROM games").fetchone()[0]
        except sqlite3.DatabaseError:
            return None
    finally:
        copy.close()


def _reason(error: exc.SQLAlchemyError) -> str:
    """The database's own words, on one line (not the statement)."""
    original = getattr(error, "orig", None)
    return " ".join(str(original or error).split())[:200]


__all__ = ["Copy", "Health", "backup", "check", "damage_line", "is_sqlite"]
