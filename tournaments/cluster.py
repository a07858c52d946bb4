"""Play a tournament's games on a Dask cluster: the client side.

``tournament --cluster tcp://HOST:8786`` (or ``[cluster] address``) sends
the games to a Dask scheduler as tasks, one task a *batch* of games
(``[cluster] batch``, default 8; on boards, one run of boards of one
seating), each played by :func:`tournaments.cluster_worker.play_batch` in a
worker's thread. This machine stays the only writer: records come back with
each finished batch and go to the same writer as on one machine (appended,
fsynced, sealed here; the workers never see the key).

Why tasks and not a long-lived actor per worker: Dask retries a task whose
worker was lost (its batch is played again elsewhere, and since a batch's
records come back only with the whole batch, nothing is counted twice),
while an actor dies with its worker and takes its state along. A batch is
small enough that replaying one costs little, and big enough that the
scheduler's overhead per task is noise next to the games.

The batches are handed out a few at a time (twice the cluster's threads),
so a stopped tournament has little in flight, and a 'never' entrant's fault
reaches later batches. Faults of the cluster are not faults of bots:

* a worker lost mid-batch: Dask plays the batch again on another worker;
  a batch that takes down ``distributed.scheduler.allowed-failures`` + 1
  workers (3 by default) stops the tournament (:class:`ClusterError`);
* a worker that cannot start the bots (:class:`~tournaments.cluster_worker.CannotPlayHere`)
  is reported once and its batches go to the other workers; with none
  left the tournament stops;
* any other failure of a batch (a worker's link dropped, a full disk) is
  the cluster's too: the batch is played again, ``BATCH_ATTEMPTS`` times at
  most; a lost scheduler stops the tournament with :class:`ClusterError`;
* Ctrl-C (or any stop) sets the run's stop event, and the workers close
  their batches' bots within a second; the records already back are kept.
"""

from __future__ import annotations

import collections
import hashlib
import itertools
import logging
import secrets
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import trio

from referee.match import board_run_groups, file_safe
from referee.records.record import GameRecord

from .cluster_worker import BatchResult, CannotPlayHere, PathMap, ShipError, installed_version, pack, play_batch
from .config import TournamentConfig
from .schedule import GameSpec, board_and_seating

CONNECT_TIMEOUT = 20  # seconds to reach the scheduler
WAIT = 0.1  # seconds between looks for finished batches (and for Ctrl-C)
STOP_TIMEOUT = 5  # seconds a stopped tournament waits to tell the workers and let go of the cluster
CLOSE_TIMEOUT = 3  # seconds to close the connection to the scheduler
BATCH_ATTEMPTS = 3  # a batch that fails this often for the cluster's reasons (not a lost worker) stops the run


class ClusterError(RuntimeError):
    """The cluster cannot run the tournament (unreachable, no worker able to start the bots, a batch that keeps
    killing workers); the message says which and what to do."""


def batches(config: TournamentConfig, games: Sequence[GameSpec]) -> list[list[GameSpec]]:
    """The tasks: ``config.cluster.batch`` games in a row; on boards, each run of one seating, so that a task's
    processes play the boards a process plays on one machine."""
    if config.boards:
        return board_run_groups(games, board_and_seating)
    size = config.cluster.batch
    return [list(games[i:i + size]) for i in range(0, len(games), size)]


async def run_on_cluster(config: TournamentConfig, games: Sequence[GameSpec], logs: Path,
                         deliver: Callable[[GameRecord], None], transcripts: bool,
                         retired: set[str], note_retirement: Callable[[GameRecord, set[str]], None],
                         on_batch: Callable | None = None) -> None:
    """Play ``games`` on the cluster; each record is passed to ``deliver`` (which must not block) as its batch
    comes back. Its bots' logs go to ``logs/cluster/WORKER/``. ``on_batch(client, result)``, a test seam, is
    called in the thread that talks to the cluster as each batch comes back."""
    work = batches(config, games)
    if not work:
        return
    try:
        archives = {folder: pack(folder) for _, folder in config.shipped}
    except ShipError as e:
        raise ClusterError(str(e)) from None
    digests = {folder: hashlib.sha256(data).hexdigest() for folder, data in archives.items()}
    paths = PathMap.of_client(digests)
    stopping, stopped = threading.Event(), threading.Event()
    try:
        await trio.to_thread.run_sync(_drive, config, work, logs, deliver, transcripts, retired, note_retirement,
                                      paths, {digests[f]: data for f, data in archives.items()}, on_batch,
                                      stopping, stopped, abandon_on_cancel=True)  # Ctrl-C reaches us at once
    except BaseException:
        stopping.set()  # the thread tells the workers to stop, and closes the client; records back are kept
        with trio.CancelScope(shield=True), trio.move_on_after(STOP_TIMEOUT):
            await trio.to_thread.run_sync(stopped.wait)
        raise


def _connect(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("playing on a cluster needs Dask's distributed: pip install 'pinochle-arena[cluster]'") \
            from None
    # Dask logs its own tracebacks when a connection drops; the tournament says what went wrong in one line.
    for name in ["distributed", *(n for n in logging.root.manager.loggerDict if n.startswith("distributed."))]:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e or type(e).__name__} (is "
                           f"'dask scheduler' running there, and its port open to this machine?)") from None


def _drive(config, work, logs, deliver, transcripts, retired, note_retirement, paths, archives, on_batch,
           stopping: threading.Event, stopped: threading.Event) -> None:
    """In a thread: submit the batches a few at a time, hand back records as batches finish, until all are
    done or ``stopping`` is set (the tournament was stopped); ``stopped`` is set when it has let go of the
    cluster."""
    try:
        _drive_cluster(config, work, logs, deliver, transcripts, retired, note_retirement, paths, archives, on_batch,
                       stopping)
    finally:
        stopped.set()


def _drive_cluster(config, work, logs, deliver, transcripts, retired, note_retirement, paths, archives, on_batch,
                   stopping) -> None:
    from distributed import Event, as_completed
    from distributed.scheduler import KilledWorker

    address = config.cluster.address
    client = _connect(address)
    run = secrets.token_hex(8)
    stop = Event(f"pinochle-arena-stop-{run}", client=client)
    todo = collections.deque(enumerate(work))
    running: dict = {}  # future -> (index, batch)
    attempts: collections.Counter = collections.Counter()  # by batch: times it failed for the cluster's reasons
    refused: dict[str, str] = {}  # worker address -> why it cannot play
    version = installed_version()
    # The shipped folders as tasks, not scattered data: a task's result lost with its worker is computed again
    # (from the bytes the scheduler keeps), while scattered data lost with every holder is gone for good.
    shipped = {digest: client.submit(_archive, data, key=f"pinochle-arena-{run}-ship-{digest}", pure=False)
               for digest, data in archives.items()}
    finishing = as_completed(loop=client.loop)
    keys = itertools.count()  # a batch sent again is a new task: the key of a failed one stays failed
    waiting_said = False
    try:
        changed = True  # a batch came back: time to ask the scheduler again which workers it has
        while (todo or running) and not stopping.is_set():
            if client.status != "running":
                raise ClusterError(f"lost the Dask scheduler at {address} (client {client.status})")
            if todo and changed:
                workers = client.scheduler_info()["workers"]
                if not workers and not waiting_said:
                    print(f"pinochle-arena: the cluster at {address} has no workers yet; waiting for some (start "
                          f"them with: dask worker {address})", file=sys.stderr, flush=True)
                    waiting_said = True
                window = max(2 * sum(w.get("nthreads", 1) for w in workers.values()), 2)
                allowed = [w for w in workers if w not in refused] if refused else None
                while todo and len(running) < window:
                    index, batch = todo.popleft()
                    future = client.submit(play_batch, run, config, batch, frozenset(retired), transcripts, paths,
                                           shipped, version, key=f"pinochle-arena-{run}-{next(keys)}", pure=False,
                                           workers=allowed, allow_other_workers=allowed is not None)
                    running[future] = (index, batch)
                    finishing.add(future)
            if not finishing.has_ready():
                time.sleep(WAIT)
            done = finishing.next_batch(block=False)
            changed = bool(done) or not running
            for future in done:
                index, batch = running.pop(future)
                if future.status == "finished":
                    result: BatchResult = future.result()
                    if on_batch is not None:
                        on_batch(client, result)
                    records = [GameRecord.from_json(line) for line in result.records]
                    for record in records:
                        record.extra["worker"] = result.worker
                        note_retirement(record, retired)
                    _append_logs(logs / "cluster", result.worker, result.logs)
                    try:
                        trio.from_thread.run_sync(_deliver_all, deliver, records)  # never blocks
                    except (trio.RunFinishedError, trio.ClosedResourceError):  # nobody left to write them
                        stopping.set()
                    continue
                games = f"games {batch[0].game_id} to {batch[-1].game_id}"
                error = future.exception() if future.status == "error" else None
                if isinstance(error, CannotPlayHere):
                    usable = [w for w in client.scheduler_info()["workers"] if w not in refused and w != error.worker]
                    if error.worker not in refused:
                        refused[error.worker] = error.reason
                        print(f"pinochle-arena: cluster worker {error.worker} {error.reason}"
                              f"{'; its games go to the other workers' if usable else ''}", file=sys.stderr,
                              flush=True)
                    if not usable:
                        raise ClusterError("no worker of the cluster can start the bots:\n" +
                                           "\n".join(f"  {w}: {why}" for w, why in refused.items()))
                    todo.appendleft((index, batch))
                    continue
                if isinstance(error, KilledWorker):
                    raise ClusterError(f"{games} took down {error.allowed_failures + 1} workers of the cluster, one "
                                       "after another: a referee or worker problem (memory?), not a bot's fault; "
                                       "the worker logs say more") from None
                # Anything else (a worker's link to the scheduler dropped, a full disk, the task cancelled by the
                # scheduler) is the cluster's, not a bot's: the batch is played again, a few times at most.
                if client.status != "running":  # the scheduler is gone, and took the batches out with it
                    raise ClusterError(f"lost the Dask scheduler at {address} (client {client.status})")
                why = f"{type(error).__name__}: {error}" if error is not None else f"the task was {future.status}"
                attempts[index] += 1
                if attempts[index] >= BATCH_ATTEMPTS:
                    raise ClusterError(f"{games} failed on the cluster {BATCH_ATTEMPTS} times; the last: {why}") \
                        from error
                print(f"pinochle-arena: {games} failed on the cluster ({why}); playing them again",
                      file=sys.stderr, flush=True)
                todo.appendleft((index, batch))
    finally:
        _let_go(client, stop, list(running) if running or todo else [])


def _archive(data: bytes) -> bytes:
    """A shipped folder's archive, as a task's result (see _drive_cluster)."""
    return data


def _let_go(client, stop, running: list) -> None:
    """Tell the workers to stop the batches still out (if any), and close the client; never raises (the
    scheduler may be gone, which is then the error being reported)."""
    if running and client.status == "running":
        try:
            stop.set()
            client.cancel(running, force=True)
        except Exception:  # noqa: BLE001 - a lost scheduler: the batches end with their workers' link to it
            pass
    try:
        client.close(timeout=CLOSE_TIMEOUT)
    except Exception:  # noqa: BLE001
        pass


def _deliver_all(deliver, records) -> None:
    for record in records:
        deliver(record)


def _append_logs(folder: Path, worker: str, logs: tuple[tuple[str, str], ...]) -> None:
    """A batch's bots' logs, appended to ``folder/WORKER/`` (this machine is their only writer, as of the
    records)."""
    if not logs:
        return
    where = folder / file_safe(worker.split("://")[-1])
    where.mkdir(parents=True, exist_ok=True)
    for name, text in logs:
        with (where / Path(name).name).open("a", encoding="utf-8") as f:
            f.write(text)
