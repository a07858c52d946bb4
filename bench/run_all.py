"""Run every benchmark (make bench) and print their one-line summaries together at the end.

Each benchmark prints its own table; this collects the ``summary:`` lines and
the time each took. The soak test is separate (make soak).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tabulate import tabulate

HERE = Path(__file__).resolve().parent
BENCHMARKS = [
    ("1 pipe limit", ["pipe_limit.py"]),
    ("2 referee throughput", ["referee_throughput.py"]),
    ("3 rules engine", ["rules_engine.py"]),
    ("4 memory", ["memory.py"]),
    ("5 clock accuracy", ["clock_accuracy.py"]),
    ("duplicate deals", ["duplicate_vs_independent.py", "--repeats", "3"]),
    ("boards", ["boards_vs_games.py", "--hands", "500", "--seeds", "1", "2"]),
    ("6 jail cost", ["jail_cost.py"]),
    ("a jailed game, step by step", ["game_breakdown.py", "--games", "40", "--profile", "0"]),
    ("a file system of its own: cost", ["own_files_cost.py", "--rounds", "3"]),
    ("page cache channel", ["page_cache_channel.py"]),
    ("CPU contention channel", ["contention_channel.py"]),
    ("cluster", ["cluster_throughput.py", "--games", "100", "--rounds", "2"]),
]


def main() -> int:
    rows = []
    failed = 0
    start = time.monotonic()
    for name, argv in BENCHMARKS:
        print(f"\n=== {name}: {' '.join(argv)}", flush=True)
        t = time.monotonic()
        process = subprocess.Popen([sys.executable, str(HERE / argv[0]), *argv[1:]], stdout=subprocess.PIPE, text=True)
        summary = ""
        for line in process.stdout:
            print(line, end="", flush=True)
            if line.startswith("summary: "):
                summary = line[len("summary: "):].strip()
        code = process.wait()
        if code != 0:
            failed += 1
            summary = f"FAILED (exit status {code})"
        rows.append([name, f"{time.monotonic() - t:.0f}", summary])
    print(f"\n=== summary ({time.monotonic() - start:.0f} s in all)")
    print(tabulate(rows, headers=["benchmark", "s", "result"], tablefmt="github"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
