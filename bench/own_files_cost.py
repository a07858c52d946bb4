"""Benchmark: what a file system of its own for every jailed bot process costs, against the host's files.

Two figures, each measured with the default (``own_files``: images mounted for
each process) and with the host's files (``own_files = false``, the jail
before), in alternating rounds so that both see the same machine:

* a bot start, spawn to ``ready`` and quit, in milliseconds, of every starter
  kit (built into a temporary folder with its own ``starter.toml``, where its
  tools are installed) and of the sample bots in Python, node and C;
* games per second of the fair-play default (a fresh jailed process for every
  bot of every game) between two C ``first-legal`` bots, which answer at
  once (so the start is all there is), at concurrency 1 and 2, run as a user
  runs ``tournament`` (from the command's start to its end).

The issue's targets: each start within 20 ms of the host's files, games per
second within 10%.

    python bench/own_files_cost.py [--starts 6] [--rounds 5] [--games 100] [--concurrency 1 2]
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import trio
from _common import ROOT, summary, tournament_rate
from tabulate import tabulate

from referee.bots import sandbox as sandboxes
from referee.bots.samples import SAMPLES
from referee.bots.transport import BotCommand
from referee.match.client import BotClient

MODES = {"host's files": False, "own files": True}
STARTERS = ROOT / "sample_bots" / "starters"


def kits(folder: Path) -> dict[str, BotCommand]:
    """Each starter kit whose tools are here, built in ``folder``; and the sample bots in Python, node and C."""
    found = {f"sample {name}": SAMPLES[name].command() for name in ("random", "tactician", "first-legal")}
    for kit in sorted(p.parent for p in STARTERS.glob("*/starter.toml")):
        spec = tomllib.loads((kit / "starter.toml").read_text())
        if not all(shutil.which(tool) for tool in spec["tools"]):
            print(f"  kit {kit.name}: skipped (needs {', '.join(spec['tools'])})")
            continue
        copy = folder / kit.name
        shutil.copytree(kit, copy, ignore=shutil.ignore_patterns("build", "target", "bin", "obj"))
        if spec["build"]:
            done = subprocess.run(spec["build"], shell=True, cwd=copy, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"  kit {kit.name}: build failed: {done.stderr.strip()[-200:]}")
                continue
        argv = shlex.split(spec["run"])
        argv = [str(copy / word) if (copy / word).exists() else word for word in argv]
        found[f"kit {kit.name}"] = BotCommand(tuple(argv), cwd=str(copy))
    return found


async def start_times(command: BotCommand, own_files: bool, starts: int, work: Path) -> list[float]:
    times = []
    sandbox = sandboxes.Sandbox(own_files=own_files)
    async with trio.open_nursery() as nursery:
        for _ in range(starts):
            started = time.perf_counter()
            client = await BotClient.start(nursery, command, sandbox=sandbox, workdir=work)
            times.append((time.perf_counter() - started) * 1000)
            await client.quit()
    return times


def games_per_second(own_files: bool, games: int, concurrency: int, folder: Path) -> float:
    config = folder / f"own-{own_files}.toml"
    config.write_text("\n".join([
        "[tournament]", 'format = "round-robin"', 'variant = "two-handed"', f"games_per_pairing = {games}",
        f"concurrency = {concurrency}", f"own_files = {str(own_files).lower()}", "",
        "[[bot]]", 'name = "a"', 'sample = "first-legal"', "", "[[bot]]", 'name = "b"', 'sample = "first-legal"', ""]))
    out = folder / f"out-{own_files}-{concurrency}-{time.monotonic_ns()}"
    command = [sys.executable, "-m", "arena", "tournament", str(config), "--out", str(out), "--no-report",
               "--bootstrap", "0"]
    rate, _ = tournament_rate(command, out, ROOT)
    shutil.rmtree(out, ignore_errors=True)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=6, help="starts of each bot in each mode and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=100, help="games of each tournament run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    problem = sandboxes.own_files_problem()
    if problem:
        sys.exit(f"no file system of its own for each bot here: {problem}")
    with tempfile.TemporaryDirectory(prefix="pa-own-files-") as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)
        bots = kits(folder)
        starts: dict[str, dict[bool, list[float]]] = {name: {False: [], True: []} for name in bots}
        rates: dict[int, dict[bool, list[float]]] = {c: {False: [], True: []} for c in args.concurrency}
        for number in range(args.rounds):
            order = list(MODES.values()) if number % 2 == 0 else list(reversed(MODES.values()))
            for own in order:
                for name, command in bots.items():
                    starts[name][own] += trio.run(start_times, command, own, args.starts, folder / "work")
                for concurrency in args.concurrency:
                    rates[concurrency][own].append(games_per_second(own, args.games, concurrency, folder))
            print(f"round {number + 1}: " + ", ".join(
                f"c{c} {rates[c][False][-1]:.1f} -> {rates[c][True][-1]:.1f} games/s" for c in args.concurrency),
                flush=True)
    rows = [[name, f"{statistics.median(t[False]):.1f}", f"{statistics.median(t[True]):.1f}",
             f"{statistics.median(t[True]) - statistics.median(t[False]):+.1f}"] for name, t in starts.items()]
    print(tabulate(rows, headers=["bot start (median ms)", "host's files", "own files", "difference"],
                   tablefmt="github"))
    ratios = {c: [own / host for own, host in zip(r[True], r[False], strict=True)] for c, r in rates.items()}
    print(tabulate([[f"concurrency {c}", f"{statistics.median(r[False]):.1f}", f"{statistics.median(r[True]):.1f}",
                     f"{min(ratios[c]):.2f} / {statistics.median(ratios[c]):.2f} / {max(ratios[c]):.2f}"]
                    for c, r in rates.items()],
                   headers=["games/s (median)", "host's files", "own files", "own / host (min / median / max)"],
                   tablefmt="github"))
    worst = max(rows, key=lambda row: float(row[3]))
    summary(f"own files: starts {worst[3]} ms at worst ({worst[0]}); games/s "
            + ", ".join(f"c{c} {statistics.median(r):.2f}x" for c, r in ratios.items()))


if __name__ == "__main__":
    main()
