"""What every ``league`` command shares: its ``--league DIR`` flag, opening the league, a WHEN argument, and the one
place that turns what a league refuses, or a database that fails, into one line."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from league.errors import LeagueRefused, LeagueUnreadable

from ..args import UsageError

if TYPE_CHECKING:
    from league.db import LeagueDB

Handler = Callable[[argparse.Namespace], int]


def add_league_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--league", type=Path, default=Path("."), metavar="DIR",
                   help="the league's folder (default: the current folder)")


def when_arg(text: str) -> float:
    from league.contest import parse_when

    try:
        return parse_when(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def open_league(folder: Path) -> LeagueDB:
    """The league in ``folder`` (UsageError if it holds none; a LeagueError if its database is none of ours)."""
    from league.db import DEFAULT_FILE, URL_FILE, LeagueDB, database_url

    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} is a file, not a league's folder: give the folder 'league init' made")
    if not (folder / DEFAULT_FILE).exists() and not (folder / URL_FILE).exists():
        raise UsageError(f"{folder} holds no league (make one with: pinochle-arena league init {folder})")
    return LeagueDB.open(database_url(folder))


def meet_errors_in_one_line(commands: argparse._SubParsersAction) -> None:
    """Every league command, and those under it, made to meet what the league refuses and a database that fails
    under it (not a database, a malformed page, a table or column missing) with one line, not a traceback. A
    LeagueError of any other kind is one of the command line's user errors as it is (arena.cli.user_errors())."""
    for parser in commands.choices.values():
        handler = parser.get_default("handler")
        if handler is not None:
            parser.set_defaults(handler=_in_one_line(handler))
        for action in parser._actions:  # (commands of their own: league entrant add)
            if isinstance(action, argparse._SubParsersAction):
                meet_errors_in_one_line(action)


def _in_one_line(handler: Handler) -> Handler:
    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        folder = getattr(args, "folder", None) or getattr(args, "league", Path("."))
        try:
            return handler(args)
        except LeagueUnreadable as e:
            raise UsageError(f"{e}; see what is wrong with: pinochle-arena league check {folder}") from None
        except LeagueRefused as e:  # (its message does not name the league)
            raise UsageError(f"league {folder}: {e}") from None
        except BaseException as e:
            from league.health import damage_line

            line = damage_line(e)
            if line is None:
                raise
            raise UsageError(f"league {folder}: its database fails ({line}); see what is wrong with: "
                             f"pinochle-arena league check {folder}") from None
    return run
