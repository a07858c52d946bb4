"""``pinochle-arena replay``: recorded games through the rules again, with every mismatch reported."""

from __future__ import annotations

from pathlib import Path

from referee.records.replay import replay_record

from .args import add_no_verify_argument, add_partial_argument
from .results import games_file, verified_records


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="replay recorded games through the rules and report mismatches")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE",
                   help="games.jsonl files, or output folders (their games.jsonl)")
    p.add_argument("--verbose", "-v", action="store_true", help="one line per game")
    add_no_verify_argument(p)
    add_partial_argument(p, "accept")
    p.set_defaults(handler=run)


def run(args) -> int:
    bad = 0
    total = 0
    rejected = 0
    missing = 0
    unfinished = 0
    for path in map(games_file, args.files):
        audit = verified_records(path, args.no_verify)
        for finding in audit.findings:
            rejected += 1
            print(f"{path}:{finding.line}: {finding.game_id}: rejected: {finding.reason}")
        for game_id in audit.missing:
            missing += 1
            print(f"{path}: {game_id}: no record (scheduled: not played yet, or deleted)")
        if audit.unfinished:
            unfinished += 1
            print(f"{path}: the SPRT has not ended: which games it should hold is not known yet")
        for record in audit.records:
            total += 1
            report = replay_record(record)
            if not report.ok:
                bad += 1
                for problem in report.problems:
                    print(f"{path}: {record.game_id}: {problem}")
            elif args.verbose:
                print(f"{path}: {record.game_id}: ok ({len(record.actions)} actions, {record.termination.value})")
    checks = "unverified" if args.no_verify else (f"{rejected} rejected by the seal and schedule checks, {missing} "
                                                   "scheduled game(s) without a record")
    print(f"replayed {total} game(s): {total - bad} consistent, {bad} with mismatches; {checks}")
    return 1 if bad or rejected or ((missing or unfinished) and not args.partial) else 0
