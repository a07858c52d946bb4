"""Opening a results folder for a command: a new one, a resumed one, or recorded games to read and verify."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.records.audit import Audit, ScheduleError, audit_results
from referee.records.ledger import LEDGER_FILE, LedgerError
from referee.records.record import GameRecord, read_records
from referee.records.seals import KeyFileError
from referee.records.store import ResultStore

from .args import UsageError


def open_results(args, kind: str, seed: int, out: Path, games, deals=None) -> tuple:
    """Start the results folder of a match or SPRT, or (--resume) reopen it: (store, the records already saved)."""
    store = ResultStore(out, f"{kind}.json")
    fingerprint = {"argv": args.argv, "cwd": args.cwd, "seed": seed, "deals": deals.digest() if deals else None}
    if args.resume is None:
        store.start(fingerprint, games)
        return store, []
    recovery = store.resume(fingerprint, games)
    warn_set_aside(store, recovery)
    return store, recovery.records


def warn_set_aside(store, recovery) -> None:
    for number, reason in recovery.bad_lines:
        print(f"warning: {store.games_path}:{number}: set aside ({reason}); kept in {store.games_path.name}.bad",
              file=sys.stderr)
    if recovery.listed:
        print(f"warning: {store.directory / LEDGER_FILE}: added {', '.join(recovery.listed)} (written just before "
              "the run stopped, not yet listed)", file=sys.stderr)


def games_file(path: Path) -> Path:
    """A games.jsonl file, or the one in an output folder (UsageError when there is no such file or folder)."""
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    if path.is_dir() and not (path / "games.jsonl").is_file():
        if (path / "secret.key").is_file():
            raise UsageError(f"{path}: no game is recorded there yet (no games.jsonl): the run stopped before its "
                             "first game ended; --resume it, or run it again")
        raise UsageError(f"{path}: not a results folder (it has no games.jsonl): give the --out folder of a match, "
                         "tournament or sprt, or its games.jsonl")
    if path.is_dir():
        return path / "games.jsonl"
    if path.is_file() and not _could_hold_records(path):  # (a pipe, <(cat ...), is read once: not looked into)
        raise UsageError(f"{path}: not a games.jsonl (no line of it is a game's record): give the --out folder "
                         "of a match, tournament or sprt, or its games.jsonl")
    return path


def _could_hold_records(path: Path) -> bool:
    """Whether a file could be a games.jsonl: empty, or a line among its first 64 KiB begins as a record does
    (a damaged line here and there is set aside later, with a warning)."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError as e:
        raise UsageError(f"{path}: cannot be read ({e.strerror})") from None
    return not head.strip() or any(line.lstrip().startswith(b"{") for line in head.splitlines())


def records_to_use(path: Path, no_verify: bool, verb: str, verbs: str,
                   partial: bool = False) -> tuple[list[GameRecord], str]:
    """The records of ``path`` for a command that must not work from forged or missing ones: every record that
    failed the seal or schedule checks is listed, and then the command refuses ("refusing to VERB PATH"); so it
    does when scheduled games have no record, unless ``partial``. Returns the records and what they lack ("")."""
    audit = verified_records(path, no_verify)
    for finding in audit.findings:
        print(f"{path}:{finding.line}: {finding.game_id}: rejected: {finding.reason}", file=sys.stderr)
    if audit.findings:
        raise UsageError(f"refusing to {verb} {path}: {len(audit.findings)} record(s) failed the seal or schedule "
                         f"checks (listed above); --no-verify {verbs} every record, unverified")
    if audit.lost:
        raise UsageError(f"refusing to {verb} {path}: {losses(audit)}; --no-verify {verbs} the records there are, "
                         "unverified")
    gap = incompleteness(audit)
    if gap and not partial:
        raise UsageError(f"refusing to {verb} {path}: {gap}; --partial {verbs} the games there are")
    if gap:
        print(f"warning: {path}: partial: {gap}", file=sys.stderr)
    return audit.records, gap


def losses(audit: Audit) -> str:
    """What a run lost (its ledger says): the records it wrote that are no longer there ("" for none)."""
    if not audit.lost:
        return ""
    shown = ", ".join(e.game_id for e in audit.lost[:8]) + (", ..." if len(audit.lost) > 8 else "")
    return (f"{len(audit.lost)} record(s) the run wrote are gone ({shown}; {LEDGER_FILE} lists them): deleted or "
            "replaced")


def incompleteness(audit: Audit) -> str:
    """What the records of a run lack ("" for nothing): the scheduled games with no record, or that an SPRT
    has not ended."""
    if audit.missing:
        shown = ", ".join(audit.missing[:8]) + (", ..." if len(audit.missing) > 8 else "")
        return (f"{len(audit.missing)} scheduled game(s) have no record ({shown}): not played yet, or deleted")
    if audit.unfinished:
        return "the SPRT has not ended, so which games it should hold is not known yet"
    return ""


def verified_records(path: Path, no_verify: bool) -> Audit:
    """The records of ``path`` that pass the seal and schedule checks, and the findings on the others.

    With ``no_verify``: every record, unchecked, after a warning.
    """
    if no_verify:
        print(f"warning: {path}: --no-verify: seals and schedule not checked; these results are unverified",
              file=sys.stderr)
        return Audit(list(read_records(path, key=None)), [])
    try:
        return audit_results(path)
    except (KeyFileError, ScheduleError) as e:
        raise UsageError(f"{e}; records written before they were sealed can be read with --no-verify "
                         "(unverified)") from None
    except LedgerError as e:
        raise UsageError(f"{e}; --no-verify reads the records without any check (unverified)") from None
