"""The league's database: ``league check`` (is it sound) and ``league backup`` (a consistent copy), over
league.health."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..args import UsageError


def add_health(commands: argparse._SubParsersAction) -> None:
    """``league check`` and ``league backup``."""
    check = commands.add_parser("check", help="is the league's database sound: SQLite's integrity check, its schema, "
                                              "tables and columns, every record's seal (exit status 1: damaged)")
    check.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR",
                       help="the league's folder, or a backup's file")
    check.set_defaults(handler=run_check)

    backup = commands.add_parser("backup", help="copy the league's database to FILE, consistent while 'league run' "
                                                "plays (SQLite; for PostgreSQL use pg_dump)")
    backup.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    backup.add_argument("file", type=Path, metavar="FILE", help="a new file (never overwritten)")
    backup.set_defaults(handler=run_backup)


def database_of(path: Path) -> str:
    """The database of the league in the folder ``path``, or of the backup's file ``path``."""
    from league.db import DEFAULT_FILE, URL_FILE, database_url

    if path.is_file():
        return f"sqlite:///{path.absolute()}"
    if not (path / DEFAULT_FILE).exists() and not (path / URL_FILE).exists():
        raise UsageError(f"{path} holds no league (make one with: pinochle-arena league init {path})")
    return database_url(path)


def run_check(args: argparse.Namespace) -> int:
    from league.health import check

    from ..progress import Progress

    progress: Progress | None = None

    def on_progress(done: int, total: int) -> None:
        nonlocal progress
        if progress is None:
            progress = Progress(total)
        if done:
            progress.update(done, "records' seals checked")

    print(f"checking {args.folder}: every page and every record (a big league takes a while)", file=sys.stderr,
          flush=True)
    health = check(database_of(args.folder), on_progress)
    if progress is not None:
        progress.close()
    for note in health.notes:
        print(f"note: {note}")
    if health.sound:
        print(f"{args.folder} is sound: schema {health.schema}, its {health.tables} tables, {health.games} games "
              "whose records pass their seals")
        return 0
    print(f"{args.folder} is damaged:")
    for problem in health.problems:
        print(f"  - {problem}")
    print("what to do:")
    for advice in health.advice:
        print(f"  - {advice.replace('DIR', str(args.folder))}")
    return 1


def run_backup(args: argparse.Namespace) -> int:
    from league.health import backup

    copy = backup(database_of(args.folder), args.file)
    games = "its games cannot be counted (the league is damaged)" if copy.games is None else f"{copy.games} games"
    print(f"backed up {args.folder} to {copy.path}: {games}, {copy.size / 2**20:.1f} MiB; to restore it, see "
          "docs/league.md (\"Checking and backing up\")")
    return 0
