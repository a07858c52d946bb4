#!/usr/bin/env python3
"""What ``league check`` and ``league backup`` cost on a big league.

A league of three sample bots plays ``--played`` real games (one hand each,
unjailed); their rows are then copied, each copy under a game id of its own
(a record's seal covers its text, not its row), until the league holds
``--games`` games, with their seats. Then, each the best of ``--rounds``:

* ``league check DIR``: SQLite's integrity and foreign key checks, the
  schema and tables, every record's seal;
* ``league backup DIR FILE``: SQLite's online backup API, one step.

Printed: the games, the file's size, the seconds of each and the rates.

    python bench/league_check.py                    # 60,000 games
    python bench/league_check.py --games 300000
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def arena(*args) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "arena", *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"pinochle-arena {' '.join(map(str, args))}: {done.stderr.strip()}")
    return done


def make_league(folder: Path, played: int, games: int) -> None:
    arena("league", "init", folder, "--boards", "--isolation", "none")
    for name in ("greedy", "random", "tactician"):
        arena("league", "add", name, name, "--league", folder)
    arena("league", "run", folder, "--games", played, "--concurrency", "2")
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as c:
        rows = c.execute("SELECT id, unit_id, game_id, record, finished FROM games").fetchall()
        seats = {}
        for game, seat, version, share in c.execute("SELECT game, seat, version_id, share FROM game_seats"):
            seats.setdefault(game, []).append((seat, version, share))
        copy = 0
        while c.execute("SELECT count(*) FROM games").fetchone()[0] < games:
            copy += 1
            for game, unit, game_id, record, finished in rows:
                new = c.execute("INSERT INTO games (unit_id, game_id, record, finished) VALUES (?, ?, ?, ?)",
                                (unit, f"{game_id}-copy{copy}", record, finished)).lastrowid
                c.executemany("INSERT INTO game_seats (game, seat, version_id, share) VALUES (?, ?, ?, ?)",
                              [(new, *s) for s in seats[game]])
            c.commit()


def best(rounds: int, once) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        once()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60_000)
    parser.add_argument("--played", type=int, default=60, help="real games, copied up to --games")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="league-check-") as tmp:
        folder = Path(tmp) / "league"
        make_league(folder, args.played, args.games)
        with contextlib.closing(sqlite3.connect(folder / "league.db")) as c:
            games = c.execute("SELECT count(*) FROM games").fetchone()[0]
        size = (folder / "league.db").stat().st_size

        def check() -> None:
            done = arena("league", "check", folder)
            assert done.returncode == 0, done.stdout  # (a benchmark of a sound league: say so if it is not)

        def backup() -> None:
            target = Path(tmp) / "backup.db"
            target.unlink(missing_ok=True)
            arena("league", "backup", folder, target)

        checked, backed = best(args.rounds, check), best(args.rounds, backup)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{'':16}{'seconds':>9}{'games/s':>11}{'MiB/s':>8}")
    for what, seconds in (("league check", checked), ("league backup", backed)):
        print(f"{what:16}{seconds:9.2f}{games / seconds:11.0f}{size / 2**20 / seconds:8.0f}")
    print(f"summary: {games:,} games ({size / 2**20:.0f} MiB): league check {checked:.1f} s, league backup "
          f"{backed:.1f} s (best of {args.rounds}; each a new process, about 0.5 s of it starting Python)")


if __name__ == "__main__":
    main()
