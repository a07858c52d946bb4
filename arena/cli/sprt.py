"""``pinochle-arena sprt``: is NEW stronger than OLD? Duplicate pairs (or boards) until the test decides."""

from __future__ import annotations

import sys

from referee.bots.sandbox import isolation_summary
from referee.records.audit import sprt_ranges

from .args import (
    UsageError,
    add_boards_argument,
    add_deals_argument,
    add_resume_argument,
    add_time_arguments,
    add_variant_arguments,
    deals_from_args,
    deals_in_order,
    entrants_from_args,
    given_path,
    positive_int,
    variant_from_args,
)
from .printing import deals_text
from .results import open_results
from .running import check_bots_start, resumed_arguments, run_trio, seed_and_out

MAX_PAIRS = 20000  # the default --max-pairs


def add_parser(sub) -> None:
    p = sub.add_parser("sprt", help="is NEW stronger than OLD? play duplicate pairs until the SPRT decides", description=(
        "Sequential probability ratio test (GSPRT, as fishtest): plays duplicate pairs of games (pentanomial pair "
        "scores), or with --boards one-hand boards (their bounded scores; ELO0 and ELO1 are then board Elo), "
        "until H1 (NEW is at least ELO1 stronger) or H0 (at most ELO0) is accepted. Exit status: 0 when H1 "
        "is accepted, 1 when H0 is accepted, 3 when --max-pairs (or --boards) ran out undecided, 2 on bad input."))
    p.add_argument("bots", nargs="*", metavar="NEW OLD", help="the candidate bot, then the baseline; each may be "
                   "followed by its options as option.NAME=VALUE (the same bot with other options: "
                   "'mybot option.depth=5 mybot option.depth=4')")
    add_resume_argument(p, "sprt")
    add_boards_argument(p, "at most (instead of --max-pairs), testing on the board scores")
    add_deals_argument(p)
    p.add_argument("--elo0", type=float, default=0.0, help="H0: NEW is at most this much stronger (default 0)")
    p.add_argument("--elo1", type=float, default=5.0, help="H1: NEW is at least this much stronger (default 5)")
    p.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    p.add_argument("--max-pairs", type=positive_int, default=MAX_PAIRS, help="give up undecided after this many pairs")
    add_variant_arguments(p)
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the deals (default: a secret one from the operating system, kept in OUT)")
    p.add_argument("--concurrency", type=positive_int, default=None, help="pairs at once (default: cores)")
    add_time_arguments(p)
    p.add_argument("--out", type=given_path, default=None, help="output directory (default results/sprt-TIMESTAMP)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from tournaments.config import default_concurrency
    from tournaments.sprt_runner import run_sprt, sprt_games

    if args.resume is not None:
        args = resumed_arguments(args, "sprt")
    boards = args.boards is not None
    if boards and args.max_pairs != MAX_PAIRS:
        raise UsageError("--boards N is the most boards the test plays: give it or --max-pairs, not both")
    variant = variant_from_args(args, boards=boards)
    if variant.players != 2:
        raise UsageError("sprt compares two bots; choose a two-player variant")
    test = sprt_test(args)
    entrants = entrants_from_args(args, args.bots)
    if len(entrants) != 2:
        raise UsageError(f"sprt takes two bots, NEW then OLD (each followed by its option.NAME=VALUE words); got "
                         f"{len(entrants)}")
    deals = deals_from_args(args, variant)
    pairs = args.boards or args.max_pairs
    seed, out = seed_and_out(args, "sprt")
    deals = deals_in_order(args, deals, seed)
    print(isolation_summary(entrants[0].sandbox))
    new, old = check_bots_start(entrants, out / "logs", args.startup_timeout, name_by_bots=True)
    print(f"sprt: {new.name} vs {old.name}, H0: elo <= {args.elo0:g}, H1: elo >= {args.elo1:g}, "
          f"alpha {args.alpha:g}, beta {args.beta:g}; LLR bounds [{test.lower:.2f}, {test.upper:.2f}], which no "
          f"fewer than {test.fewest_units()} {'boards' if boards else 'pairs'} can reach; {deals_text(args, deals)}; "
          f"games in {out}/games.jsonl")
    store, played = open_results(args, "sprt", seed, out, sprt_games(variant, new, old, pairs), deals)
    if played:
        print(f"resuming: {len(played)} games already played")
    live = sys.stderr.isatty()
    concurrency = args.concurrency or default_concurrency()
    try:
        state = run_trio(run_sprt, new, old, variant, test, seed, concurrency, pairs, out,
                         lambda state: print_progress(state, test, boards, live), store, played, deals, boards)
    except KeyboardInterrupt:
        print(f"\nstopped; every finished game is saved in {store.games_path}.\n"
              f"To continue: pinochle-arena sprt --resume {out}", file=sys.stderr)
        return 130
    finally:
        if live:
            sys.stderr.write("\n")
    store.mark_ended({"verdict": state.verdict or "undecided", "pairs": state.pairs, "late": state.late,
                      "games": sprt_ranges(r.game_id for r in state.records)})
    return print_verdict(args, state, new.name, boards)


def sprt_test(args):
    from tournaments.stats import Sprt

    try:
        return Sprt(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as e:
        raise UsageError(str(e)) from None


def print_progress(state, test, boards: bool, live: bool) -> None:
    """The test so far, after each pair or board: on one line rewritten in place on a terminal."""
    from tournaments.report import elo_text

    e = estimate(state)
    so_far = f"boards {state.pairs}  score {100 * e.score:.1f}%" if boards else \
        f"pairs {state.pairs}  pentanomial {state.penta}"
    line = f"{so_far}  {elo_text(e)}  LLR {state.llr():+.2f} [{test.lower:.2f}, {test.upper:.2f}]"
    sys.stderr.write(("\r" + line + "   ") if live else line + "\n")
    sys.stderr.flush()


def print_verdict(args, state, new_name: str, boards: bool) -> int:
    """The verdict and the exit status: 0 for H1, 1 for H0, 3 undecided."""
    from tournaments.report import elo_text

    e = estimate(state) if state.pairs else None
    unit = "boards" if boards else "pairs"
    summary = f"{state.pairs} {unit}, {elo_text(e)}, LLR {state.llr():+.2f}" if e else f"no {unit}"
    late = f"; {state.late} more finished after the verdict: saved, not counted" if state.late else ""
    if state.verdict == "H1":
        print(f"H1 accepted: {new_name} is stronger ({summary}{late})")
        return 0
    if state.verdict == "H0":
        print(f"H0 accepted: {new_name} is not stronger by {args.elo1:g} Elo ({summary}{late})")
        return 1
    print(f"undecided after {'--boards ' + str(args.boards) if boards else '--max-pairs ' + str(args.max_pairs)} "
          f"({summary})")
    return 3


def estimate(state):
    """Elo and its interval so far: from the board scores, or the pentanomial of the pairs."""
    from tournaments.stats import bounded_estimate, elo_estimate

    return bounded_estimate(state.scores) if state.board_scale else elo_estimate(state.penta)
