"""The league's tables, as SQLAlchemy Core declares them, and the constants they are read with (the schema each
table first appeared in is noted beside it; :mod:`league.db.upgrades` brings an older database up to this one)."""

from __future__ import annotations

import sqlalchemy as sa

KIND = "pinochle-arena league"
SCHEMA_VERSION = 8
DEFAULT_FILE = "league.db"
URL_FILE = "database.url"  # in a league's folder when its database is elsewhere (PostgreSQL)
STATUSES = ("active", "paused", "removed")
PAUSED_BY_ORGANISER = "paused by the organiser"  # the note of a pause that only the organiser lifts
RUNNER_KEY = "runner"  # league_meta's row naming the league run that holds the league (league.lock)

metadata = sa.MetaData()
league_meta = sa.Table(
    "league_meta", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
entrants = sa.Table(
    "entrants", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("note", sa.Text, nullable=False, default=""),
    sa.Column("created", sa.Float, nullable=False),
)
versions = sa.Table(
    "versions", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("entrant_id", sa.Integer, sa.ForeignKey("entrants.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("bot", sa.Text, nullable=False),  # its [[bot]] table, as JSON
    sa.Column("program", sa.String(80), nullable=False),  # referee.bots.fingerprint when it was added
    sa.Column("created", sa.Float, nullable=False),
    sa.UniqueConstraint("entrant_id", "number"),
)
units = sa.Table(
    "units", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("versions", sa.Text, nullable=False),  # JSON: the version ids at the table, in table order
    sa.Column("seed", sa.BigInteger, nullable=True),  # its deal's seed (derived from the league's and its id)
    sa.Column("games", sa.Integer, nullable=False),  # games it plays: every seating of its deal
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("finished", sa.Float, nullable=True),
)
games = sa.Table(
    "games", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("unit_id", sa.Integer, sa.ForeignKey("units.id"), nullable=False),
    sa.Column("game_id", sa.String(96), nullable=False, unique=True),
    sa.Column("record", sa.Text, nullable=False),  # the sealed JSON line, as in games.jsonl
    sa.Column("finished", sa.Float, nullable=False),
)
game_seats = sa.Table(
    "game_seats", metadata,
    sa.Column("game", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), nullable=False),
    sa.Column("share", sa.Float, nullable=False),
)
SEATS_BY_VERSION = sa.Index("game_seats_by_version", game_seats.c.version_id)  # schema 2
GAMES_BY_UNIT = sa.Index("games_by_unit", games.c.unit_id)  # schema 4
# schema 8: what the working fit needs, kept as games are saved, so that neither a page nor a round reads every
# game (league.ratings.Tally, league.standing)
pair_tally = sa.Table(
    "pair_tally", metadata,
    sa.Column("first", sa.Integer, primary_key=True),  # the lower version id of a pair that met
    sa.Column("second", sa.Integer, primary_key=True),
    sa.Column("points", sa.Float, nullable=False),  # first's points in their comparisons
    sa.Column("weight", sa.Float, nullable=False),  # the weight of their comparisons
    sa.Column("changed", sa.Integer, nullable=False),  # the tally's generation when it last changed
)
version_tally = sa.Table(
    "version_tally", metadata,
    sa.Column("version_id", sa.Integer, primary_key=True),
    sa.Column("games", sa.Integer, nullable=False),  # its games the ratings count
    sa.Column("tables", sa.Integer, nullable=False),  # the tables (units) allocated to it
    sa.Column("form", sa.String(16), nullable=False),  # its latest counted results, oldest first (W, D, L)
    sa.Column("changed", sa.Integer, nullable=False),  # the tally's generation when its games last changed
)
PAIRS_BY_CHANGE = sa.Index("pair_tally_by_change", pair_tally.c.changed)
tally_state = sa.Table(  # one row
    "tally_state", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("generation", sa.Integer, nullable=False),  # one more at every change of the tally
    sa.Column("recounted", sa.Integer, nullable=False),  # the generation it was last counted again from the games
    sa.Column("counted", sa.Integer, nullable=False),  # the games the ratings count
    sa.Column("rated", sa.Integer, nullable=False),  # the generation the stored ratings were fitted at (-1: none)
    sa.Column("rated_at", sa.Float, nullable=False),  # when they were stored (time.time())
    sa.Column("history_at", sa.Integer, nullable=False),  # the counted games at the last history point
)
standing = sa.Table(  # the stored ratings, every version that played and every entrant's newest
    "standing", metadata,
    sa.Column("version_id", sa.Integer, primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
)
rating_history = sa.Table(  # the ratings as they were stored, at points along the league's counted games
    "rating_history", metadata,
    sa.Column("version_id", sa.Integer, primary_key=True),
    sa.Column("counted", sa.Integer, primary_key=True),  # the league's counted games then
    sa.Column("games", sa.Integer, nullable=False),  # the version's
    sa.Column("rating", sa.Float, nullable=False),
)
FORM = 5  # the latest results a version's form keeps
HISTORY_GROWTH = 1.25  # a history point is stored each time the counted games have grown by this factor (or by 1)
tokens = sa.Table(  # schema 3
    "tokens", metadata,
    sa.Column("hash", sa.String(64), primary_key=True),  # SHA-256 of the token, in hex
    sa.Column("entrant_id", sa.Integer, sa.ForeignKey("entrants.id"), nullable=True),  # None: the organiser's
    sa.Column("created", sa.Float, nullable=False),
)
builds = sa.Table(  # schema 3
    "builds", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("entrant_id", sa.Integer, sa.ForeignKey("entrants.id"), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # BUILD_STATUSES
    sa.Column("message", sa.Text, nullable=False, default=""),  # one line for the entrant: why it failed
    sa.Column("log", sa.Text, nullable=False, default=""),  # the build's output and the check's report
    sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), nullable=True),  # once it passed
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("finished", sa.Float, nullable=True),
)
BUILD_STATUSES = ("receiving", "queued", "building", "failed", "passed")
sessions = sa.Table(  # schema 5: a login's session lives here, not only in its cookie, so that logging out ends it
    "sessions", metadata,
    sa.Column("hash", sa.String(64), primary_key=True),  # SHA-256 of the session's id (the cookie holds the id)
    sa.Column("token", sa.String(64), nullable=False),  # the hash of the token it was opened with
    sa.Column("expires", sa.Float, nullable=False),
)
voided = sa.Table(  # schema 6: a disqualified version's games are kept and not counted
    "voided", metadata,
    sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id"), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
)
final_units = sa.Table(  # schema 7: the final phase's units, apart from the ladder's
    "final_units", metadata,
    sa.Column("unit_id", sa.Integer, sa.ForeignKey("units.id"), primary_key=True),
)


NEW_TALLY = {"id": 1, "generation": 0, "recounted": 0, "counted": 0, "rated": -1, "rated_at": 0.0, "history_at": 0}
