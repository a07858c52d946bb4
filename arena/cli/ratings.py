"""``pinochle-arena ratings``: ratings, head to head and crosstable of recorded games."""

from __future__ import annotations

from pathlib import Path

from .args import UsageError, add_bootstrap_argument, add_no_verify_argument, add_partial_argument, given_path


def add_parser(sub) -> None:
    p = sub.add_parser("ratings", help="ratings, head-to-head statistics and crosstable of recorded games")
    p.add_argument("results", type=Path, help="a games.jsonl file, or a directory holding one")
    p.add_argument("--anchor", default=None, help="fix this bot's rating (default: pool average 0)")
    p.add_argument("--anchor-rating", type=float, default=0.0,
                   help="the anchor's rating, or without --anchor the pool average (default 0)")
    p.add_argument("--system", default="elo",
                   help="the rating system, by name: elo (default: the full report, head to head and crosstable), "
                        "openskill or bradley-terry (the league's fit) print their ratings table (docs/ratings.md)")
    add_bootstrap_argument(p)
    p.add_argument("--pgn", type=Path, default=None, help="also write the results as PGN (for Ordo or BayesElo)")
    p.add_argument("--out", type=given_path, default=None, help="write ratings.csv, headtohead.csv, crosstable.csv, ratings.json here")
    add_no_verify_argument(p)
    add_partial_argument(p, "rate")
    p.set_defaults(handler=run)


def run(args) -> int:
    # Here, not at the top: the records, the tables and trio are the work's, and 'ratings --help' needs none of them.
    from .printing import print_report, print_table, write_pgn
    from .results import games_file, records_to_use
    from .running import check_new_file, check_out

    if args.out is not None:
        check_out(args.out)
    if args.pgn is not None:
        check_new_file(args.pgn, "--pgn")
    path = games_file(args.results)
    records, gap = records_to_use(path, args.no_verify, "rate", "rates", args.partial)
    if not records:
        raise UsageError(f"{path} holds no games")
    from tournaments.multi import sides_of

    names = {side for r in records for side in sides_of(r)}
    if args.anchor is not None and args.anchor not in names:
        raise UsageError(f"--anchor {args.anchor!r} played no game; entrants: {', '.join(sorted(names))}")
    title = f"{path}: {len(records)} games" + (" (--partial: not every scheduled game)" if gap else "")
    if args.system == "elo":
        print_report(records, args.out, args.anchor, args.bootstrap, title, args.anchor_rating)
    else:
        print_table(records, args.system, args.out, args.anchor, args.bootstrap, title, args.anchor_rating)
    if args.pgn is not None:
        write_pgn(records, args.pgn)
    return 0
