"""How long the sample bots take to start (greeting to 'ready') beside busy processes: on the wall, in CPU time, and
in the time the referee charges them (their own: the wall's less their waits for a CPU).

Starts each sample bot (python random, greedy and montecarlo, node tactician, the C bot) ``--starts`` times, one
after another, as a game starts it (its jail, its control group), beside ``--hogs`` processes that never sleep
(``yes > /dev/null``, started here and killed by their pids at the end). Prints each bot's worst start on the wall
in CPU time and in their own time (``referee.bots.start_clock``), and how many starts a wall-clock allowance of the
default's seconds would have failed, against the allowance the referee uses (``STARTUP_ALLOWANCE`` seconds of the
start's own time, within ``WALL_FACTOR`` times as many on the wall).

    python bench/start_under_load.py [--hogs 40] [--starts 3] [--bots random,montecarlo]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

import trio
from tabulate import tabulate

from referee.bots.start_clock import WALL_FACTOR, Usage, tree_usage
from referee.bots.samples import SAMPLES
from referee.match import Entrant, Player
from referee.match.client import STARTUP_ALLOWANCE

BOTS = ("random", "greedy", "montecarlo", "tactician", "first-legal")
ROOMY = 3600.0  # the allowance the bench starts bots with: none fails here, each start is measured whole


async def start_once(entrant: Entrant, logs: Path) -> tuple[float, Usage]:
    """The wall seconds of one start, from the process's spawn to its 'ready', and what its processes took."""
    player = Player.logged(entrant, logs, startup_timeout=ROOMY)
    async with trio.open_nursery() as nursery:
        began = trio.current_time()
        client = await player.ensure_started(nursery)
        wall = trio.current_time() - began
        usage = tree_usage(client.process.pid) or Usage(wall, 0.0, 0.0)
        await player.close()
    return wall, usage


async def measure(bots: list[str], starts: int, logs: Path) -> dict[str, list[tuple[float, Usage]]]:
    found: dict[str, list[tuple[float, Usage]]] = {}
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
    cores = os.cpu_count() or 1
    rows = []
    for name in bots:
        walls = [w for w, _ in loaded[name]]
        owns = [u.charged(cores) for _, u in loaded[name]]
        rows.append([name, f"{max(w for w, _ in quiet[name]):.2f}", f"{max(walls):.2f}",
                     f"{max(u.cpu for _, u in loaded[name]):.2f}", f"{max(owns):.2f}",
                     sum(w > STARTUP_ALLOWANCE for w in walls),
                     sum(o > STARTUP_ALLOWANCE or w > ceiling for w, o in zip(walls, owns))])
    print(f"{args.starts} starts of each bot, quiet and beside {args.hogs} busy processes (worst of each):")
    print(tabulate(rows, headers=["bot", "wall quiet s", f"wall, {args.hogs} busy s", f"CPU, {args.hogs} busy s",
                                  f"own time, {args.hogs} busy s", f"failed: {STARTUP_ALLOWANCE:g} s wall",
                                  f"failed: {STARTUP_ALLOWANCE:g} s own within {ceiling:g} s"],
                   tablefmt="github"))


if __name__ == "__main__":
    main()
