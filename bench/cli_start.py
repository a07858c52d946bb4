#!/usr/bin/env python3
"""The start of a command: CPU and wall time of ``pinochle-arena`` for its help and its quick commands.

Each command runs as a user runs it, in a fresh interpreter (``python -c 'from arena.cli import main ...'``), in a
folder holding a small league (two entrants, no games) and a results folder of two games; the figures are the
median over ``--rounds`` runs of the child's CPU (user + system, from ``getrusage``) and its wall time. With
``--source CHECKOUT`` (a folder holding another checkout of the project, e.g. ``git archive REV | tar -x -C DIR``)
the same commands run on that code too, rounds interleaved, and the table shows both and their ratio.

docs/performance.md, "Start of a command", has the figures and what made them.

    python bench/cli_start.py [--rounds 7] [--source CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PACKAGES = ("arena", "referee", "protocol", "tournaments", "league", "viewer", "analysis", "sample_bots")
MAIN = "import sys; from arena.cli import main; sys.exit(main(sys.argv[1:]))"

# (what the table calls it, its words); LEAGUE and RESULTS are the folders made below.
COMMANDS = [
    ("--help", ["--help"]),
    ("ratings --help", ["ratings", "--help"]),
    ("variants", ["variants"]),
    ("ratings RESULTS", ["ratings", "RESULTS"]),
    ("league list", ["league", "list", "LEAGUE"]),
    ("league show", ["league", "show", "LEAGUE"]),
    ("match --help", ["match", "--help"]),
    ("match, 2 games", ["match", "random", "random", "--games", "2", "--isolation", "none", "--no-report",
                        "--out", "OUT"]),
]


def run_once(source: Path, words: list[str], folder: Path) -> tuple[float, float]:
    """CPU and wall seconds of one command run on the code in ``source``."""
    out = Path(tempfile.mkdtemp(dir=folder)) / "out"
    given = [str(folder / w) if w in ("LEAGUE", "RESULTS") else str(out) if w == "OUT" else w for w in words]
    env = dict(os.environ, PYTHONPATH=str(source))  # (before the editable install's path: this checkout's code)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MAIN, *given], cwd=folder, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(words)} failed on {source}: {done.stderr.strip().splitlines()[-1:]}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def make_folders(folder: Path) -> None:
    """A league of two entrants (no games) and a results folder of two games."""
    for words in (["league", "init", "LEAGUE", "--isolation", "none"],
                  ["league", "add", "--league", "LEAGUE", "one", "random"],
                  ["league", "add", "--league", "LEAGUE", "two", "greedy"],
                  ["match", "random", "greedy", "--games", "2", "--isolation", "none", "--no-report",
                   "--out", "RESULTS"]):
        given = [str(folder / w) if w in ("LEAGUE", "RESULTS") else w for w in words]
        subprocess.run([sys.executable, "-c", MAIN, *given], cwd=folder, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--source", type=Path, default=None, help="another checkout to measure beside this one")
    args = parser.parse_args()
    sources = {"now": ROOT} | ({"source": args.source.resolve()} if args.source else {})
    for source in sources.values():  # bytecode first, as an install has it: a command's first run would compile
        subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(source / p) for p in PACKAGES)], check=True)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        make_folders(folder)
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.rounds):
            for label, words in COMMANDS:
                for which, source in sources.items():
                    figures.setdefault((label, which), []).append(run_once(source, words, folder))
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.rounds} runs, ms (CPU / wall)")
    print_table(figures, list(sources))


def print_table(figures: dict[tuple[str, str], list[tuple[float, float]]], sources: list[str]) -> None:
    head = "| command | " + " | ".join(f"{s} CPU / wall" for s in sources)
    print(head + (" | CPU source / now |" if len(sources) > 1 else " |"))
    print("| --- " * (len(sources) + 1 + (len(sources) > 1)) + "|")
    for label, _ in COMMANDS:
        cpu = {s: statistics.median(c for c, _ in figures[label, s]) * 1000 for s in sources}
        wall = {s: statistics.median(w for _, w in figures[label, s]) * 1000 for s in sources}
        cells = " | ".join(f"{cpu[s]:.0f} / {wall[s]:.0f}" for s in sources)
        ratio = f" | {cpu['source'] / cpu['now']:.2f}x" if len(sources) > 1 else ""
        print(f"| `{label}` | {cells}{ratio} |")


if __name__ == "__main__":
    main()
