"""What the league's background analysis takes, and gives back (docs/league.md, "Where each entrant lost its points").

Makes a league of greedy and random (one hand a game, unjailed) that plays ``--games`` games, turns its analysis on
at ``--share`` of a core and ``--worlds`` a decision, and starts the analyser as ``league run`` starts it, once for
each way its CPU is bounded (a control group's quota, where this process may make one, and the duty cycle in the
process), first on the machine as it is, then beside ``--hogs`` busy processes of normal priority, and (as root)
beside them again with the analyser given a normal priority back, so that its share alone bounds it. Over
``--seconds`` each, it prints the CPU the analyser used, as a share of one core, and the games it weighed a minute.
The share used should stay at or under the share asked; beside the hogs, at the lowest priority, it should fall to
about nothing. A shared machine's other work counts as hogs too: run it on a quiet one for the first figure.

    python bench/league_analysis.py                   # 0.25 of a core, 1024 worlds, 15 s a row
    python bench/league_analysis.py --share 0.5 --worlds 256 --seconds 30
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from league.analyser import Analyser  # noqa: E402
from league.analysis import STORE_FILE, AnalysisSettings, AnalysisStore, set_analysis_settings  # noqa: E402
from league.db import LeagueDB, database_url  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
HOG = "while True: pass"


def arena(*args: object) -> None:
    subprocess.run([sys.executable, "-m", "arena", *map(str, args)], cwd=ROOT, check=True, capture_output=True)


def cpu_seconds(pid: int) -> float:
    """User and system CPU of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def raise_priority(analyser: Analyser) -> None:
    """Give the analyser a normal priority back (root only): what is left bounding it is its share alone."""
    pid = analyser.process.pid
    os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
    os.setpriority(os.PRIO_PROCESS, pid, 0)
    Path(f"/proc/{pid}/autogroup").write_text("0")
    if analyser.group is not None:
        for name, value in (("cpu.idle", "0"), ("cpu.shares", "1024"), ("cpu.weight", "100")):
            if (analyser.group / name).exists():
                (analyser.group / name).write_text(value)


def measure(folder: Path, db: LeagueDB, share: float, grouped: bool, seconds: float,
            normal: bool = False) -> tuple[str, float, float]:
    """Start the analyser afresh (an empty store), let it work ``seconds``: how it was bounded, the share of a core
    it used, the games it weighed a minute. ``normal``: at a normal priority (its share alone bounds it)."""
    (folder / STORE_FILE).unlink(missing_ok=True)
    analyser = Analyser.start(folder, share, grouped)
    if normal:
        raise_priority(analyser)
    try:
        time.sleep(min(3.0, seconds / 4))  # (its imports and the compiled core's loading: not the steady state)
        store = AnalysisStore.open(folder)
        cpu, wall, done = cpu_seconds(analyser.process.pid), time.monotonic(), store.counts()["analysed"]
        time.sleep(seconds)
        used = (cpu_seconds(analyser.process.pid) - cpu) / (time.monotonic() - wall)
        weighed = (store.counts()["analysed"] - done) * 60 / seconds
        store.close()
    finally:
        analyser.stop()
    how = "control group" if analyser.group is not None else "duty cycle"
    return how, used, weighed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--share", type=float, default=0.25)
    parser.add_argument("--worlds", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "league"
        arena("league", "init", folder, "--boards", "--isolation", "none")
        for name in ("greedy", "random"):
            arena("league", "add", name, name, "--league", folder)
        arena("league", "run", folder, "--games", args.games)
        db = LeagueDB.open(database_url(folder))
        set_analysis_settings(db, AnalysisSettings(enabled=True, cpu_share=args.share, worlds=args.worlds,
                                                   backlog=args.games))
        rows = []
        for hogs, normal in ((0, False), (args.hogs, False), (args.hogs, True)):
            if normal and os.geteuid() != 0:
                continue  # (only root gives a priority back)
            busy = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(hogs)]
            try:
                for grouped in (True, False):
                    rows.append((hogs, "normal" if normal else "lowest",
                                 *measure(folder, db, args.share, grouped, args.seconds, normal)))
            finally:
                for hog in busy:
                    hog.kill()
                    hog.wait()
        db.close()
    load = os.getloadavg()[0]
    print(f"share asked: {args.share:g} of a core; {args.worlds} worlds a decision; {args.seconds:g} s a row; "
          f"load average now {load:.1f} on {os.cpu_count()} cores")
    print(f"{'busy processes':>14}  {'priority':<8}  {'bounded by':<14}  {'share used':>10}  {'games a minute':>14}")
    for hogs, priority, how, used, weighed in rows:
        print(f"{hogs:>14}  {priority:<8}  {how:<14}  {used:>10.3f}  {weighed:>14.1f}")
    lowest = [used for hogs, priority, _, used, _ in rows if hogs and priority == "lowest"]
    print(f"summary: share asked {args.share:g}; used at most {max(used for *_, used, _ in rows):.3f}; beside "
          f"{args.hogs} busy processes at the lowest priority {max(lowest):.3f}")


if __name__ == "__main__":
    main()
