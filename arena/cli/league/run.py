"""``league run DIR``: play the ladder until Ctrl-C, ``--games`` or ``--until`` (the loop is league.runner's)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..args import UsageError, positive_int
from .common import open_league

if TYPE_CHECKING:
    from league.db import LeagueDB


def add_run(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser("run", help="play until Ctrl-C (or --games, --until); restartable at any time")
    run.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    run.add_argument("--games", type=positive_int, default=None,
                     help="stop after this many games more (this run's, whatever the league played before)")
    run.add_argument("--until", default=None, metavar="WHEN",
                     help="stop after this long (90s, 30m, 2h) or at this time of day (18:30)")
    run.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default: cores)")
    run.add_argument("--processes", type=positive_int, default=None,
                     help="referee processes to spread them over (default: cores)")
    run.add_argument("--cluster", default=None, metavar="ADDRESS",
                     help="play the games on the Dask cluster at ADDRESS (as tournament --cluster)")
    run.add_argument("--cluster-certs", type=Path, default=None, metavar="DIR")
    run.add_argument("--insecure", action="store_true", default=None)
    run.add_argument("--seed", type=int, default=None, help="the matchmaker's seed (default: from the system)")
    run.set_defaults(handler=run_run)


def run_run(args: argparse.Namespace) -> int:
    import random

    from league.lock import Hold
    from league.runner import LeagueRunner, TooFewEntrants
    from referee.records.record import GameRecord

    from ..printing import game_line
    from ..progress import Progress
    from ..running import run_trio

    db = open_league(args.folder)
    check_no_final(db, args.folder)
    hold = Hold.take(db)  # (before anything else: a second runner touches nothing)
    until = until_time(args.until)
    progress = Progress(args.games, live=None)
    count = 0

    def on_game(record: GameRecord) -> None:
        nonlocal count
        count += 1
        progress.update(count, f"last: {game_line(record)}")

    runner = LeagueRunner(args.folder, db, run_overrides(args), random.Random(args.seed),
                          say=progress.interject, on_game=on_game)
    try:
        runner.check_enough()
    except TooFewEntrants as e:
        hold.release()
        raise UsageError(f"league {args.folder}: {e}") from None
    print(f"league {args.folder}: playing until {limits_text(args.games, until)}")
    try:
        played = run_trio(runner.run, args.games, until, hold)
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped: {count} games saved this run; start again with: pinochle-arena league run {args.folder}",
              file=sys.stderr)
        return 130
    progress.close()
    print(f"{played} games played; the ladder: pinochle-arena league show {args.folder}")
    return 0


def check_no_final(db: LeagueDB, folder: Path) -> None:
    """The ladder plays no more once the final is planned (its tables would mix with the final's)."""
    from league.final import plan_of

    if plan_of(db) is not None:
        raise UsageError(f"league {folder}: the final phase has begun, the ladder plays no more: pinochle-arena "
                         f"league final {folder} plays what is left of the final")


def run_overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    tournament = {k: v for k, v in (("concurrency", args.concurrency), ("processes", args.processes))
                  if v is not None}
    cluster: dict[str, Any] = {}
    if args.cluster is not None and args.cluster != "none":
        cluster = {"address": args.cluster}
        if args.cluster_certs is not None:
            cluster["certs"] = str(args.cluster_certs.absolute())
        if args.insecure:
            cluster["insecure"] = True
    return {"tournament": tournament, "cluster": cluster}


def limits_text(games: int | None, until: float | None) -> str:
    """When the run stops, as its first line says it: ``10 games more or 18:30:00``, else ``Ctrl-C``."""
    limits = []
    if games:
        limits.append(f"{games} games more")
    if until:
        limits.append(time.strftime("%H:%M:%S", time.localtime(until)))
    return " or ".join(limits) or "Ctrl-C"


def until_time(text: str | None) -> float | None:
    """``--until``: a duration (90s, 30m, 2h) from now, or a time of day (18:30) today or, if past, tomorrow."""
    if text is None:
        return None
    units = {"s": 1, "m": 60, "h": 3600}
    if text[-1:] in units and text[:-1].replace(".", "", 1).isdigit():
        return time.time() + float(text[:-1]) * units[text[-1]]
    try:
        clock = time.strptime(text, "%H:%M")
    except ValueError:
        raise UsageError(f"--until {text!r}: give a duration (90s, 30m, 2h) or a time of day (18:30)") from None
    now = time.localtime()
    target = time.mktime((now.tm_year, now.tm_mon, now.tm_mday, clock.tm_hour, clock.tm_min, 0, 0, 0, -1))
    return target if target > time.time() else target + 86400
