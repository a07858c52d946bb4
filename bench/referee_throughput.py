"""Benchmark 2: referee throughput with instant bots, next to the pipe limit from the same run.

Full games between copies of the C first-legal bot (sample_bots/c), which
answers every request at once, so everything measured is the referee: the
rules engine, the protocol, the pipes and trio. Decisions (requests answered)
and games per second at several concurrencies, for the two-handed game and
the three-, four- and five-player presets. Records are built as in a
tournament but not written to disk (the fsync is the disk's cost, not the
referee's).

    python bench/referee_throughput.py [--seconds S] [--concurrency 1,2,4,8,32] [--presets ...]
"""

from __future__ import annotations

import argparse
import time

import trio
from _common import summary
from pipe_limit import measure as pipe_rates
from tabulate import tabulate

from referee.clock import TimeControl
from referee.match import Entrant, Player, derive_seed, play_game
from referee.rules import get_variant
from referee.samples import SAMPLES

PRESETS = ("two-handed", "three-handed", "four-handed", "call-for-partner")


# first-legal passes every auction; with the dealer stuck at the minimum the hands are played out
OPTIONS = {"three-handed": {"all-pass": "dealer-stuck"}, "four-handed": {"all-pass": "dealer-stuck"}}


async def throughput(variant_name: str, concurrency: int, seconds: float) -> tuple[float, float]:
    """(decisions per second, games per second) over about ``seconds`` of play."""
    variant = get_variant(variant_name, OPTIONS.get(variant_name))
    command = SAMPLES["first-legal"].command()
    counts = {"decisions": 0, "games": 0}
    start = time.perf_counter()
    deadline = start + seconds

    async def worker(w: int, nursery: trio.Nursery) -> None:
        players = [Player(Entrant(f"fl{seat}", command, TimeControl())) for seat in range(variant.players)]
        g = 0
        while time.perf_counter() < deadline:
            record = await play_game(nursery, players, variant, derive_seed(7, w, g), f"w{w}g{g}")
            record.to_json()
            assert record.termination.value == "completed", record.detail
            counts["decisions"] += len(record.actions)
            counts["games"] += 1
            g += 1
        for p in players:
            await p.close()

    cpu = time.process_time()
    async with trio.open_nursery() as bots:
        async with trio.open_nursery() as workers:
            for w in range(concurrency):
                workers.start_soon(worker, w, bots)
        elapsed = time.perf_counter() - start
        bots.cancel_scope.cancel()
    print(f"    referee CPU {(time.process_time() - cpu) / elapsed:.0%} of one core", flush=True)
    return counts["decisions"] / elapsed, counts["games"] / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement (default 3)")
    parser.add_argument("--concurrency", default="1,2,4,8,32")
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    args = parser.parse_args()
    levels = [int(x) for x in args.concurrency.split(",")]
    pipes = pipe_rates(2.0)
    rows = []
    base = {}
    for name in args.presets:
        for c in levels if name == "two-handed" else [1, max(levels)]:
            decisions, games = trio.run(throughput, name, c, args.seconds)
            base.setdefault(name, decisions)
            rows.append([name, c, f"{decisions:,.0f}", f"{games:,.1f}", f"{decisions / base[name]:.2f}",
                         f"{decisions / pipes['trio']:.0%}"])
            print(f"  {name} at concurrency {c}: {decisions:,.0f} decisions/s, {games:.1f} games/s", flush=True)
    print(f"pipe limit in this run: C {pipes['c']:,.0f} round trips/s, trio {pipes['trio']:,.0f}/s")
    print(tabulate(rows, headers=["preset", "concurrency", "decisions/s", "games/s", "x conc. 1", "of trio pipe"],
                   tablefmt="github"))
    two = [r for r in rows if r[0] == "two-handed"]
    by_c = {r[1]: float(r[2].replace(",", "")) for r in two}
    ratio8 = by_c.get(8, 0) / by_c[1] if 1 in by_c else 0
    summary(f"referee: two-handed {by_c.get(1, 0):,.0f} decisions/s at concurrency 1 "
            f"({by_c.get(1, 0) / pipes['trio']:.0%} of trio's {pipes['trio']:,.0f} round trips/s), "
            f"concurrency 8 is {ratio8:.2f}x concurrency 1")


if __name__ == "__main__":
    main()
