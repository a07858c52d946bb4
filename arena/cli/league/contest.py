"""The end of a contest: ``league deadline``, ``league close`` and ``league final`` (docs/league.md). What they
refuse (the final begun, submissions still open, another runner holding the league) is league.final's and
league.deadline's, printed after the league's folder by common's one line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..args import UsageError, add_bootstrap_argument, positive_int
from .common import open_league, when_arg

if TYPE_CHECKING:
    from league.db import LeagueDB
    from league.final import FinalPlan


def add_contest(commands: argparse._SubParsersAction) -> None:
    """``league deadline``, ``league close`` and ``league final``."""
    deadline = commands.add_parser("deadline", help="set or move the deadline for submissions (--none: no deadline)")
    deadline.add_argument("folder", type=Path, metavar="DIR")
    deadline.add_argument("when", type=when_arg, nargs="?", default=None, metavar="WHEN",
                          help="as 2026-12-24T18:00Z (UTC, or with an offset such as +01:00)")
    deadline.add_argument("--none", action="store_true", help="no deadline")
    deadline.set_defaults(handler=run_deadline)

    close = commands.add_parser("close", help="close submissions now: no entrant joins and no version is entered "
                                              "(--undo opens them again)")
    close.add_argument("folder", type=Path, metavar="DIR")
    close.add_argument("--undo", action="store_true", help="open submissions again (unless the deadline passed)")
    close.set_defaults(handler=run_close)

    final = commands.add_parser("final", help="the final phase: a round robin of the ladder's top N on fresh deals, "
                                              "then the final standings; run it again to go on after a stop")
    final.add_argument("folder", type=Path, metavar="DIR")
    final.add_argument("--top", type=positive_int, default=None,
                       help="finalists: the ladder's top N among the entrants that play (default 10)")
    final.add_argument("--games", type=positive_int, default=None,
                       help="games in all, rounded up so that every table plays as many deals (default: 20 deals a "
                            "table)")
    final.add_argument("--seed", type=int, default=None, help="the final's seed, from which its deals come "
                                                               "(default: a random one)")
    final.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default: cores)")
    final.add_argument("--processes", type=positive_int, default=None,
                       help="referee processes to spread them over (default: cores)")
    add_bootstrap_argument(final)
    final.set_defaults(handler=run_final)


def run_deadline(args: argparse.Namespace) -> int:
    from league.deadline import closed_at, set_deadline, when_text

    if args.none == (args.when is not None):
        raise UsageError("league deadline: give WHEN (2026-12-24T18:00Z) or --none, not both")
    db = open_league(args.folder)
    set_deadline(db, args.when)
    closed = closed_at(db)
    said = "no deadline" if args.when is None else f"submissions close at {when_text(args.when)}"
    print(f"league {args.folder}: {said}" + (f" (closed since {when_text(closed)})" if closed is not None else ""))
    return 0


def run_close(args: argparse.Namespace) -> int:
    from league.deadline import close, when_text

    closed = close(open_league(args.folder), undo=args.undo)
    if closed is None:
        print(f"league {args.folder}: submissions are open again")
    else:
        print(f"league {args.folder}: submissions closed at {when_text(closed)}"
              + (" (the deadline has passed)" if args.undo else "")
              + f"; the final: pinochle-arena league final {args.folder}")
    return 0


def run_final(args: argparse.Namespace) -> int:
    from league.final import FinalError, left_to_play, play_final
    from league.lock import Hold
    from referee.records.record import GameRecord

    from ..printing import game_line
    from ..progress import Progress
    from ..running import run_trio
    from .show import print_final

    db = open_league(args.folder)
    hold = Hold.take(db)  # (before anything else: the ladder's runner and the final's never play at once)
    try:
        plan = final_plan(db, args)
    except FinalError:
        hold.release()
        raise
    left = left_to_play(db)
    progress = Progress(plan.games, live=None, start=plan.games - left)
    count = plan.games - left

    def on_game(record: GameRecord) -> None:
        nonlocal count
        count += 1
        progress.update(count, f"last: {game_line(record)}")

    overrides = {"tournament": {k: v for k, v in (("concurrency", args.concurrency), ("processes", args.processes))
                                if v is not None}}
    try:
        run_trio(play_final, db, args.folder, overrides, on_game, hold, progress.interject)
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped: {left_to_play(db)} games of the final are left; go on with: pinochle-arena league final "
              f"{args.folder}", file=sys.stderr)
        return 130
    finally:
        progress.close()  # (before a FinalError's line)
    print_final(db, args.bootstrap, args.folder)
    return 0


def final_plan(db: LeagueDB, args: argparse.Namespace) -> FinalPlan:
    """The final's plan: the one made already (options that differ from it are refused), or a new one."""
    from league.final import DEFAULT_TOP, check_as_planned, plan_final, plan_of

    plan = plan_of(db)
    if plan is not None:
        check_as_planned(plan, args.top, args.games, args.seed)
        return plan
    plan = plan_final(db, args.top or DEFAULT_TOP, args.games, args.seed)
    names = ", ".join(db.versions()[v].label for v in plan.versions)
    print(f"the final: {len(plan.versions)} finalists ({names}), {plan.tables} tables, each {plan.rounds} "
          f"deals in every seating: {plan.games} games (seed {plan.seed})")
    return plan
