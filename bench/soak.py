"""Soak test: a long tournament in which a third of the entrants misbehave in rotating ways.

Six entrants, a duplicate round robin: four well-behaved bots (the C
first-legal bot, the random and greedy samples, a noisy greedy) and two
copies of tests/bots/faulty.py in "rotate" mode, which picks a different
fault in each game from its id: sleeping, crashing, segfaulting, closing
stdout, garbage, invalid UTF-8, endless lines, output floods, double and
unasked replies, illegal cards, grandchildren in and out of the process
group, unbounded memory, spinning on every core, stderr floods, wedging
between games (and playing well in some games).

Reports games completed, terminations by kind, faults charged to good bots
(must be 0), peak referee memory, leftover processes (must be 0) and
results lost (must be 0: every scheduled game is in the results file and
replays). Asserts nothing; prints figures.

    python bench/soak.py [--games-per-pairing N] [--concurrency N]
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tabulate import tabulate  # noqa: E402

from referee.bots.sandbox import MARKER  # noqa: E402
from referee.records.record import Termination, read_records  # noqa: E402
from referee.records.replay import replay_record  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.runner import run_games  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.store import ResultStore, tournament_schedule  # noqa: E402

FAULTY = ROOT / "tests" / "bots" / "faulty.py"
BAD = ("rotten-a", "rotten-b")


def leftover_processes() -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    if (MARKER + "=").encode() in f.read():
                        count += 1
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    if int(f.read().rsplit(b")", 1)[1].split()[1]) == os.getpid():
                        count += 1  # a child of the referee that is still there (or a zombie)
            except OSError:
                pass
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-pairing", type=int, default=134, help="even; 15 pairings (default 134: 2,010 games)")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="soak-"))
    data = {
        # one referee process, so its peak memory is the figure reported (the bots are other processes)
        "tournament": {"name": "soak", "games_per_pairing": args.games_per_pairing, "concurrency": args.concurrency,
                       "processes": 1, "seed": 11, "options": {"target": 250}},
        "time": {"bank": 20000, "increment": 0, "move": 300, "grace": 100},
        "limits": {"memory": 512, "cpu": 60},
        "bot": [
            {"name": "first-legal", "sample": "first-legal"},
            {"name": "random", "sample": "random"},
            {"name": "greedy", "sample": "greedy"},
            {"name": "greedy-noisy", "command": f"{sys.executable} {ROOT / 'sample_bots' / 'greedy_bot.py'} --noise 0.2"},
        ] + [{"name": name, "command": f"{sys.executable} {FAULTY} rotate {name}"} for name in BAD],
    }
    config = parse_config(data, out / "soak.toml", output=out / "results")
    games = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, games))
    print(f"soak: {len(games)} games, {len(config.entrants)} entrants ({len(BAD)} misbehaving), "
          f"concurrency {config.concurrency}, results in {config.output}")
    done = 0
    start = time.monotonic()

    def on_game(record) -> None:
        nonlocal done
        done += 1
        if done % 100 == 0 or done == len(games):
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"  {done}/{len(games)} games, {time.monotonic() - start:.0f} s, peak RSS {rss:.0f} MiB", flush=True)

    trio.run(run_games, config, games, store, on_game)
    seconds = time.monotonic() - start
    peak_play = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    records = list(read_records(store.games_path, store.key))
    kinds = collections.Counter(r.termination.value for r in records)
    good_faults = sum(1 for r in records if r.termination is not Termination.COMPLETED
                      and r.seats[r.culprit].entrant not in BAD)
    ids = {r.game_id for r in records}
    lost = sum(1 for g in games if g.game_id not in ids)
    unsound = sum(1 for r in records if not replay_record(r).ok)
    leftovers = leftover_processes()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # with every record read and replayed
    rows = [["games scheduled", len(games)], ["games recorded", len(records)],
            ["games completed", kinds.get("completed", 0)]]
    rows += [[f"  ended by {kind}", count] for kind, count in sorted(kinds.items()) if kind != "completed"]
    rows += [["faults charged to a good bot", good_faults], ["results lost", lost],
             ["records that do not replay", unsound], ["leftover processes", leftovers],
             ["peak referee RSS while playing (MiB)", f"{peak_play:.0f}"],
             ["peak RSS after reading and replaying every record (MiB)", f"{peak:.0f}"], ["wall time (s)", f"{seconds:.0f}"],
             ["games per second", f"{len(records) / seconds:.1f}"]]
    print(tabulate(rows, headers=["soak", "value"], tablefmt="github"))
    ok = lost == 0 and leftovers == 0 and good_faults == 0 and unsound == 0
    print(f"summary: soak {len(records)} games, {sum(kinds.values()) - kinds.get('completed', 0)} faults, "
          f"lost {lost}, leftovers {leftovers}, peak referee RSS {peak_play:.0f} MiB: {'OK' if ok else 'PROBLEM'}")


if __name__ == "__main__":
    main()
