"""``league analysis DIR``: the background analysis of the league's games, its settings and how it keeps up (the
analysis is league.analysis's, its process league.analyser's)."""

from __future__ import annotations

import argparse
from pathlib import Path

import attrs

from ..args import positive_int
from .common import open_league


def add_analysis(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("analysis", help="each game's decisions weighed in the background, for its entrants' "
                                             "eyes: turn it on or off, set its CPU share, see how it keeps up")
    p.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    switch = p.add_mutually_exclusive_group()
    switch.add_argument("--on", dest="enabled", action="store_const", const=True, default=None,
                        help="league run weighs the games in the background from its next start")
    switch.add_argument("--off", dest="enabled", action="store_const", const=False)
    p.add_argument("--cpu-share", type=share_arg, default=None, metavar="SHARE",
                   help="of one core, at most, over time (default 0.25)")
    p.add_argument("--worlds", type=positive_int, default=None, help="worlds a decision (default 1024, at least 32)")
    p.add_argument("--backlog", type=positive_int, default=None,
                   help="games waiting at most; older ones are skipped (default 200)")
    p.add_argument("--recent", type=positive_int, default=None,
                   help="an entrant's latest games its summary counts (default 50)")
    p.set_defaults(handler=run_analysis)


def share_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.01 <= value <= 1:
        raise argparse.ArgumentTypeError("a share of one core, 0.01 to 1")
    return value


def run_analysis(args: argparse.Namespace) -> int:
    from league.analysis import AnalysisStore, analysis_settings, backlog, set_analysis_settings

    db = open_league(args.folder)
    settings = analysis_settings(db)
    changes = {key: value for key, value in (("enabled", args.enabled), ("cpu_share", args.cpu_share),
                                             ("worlds", args.worlds), ("backlog", args.backlog),
                                             ("recent", args.recent)) if value is not None}
    if changes:
        settings = attrs.evolve(settings, **changes)  # (checked: a LeagueError is one line)
        set_analysis_settings(db, settings)
    store = AnalysisStore.open(args.folder)
    figure = backlog(db, store, settings.backlog)
    print(f"analysis {'on' if settings.enabled else 'off'}: at most {settings.cpu_share:g} of a core at the lowest "
          f"priority, {settings.worlds} worlds a decision, a backlog of {settings.backlog} games"
          f"{' (from the next league run)' if changes else ''}")
    print(figure.text() + (f"; {figure.note}" if figure.note else ""))
    store.close()
    db.close()
    return 0
