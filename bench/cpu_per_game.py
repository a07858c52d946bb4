#!/usr/bin/env python3
"""Issue 38's ceiling: CPU per game, fastchess against pinochle-arena, and what a jailed start may cost.

With both cores busy (concurrency 2 on a 2-core machine) games per second
are set by CPU per game: each run's games share the same cores. So the
ratio of fastchess's CPU per game to ours bounds the games/s ratio that
``versus_fastchess.py`` measures at concurrency 2. This script measures:

* CPU per game (user + system of the whole process tree: the command, its
  workers and every bot, as the kernel accounts the processes it reaped)
  of fastchess between two instant scripted engines, and of
  pinochle-arena's tournament between two instant C ``first-legal`` bots
  with ``--isolation none --persist``, with ``--persist`` in the jail,
  with ``--no-kept-jail`` (a fresh jail for every bot of every game) and
  with its defaults (a fresh process a game in a kept jail, as root:
  docs/jail.md), all ``--no-report``, one game at a time;
* CPU per jailed start of the same bot (the referee's own work, the
  processes that set the jail up, the bot's exec, handshake and stop), in
  this process, in a fresh jail, in a kept jail and without a jail.

It prints, for the concurrency-2 target of 0.5x fastchess with the
defaults: the bound with processes kept (no start at all), the bound with
today's starts, and the CPU a jailed start could cost at most for the
target to be reachable with today's per-decision cost. Not counted: the
kernel's deferred work in its own threads (tearing down a jail's
namespaces, removing control groups), which only makes our side dearer.

    python bench/cpu_per_game.py [--games 200] [--starts 40]
    (needs fastchess: python bench/versus_fastchess.py --build)
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio
from _common import ROOT, summary
from tabulate import tabulate
from versus_fastchess import FASTCHESS, PEERS, SCRIPTED

from referee.bots.samples import SAMPLES
from referee.bots import kept
from referee.bots.sandbox import Isolation, Sandbox, is_kept
from referee.match.client import BotClient

ROWS = {  # row -> the tournament command's flags
    "--isolation none --persist": ["--isolation", "none", "--persist"],
    "jail --persist": ["--persist"],
    "--no-kept-jail (a fresh jail, a fresh process a game)": ["--no-kept-jail"],
    "defaults (a kept jail, a fresh process a game)": [],
}


KEPT = Sandbox(isolation=Isolation.JAIL, kept_jail=True)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_of(command: list[str], cwd: Path) -> float:
    """CPU seconds of ``command`` and everything it started (and reaped)."""
    before = children_cpu()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return children_cpu() - before


def fastchess_ms(games: int) -> float:
    engine = [f"cmd={SCRIPTED}", f"args={PEERS / 'script.txt'}"]
    command = [str(FASTCHESS), "-engine", *engine, "name=A", "-engine", *engine, "name=B", "-each", "tc=100+1",
               "-rounds", str(games // 2), "-games", "2", "-concurrency", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        return cpu_of(command, Path(tmp)) / (games // 2 * 2) * 1000


def arena_ms(flags: list[str], games: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "arena", "tournament", "--bot", "first-legal", "--bot", "first-legal",
                   "--games", str(games), "--concurrency", "1", "--processes", "1", "--no-report",
                   "--out", str(Path(tmp) / "out"), *flags]
        return cpu_of(command, ROOT) / games * 1000


async def _starts(sandbox: Sandbox, starts: int, folder: Path) -> None:
    command = SAMPLES["first-legal"].command()
    async with trio.open_nursery() as nursery:
        for _ in range(starts):
            client = await BotClient.start(nursery, command, sandbox=sandbox, workdir=folder / "work")
            await client.quit()
        nursery.cancel_scope.cancel()


def start_ms(sandbox: Sandbox, starts: int) -> float:
    """CPU milliseconds of one start, handshake and stop of the first-legal bot, every process counted."""
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(_starts, sandbox, 2, Path(tmp))  # first use: the jail's checks, the control groups' folders
        before = own_cpu() + children_cpu()
        trio.run(_starts, sandbox, starts, Path(tmp))
        kept.close_idle()  # a kept jail's CPU is counted once it is reaped (its making: one jail for all starts)
        time.sleep(0.2)  # the last stop's reaping, which runs behind
        return (own_cpu() + children_cpu() - before) / starts * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games of each run")
    parser.add_argument("--starts", type=int, default=40, help="bot starts measured in each mode")
    args = parser.parse_args()
    if not (FASTCHESS.exists() and SCRIPTED.exists()):
        sys.exit("fastchess is not built: python bench/versus_fastchess.py --build (needs make and a C++ compiler)")
    Sandbox(isolation=Isolation.JAIL).check()
    fast = fastchess_ms(args.games * 2)
    ours = {row: arena_ms(flags, args.games) for row, flags in ROWS.items()}
    jailed = start_ms(Sandbox(isolation=Isolation.JAIL, kept_jail=False), args.starts)
    in_kept = start_ms(KEPT, args.starts) if is_kept(KEPT) else None
    unjailed = start_ms(Sandbox(isolation=Isolation.NONE), args.starts)
    rows = [["fastchess, engines kept", f"{fast:.1f}", "1"]]
    rows += [[row, f"{ms:.1f}", f"{fast / ms:.2f}"] for row, ms in ours.items()]
    print(tabulate(rows, headers=["CPU per game, one at a time", "ms", "fastchess's over ours: the bound at "
                                  "concurrency 2"], tablefmt="github"))
    kept = ours["--isolation none --persist"]
    allowed = (fast / 0.5 - kept) / 2
    kept_text = f", {in_kept:.1f} ms in a kept jail" if in_kept is not None else " (no kept jail here: not root?)"
    print(f"\nCPU of one bot's start and stop: {jailed:.1f} ms in a fresh jail{kept_text}, {unjailed:.1f} ms "
          "unjailed")
    print(f"for the defaults to reach 0.5x fastchess at concurrency 2 with today's cost per decision, a jailed "
          f"start may cost at most {allowed:.1f} ms of CPU (two a game)")
    summary(f"CPU a game: fastchess {fast:.1f} ms; ours {kept:.1f} kept unjailed, "
            f"{ours['defaults (a kept jail, a fresh process a game)']:.1f} with the defaults; a start in a fresh jail "
            f"{jailed:.1f} ms{kept_text}, against {allowed:.1f} allowed for 0.5x at concurrency 2")


if __name__ == "__main__":
    main()
