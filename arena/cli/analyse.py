"""``pinochle-arena analyse``: where each bot lost its points, decision by decision (docs/analysis.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tabulate import tabulate

from analysis import ANALYSIS_FILE, AnalysisError, Budget, analyse, table_rows
from analysis.summary import TABLE_HEADERS, SeatAnalysis
from analysis.values import DEFAULT_BATCHES, DEFAULT_WORLDS
from referee.records.record import GameRecord

from .args import UsageError, add_no_verify_argument, add_partial_argument, nonneg_int, positive_int
from .results import games_file, records_to_use


def add_parser(sub) -> None:
    p = sub.add_parser("analyse", help="weigh every decision of recorded games by search: points lost per bot and "
                       "phase, mistakes marked", description=(
        "Replay recorded games and value every legal action of each decision from the deciding seat's information "
        "only, by the montecarlo bot's search (a fixed number of sampled worlds, seeded; exact in the two-handed "
        "second phase). Prints the points each bot lost per hand in each phase, and keeps every weighed decision "
        f"in {ANALYSIS_FILE} beside the records, so a second run reads it instead of searching again."))
    p.add_argument("results", type=Path, metavar="RESULTS",
                   help="a match's or tournament's output folder, or its games.jsonl")
    p.add_argument("--game", default=None, metavar="ID", help="only this game, with its marked decisions listed")
    p.add_argument("--bot", default=None, metavar="NAME", help="only the seats this entrant played")
    p.add_argument("--worlds", type=positive_int, default=DEFAULT_WORLDS, metavar="N",
                   help=f"sampled worlds a decision (default {DEFAULT_WORLDS}), in {DEFAULT_BATCHES} equal batches "
                        f"(N rounded down to a multiple of {DEFAULT_BATCHES})")
    p.add_argument("--seed", type=nonneg_int, default=0, metavar="S", help="the search's seed (default 0)")
    p.add_argument("--concurrency", type=positive_int, default=None, metavar="N",
                   help="games analysed at once, one process each (default: cores); the values do not depend on it")
    add_no_verify_argument(p)
    add_partial_argument(p, "analyse")
    p.set_defaults(handler=run)


def run(args) -> int:
    path = games_file(args.results)
    records, _ = records_to_use(path, args.no_verify, "analyse", "analyses", args.partial)
    records = chosen_games(records, args.game)
    bots = {s.entrant for r in records for s in r.seats}
    if args.bot is not None and args.bot not in bots:
        raise UsageError(f"no bot {args.bot!r} in {path} (there: {', '.join(sorted(bots))})")
    if args.worlds < DEFAULT_BATCHES * 2:
        raise UsageError(f"--worlds {args.worlds}: at least {DEFAULT_BATCHES * 2} (two worlds a batch, to measure "
                         "the search's noise)")
    budget = Budget(worlds=args.worlds, seed=args.seed)
    try:
        analyses = analyse(records, lambda r: seats_of(r, args.bot), budget, path.parent / ANALYSIS_FILE,
                           told=lambda r: print(f"analysing {r.game_id} ...", file=sys.stderr, flush=True),
                           workers=args.concurrency or os.cpu_count() or 1)
    except AnalysisError as error:
        raise UsageError(str(error)) from None
    if args.game is not None:
        print_marks(analyses)
    print(tabulate(table_rows(analyses), headers=TABLE_HEADERS))
    print(f"{len(records)} game(s), {args.worlds} worlds a decision, seed {args.seed}; every decision is in "
          f"{path.parent / ANALYSIS_FILE}")
    return 0


def chosen_games(records: list[GameRecord], game: str | None) -> list[GameRecord]:
    if game is None:
        return records
    found = [r for r in records if r.game_id == game]
    if not found:
        shown = ", ".join(r.game_id for r in records[:5]) + (", ..." if len(records) > 5 else "")
        raise UsageError(f"no game {game!r} in the records (there: {shown or 'none'})")
    return found


def seats_of(record: GameRecord, bot: str | None) -> set[int]:
    return {i for i, s in enumerate(record.seats) if bot is None or s.entrant == bot}


def print_marks(analyses: list[SeatAnalysis]) -> None:
    """Each marked decision of one game, in the order played: where, who, the chosen action and the best, with
    both values."""
    marked = sorted(((w, a.entrant) for a in analyses for w in a.decisions if w.mark), key=lambda x: x[0].number)
    for w, entrant in marked:
        if w.values is not None and w.best is not None:
            noise = "exact" if w.exact else f"+-{w.noise:.1f}"
            print(f"hand {w.hand}, action {w.number}: {entrant} ({w.kind}) {w.mark}: {w.chosen} "
                  f"{w.values[w.chosen]:.1f}, best {w.best} {w.values[w.best]:.1f} (lost {w.loss:.1f} {noise})")
