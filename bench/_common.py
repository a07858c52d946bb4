"""Helpers shared by the benchmarks: building their C programs, timing, the summary line."""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.bots.samples import build_c  # noqa: E402

C_DIR = Path(__file__).resolve().parent / "c"
BUILD = Path(__file__).resolve().parent / "build"


def c_program(name: str) -> Path:
    """bench/c/NAME.c compiled to bench/build/NAME (rebuilt when the source is newer)."""
    binary = BUILD / name
    build_c(C_DIR / f"{name}.c", binary)
    return binary


RESAMPLES = 2000


def interval(units: list[list[float]], rng: random.Random) -> tuple[float, float, float]:
    """Mean of the values, with a 95% bootstrap interval over the units (deal pairs, boards, deals)."""
    flat = [x for unit in units for x in unit]
    means = []
    for _ in range(RESAMPLES):
        pick = [x for _ in units for x in units[rng.randrange(len(units))]]
        means.append(sum(pick) / len(pick))
    means.sort()
    return sum(flat) / len(flat), means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def points_a_hand(record: dict) -> list[float]:
    """Each seat's points a hand in a game record (the mean over its hands)."""
    hands = record["hands"]
    return [sum(hand["points"][s] for hand in hands) / len(hands) for s in range(len(record["seats"]))]


def side_margin(points: list[float], ours: list[int]) -> float:
    """The mean points of the seats ``ours`` less the other seats' mean."""
    theirs = [s for s in range(len(points)) if s not in ours]
    return sum(points[s] for s in ours) / len(ours) - sum(points[s] for s in theirs) / len(theirs)


def capacity(error: float) -> float:
    """Bits per use of a binary symmetric channel that flips a bit with probability ``error``: 1 - H(error)."""
    if error in (0.0, 1.0):
        return 1.0
    entropy = -error * math.log2(error) - (1 - error) * math.log2(1 - error)
    return 1.0 - entropy


def summary(text: str) -> None:
    """The one-line summary every benchmark ends with (make bench collects these)."""
    print(f"summary: {text}", flush=True)


T_975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 14: 2.14, 19: 2.09,
         29: 2.05}  # Student's t, two-sided 95%, by degrees of freedom


def geometric_mean_interval(ratios: list[float]) -> str:
    """"G (95% L-H)": the geometric mean of ``ratios`` with a 95% interval (Student's t over their logarithms)."""
    if len(ratios) < 2:
        return "-"
    logs = [math.log(r) for r in ratios]
    mean, sd = statistics.fmean(logs), statistics.stdev(logs)
    dof = len(logs) - 1
    t = T_975.get(dof) or T_975[max(k for k in T_975 if k <= dof)]  # (the next smaller listed: a little wide)
    half = t * sd / math.sqrt(len(logs))
    return f"{math.exp(mean):.2f} (95% {math.exp(mean - half):.2f}-{math.exp(mean + half):.2f})"


async def read_all(stream, into: bytearray) -> None:
    """Everything a process writes to ``stream``, appended to ``into`` until it closes."""
    while chunk := await stream.receive_some(1 << 16):
        into += chunk


def jailed_output(code: int, out: bytearray, err: bytearray) -> str:
    """A jailed run's stdout, or RuntimeError with the end of its stderr if it failed."""
    if code != 0:
        raise RuntimeError(f"jailed run failed: {err.decode(errors='replace').strip()[-300:]}")
    return out.decode()


def tournament_rate(command: list[str], out: Path, cwd: Path) -> tuple[float, float]:
    """Run a ``tournament`` command as a user does, timed from its start to its end: (games/s, decisions/s) of
    the records it wrote in ``out``."""
    import subprocess

    from referee.records.record import read_records
    from tournaments.store import ResultStore

    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    store = ResultStore(out)
    records = list(read_records(store.games_path, store.key))
    return len(records) / elapsed, sum(len(r.actions) for r in records) / elapsed
