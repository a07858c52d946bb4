"""Benchmark 1: the pipe limit. Request/reply round trips per second over pipes.

* C <-> C: a C driver and a C echo program (bench/c/pingpong.c, echo.c): the
  physical limit of this machine.
* trio <-> C: the same echo program driven from trio the way the referee
  drives a bot (``trio.lowlevel.open_process``, ``send_all``,
  ``receive_some``): the language limit.

Each rate is the best of five short runs (the machine is shared and noisy).
Messages are the protocol's sizes: an 80-byte request line (a ``go follow``
with its legal cards) and a 3-byte reply (``AS``).

    python bench/pipe_limit.py [--seconds S]
"""

from __future__ import annotations

import argparse
import subprocess
import time

import trio
from _common import c_program, summary
from tabulate import tabulate

REQUEST = (b"go follow 4900 59000 " + b" ".join([b"AS", b"TS", b"KS", b"QS", b"JS", b"9S"] * 4))[:79] + b"\n"


def c_rate(trips: int) -> float:
    out = subprocess.run([str(c_program("pingpong")), str(c_program("echo")), str(trips), str(len(REQUEST))],
                         capture_output=True, text=True, check=True)
    return float(out.stdout)


async def trio_round_trips(seconds: float) -> float:
    process = await trio.lowlevel.open_process([str(c_program("echo"))], stdin=subprocess.PIPE,
                                               stdout=subprocess.PIPE)
    trips = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        await round_trips(process, 1000)
        trips += 1000
        now = time.perf_counter()
        if now >= deadline:
            break
    await process.stdin.aclose()
    await process.wait()
    return trips / (now - start)


async def round_trips(process: trio.Process, n: int) -> None:
    """``n`` requests to the echo program, each waiting for its reply line, as the referee does."""
    for _ in range(n):
        await process.stdin.send_all(REQUEST)
        data = b""
        while not data.endswith(b"\n"):
            data += await process.stdout.receive_some(4096)


def measure(seconds: float = 2.0, rounds: int = 5) -> dict[str, float]:
    """Both rates, each the best of ``rounds`` short runs (this machine's CPU time is shared and noisy)."""
    c = c_rate(20000)
    c = max(c_rate(max(int(c * seconds / rounds), 1000)) for _ in range(rounds))
    t = max(trio.run(trio_round_trips, seconds / rounds) for _ in range(rounds))
    return {"c": c, "trio": t}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    rates = measure(args.seconds)
    print(tabulate([["C <-> C (physical limit)", f"{rates['c']:,.0f}", "1.00"],
                    ["trio <-> C (language limit)", f"{rates['trio']:,.0f}", f"{rates['trio'] / rates['c']:.2f}"]],
                   headers=["pipe round trips", "per second", "of C"], tablefmt="github"))
    summary(f"pipe limit: C {rates['c']:,.0f} round trips/s, trio {rates['trio']:,.0f}/s "
            f"({rates['trio'] / rates['c']:.0%} of C)")


if __name__ == "__main__":
    main()
