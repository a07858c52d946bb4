"""The end of a contest: its deadline for submissions, its closing by hand, and the phase it is in.

A league is a contest once the organiser sets a deadline (``league init
--deadline``, ``league deadline``) or closes it by hand (``league close``).
Its phase, which :func:`contest_state` gives with everything a page shows of
it:

* ``open``: entrants may join and send versions (no deadline, or before it);
* ``closed``: the deadline has passed or the organiser closed it: ``league
  add``, ``update``, ``entrant add`` and uploads are refused with one line
  saying when it closed (:func:`check_open`); the ladder may still play;
* ``final``: ``league final`` planned the final phase (:mod:`league.final`)
  and has not played all its games;
* ``done``: every game of the final is played; its standings are final.

The deadline and the closing are :mod:`league.deadline`'s (this module
gives its names too), the final :mod:`league.final`'s.
"""

from __future__ import annotations

import json

import attrs

from .db import LeagueDB
from .deadline import (
    CLOSED,
    DEADLINE,
    ContestClosed,
    check_open,
    close,
    closed_at,
    deadline,
    parse_when,
    set_deadline,
    when_iso,
    when_text,
)
from .final import BOOTSTRAP, FinalGame, FinalPlan, FinalRow, final_games, final_standings, plan_of

PHASES = ("open", "closed", "final", "done")


@attrs.frozen
class ContestState:
    """Where the contest stands, for ``league show`` and the pages (:func:`contest_state`)."""

    phase: str  # PHASES
    deadline: float | None
    closed_at: float | None  # when submissions closed; None while they are open
    final: FinalPlan | None  # once the final is planned
    played: int  # the final's games played so far (that the standings count)
    standings: tuple[FinalRow, ...]  # best first: the final's standings so far (final when done)
    games: tuple[FinalGame, ...] = ()  # the games that made them, in the order they finished

    def to_dict(self) -> dict:
        """As data: times in ISO 8601 (UTC), the final's plan, its standings' rows and its games."""
        return {"phase": self.phase, "deadline": when_iso(self.deadline), "closed_at": when_iso(self.closed_at),
                "final": None if self.final is None else self.final.to_dict(), "final_games_played": self.played,
                "standings": [row.to_dict() for row in self.standings],
                "games": [game.to_dict() for game in self.games]}


def final_json(state: ContestState) -> str:
    """``/final.json``: the contest's phase and deadline, the final's plan, standings and games (docs/league.md)."""
    return json.dumps(state.to_dict(), indent=1) + "\n"


def contest_state(db: LeagueDB, now: float | None = None, standings: bool = True) -> ContestState:
    """The contest's deadline, when it closed, its phase and (with ``standings``) the final's standings so far:
    while the final plays, its ratings alone (a bootstrap over 1,800 games takes seconds, and each look would
    need one anew); once it is done, with their intervals (measured once and kept)."""
    plan = plan_of(db)
    closed = closed_at(db, now)
    if plan is None:
        phase = "open" if closed is None else "closed"
    else:
        phase = "done" if all(len(u.played) >= u.games for u in db.final_units()) else "final"
    # (while the final plays its games change at every look: ratings alone, the bootstrap's intervals once it is done)
    rows, played = final_standings(db, BOOTSTRAP if phase == "done" else 0) if plan and standings else ((), 0)
    games = final_games(db) if plan is not None and standings else ()
    return ContestState(phase, deadline(db), closed, plan, played, tuple(rows), tuple(games))


__all__ = ["CLOSED", "DEADLINE", "PHASES", "ContestClosed", "ContestState", "check_open", "close", "closed_at",
           "contest_state", "deadline", "final_json", "parse_when", "set_deadline", "when_iso", "when_text"]
