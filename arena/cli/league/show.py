"""``league show DIR`` (the ladder, the contest's state, the final standings and the ratings' tables) and ``league
export DIR OUT`` (its games as a results folder)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..args import UsageError, add_bootstrap_argument
from .common import open_league

if TYPE_CHECKING:
    from league.db import LeagueDB
    from league.final import FinalRow

LADDER_MODEL = ("The ladder: each entrant's newest version, by the league's working fit (Bradley-Terry over every "
                "game the league counts, one unit of weight a game, a normal prior of 350 Elo around 0); +/- is half "
                "its 95% interval against the pool's average, from the fit's curvature; games: this version's.")
TABLES_UP_TO = 5_000  # games: past them, league show leaves out the ratings' tables unless asked (--all)
TABLES_MODEL = ("The tables below: pinochle-arena ratings over the same games, every version that ever played, by "
                "its own model for these games (for two seats the pool's maximum likelihood, for three to five "
                "openskill), its intervals from a bootstrap over deals (a * marks a rating only its prior makes "
                "finite).")
WHY_THEY_DIFFER = ("They differ because the ladder's prior pulls every rating toward 0 from the first game and keeps "
                   "one that won everything finite, where the tables add one virtual draw a pairing only then, and "
                   "their intervals are measured differently (curvature against resampled deals).")
FINAL_MODEL = ("Final standings: the final's games alone ({games}, the top {top}'s last versions in a round robin "
               "on fresh deals), by pinochle-arena ratings' model (Elo of the pool, its average 0; 95% intervals "
               "from a bootstrap over deals). The same order: league export {folder} OUT --final, then "
               "pinochle-arena ratings OUT.")


def add_show(commands: argparse._SubParsersAction) -> None:
    show = commands.add_parser("show", help="the ladder, and the ratings' tables of every version")
    show.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    add_bootstrap_argument(show)
    show.add_argument("--format", choices=("table", "json", "csv"), default="table",
                      help="table (default): the ladder and the ratings' tables; json or csv: the ladder's rows "
                           "alone, as data (the fields are in docs/league.md)")
    show.add_argument("--all", action="store_true",
                      help=f"the ratings' tables even past {TABLES_UP_TO:,} games (they read every game's record)")
    show.set_defaults(handler=run_show)


def add_export(commands: argparse._SubParsersAction) -> None:
    export = commands.add_parser("export", help="write the league's games as a results folder (games.jsonl, "
                                                "schedule.jsonl, secret.key) for replay, ratings and report")
    export.add_argument("folder", type=Path, metavar="DIR")
    export.add_argument("out", type=Path, metavar="OUT")
    export.add_argument("--final", action="store_true",
                        help="the final phase's games alone (those its standings count): ratings OUT ranks them in "
                             "the final standings' order")
    export.set_defaults(handler=run_export)


def run_show(args: argparse.Namespace) -> int:
    from league.ladder import ladder, ladder_csv, ladder_json, ladder_rows
    from tabulate import tabulate

    db = open_league(args.folder)
    if args.format != "table":
        rows = ladder(db)
        sys.stdout.write(ladder_json(rows) if args.format == "json" else ladder_csv(rows))
        return 0
    table = ladder_rows(db)
    contest = contest_line(db)
    if contest is not None:
        print(contest)
    print_final(db, args.bootstrap, args.folder)
    if not table:
        print("no games yet: pinochle-arena league run " + str(args.folder))
        return 0
    print(("\n" if contest is not None else "") + LADDER_MODEL)
    print(tabulate(with_bots(table, db), headers=["rank", "entrant", "version", "bot", "Elo", "+/-", "games", "",
                                                   "last games"], tablefmt="github"))
    print("* provisional: fewer games than the ladder needs to place a version")
    games = db.game_count()
    if games > TABLES_UP_TO and not args.all:
        print(f"\nThe ratings' tables of every version are left out: they read each of the league's {games:,} games' "
              f"records (about 4 ms a game). --all prints them; or pinochle-arena league export {args.folder} OUT, "
              f"then pinochle-arena ratings OUT.")
        return 0
    print_tables(db, args.bootstrap)
    return 0


def print_tables(db: LeagueDB, bootstrap: int) -> None:
    """The ratings' tables of every version over the games the league counts, as ``ratings`` prints them."""
    from referee.records.record import GameRecord

    from ..printing import print_report

    print(f"\n{TABLES_MODEL}\n{WHY_THEY_DIFFER}\nversions: {versions_named(db)}")
    records = [GameRecord.from_json(line) for line in db.records(counted=True)]
    print_report(records, None, None, bootstrap, title=f"\nevery version, by ratings: {len(records)} games")


def with_bots(rows: list[list[Any]], db: LeagueDB) -> list[list[Any]]:
    """The ladder's rows with each entrant's newest version's bot, options included, after its version number."""
    bots = {e.name: e.version.command for e in db.entrants() if e.version}
    return [[*row[:3], bots.get(row[1], ""), *row[3:]] for row in rows]


def versions_named(db: LeagueDB) -> str:
    """Every version as the tables name it, with its bot: ``alice = greedy noise=0.2; alice.v2 = ...``."""
    return "; ".join(f"{v.label} = {v.command}" for v in sorted(db.versions().values(), key=lambda v: v.id))


def run_export(args: argparse.Namespace) -> int:
    from league.export import export

    from ..running import check_out

    db = open_league(args.folder)
    check_out(args.out, "OUT")
    if args.out.exists() and any(args.out.iterdir()):
        raise UsageError(f"OUT {args.out} is not empty: export into a new folder")
    if args.final and not db.final_records():
        raise UsageError(f"league {args.folder}: no final game is played yet (league final {args.folder})")
    written = export(db, args.out, final=args.final)
    print(f"exported {written} {'final ' if args.final else ''}games to {args.out}: pinochle-arena replay "
          f"{args.out}")
    return 0


# ---------------------------------------------------------------------- the contest (also league final's)

def contest_line(db: LeagueDB) -> str | None:
    """Where the contest stands, in one line (None for a league without a deadline that is open)."""
    from league.contest import contest_state, when_text

    state = contest_state(db, standings=False)
    if state.phase == "open":
        return None if state.deadline is None else f"contest: open, submissions close at {when_text(state.deadline)}"
    closed = f"submissions closed at {when_text(state.closed_at)}" if state.closed_at is not None else ""
    phase = {"closed": "closed", "final": "final phase in play", "done": "final phase done"}[state.phase]
    return f"contest: {phase}" + (f", {closed}" if closed else "")


def print_final(db: LeagueDB, bootstrap: int, folder: Path | None = None) -> None:
    """The final standings, with the line saying which games and which model made them."""
    from league.contest import contest_state
    from league.final import final_standings
    from tabulate import tabulate

    state = contest_state(db, standings=False)
    rows, games = final_standings(db, bootstrap)
    if state.final is None or not rows:
        return
    left = state.final.games - games
    played = f"{games} games" + ("" if state.phase == "done" else f" so far, {left} still to play")
    print("\n" + FINAL_MODEL.format(games=played, top=len(state.final.versions), folder=folder or "DIR"))
    print(tabulate([[r.rank, r.entrant, r.version or "", f"{r.elo:+.1f}", _interval_cell(r), r.games,
                     f"{r.score:g}"] for r in rows],
                   headers=["rank", "entrant", "version", "Elo", "95% interval", "games", "score"],
                   tablefmt="github", disable_numparse=True))


def _interval_cell(row: FinalRow) -> str:
    """A final row's interval as ``ratings`` prints it (an open end: inf)."""
    import math

    from tournaments.report import interval_text

    if row.low is None and row.high is None:
        return "-"
    return interval_text(-math.inf if row.low is None else row.low, math.inf if row.high is None else row.high)
