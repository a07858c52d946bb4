"""Where a league's database is (its folder's file, or the URL the folder names), the engine that reaches it, and
the one-line words messages give of it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import exc

from ..errors import LeagueError
from .schema import DEFAULT_FILE, URL_FILE


def database_url(folder: Path) -> str:
    """The database of the league in ``folder``: the URL its folder names, else its SQLite file."""
    named = folder / URL_FILE
    if named.exists():
        return named.read_text(encoding="utf-8").strip()
    return f"sqlite:///{(folder / DEFAULT_FILE).absolute()}"


SUPPORTED = ("SQLite (a file: DIR/league.db by default, or sqlite:///PATH) or PostgreSQL (postgresql://USER@HOST/NAME, "
             "with the postgres extra: pip install 'pinochle-arena[postgres]')")


def engine_for(url: str) -> sa.Engine:
    """An engine for ``url``; SQLite in WAL mode, fully synchronised, writers locking as they begin."""
    if not url.startswith("sqlite"):
        if not url.startswith(("postgresql", "postgres://")):
            raise LeagueError(f"database {safe_url(url)} is not supported: a league keeps its games in {SUPPORTED}")
        if url.startswith(("postgresql://", "postgres://")):  # the driver the postgres extra installs
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        try:
            return sa.create_engine(url, pool_pre_ping=True)
        except ImportError as e:
            raise LeagueError(f"database {safe_url(url)}: its driver is missing ({e}); the postgres extra installs it: "
                              "pip install 'pinochle-arena[postgres]'") from None
        except (exc.ArgumentError, exc.NoSuchModuleError) as e:
            raise LeagueError(f"database {safe_url(url)}: {e}") from None
    engine = sa.create_engine(url, connect_args={"timeout": 30})

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy says when a transaction begins (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        connection.exec_driver_sql(connection.get_execution_options().get("sqlite_begin", "BEGIN"))

    return engine


@contextmanager
def writing(engine: sa.Engine) -> Iterator[sa.Connection]:
    """One transaction that writes (on SQLite, holding the write lock from its start: ``BEGIN IMMEDIATE``, so
    that two writers never both read and then wait for each other's lock)."""
    with engine.execution_options(sqlite_begin="BEGIN IMMEDIATE").begin() as c:
        yield c


def safe_url(url: str) -> str:
    """``url`` without its password, for messages."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return "(an unreadable URL)"


def token_hash(token: str) -> str:
    """What the database keeps of a token. Tokens are 256 random bits, so a plain SHA-256 cannot be searched
    backwards; a slow password hash would add nothing but a cost to every request."""
    return hashlib.sha256(token.encode()).hexdigest()


def error_line(error: exc.SQLAlchemyError) -> str:
    """The database's own words, on one line."""
    original = getattr(error, "orig", None)
    return " ".join(str(original or error).split())[:200]
