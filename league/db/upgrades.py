"""A league made by an older version, upgraded in place: one step a schema version (``UPGRADES``)."""

from __future__ import annotations

import sqlalchemy as sa

from .schema import (
    GAMES_BY_UNIT,
    NEW_TALLY,
    PAIRS_BY_CHANGE,
    SEATS_BY_VERSION,
    builds,
    final_units,
    pair_tally,
    rating_history,
    sessions,
    standing,
    tally_state,
    tokens,
    version_tally,
    voided,
)
from .tally import recount


def _upgrade_to_2(c: sa.Connection) -> None:
    """Schema 2: an index of the seats by version (a version's games, asked for by every rating)."""
    SEATS_BY_VERSION.create(c, checkfirst=True)


def _upgrade_to_3(c: sa.Connection) -> None:
    """Schema 3: entrants' tokens and their uploads' builds."""
    tokens.create(c, checkfirst=True)
    builds.create(c, checkfirst=True)


def _upgrade_to_4(c: sa.Connection) -> None:
    """Schema 4: an index of the games by unit (a unit is finished when its games are counted, at every save;
    without it each save read every game the league had played)."""
    GAMES_BY_UNIT.create(c, checkfirst=True)


def _upgrade_to_5(c: sa.Connection) -> None:
    """Schema 5: the pages' sessions, kept on the server (before, a session lived in its cookie alone, and a copy of
    the cookie outlived logging out)."""
    sessions.create(c, checkfirst=True)


def _upgrade_to_6(c: sa.Connection) -> None:
    """Schema 6: the versions the organiser voided."""
    voided.create(c, checkfirst=True)


def _upgrade_to_7(c: sa.Connection) -> None:
    """Schema 7: the final phase's units (league final)."""
    final_units.create(c, checkfirst=True)


def _upgrade_to_8(c: sa.Connection) -> None:
    """Schema 8: the working fit's tally, the stored ratings and their history (a league of millions of games is
    not read whole by every page and every round), counted once here from every game."""
    for table in (pair_tally, version_tally, tally_state, standing, rating_history):
        table.create(c, checkfirst=True)
    PAIRS_BY_CHANGE.create(c, checkfirst=True)
    c.execute(tally_state.delete())
    c.execute(tally_state.insert().values(**NEW_TALLY))
    recount(c, tables=True)


# schema version -> the step from the one before
UPGRADES = {2: _upgrade_to_2, 3: _upgrade_to_3, 4: _upgrade_to_4, 5: _upgrade_to_5, 6: _upgrade_to_6,
            7: _upgrade_to_7, 8: _upgrade_to_8}
