"""The league's entrants: ``league add``, ``update``, ``remove``, ``list``, ``entrant add``, ``token``, ``pause``,
``restore`` and ``void``. What they refuse (a name taken, no such entrant, submissions closed) is the league's
LeagueError, printed as it is."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..args import UsageError, bots_with_options, positive_int
from .common import add_league_argument, open_league

if TYPE_CHECKING:
    from league.db import LeagueDB

NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def add_changes(commands: argparse._SubParsersAction) -> None:
    """``league add``, ``update`` and ``remove``."""
    for name, verb in (("add", "add an entrant, NAME, started as BOT"),
                       ("update", "enter a new version of NAME (the old one stops playing; its games stay)")):
        change = commands.add_parser(name, help=verb)
        change.add_argument("name", metavar="NAME")
        change.add_argument("bot", nargs="+", metavar="BOT",
                            help="a sample bot's name or a command line (quoted), then its option.KEY=VALUE words")
        add_league_argument(change)
        change.set_defaults(handler=run_add if name == "add" else run_update)

    remove = commands.add_parser("remove", help="take NAME off the ladder (its games and ratings stay)")
    remove.add_argument("name", metavar="NAME")
    add_league_argument(remove)
    remove.set_defaults(handler=run_remove)


def add_list(commands: argparse._SubParsersAction) -> None:
    listing = commands.add_parser("list", help="the entrants, their versions and status")
    listing.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    listing.set_defaults(handler=run_list)


def add_uploaders(commands: argparse._SubParsersAction) -> None:
    """``league entrant add`` and ``token`` (entrants who upload through the web pages), ``pause`` and
    ``restore``."""
    entrant = commands.add_parser("entrant", help="entrants who upload their bots through the web pages")
    entrant_commands = entrant.add_subparsers(title="entrant commands", metavar="WHAT", required=True)
    entrant_add = entrant_commands.add_parser("add", help="add NAME, without a bot yet: prints its secret token, "
                                                          "with which it uploads its versions")
    entrant_add.add_argument("name", metavar="NAME")
    add_league_argument(entrant_add)
    entrant_add.set_defaults(handler=run_entrant_add)

    token = commands.add_parser("token", help="a new secret token for NAME, or with --organiser the organiser's "
                                              "(the old one stops working)")
    token.add_argument("name", nargs="?", metavar="NAME")
    token.add_argument("--organiser", action="store_true", help="the organiser's token (pause, remove, restore, "
                                                                  "every entrant's logs)")
    add_league_argument(token)
    token.set_defaults(handler=run_token)

    for name, verb in (("pause", "pause NAME (it plays no games until restored or updated)"),
                       ("restore", "let a paused or removed NAME play again")):
        change = commands.add_parser(name, help=verb)
        change.add_argument("name", metavar="NAME")
        add_league_argument(change)
        change.set_defaults(handler=run_pause if name == "pause" else run_restore)


def add_void(commands: argparse._SubParsersAction) -> None:
    void = commands.add_parser("void", help="disqualify version VERSION of NAME: its games are kept but no longer "
                                            "counted, and it plays no more (--undo counts them again)")
    void.add_argument("folder", type=Path, metavar="DIR")
    void.add_argument("name", metavar="NAME")
    void.add_argument("version", type=positive_int, metavar="VERSION")
    void.add_argument("--undo", action="store_true", help="count the version's games again")
    void.set_defaults(handler=run_void)


# ---------------------------------------------------------------------- entering a bot

def run_add(args: argparse.Namespace) -> int:
    return _enter(args, new=True)


def run_update(args: argparse.Namespace) -> int:
    return _enter(args, new=False)


def _enter(args: argparse.Namespace, new: bool) -> int:
    """``league add`` and ``league update``: the bot checked as a tournament would (it starts, its jail shows it no
    other entrant and no results), its fingerprint taken, then entered."""
    from league.deadline import check_open
    from league.db import Version
    from league.runner import games_folder, league_config
    from referee.bots.apart import RESULTS_ELSEWHERE_LEAGUE
    from referee.bots.fingerprint import fingerprint
    from referee.bots.transport import BotStartError
    from tournaments.config import ConfigError

    from ..running import check_apart, check_bots_start

    check_name(args.name)
    db = open_league(args.league)
    check_open(db)
    try:
        bot = bot_table(args.bot)
    except (UsageError, BotStartError) as e:
        raise UsageError(f"{args.name}: {e}") from None

    trial = Version(0, args.name, 1, bot, "")
    others = [v for v in db.players() if v.entrant != args.name]
    try:
        config = league_config(db, args.league, [trial, *others])
    except ConfigError as e:  # the bot's words cannot make a bot
        raise UsageError(f"{args.name}: " + str(e).removeprefix(f"league {args.league}: ")) from None
    check_apart(config.entrants, games_folder(args.league), RESULTS_ELSEWHERE_LEAGUE)
    check_bots_start(config.entrants[:1], games_folder(args.league) / "logs")  # (the league's start allowance)
    program = fingerprint(config.entrants[0].command)
    check_open(db)  # (again: the deadline may have passed while the bot was checked)
    version = db.add(args.name, bot, program) if new else db.update(args.name, bot, program)
    print(f"{'added' if new else 'updated'} {args.name}: version {version.number} ({program[:19]}...)")
    return 0


def check_name(name: str) -> None:
    if not set(name) <= NAME_CHARS or not name or len(name) > 64:
        raise UsageError(f"entrant name {name!r}: use letters, digits, '-' and '_' only (at most 64)")


def bot_table(words: list[str]) -> dict[str, Any]:
    """``BOT [option.KEY=VALUE ...]`` -> a [[bot]] table (a command's paths made absolute: they mean this folder)."""
    from referee.bots.samples import SAMPLES, resolve_bot

    grouped = bots_with_options(words)
    if len(grouped) != 1:
        raise UsageError(f"{' '.join(words)}: one bot (quote a command line with spaces: 'mine/bot --fast')")
    (text, options), = grouped
    table: dict[str, Any] = {"sample": text} if text in SAMPLES else {"command": resolve_bot(text)[1].to_text()}
    if options:
        table["options"] = dict(options)
    return table


# ---------------------------------------------------------------------- uploaders, tokens and status

def run_entrant_add(args: argparse.Namespace) -> int:
    from league.deadline import check_open

    check_name(args.name)
    db = open_league(args.league)
    check_open(db)
    db.add_entrant(args.name)
    token = db.new_token(args.name)
    print(f"added {args.name}, waiting for its first upload; its token (shown once, keep it secret):\n{token}")
    return 0


def run_token(args: argparse.Namespace) -> int:
    if args.organiser == (args.name is not None):
        raise UsageError("league token: give NAME (an entrant's token) or --organiser, not both")
    db = open_league(args.league)
    token = db.new_token(None if args.organiser else args.name)
    whose = "the organiser" if args.organiser else args.name
    print(f"a new token for {whose} (shown once, keep it secret; the old one no longer works):\n{token}")
    return 0


def run_pause(args: argparse.Namespace) -> int:
    from league.db import PAUSED_BY_ORGANISER

    return _set_status(args, "paused", PAUSED_BY_ORGANISER, "it plays no games until restored")


def run_restore(args: argparse.Namespace) -> int:
    return _set_status(args, "active", "", "it plays again")


def _set_status(args: argparse.Namespace, status: str, note: str, said: str) -> int:
    open_league(args.league).set_status(args.name, status, note)
    print(f"{args.name}: {status}; {said}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    open_league(args.league).set_status(args.name, "removed")
    print(f"removed {args.name}: it plays no more; its games and ratings stay")
    return 0


def run_void(args: argparse.Namespace) -> int:
    version = open_league(args.folder).void(args.name, args.version, undo=args.undo)
    if args.undo:
        print(f"{version.label}: counted again (it plays again only if it is {args.name}'s newest version and "
              f"{args.name} is active)")
    else:
        print(f"{version.label}: voided; its games are kept and no longer counted, and it plays no more "
              f"(undo: pinochle-arena league void {args.folder} {args.name} {args.version} --undo)")
    return 0


# ---------------------------------------------------------------------- listing

def run_list(args: argparse.Namespace) -> int:
    from tabulate import tabulate

    db = open_league(args.folder)
    played = _games_by_entrant(db)
    rows = [[e.name, e.version.number if e.version else "-", e.status + (f": {e.note}" if e.note else ""),
             played.get(e.name, 0), e.version.command if e.version else "(waiting for its first upload)"]
            for e in db.entrants()]
    if not rows:
        print(f"no entrants yet: pinochle-arena league add NAME BOT --league {args.folder}")
        return 0
    print(tabulate(rows, headers=["entrant", "version", "status", "games", "bot"], tablefmt="github"))
    return 0


def _games_by_entrant(db: LeagueDB) -> dict[str, int]:
    """The games the ratings count of each entrant, from the stored tally (a league of millions of games is not
    read): its versions' games added up (two versions of one entrant never share a table)."""
    versions = db.versions()
    games: dict[str, int] = {}
    for version, (count, _tables, _form) in db.version_tallies().items():
        if version in versions:
            name = versions[version].entrant
            games[name] = games.get(name, 0) + count
    return games
