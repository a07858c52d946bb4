"""What a league refuses, as one line: the errors every league command may meet.

They live apart from :mod:`league.db` so that the command line can count them
among its user errors (one line, exit status 2) without importing SQLAlchemy
for every command. :mod:`league.db` still exports them under its own name.
"""

from __future__ import annotations


class LeagueError(Exception):
    """A league that cannot be made, opened or changed as asked; the message is one line that says why, and names
    what it is about (an entrant, a version, a database) where that is not the league as a whole."""


class LeagueUnreadable(LeagueError):
    """A league's database that cannot be read at all (not a database, its first pages damaged, its server
    unreachable): ``league check`` says more."""


class LeagueRefused(LeagueError):
    """A command on the league as a whole refused for where the league stands (its final begun or not planned,
    another runner holding it, a backup it cannot write). The message does not name the league: the command line
    puts its folder first (``league DIR: ...``)."""


__all__ = ["LeagueError", "LeagueRefused", "LeagueUnreadable"]
