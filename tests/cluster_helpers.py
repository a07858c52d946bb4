"""What the cluster tests share: tournament data, playing one, extra workers (their LocalCluster: conftest.py)."""

import contextlib
import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import trio

from referee.records.record import read_records
from tournaments.cluster import cluster_workers
from tournaments.config import parse_config
from tournaments.runner import WorkerHooks, run_games
from tournaments.schedule import schedule
from tournaments.store import ResultStore, tournament_schedule

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"python3 {ROOT / 'sample_bots' / 'random_bot.py'} 7"
GREEDY = ROOT / "sample_bots" / "greedy_bot.py"


def tournament_data(address: str | None, games: int = 8, batch: int = 2, isolation: str = "none", bots=None) -> dict:
    data = {
        "tournament": {"games_per_pairing": games, "seed": 11, "isolation": isolation, "concurrency": 2,
                       "processes": 1, "options": {"target": 300}},
        "time": {"bank": 60000, "increment": 0, "move": 10000},  # roomy: a busy machine must not forfeit games
        "bot": bots or [{"name": "greedy", "sample": "greedy"}, {"name": "rnd", "command": RANDOM}],
    }
    if address is not None:
        data["cluster"] = {"address": address, "batch": batch}
    return data


def play(data: dict, out: Path, hooks: WorkerHooks | None = None):
    config = parse_config(data, out.parent / "t.toml", output=out)
    games = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, games))
    trio.run(functools.partial(run_games, config, games, store, hooks=hooks or WorkerHooks()))
    return games, list(read_records(store.games_path, store.key))


def outcome(record) -> tuple:
    """What a game came to (its moves, not their timing)."""
    return (tuple(s.entrant for s in record.seats), record.totals, record.result,
            [(a.seat, a.action) for a in record.actions])


def _joined(client, name: str, worker: subprocess.Popen) -> str:
    """The address of the worker called ``name``, once the scheduler lists it (by name: counting workers would be
    fooled by one of the fixture's own coming back from a restart at the same moment)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and worker.poll() is None:
        found = [a for a, w in cluster_workers(client).items() if w["name"] == name]
        if found:
            return found[0]
        time.sleep(0.05)
    raise RuntimeError(f"worker {name} did not join the cluster (exit status {worker.poll()})")


@contextlib.contextmanager
def extra_worker(client, address: str, name: str, path: str | None = None, preload: Path | None = None,
                 flags: tuple[str, ...] = ()):
    """One more worker process of this test's own (no nanny), with its own PATH or a preload script; yields its
    address once the scheduler has it, and stops it at the end."""
    argv = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
            "--no-dashboard", "--name", name, "--host", "127.0.0.1", *flags]
    if preload is not None:
        argv += ["--preload", str(preload)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), **({"PATH": path} if path else {})}
    worker = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield _joined(client, name, worker)
    finally:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)
