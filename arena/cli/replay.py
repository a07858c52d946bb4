"""``pinochle-arena replay``: recorded games through the rules again, with every mismatch reported."""

from __future__ import annotations

from pathlib import Path

from .args import add_no_verify_argument, add_partial_argument


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="replay recorded games through the rules and report mismatches")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE",
                   help="games.jsonl files, or output folders (their games.jsonl)")
    p.add_argument("--verbose", "-v", action="store_true", help="one line per game")
    add_no_verify_argument(p)
    add_partial_argument(p, "accept")
    p.set_defaults(handler=run)


def run(args) -> int:
    # Here, not at the top: the records and the rules are the work's, and 'replay --help' needs neither.
    from referee.records.ledger import LEDGER_FILE
    from referee.records.replay import replay_record

    from .results import games_file, verified_records

    bad = 0
    total = 0
    rejected = 0
    missing = 0
    lost = 0
    unfinished = 0
    for path in map(games_file, args.files):
        audit = verified_records(path, args.no_verify)
        for finding in audit.findings:
            rejected += 1
            print(f"{path}:{finding.line}: {finding.game_id}: rejected: {finding.reason}")
        for entry in audit.lost:
            lost += 1
            print(f"{path}: {entry.game_id}: no record, though the run wrote one ({LEDGER_FILE}:{entry.n}): "
                  "deleted or replaced")
        gone = {entry.game_id for entry in audit.lost}
        for game_id in audit.missing:
            missing += 1
            if game_id not in gone:
                print(f"{path}: {game_id}: no record (scheduled: not played yet, or deleted)")
        if not audit.ledgered and not args.no_verify:
            print(f"{path}: note: no {LEDGER_FILE} (a run begun before records were ledgered): a record deleted, "
                  "and its game played again by --resume, cannot be told from a game played once")
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
                                                   f"scheduled game(s) without a record, {lost} record(s) written "
                                                   "and gone")
    print(f"replayed {total} game(s): {total - bad} consistent, {bad} with mismatches; {checks}")
    return 1 if bad or rejected or lost or ((missing or unfinished) and not args.partial) else 0
