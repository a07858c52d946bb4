"""Running a command's work: trio with a plain Ctrl-C, a check that the bots start, the output folder, resuming."""

from __future__ import annotations

import datetime
import os
import secrets
import signal
import sys
from pathlib import Path

import trio

from referee.bots.apart import RESULTS_ELSEWHERE, exposures, jails_of, results_within
from referee.bots.sandbox import images_to_make
from referee.match import named_by_bots, preflight
from referee.records.store import ResultStore

from .args import UsageError

# Flags that may differ when a run is resumed: how it runs and what is printed, not which games it plays.
RESUME_FLAGS = ("resume", "out", "concurrency", "processes", "cluster", "cluster_certs", "insecure", "seatings_apart",
                "bootstrap", "transcripts", "pgn", "no_report", "startup_timeout", "wait", "ratinginterval")


def run_trio_stoppable(function, *args) -> tuple[object, bool]:
    """trio.run of work that serves web pages, and whether Ctrl-C (or SIGTERM) stopped it: a signal cancels the
    work, rather than raising KeyboardInterrupt wherever trio stands (inside a connection's task, a browser's
    kept-alive connection, it broke out of the web server's nurseries as a traceback)."""
    async def stoppable():
        stopped = False
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                async def stop_on_signal() -> None:
                    nonlocal stopped
                    async for _ in signals:
                        stopped = True
                        nursery.cancel_scope.cancel()
                        return

                nursery.start_soon(stop_on_signal)
                result = await function(*args)
                nursery.cancel_scope.cancel()
        return result if not stopped else None, stopped

    return trio.run(stoppable)


def run_trio(function, *args):
    """trio.run, with Ctrl-C coming out as a plain KeyboardInterrupt even from inside nurseries."""
    try:
        return trio.run(function, *args)
    except BaseExceptionGroup as group:
        _, rest = group.split(KeyboardInterrupt)
        if rest is None:
            raise KeyboardInterrupt from None
        raise


def check_bots_start(entrants, logs: Path, startup_timeout: float | None = None, name_by_bots: bool = False) -> tuple:
    """Stop before the first game, with the reason, if a bot cannot start (exit status 2); returns the entrants,
    with ``name_by_bots`` each called by the name its bot gives (``id name``), as the organiser named none."""
    check_apart(entrants, logs.parent)
    make_out(logs.parent)
    say_images_to_make(entrants, logs.parent)
    found = run_trio(preflight, entrants, logs, startup_timeout)
    if found.failures:
        raise UsageError("; ".join(f"bot {name} cannot start: {why}" for name, why in found.failures)
                         + f" (its stderr log is in {logs}/)")
    for name, note in found.notes:
        print(f"note: bot {name}: {note}", file=sys.stderr)
    return named_by_bots(entrants, found.names, logs) if name_by_bots else tuple(entrants)


def say_images_to_make(entrants, out: Path) -> None:
    """One line before the bots' first start when it makes their file system images (a minute at most, once per
    machine and content), so that the run does not seem to hang."""
    bots = [(e.sandbox.with_read_only(e.command.read_only), e.command) for e in entrants if e.connect is None]
    if any(images_to_make(sandbox, command.argv, command.cwd, (str(out),)) for sandbox, command in bots):
        print("making the jailed bots' file system images (once per machine and content; up to a minute)...",
              file=sys.stderr, flush=True)


def check_apart(entrants, out: Path, elsewhere: str = RESULTS_ELSEWHERE) -> None:
    """Refuse jailed entrants whose jails would show them another entrant's program or a results folder
    (``elsewhere``: what to do of one)."""
    bots = [(e.name, e.command, e.sandbox) for e in entrants if e.connect is None]  # not a person's seat
    jails = jails_of(bots, (str(out),))
    problems = exposures(jails, elsewhere) + results_within(jails, out, elsewhere)
    if problems:
        raise UsageError("; ".join(problems) + " (docs/competition.md, Running a competition)")


def check_out(path: Path, flag: str = "--out") -> None:
    """UsageError, before any work, when ``path`` is not a folder and cannot be made one (nothing is made here)."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing == path and not path.is_dir():
        raise UsageError(f"{flag} {path}: a file is there, not a folder; choose another {flag}")
    if not existing.is_dir():
        raise UsageError(f"{flag} {path}: {existing} is a file, so no folder can be made below it")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: {existing} may not be written in")


def make_out(out: Path) -> None:
    """Make the output folder (private: it holds the run's secret key), with a plain error when that fails."""
    check_out(out)
    try:
        out.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {out}: cannot make the folder ({e.strerror})") from None


def check_new_file(path: Path, flag: str) -> None:
    """UsageError, before any work, when the file ``path`` could not be written (a folder, or no folder for it)."""
    folder = path.parent
    if path.is_dir():
        raise UsageError(f"{flag} {path}: a folder is there, not a file")
    if not folder.is_dir():
        raise UsageError(f"{flag} {path}: no such folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {path}: may not be written")


def default_out(kind: str) -> Path:
    """results/KIND-TIMESTAMP, with -2, -3... when a run of the same second has it."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path("results") / f"{kind}-{stamp}"
    number = 1
    while (out.parent / f"{out.name}-{number}" if number > 1 else out).exists():
        number += 1
    return out.parent / f"{out.name}-{number}" if number > 1 else out


def seed_and_out(args, kind: str) -> tuple[int, Path]:
    """--seed (default: a secret one) and --out (default results/KIND-TIMESTAMP), refusing to overwrite results;
    when resuming, the seed the run started with and its folder."""
    if args.resume is not None:
        return args.saved_seed, args.out
    seed = args.seed if args.seed is not None else secrets.randbits(128)
    out = args.out or default_out(kind)
    check_out(out)
    ResultStore(out).check_free()
    return seed, out


def resumed_arguments(args, kind: str):
    """``KIND --resume OUT``: the arguments the run in OUT started with (kept in OUT/KIND.json), read again
    in the folder it was started from; only the flags of RESUME_FLAGS may be given beside --resume."""
    out = args.resume.absolute()
    if args.out is not None and args.out.absolute() != out:
        raise UsageError(f"--resume {args.resume} and --out {args.out} name two folders; give one")
    refuse_changes(args, kind, f"--resume {args.resume}: the {kind}'s arguments are kept in {args.resume}, so")
    argv, cwd, seed = _saved_arguments(args.resume, out, kind)
    try:
        os.chdir(cwd)  # relative paths of the saved command mean the folder it was started from
    except OSError as e:
        raise UsageError(f"--resume {args.resume}: the {kind} was started in {cwd}, which is gone ({e.strerror})") from None
    again = args.parser.parse_args(argv)
    for key in RESUME_FLAGS:
        if hasattr(again, key) and key != "out":
            setattr(again, key, getattr(args, key))
    again.argv, again.cwd, again.saved_seed, again.out, again.resume = argv, cwd, seed, out, args.resume
    again.parser = args.parser
    return again


def _saved_arguments(given: Path, out: Path, kind: str) -> tuple[list[str], str, int]:
    """(argv, cwd, seed) of the run kept in OUT/KIND.json (sealed: StoreError if it was changed)."""
    if not (out / f"{kind}.json").exists():
        what = "no such folder" if not out.is_dir() else f"no {kind}.json: not a {kind}'s output folder"
        raise UsageError(f"--resume {given}: {what}")
    saved = ResultStore(out, f"{kind}.json").read_meta()
    try:
        return list(saved["argv"]), saved["cwd"], saved["seed"]
    except (KeyError, TypeError) as e:
        raise UsageError(f"--resume {given}: {out / (kind + '.json')} is damaged ({e})") from None


def refuse_changes(args, command: str, why: str) -> None:
    """UsageError naming every flag beside --resume that is not one of RESUME_FLAGS (they would change the run)."""
    defaults = vars(args.parser.command_parser(command).parse_args([]))
    changed = sorted(k for k, v in vars(args).items()
                     if k not in (*RESUME_FLAGS, "handler", "argv", "cwd", "parser") and k in defaults
                     and defaults[k] != v)
    if changed:
        flags = ", ".join("--" + k.replace("_", "-") if k not in ("bots", "config") else k.upper() for k in changed)
        allowed = ", ".join("--" + k.replace("_", "-") for k in RESUME_FLAGS[2:] if k in defaults)
        raise UsageError(f"{why} {flags} cannot change it; only {allowed} may be given")
