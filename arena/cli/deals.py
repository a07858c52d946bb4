"""``pinochle-arena deals``: a deal file, from recorded games or new from a seed."""

from __future__ import annotations

import sys
from pathlib import Path

from referee import installed_version
from referee.records.deals import deals_of_records, generate_deals, render_deals
from referee.rules import get_variant

from .args import (
    UsageError,
    add_no_verify_argument,
    add_partial_argument,
    add_variant_arguments,
    given_path,
    positive_int,
    variant_from_args,
)
from .results import games_file, incompleteness, losses, verified_records
from .running import check_new_file


def add_parser(sub) -> None:
    p = sub.add_parser("deals", help="write a deal file: the deals of recorded games, or new ones from a seed",
                       description=(
        "Write a deal file (docs/boards.md, Deal files), which match, sprt and tournament play with --deals FILE: "
        "the deals of the games in RESULTS (the seatings of a duplicate deal are one deal), so that an event's "
        "deals can be published and a regression's replayed; or, with --seed, --count new deals."))
    p.add_argument("results", nargs="?", type=Path, help="a games.jsonl file, or an output folder holding one")
    p.add_argument("--seed", type=int, default=None, help="generate deals from this seed instead of reading results")
    p.add_argument("--count", type=positive_int, default=100, help="deals to generate (default 100)")
    p.add_argument("--decks", type=positive_int, default=10,
                   help="decks per generated deal, for its first hands (default 10; later hands come from its seed)")
    add_variant_arguments(p)
    p.add_argument("--out", type=given_path, default=None, help="the file to write (default: standard output)")
    add_no_verify_argument(p)
    add_partial_argument(p, "write the deals of")
    p.set_defaults(handler=run)


def run(args) -> int:
    if (args.results is None) == (args.seed is None):
        raise UsageError("give RESULTS (the deals of recorded games) or --seed (new deals), one of them")
    if args.out is not None:
        check_new_file(args.out, "--out")
    if args.seed is not None:
        variant = variant_from_args(args)
        deals = generate_deals(variant, args.seed, args.count, args.decks)
        comment = (f"{args.count} deals of {variant.name} generated from seed {args.seed} by pinochle-arena "
                   f"{installed_version()}")
    else:
        variant, deals, comment = recorded_deals(args)
    text = render_deals(deals, comment)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"{len(deals.deals)} deals of {variant.name} written to {args.out}")
    return 0


def recorded_deals(args):
    """(variant, deal file, comment) of the games in RESULTS, which must all pass the seal and schedule checks."""
    path = games_file(args.results)
    audit = verified_records(path, args.no_verify)
    if audit.findings:
        raise UsageError(f"{path}: {len(audit.findings)} record(s) failed the seal or schedule checks "
                         "('pinochle-arena replay' lists them); --no-verify reads every record, unverified")
    if audit.lost:
        raise UsageError(f"{path}: {losses(audit)}; --no-verify reads every record there is, unverified")
    gap = incompleteness(audit)
    if gap and not args.partial:
        raise UsageError(f"{path}: {gap}; --partial writes the deals of the games there are")
    if not audit.records:
        raise UsageError(f"{path} holds no games")
    first = audit.records[0]
    variant = get_variant(first.variant, first.options)
    comment = f"the deals of the {len(audit.records)} games in {path}, in the order they were first played"
    return variant, deals_of_records(audit.records, variant), comment
