"""A league's database: one SQLite file by default, or a PostgreSQL server by URL, through SQLAlchemy Core.

What it keeps:

* ``league_meta``: what makes it a league of ours (``kind``), its schema
  version, its settings (the [tournament], [time] and [limits] tables of a
  tournament configuration, which every game is played under), its secret
  seed and the key that seals its records;
* ``entrants`` (a name, active, paused with a note, or removed) and their
  ``versions`` (the [[bot]] table it is started from, and the fingerprint of
  its program files when it was added); an entrant plays its newest version;
* ``units``: a table of versions and the deal they play (a duplicate deal in
  every seating, or a board), allocated before its games start so that a
  league stopped in the middle finishes it with the same cards;
* ``games``: every finished game's record, sealed as in a results folder, and
  ``game_seats``: who sat where and their share, for the ratings;
* ``voided``: the versions the organiser disqualified (``league void``): their
  games stay, but no rating counts them, nor any game they sat at;
* ``pair_tally``, ``version_tally``, ``tally_state``: what the ladder's working
  fit needs of the games it counts (each pair of versions' points and weight,
  each version's games, tables and latest results), added to in the
  transaction that saves each game and counted again, in SQL, when a version
  is voided; ``standing`` and ``rating_history``: the ratings last fitted from
  it, and points of them along the league (:mod:`league.standing`);
* ``final_units``: the units of the contest's final phase (``league final``,
  :mod:`league.final`), whose plan, like the deadline, is in ``league_meta``;
* ``tokens``: the SHA-256 of each entrant's secret token and of the
  organiser's (never the tokens themselves), and ``builds``: every upload
  an entrant sent, its build's state, log and, once it passed, its version.

Every change is one transaction; SQLite runs in WAL mode with full
synchronisation, so a league killed at any moment keeps every game it saved
and nothing half-written. A writer takes the lock when it begins (``BEGIN
IMMEDIATE``), so ``league add`` while ``league run`` saves a game waits its
turn rather than failing. A file that is not a league, or a league made by a
newer version, is refused with one line (:class:`LeagueError`); an older one
is upgraded in place (``UPGRADES``).

Its rooms: :mod:`league.db.schema` (the tables), :mod:`league.db.upgrades`
(an older schema brought up to this one), :mod:`league.db.connect` (where
the database is, its engine), :mod:`league.db.rows` (the values queries
return), :mod:`league.db.tally` (the working fit's tally, in SQL) and
:mod:`league.db.queries` (:class:`LeagueDB`, every question and change).
Everything is imported from ``league.db`` as before.
"""

from __future__ import annotations

from ..errors import LeagueError, LeagueUnreadable
from .connect import SUPPORTED, database_url, engine_for, token_hash, writing
from .queries import LeagueDB
from .rows import Build, Entrant, Holder, Standing, Unit, Version
from .schema import (
    BUILD_STATUSES,
    DEFAULT_FILE,
    FORM,
    HISTORY_GROWTH,
    KIND,
    PAUSED_BY_ORGANISER,
    RUNNER_KEY,
    SCHEMA_VERSION,
    STATUSES,
    URL_FILE,
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
from .upgrades import UPGRADES

__all__ = [
    "BUILD_STATUSES",
    "DEFAULT_FILE",
    "FORM",
    "HISTORY_GROWTH",
    "KIND",
    "PAUSED_BY_ORGANISER",
    "RUNNER_KEY",
    "SCHEMA_VERSION",
    "STATUSES",
    "SUPPORTED",
    "UPGRADES",
    "URL_FILE",
    "Build",
    "Entrant",
    "Holder",
    "LeagueDB",
    "LeagueError",
    "LeagueUnreadable",
    "Standing",
    "Unit",
    "Version",
    "builds",
    "database_url",
    "engine_for",
    "entrants",
    "final_units",
    "game_seats",
    "games",
    "league_meta",
    "metadata",
    "pair_tally",
    "rating_history",
    "sessions",
    "standing",
    "tally_state",
    "token_hash",
    "tokens",
    "units",
    "version_tally",
    "versions",
    "voided",
    "writing",
]
