"""Benchmark 4: the referee's peak memory with 64 games at once.

A tournament of 64 concurrent two-handed games between C first-legal bots
(128 bot processes) in one referee process (with more processes, each holds
its share of the games); prints the referee's resident memory before, its
peak (ru_maxrss) and the cost per concurrent game.

    python bench/memory.py [--games-at-once N] [--games G]
"""

from __future__ import annotations

import argparse
import resource

from _common import summary
from referee_throughput import run_tournament
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
    parser.add_argument("--games", type=int, default=256)
    args = parser.parse_args()
    run_tournament("two-handed", 1, 2, processes=1)  # imports and caches warmed up
    before = rss_mb()
    decisions, games, _ = run_tournament("two-handed", args.games_at_once, args.games, processes=1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    per_game = (peak - before) / args.games_at_once
    print(tabulate([["referee RSS before", f"{before:.1f} MiB"], ["peak RSS", f"{peak:.1f} MiB"],
                    ["per concurrent game", f"{per_game * 1024:.0f} KiB"],
                    ["games played", args.games], ["decisions/s", f"{decisions:,.0f}"]],
                   headers=[f"{args.games_at_once} games at once", ""], tablefmt="github"))
    summary(f"memory: peak referee RSS {peak:.0f} MiB with {args.games_at_once} concurrent games "
            f"({per_game * 1024:.0f} KiB per game)")


if __name__ == "__main__":
    main()
