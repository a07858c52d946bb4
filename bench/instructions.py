"""Instruction counts (valgrind's callgrind): the same figures on a busy machine as on a quiet one.

Seconds on a shared machine vary by up to 2x between runs, even CPU time;
instructions executed do not (for the same code, inputs and hash seed). So
before/after comparisons of the referee's own cost are made here:

* rules engine: instructions per random two-handed hand (benchmark 3's
  policy, every action checked as the referee does);
* referee: instructions per decision of real games between the instant C
  bots (benchmark 2's workload, one process, concurrency 1);
* no-pipes: the same per decision against in-process instant stand-ins
  (benchmark 2's ceiling): the referee's own work, without any I/O (and
  without the garbage collector, whose full collections fell in one run or
  the other);
* trio: instructions per request/reply round trip to the C echo program
  (benchmark 1's language limit).

Each workload runs twice under valgrind, small and large, and the
difference is divided by the difference in work, so start-up (imports,
spawning the bots) cancels out. Only the referee's own process is counted,
not the bots, and not the kernel (system calls count as the instructions
that make them). About 4 minutes; needs valgrind.

The counts repeat within 0.1% for the engine and no-pipes. The two workloads
with pipes move between runs, by up to about 12% on a quiet machine and more
beside other work: whether a reply is already there when the referee (or
trio) reads decides which path the read takes, and a bot slowed by other
work on the other core makes it wait more often (the trio round trip has
counted 85,500 to 96,000, and 120,000 beside a second valgrind run). So
compare those two within one run, or use no-pipes.

    python bench/instructions.py [--only engine|referee|no-pipes|trio]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import c_program, summary
from tabulate import tabulate

# (small, large) amounts of work per workload: games, games, round trips
SIZES = {"engine": (2, 12), "referee": (2, 6), "no-pipes": (3, 12), "trio": (500, 5000)}
UNITS = {"engine": "hand", "referee": "decision", "no-pipes": "decision", "trio": "round trip"}


def engine(n: int) -> int:
    """Play ``n`` seeded random two-handed games; return the hands played."""
    from rules_engine import play_random_game

    from referee.rules import get_variant

    variant = get_variant("two-handed")
    return sum(play_random_game(variant, seed)[0] for seed in range(n))


def referee(n: int) -> int:
    """Play ``n`` two-handed games between first-legal C bots in this process; return the decisions."""
    from referee_throughput import play_tournament

    from referee.bots import transport

    # A reply found at once is followed by a yield once per YIELD_EVERY of real time, a count that would
    # depend on valgrind's speed (every decision takes longer than 1 ms under it). So no such yield is
    # counted; a real run adds one scheduler pass (about 35,000 instructions) per millisecond.
    transport.YIELD_EVERY = math.inf
    # valgrind refuses some resource limits in a child it starts (the bots run outside it)
    no_limits = {"memory": 0, "cpu": 0, "open_files": 0, "file_size": 0}
    records, _, _ = play_tournament("two-handed", 1, n, processes=1, limits=no_limits)
    return sum(len(r.actions) for r in records)


def no_pipes(n: int) -> int:
    """Play ``n`` two-handed games against in-process instant stand-ins (no processes); return the decisions.

    With the garbage collector off: whether a full collection (of every object the imports made) falls in the
    small run or the large one moved this count by up to 20% between two runs of the same code."""
    import gc

    from referee_throughput import play_without_pipes

    gc.disable()
    return play_without_pipes(n)[0]


def trio_round_trips(n: int) -> int:
    import trio
    from pipe_limit import round_trips

    async def run() -> None:
        process = await trio.lowlevel.open_process([str(c_program("echo"))], stdin=subprocess.PIPE,
                                                   stdout=subprocess.PIPE)
        await round_trips(process, n)
        await process.stdin.aclose()
        await process.wait()

    trio.run(run)
    return n


WORKLOADS = {"engine": engine, "referee": referee, "no-pipes": no_pipes, "trio": trio_round_trips}


def count(workload: str, n: int) -> tuple[int, int]:
    """(instructions, units of work) of one run of ``workload`` under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.%p"
        process = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}",
             sys.executable, __file__, "--run", workload, str(n)],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        out, _ = process.communicate()
        text = (Path(tmp) / f"valgrind.{process.pid}").read_text()
    found = re.search(r"Collected : (\d+)", text)
    if process.returncode != 0 or found is None:
        raise SystemExit(f"{workload} under valgrind failed (status {process.returncode}):\n{text[-2000:]}")
    return int(found.group(1)), int(out.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=list(WORKLOADS), action="append")
    parser.add_argument("--run", nargs=2, metavar=("WORKLOAD", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:  # inside valgrind
        print(WORKLOADS[args.run[0]](int(args.run[1])))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    from referee.bots.samples import SAMPLES

    c_program("echo")  # the C programs are built here, outside valgrind, so both runs find them built
    SAMPLES["first-legal"].command()
    per = {}
    rows = []
    for name in args.only or list(WORKLOADS):
        (i1, u1), (i2, u2) = (count(name, n) for n in SIZES[name])
        per[name] = (i2 - i1) / (u2 - u1)
        rows.append([name, UNITS[name], f"{u2 - u1:,}", f"{per[name]:,.0f}"])
        print(f"  {name}: {per[name]:,.0f} instructions per {UNITS[name]}", flush=True)
    print(tabulate(rows, headers=["workload", "unit", "units counted", "instructions per unit"], tablefmt="github"))
    parts = [f"{per[k]:,.0f} per {UNITS[k]} ({k})" for k in per]
    if "trio" in per:
        parts += [f"a decision {what} costs {per[k] / per['trio']:.1f} trio round trips"
                  for k, what in (("referee", "with pipes"), ("no-pipes", "without pipes")) if k in per]
    summary("instructions: " + "; ".join(parts))


if __name__ == "__main__":
    main()
