"""``league init DIR``: a new league, its settings taken from the flags and checked before anything is made."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..args import (
    UsageError,
    add_time_arguments,
    add_variant_arguments,
    fence_keys_from_args,
    limits_from_args,
    positive_int,
)
from .common import when_arg


def add_init(commands: argparse._SubParsersAction) -> None:
    init = commands.add_parser("init", help="make a league in DIR (its database and the bots' logs)")
    init.add_argument("folder", type=Path, metavar="DIR")
    add_variant_arguments(init)
    init.add_argument("--boards", action="store_true",
                      help="play boards (one hand in every seating of a deal) instead of whole games")
    add_time_arguments(init)
    init.add_argument("--database", default=None, metavar="URL",
                      help="keep the league in this database (postgresql://USER@HOST/NAME) instead of DIR/league.db")
    init.add_argument("--stderr-quota", type=quota_arg, default=None, metavar="MIB",
                      help="the bots' stderr logs kept for each entrant, in MiB (default 64, at least 4): its oldest "
                           "logs go first")
    init.add_argument("--deadline", type=when_arg, default=None, metavar="WHEN",
                      help="the deadline for submissions, as 2026-12-24T18:00Z (UTC, or with an offset): after it no "
                           "entrant joins and no version is entered (league deadline changes it)")
    init.set_defaults(handler=run_init)


def run_init(args: argparse.Namespace) -> int:
    from league.db import DEFAULT_FILE, URL_FILE, LeagueDB
    from league.deadline import set_deadline, when_text
    from league.settings import check_settings

    from ..running import check_out

    folder = args.folder
    check_out(folder, "DIR")
    if (folder / DEFAULT_FILE).exists() or (folder / URL_FILE).exists():
        raise UsageError(f"{folder} already holds a league: choose another folder")
    settings = settings_from_args(args)
    check_settings(settings)  # (before anything is made)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    db = LeagueDB.create(args.database or f"sqlite:///{(folder / DEFAULT_FILE).absolute()}", settings)
    if args.deadline is not None:
        set_deadline(db, args.deadline)
    db.close()
    if args.database:
        named = folder / URL_FILE
        named.write_text(args.database + "\n", encoding="utf-8")
        named.chmod(0o600)
    print(f"league in {folder}: {settings['tournament'].get('variant', 'two-handed')}"
          f"{', boards' if args.boards else ''}; add entrants with: pinochle-arena league add NAME BOT --league "
          f"{folder}")
    if args.deadline is not None:
        print(f"submissions close at {when_text(args.deadline)}")
    return 0


def quota_arg(text: str) -> int:
    from league.logs import SMALLEST_QUOTA_MIB

    value = positive_int(text)
    if value < SMALLEST_QUOTA_MIB:
        raise argparse.ArgumentTypeError(f"at least {SMALLEST_QUOTA_MIB} (MiB: the newest game's logs must fit)")
    return value


def settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The [tournament], [time] and [limits] tables every game of the league is played under, and the league's own
    [league] table (its stderr quota)."""
    from league.logs import DEFAULT_QUOTA_MIB
    from referee.rules.variants import parse_option_text

    options = dict(parse_option_text(o) for o in args.option)
    if args.boards:
        options["max-hands"] = "1"
    tournament: dict[str, Any] = {"variant": args.variant, "options": options, "isolation": args.isolation,
                                  "restart": args.restart}
    tournament.update(fence_keys_from_args(args))
    time_table = {"move": args.time_per_move, "bank": args.time_bank, "increment": args.increment,
                  "grace": args.grace}
    settings: dict[str, Any] = {"tournament": tournament, "time": time_table,
                                "league": {"stderr_quota_mib": args.stderr_quota or DEFAULT_QUOTA_MIB,
                                           "startup_timeout": args.startup_timeout}}
    limits = limits_from_args(args)
    if limits:
        settings["limits"] = limits
    return settings
