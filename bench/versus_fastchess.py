#!/usr/bin/env python3
"""Issue 38's yardstick: pinochle-arena's games per second against fastchess's, on one machine, interleaved.

fastchess is a C++ tournament manager for chess engines (the fastest one
kept); ``../shared/peers/`` holds its source and an instant scripted UCI
engine that replays one fixed 525-ply game. Two of those under fastchess
measure the manager itself, as two C ``first-legal`` bots (they answer at
once) measure our referee in two-handed games. Each round runs every row
once, at each concurrency, in an order turned by one each round (so no row
always follows the same one), and each row's figure is its games per second
over fastchess's default in the same round; the table gives the lowest,
median and highest over the rounds. Every run is timed from the command's
start to its end, as a user waits for it (start-up included).

Rows: fastchess with its engines kept between games (its default, the
base); pinochle-arena's defaults (the jail, a fresh process per game: as
root, in a jail kept per bot, docs/jail.md) with
and without the HTML report; the jail with ``--persist``; ``--isolation
none`` with fresh processes and with ``--persist``. Also printed: the jail
with ``--persist`` over ``--isolation none --persist``, and the referee's
decisions per second unjailed and kept over fastchess's moves per second
(525 a game).

Targets (issue 53, which follows issue 38's): the defaults with the report
>= 0.5x fastchess at concurrency 2 (aim 0.65: out of reach at today's CPU
per game, docs/performance.md "The first game sooner, and a bound") and
>= 1.0x at concurrency 1; the report's cost at most 5% of the defaults'
games/s; ``--isolation none --persist`` decisions/s >= 0.8x fastchess's
moves/s at concurrency 2. Issue 38's, still printed: jail ``--persist`` >=
0.95x of ``--isolation none --persist``.

    python bench/versus_fastchess.py --build            # once: builds fastchess (a minute or two)
    python bench/versus_fastchess.py [--rounds 3] [--games 200] [--chess-games 400] [--concurrency 1 2]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from _common import BUILD, ROOT, summary, tournament_rate
from tabulate import tabulate

PEERS = ROOT.parent / "shared" / "peers"
FASTCHESS = BUILD / "peers" / "fastchess" / "fastchess"
SCRIPTED = BUILD / "peers" / "scripted"
PLIES = 525  # moves in the scripted engine's game

ARENA_ROWS = {  # row -> the tournament command's flags
    "pinochle-arena defaults (jail, fresh process a game, report)": [],  # (as root, in a kept jail: docs/jail.md)
    "pinochle-arena defaults, --no-report": ["--no-report"],
    "a fresh jail a game (--no-kept-jail), --no-report": ["--no-report", "--no-kept-jail"],  # (the old default)
    "jail + --persist": ["--no-report", "--persist"],
    "--isolation none, fresh processes": ["--no-report", "--isolation", "none"],
    "--isolation none --persist": ["--no-report", "--isolation", "none", "--persist"],
}
BASE = "fastchess, engines kept (its default)"
REPORTED, UNREPORTED = list(ARENA_ROWS)[:2]  # the defaults with the report and without
TARGETS = {1: "1.0", 2: "0.5, aim 0.65"}  # issue 53's, for the defaults with the report, by concurrency


def build() -> None:
    """fastchess and the scripted engine, from ../shared/peers into bench/build/peers."""
    if not PEERS.is_dir():
        sys.exit(f"no peers' sources at {PEERS}")
    where = BUILD / "peers"
    where.mkdir(parents=True, exist_ok=True)
    archive = next(PEERS.glob("fastchess-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(where, filter="data")
    print(f"building fastchess from {archive.name} (a minute or two)...", flush=True)
    subprocess.run(["make", "-C", str(where / "fastchess"), "-j2"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cc", "-O2", "-o", str(SCRIPTED), str(PEERS / "scripted.c")], check=True)
    print(f"built {FASTCHESS} and {SCRIPTED}")


def fastchess(games: int, concurrency: int) -> float:
    """Games per second of fastchess between two scripted engines."""
    script = PEERS / "script.txt"
    engine = [f"cmd={SCRIPTED}", f"args={script}"]
    command = [str(FASTCHESS), "-engine", *engine, "name=A", "-engine", *engine, "name=B", "-each", "tc=100+1",
               "-rounds", str(games // 2), "-games", "2", "-concurrency", str(concurrency)]
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        subprocess.run(command, check=True, cwd=tmp, stdout=subprocess.DEVNULL)
        return games // 2 * 2 / (time.perf_counter() - started)


def arena(flags: list[str], games: int, concurrency: int) -> tuple[float, float]:
    """(games/s, decisions/s) of a two-handed tournament between two first-legal bots."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        command = [sys.executable, "-m", "arena", "tournament", "--bot", "first-legal", "--bot", "first-legal",
                   "--games", str(games), "--concurrency", str(concurrency), "--out", str(out), *flags]
        return tournament_rate(command, out, ROOT)


def spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def measure(concurrency: int, rounds: int, games: int, chess_games: int) -> dict[str, list[float]]:
    """Per row, its games/s over fastchess's in each round; and the two extra ratios."""
    ratios: dict[str, list[float]] = {name: [] for name in [BASE, *ARENA_ROWS]}
    ratios["jail --persist / none --persist"] = []
    ratios["none --persist decisions/s / fastchess moves/s"] = []
    rows = [BASE, *ARENA_ROWS]
    for number in range(rounds):
        order = rows[number % len(rows):] + rows[:number % len(rows)]
        rate, decisions = {}, {}
        for row in order:
            if row == BASE:
                rate[row] = fastchess(chess_games, concurrency)
            else:
                rate[row], decisions[row] = arena(ARENA_ROWS[row], games, concurrency)
            print(f"  concurrency {concurrency}, round {number + 1}: {row}: {rate[row]:.1f} games/s", flush=True)
        for row in rows:
            ratios[row].append(rate[row] / rate[BASE])
        ratios["jail --persist / none --persist"].append(rate["jail + --persist"]
                                                         / rate["--isolation none --persist"])
        ratios["none --persist decisions/s / fastchess moves/s"].append(
            decisions["--isolation none --persist"] / (rate[BASE] * PLIES))
        ratios.setdefault("fastchess games/s", []).append(rate[BASE])
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="build fastchess and the scripted engine, then stop")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=200, help="games of each pinochle-arena run")
    parser.add_argument("--chess-games", type=int, default=400, help="games of each fastchess run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    if args.build:
        build()
        return
    if not (FASTCHESS.exists() and SCRIPTED.exists()):
        sys.exit("fastchess is not built: python bench/versus_fastchess.py --build (needs make and a C++ compiler)")
    if shutil.which("bwrap") is None:
        sys.exit("the jail's rows need bubblewrap: apt-get install bubblewrap")
    found = {c: measure(c, args.rounds, args.games, args.chess_games) for c in args.concurrency}
    table = [[name, *(spread(found[c][name]) for c in args.concurrency)] for name in found[args.concurrency[0]]]
    print(tabulate(table, headers=["min / median / max", *(f"concurrency {c}" for c in args.concurrency)],
                   tablefmt="github"))
    medians = {c: {name: statistics.median(v) for name, v in found[c].items()} for c in args.concurrency}
    summary("; ".join(
        f"concurrency {c}: defaults with the report {m[REPORTED]:.2f}x fastchess (target {TARGETS.get(c, 'none')}), "
        f"without {m[UNREPORTED]:.2f}x (the report's cost {1 - m[REPORTED] / m[UNREPORTED]:.0%}, target 5%), "
        f"decisions/moves {m['none --persist decisions/s / fastchess moves/s']:.2f}"
        f"{' (target 0.8)' if c == 2 else ''}, jail/none kept {m['jail --persist / none --persist']:.2f} (target 0.95)"
        for c, m in medians.items()))


if __name__ == "__main__":
    main()
