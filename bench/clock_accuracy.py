"""Benchmark 5: clock accuracy under load.

Bots (bench/c/steady.c) that use 90% of a 50 ms per-move budget, at a
concurrency of twice the number of cores, so the referee is busy while the
clocks run. Each bot measures its own time per request (from reading the
request to writing the reply) and sends it in an ``info self <ms>`` line
with the reply; the referee's charge is in the game record. Reports false
timeouts (target 0) and the distribution of (charged - bot's own).

    python bench/clock_accuracy.py [--seconds S] [--grace MS]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import trio
from _common import c_program, summary
from tabulate import tabulate

from referee.bots.transport import BotCommand
from referee.match import Entrant, Player, play_game
from referee.match.clock import TimeControl
from referee.records.record import Termination
from referee.rules import get_variant
from referee.rules.dealing import derive_seed


async def run(seconds: float, concurrency: int, tc: TimeControl, logs: Path) -> tuple[list, dict[str, list[float]]]:
    variant = get_variant("two-handed")
    command = BotCommand((str(c_program("steady")), "0.9"))
    records = []
    deadline = time.perf_counter() + seconds

    async def worker(w: int, nursery: trio.Nursery) -> None:
        players = [Player.logged(Entrant(f"steady{seat}", command, tc), logs, f"w{w}s{seat}", transcripts=True)
                   for seat in range(2)]
        g = 0
        while time.perf_counter() < deadline:
            records.append(await play_game(nursery, players, variant, derive_seed(3, w, g), f"w{w}g{g}",
                                           extra={"worker": w}))
            g += 1
        for p in players:
            await p.close()

    async with trio.open_nursery() as bots:
        async with trio.open_nursery() as workers:
            for w in range(concurrency):
                workers.start_soon(worker, w, bots)
        bots.cancel_scope.cancel()
    own: dict[str, list[float]] = {}
    for transcript in logs.glob("*.protocol.log"):  # per game id, the bot's own measurements in order
        game = None
        for line in transcript.read_text().splitlines():
            if line.startswith("> game "):
                game = (line.split()[2], transcript.name)
            elif line.startswith("< info self ") and game:
                own.setdefault(game, []).append(float(line.split()[3]))
    return records, own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--grace", type=int, default=10, help="clock grace in ms (default 10; the referee's is 100)")
    args = parser.parse_args()
    concurrency = 2 * (os.cpu_count() or 1)
    tc = TimeControl(bank_ms=600_000, increment_ms=0, move_ms=50, grace_ms=args.grace)
    with tempfile.TemporaryDirectory() as tmp:
        records, own = trio.run(run, args.seconds, concurrency, tc, Path(tmp))
    timeouts = sum(1 for r in records if r.termination is Termination.TIMEOUT)
    other = sum(1 for r in records if r.termination not in (Termination.TIMEOUT, Termination.COMPLETED))
    gaps = []
    for r in records:
        for seat in range(2):
            charged = [a.ms for a in r.actions if a.seat == seat]
            name = f"w{r.extra['worker']}s{seat}.protocol.log"
            mine = own.get((r.game_id, name), [])
            gaps += [c - b for c, b in zip(charged, mine, strict=False)]
    gaps.sort()
    decisions = sum(len(r.actions) for r in records)

    def q(p: float) -> float:
        return gaps[min(int(p * len(gaps)), len(gaps) - 1)] if gaps else float("nan")

    print(tabulate([["games", len(records)], ["replies", decisions], ["false timeouts", timeouts],
                    ["other faults", other], ["charged - own, median (ms)", f"{q(0.5):.3f}"],
                    ["charged - own, mean (ms)", f"{statistics.fmean(gaps) if gaps else float('nan'):.3f}"],
                    ["charged - own, 99th percentile (ms)", f"{q(0.99):.3f}"],
                    ["charged - own, max (ms)", f"{gaps[-1] if gaps else float('nan'):.3f}"]],
                   headers=[f"45 of 50 ms, concurrency {concurrency}, grace {args.grace} ms", ""], tablefmt="github"))
    summary(f"clock: {timeouts} false timeouts in {decisions} replies at concurrency {concurrency}; "
            f"charged - own: median {q(0.5):.2f} ms, p99 {q(0.99):.2f} ms, max {gaps[-1] if gaps else 0:.2f} ms")


if __name__ == "__main__":
    main()
