"""What the cluster path costs: games per second on a Dask LocalCluster of 1, 2 and 4 workers, and without one.

The same tournament (two-handed, between the instant C first-legal bots, so
that the referee's and the cluster's own work is what shows; jailed where
bubblewrap runs, as users run) is played:

* by the plain runner on this machine, one referee process per core
  (``concurrency`` = ``processes`` = cores), as ``tournament`` runs without
  ``--cluster``;
* on a ``LocalCluster`` of 1, 2 and 4 worker processes of one thread each
  (``dask worker --nthreads 1``, one referee per worker), loopback only,
  with the default batch of 8 games a task.

A cluster on one machine cannot be faster than the machine: the point is
the overhead of the cluster path (scheduling, pickling the configuration
with every task, records travelling back in batches), so the row to read is
the cluster with as many workers as cores against the plain runner. Each
configuration is played ``--rounds`` times in turn and the best rate is
kept, as the machine's speed moves from minute to minute.

    python bench/cluster_throughput.py [--games 200] [--rounds 3] [--workers 1 2 4]
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
from pathlib import Path

import trio
from _common import summary
from tabulate import tabulate

from referee.bots import jail
from tournaments.config import parse_config
from tournaments.runner import run_games
from tournaments.schedule import schedule
from tournaments.store import ResultStore, tournament_schedule


def rate(folder: Path, games: int, address: str | None, isolation: str) -> float:
    """Games per second of one tournament of ``games`` games, on the cluster at ``address`` or here."""
    cores = len(os.sched_getaffinity(0))
    data = {"tournament": {"games_per_pairing": games, "seed": 1, "isolation": isolation, "concurrency": cores,
                           "processes": cores},
            "bot": [{"name": "a", "sample": "first-legal"}, {"name": "b", "sample": "first-legal"}]}
    if address is not None:
        data["cluster"] = {"address": address}
    config = parse_config(data, folder / "bench.toml", output=folder / f"run-{time.monotonic_ns()}")
    specs = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, specs))
    started = time.monotonic()
    trio.run(run_games, config, specs, store)
    return len(specs) / (time.monotonic() - started)


def main() -> None:
    from distributed import LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per tournament (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="tournaments per configuration; the best counts")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    logging.getLogger("distributed").setLevel(logging.ERROR)
    isolation = "none" if jail.problem() else "jail"
    cores = len(os.sched_getaffinity(0))
    print(f"{args.games} two-handed games between first-legal bots, isolation {isolation}, {cores} cores; "
          f"best of {args.rounds}", flush=True)
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        clusters = {n: LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                                    dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) for n in args.workers}
        try:
            plain = f"plain runner ({cores} referee processes)"
            for _ in range(args.rounds):  # in turn, so every configuration sees the same machine
                best[plain] = max(best.get(plain, 0.0), rate(Path(tmp), args.games, None, isolation))
                for n, cluster in clusters.items():
                    label = f"LocalCluster, {n} worker{'s' if n != 1 else ''}"
                    best[label] = max(best.get(label, 0.0),
                                      rate(Path(tmp), args.games, cluster.scheduler_address, isolation))
        finally:
            for cluster in clusters.values():
                cluster.close()
    rows = [[label, f"{r:.1f}", f"{r / best[plain]:.2f}"] for label, r in best.items()]
    print(tabulate(rows, headers=["runner", "games/s", "of the plain runner"], tablefmt="github"))
    same = f"LocalCluster, {cores} worker{'s' if cores != 1 else ''}"
    if same in best:
        summary(f"cluster with {cores} workers: {best[same]:.1f} games/s, {best[same] / best[plain]:.2f} of the plain "
                f"runner's {best[plain]:.1f} on the same {cores} cores")


if __name__ == "__main__":
    main()
