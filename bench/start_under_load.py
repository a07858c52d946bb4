"""How long the sample bots take to start (greeting to 'ready') beside busy processes, in wall and in CPU time.

Starts each sample bot (python random, greedy and montecarlo, node tactician, the C bot) ``--starts`` times, one
after another, as a game starts it (its jail, its control group), beside ``--hogs`` processes that never sleep
(``yes > /dev/null``, started here and killed by their pids at the end). Prints each bot's worst start on the wall
and in CPU time, and how many starts a wall-clock allowance of the default's seconds would have failed, against
the CPU-time allowance (``referee.match.client.STARTUP_ALLOWANCE``, within ``cpu_time.WALL_FACTOR`` times as
many seconds on the wall) that the referee uses.

    python bench/start_under_load.py [--hogs 40] [--starts 3] [--bots random,montecarlo]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import trio
from tabulate import tabulate

from referee.bots.cpu_time import WALL_FACTOR, tree_cpu_seconds
from referee.bots.samples import SAMPLES
from referee.match import Entrant, Player
from referee.match.client import STARTUP_ALLOWANCE

BOTS = ("random", "greedy", "montecarlo", "tactician", "first-legal")
ROOMY = 3600.0  # the allowance the bench starts bots with: none fails here, each start is measured whole


async def start_once(entrant: Entrant, logs: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one start, from the process's spawn to its 'ready'."""
    player = Player.logged(entrant, logs, startup_timeout=ROOMY)
    async with trio.open_nursery() as nursery:
        began = trio.current_time()
        client = await player.ensure_started(nursery)
        wall = trio.current_time() - began
        cpu = tree_cpu_seconds(client.process.pid) or 0.0
        await player.close()
    return wall, cpu


async def measure(bots: list[str], starts: int, logs: Path) -> dict[str, list[tuple[float, float]]]:
    found: dict[str, list[tuple[float, float]]] = {}
    for name in bots:
        entrant = Entrant(name, SAMPLES[name].command())
        found[name] = [await start_once(entrant, logs) for _ in range(starts)]
    return found


def with_hogs(count: int, run):
    """``run()`` beside ``count`` busy processes, each killed by its pid afterwards."""
    hogs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(count)]
    try:
        time.sleep(1)  # (the hogs take their cores)
        return run()
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=40)
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--bots", default=",".join(BOTS))
    args = parser.parse_args()
    bots = args.bots.split(",")
    with tempfile.TemporaryDirectory() as folder:
        logs = Path(folder) / "logs"
        trio.run(measure, bots, 1, logs)  # (the first start of a jailed bot makes its system image: not measured)
        quiet = trio.run(measure, bots, args.starts, logs)
        loaded = with_hogs(args.hogs, lambda: trio.run(measure, bots, args.starts, logs))
    ceiling = STARTUP_ALLOWANCE * WALL_FACTOR
    rows = []
    for name in bots:
        walls, cpus = [w for w, _ in loaded[name]], [c for _, c in loaded[name]]
        rows.append([name, f"{max(w for w, _ in quiet[name]):.2f}", f"{max(walls):.2f}", f"{max(cpus):.2f}",
                     sum(w > STARTUP_ALLOWANCE for w in walls),
                     sum(c > STARTUP_ALLOWANCE or w > ceiling for w, c in loaded[name])])
    print(f"{args.starts} starts of each bot, quiet and beside {args.hogs} busy processes (worst of each):")
    print(tabulate(rows, headers=["bot", "wall quiet s", f"wall, {args.hogs} busy s", f"CPU, {args.hogs} busy s",
                                  f"failed: {STARTUP_ALLOWANCE:g} s wall",
                                  f"failed: {STARTUP_ALLOWANCE:g} s CPU within {ceiling:g} s"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
