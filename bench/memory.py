"""Benchmark 4: the referee's peak memory with 64 games at once.

64 concurrent two-handed games between C first-legal bots (128 bot
processes), played for a few seconds; prints the referee's resident memory
before, its peak (ru_maxrss) and the cost per concurrent game.

    python bench/memory.py [--games-at-once N] [--seconds S]
"""

from __future__ import annotations

import argparse
import resource

import trio
from _common import summary
from referee_throughput import throughput
from tabulate import tabulate


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-at-once", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    trio.run(throughput, "two-handed", 1, 0.2)  # imports and caches warmed up
    before = rss_mb()
    decisions, games = trio.run(throughput, "two-handed", args.games_at_once, args.seconds)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    per_game = (peak - before) / args.games_at_once
    print(tabulate([["referee RSS before", f"{before:.1f} MiB"], ["peak RSS", f"{peak:.1f} MiB"],
                    ["per concurrent game", f"{per_game * 1024:.0f} KiB"],
                    ["games played", f"{games * args.seconds:.0f}"], ["decisions/s", f"{decisions:,.0f}"]],
                   headers=[f"{args.games_at_once} games at once", ""], tablefmt="github"))
    summary(f"memory: peak referee RSS {peak:.0f} MiB with {args.games_at_once} concurrent games "
            f"({per_game * 1024:.0f} KiB per game)")


if __name__ == "__main__":
    main()
