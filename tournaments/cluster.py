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
from typing import Any

import attrs
import trio

from referee.bots.fingerprint import fingerprint
from referee.match import board_run_groups, file_safe
from referee.records.record import GameRecord

from .cluster_placement import ApartPlan, Placement, plan_apart
from .cluster_seats import SeatHosts
from .cluster_security import CertificateError
from .cluster_worker import (
    BatchResult,
    CannotPlayHere,
    PathMap,
    ShipError,
    installed_version,
    machine_of,
    pack,
    play_batch,
)
from .config import Cluster, TournamentConfig, is_loopback
from .schedule import GameSpec, board_and_seating

CONNECT_TIMEOUT = 20  # seconds to reach the scheduler
WAIT = 0.1  # seconds between looks for finished batches (and for Ctrl-C)
STOP_TIMEOUT = 5  # seconds a stopped tournament waits to tell the workers and let go of the cluster
CLOSE_TIMEOUT = 3  # seconds to close the connection to the scheduler
BATCH_ATTEMPTS = 3  # a batch that fails this often for the cluster's reasons (not a lost worker) stops the run
VERSION = installed_version()  # every worker must run this one
MEMBERS_EVERY = 1.0  # seconds between looks at which workers the cluster has


class ClusterError(RuntimeError):
    """The cluster cannot run the tournament (unreachable, no worker able to start the bots, a batch that keeps
    killing workers); the message says which and what to do."""


def _cluster_of(config: TournamentConfig) -> Cluster:
    """The cluster settings of a tournament played on a cluster (what this module is asked only for)."""
    if config.cluster is None:
        raise ClusterError("the tournament names no cluster to play on")
    return config.cluster


def apart(config: TournamentConfig, games: Sequence[GameSpec]) -> ApartPlan:
    """The tasks: batches of at most ``config.cluster.batch`` games of one colour of one group of deals
    (tournaments.cluster_placement), so that no task gives a bot two hands of a deal; on boards, each run of one
    seating, so that a task's processes play the boards a process plays on one machine."""
    units = board_run_groups(games, board_and_seating) if config.boards else [[g] for g in games]
    return plan_apart(units, _cluster_of(config).batch, PARTNER_HALVES if partners_apart(config) else None)


PARTNER_HALVES = ((0, 1), (2, 3))  # partners apart: the seats the batch's machine plays, and those a seat host does


def partners_apart(config: TournamentConfig) -> bool:
    """Whether the partners of a game sit on different machines: seatings apart in a partnership variant."""
    return config.cluster is not None and config.cluster.seatings_apart and config.partnership


def for_workers(config: TournamentConfig) -> TournamentConfig:
    """The configuration a task carries: without the tournament's seed and deal file. Each game's own seed and
    decks travel in its GameSpec, so a worker (or anyone reading the tasks) learns no game it does not play."""
    return attrs.evolve(config, seed=None, deals=None)


async def run_on_cluster(config: TournamentConfig, games: Sequence[GameSpec], logs: Path,
                         deliver: Callable[[GameRecord], None], transcripts: bool,
                         retired: set[str], note_retirement: Callable[[GameRecord, set[str]], None],
                         on_batch: Callable | None = None, planned: Sequence[GameSpec] = (),
                         played: Sequence[GameRecord] = ()) -> None:
    """Play ``games`` on the cluster; each record is passed to ``deliver`` (which must not block) as its batch
    comes back. Its bots' logs go to ``logs/cluster/WORKER/``. ``on_batch(client, result)``, a test seam, is
    called in the thread that talks to the cluster as each batch comes back. ``planned`` are all the run's
    games (default ``games``) and ``played`` the records of those played already (a resumed run): with seatings
    apart the plan covers them all, and each colour stays on the machine its played games name."""
    if not games:
        return
    whole = apart(config, list(planned) or list(games))
    plan = whole.only({g.game_id for g in games})
    placement = Placement()
    keys = whole.key_of()
    partner_keys = whole.key_of(partners=True)
    for record in played:
        if record.game_id in keys and "machine" in record.extra:
            placement.played(keys[record.game_id], str(record.extra["machine"]))
        if record.game_id in partner_keys and "partner_machine" in record.extra:
            placement.played(partner_keys[record.game_id], str(record.extra["partner_machine"]))
    work = plan.batches
    try:
        archives = {folder: pack(folder) for _, folder in config.shipped}
    except ShipError as e:
        raise ClusterError(str(e)) from None
    digests = {folder: hashlib.sha256(data).hexdigest() for folder, data in archives.items()}
    expected = await trio.to_thread.run_sync(_fingerprints, config)
    drive = _Drive(config, work, logs, deliver, transcripts, retired, note_retirement, PathMap.of_client(digests),
                   {digests[f]: data for f, data in archives.items()}, expected, on_batch, plan, placement=placement)
    try:
        await trio.to_thread.run_sync(drive.run, abandon_on_cancel=True)  # Ctrl-C reaches us at once
    except BaseException:
        drive.stopping.set()  # the thread tells the workers to stop, and closes the client; records back are kept
        with trio.CancelScope(shield=True), trio.move_on_after(STOP_TIMEOUT):
            await trio.to_thread.run_sync(drive.stopped.wait)
        raise


def _fingerprints(config: TournamentConfig) -> dict[str, str]:
    """Seat entrant -> the fingerprint of its program on this machine, which every worker's must match."""
    return {name: fingerprint(entrant.command) for name, entrant in config.seat_entrants().items()}


def _connect(cluster: Cluster):
    address = cluster.address
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("playing on a cluster needs Dask's distributed: pip install 'pinochle-arena[cluster]'") \
            from None
    from .cluster_roles import client_security

    try:
        security = client_security(cluster.certs, address) if cluster.certs is not None else None
    except CertificateError as e:
        raise ClusterError(str(e)) from None
    # Dask logs its own tracebacks when a connection drops; the tournament says what went wrong in one line.
    for name in ["distributed", *(n for n in logging.root.manager.loggerDict if n.startswith("distributed."))]:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False, security=security)
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e or type(e).__name__} (is "
                           f"'dask scheduler' running there, and its port open to this machine?)") from None


def cluster_workers(client) -> dict[str, dict]:
    """The workers the scheduler has now (address -> what each says of itself: name, threads), asked afresh.
    Not ``client.scheduler_info()``: that hands back the client's cached copy, which Dask's own refresh (every
    couple of seconds, on the client's loop) replaces with one that lists no workers, so a read of it can find the
    cluster empty at any moment, the more so on a busy machine."""
    return client.sync(client.scheduler.identity)["workers"]  # (every worker: the scheduler's default)


def plain_from_elsewhere(workers) -> list[str]:
    """The workers of ``workers`` (addresses) that speak plain tcp from another machine."""
    return [w for w in workers if w.startswith("tcp://")
            and not is_loopback(w.split("://", 1)[1].rsplit(":", 1)[0].strip("[]"))]


def _say(text: str) -> None:
    print(f"pinochle-arena: {text}", file=sys.stderr, flush=True)


@attrs.frozen
class _Out:
    """A batch out on the cluster: its place in the work, its games, and (seatings apart) the machine it was placed
    on and the machine whose seat host plays its partner seats."""

    index: int
    batch: list[GameSpec]
    machine: str | None = None
    partner: str | None = None
    workers: tuple[str, ...] | None = None  # the only workers it may run on (None: any)


@attrs.define(eq=False)
class _Members:
    """The cluster's workers as last seen, with the machine each runs on; joins and losses after the first look
    are printed."""

    workers: dict[str, int] = attrs.Factory(dict)  # worker -> threads
    machines: dict[str, str] = attrs.Factory(dict)  # worker -> its machine (see cluster_worker.machine_of)
    seen: float | None = None  # when the scheduler was last asked

    def update(self, client) -> bool:
        """Ask the scheduler (at most once a second) and say who joined or left; whether anything changed."""
        if self.seen is not None and time.monotonic() - self.seen < MEMBERS_EVERY:
            return False
        first, self.seen = self.seen is None, time.monotonic()
        now = {w: info.get("nthreads", 1) for w, info in cluster_workers(client).items()}
        joined, left = sorted(set(now) - set(self.workers)), sorted(set(self.workers) - set(now))
        unknown = [w for w in now if w not in self.machines]
        if unknown:
            try:
                self.machines.update(client.run(machine_of, workers=unknown, on_error="ignore"))
            except Exception:  # noqa: BLE001 - a worker gone again at once: asked next time
                pass
        for worker in joined if not first else ():
            _say(f"cluster worker {worker} joined ({len(now)} workers)")
        for worker in left:
            _say(f"cluster worker {worker} left ({len(now)} workers); a batch it was playing is played again")
            self.machines.pop(worker, None)
        self.workers = now
        return bool(joined or left or unknown)


@attrs.define(eq=False)
class _Drive:
    """The thread that talks to the cluster: submits the batches a few at a time, hands back records as batches
    finish, until all are done or ``stopping`` is set; ``stopped`` is set once it has let go of the cluster."""

    config: TournamentConfig
    work: list[list[GameSpec]]
    logs: Path
    deliver: Callable[[GameRecord], None]
    transcripts: bool
    retired: set[str]
    note_retirement: Callable[[GameRecord, set[str]], None]
    paths: PathMap
    archives: dict[str, bytes]
    expected: dict[str, str]  # seat entrant -> fingerprint of its program here
    on_batch: Callable | None
    plan: ApartPlan  # the batches' groups and colours (tournaments.cluster_placement), the machines they need
    stopping: threading.Event = attrs.Factory(threading.Event)
    stopped: threading.Event = attrs.Factory(threading.Event)
    todo: collections.deque = attrs.Factory(collections.deque)  # (index, batch)
    running: dict = attrs.Factory(dict)  # future -> _Out
    attempts: collections.Counter = attrs.Factory(collections.Counter)  # batch -> failures for the cluster's reasons
    refused: dict[str, str] = attrs.Factory(dict)  # worker -> why it may not play
    placement: Placement = attrs.Factory(Placement)
    said: set[str] = attrs.Factory(set)  # waits already explained
    changed: bool = True  # a batch came back or a worker came or went: time to look at the batches to send
    members: _Members = attrs.Factory(_Members)
    # set when the thread connects: the Dask client, this run's id, its stop event, the configuration the tasks
    # carry, the shipped folders' tasks, the finished tasks' queue, the source of task keys
    client: Any = None
    run_id: str = ""
    stop: Any = None
    task_config: TournamentConfig | None = None
    shipped: dict = attrs.Factory(dict)
    finishing: Any = None
    keys: Any = None
    seats: SeatHosts | None = None  # partners apart: the seat hosts in the workers

    @property
    def cluster(self) -> Cluster:
        return _cluster_of(self.config)

    @property
    def seat_hosts(self) -> SeatHosts:
        """The seat hosts in the workers (partners apart: opened before the first batch is sent)."""
        if self.seats is None:
            raise ClusterError("partners apart, but the seat hosts were not opened")
        return self.seats

    def run(self) -> None:
        try:
            self._run()
        finally:
            self.stopped.set()

    def _run(self) -> None:
        from distributed import Event, as_completed

        self.client = client = _connect(self.cluster)
        self.run_id = secrets.token_hex(8)
        self.stop = Event(f"pinochle-arena-stop-{self.run_id}", client=client)
        self.todo.extend(enumerate(self.work))
        if self.cluster.seatings_apart:
            _say(f"--seatings-apart: these games need workers on {self.plan.machines} different machines (no "
                 "machine plays a bot in two seats of one deal)")
        self.task_config = for_workers(self.config)
        if partners_apart(self.config):
            self.seats = SeatHosts(self.run_id, self.task_config, self.paths, self.archives, self.expected)
        # The shipped folders as tasks, not scattered data: a task's result lost with its worker is computed
        # again (from the bytes the scheduler keeps), while scattered data lost with every holder is gone for good.
        self.shipped = {digest: client.submit(_archive, data, key=f"pinochle-arena-{self.run_id}-ship-{digest}",
                                              pure=False) for digest, data in self.archives.items()}
        self.finishing = as_completed(loop=client.loop)
        self.keys = itertools.count()  # a batch sent again is a new task: the key of a failed one stays failed
        try:
            while (self.todo or self.running) and not self.stopping.is_set():
                self._check_scheduler()
                if self.members.update(client):
                    self._check_links()
                    self._open_seat_hosts()
                    self._release_stranded()
                    self.changed = True
                if self.changed:
                    self.changed = False
                    self._submit_more()
                if not self.finishing.has_ready():
                    time.sleep(WAIT)
                for future in self.finishing.next_batch(block=False):
                    self.changed = True
                    self._collect(future)
                    self.members.update(client)  # (a join or loss among many batches back is said in its place)
        finally:
            if self.seats is not None:
                self.seat_hosts.close(client)
            _let_go(client, self.stop, list(self.running) if self.running or self.todo else [])

    def _open_seat_hosts(self) -> None:
        """Partners apart: a seat host in every worker that joined; one that cannot serve plays no games."""
        if self.seats is not None:
            for worker, why in self.seat_hosts.update(self.client, list(self.members.workers)):
                self._refuse(worker, why)

    def _check_links(self) -> None:
        """A plain-tcp cluster (on this machine, or --insecure) with a worker joined over plain tcp from another
        machine: its tasks, seeds and results cross the network in the clear, and anyone may join so. Stop, unless
        the organiser said --insecure."""
        if self.cluster.insecure:
            return
        plain = plain_from_elsewhere(self.members.workers)
        if plain:
            raise ClusterError(f"cluster worker {plain[0]} joined over plain tcp from another machine: use TLS "
                               "(docs/cluster.md) or say --insecure on a network only you reach")

    def _release_stranded(self) -> None:
        """A batch pinned to a machine whose workers are all gone (seatings apart), or allowed only workers that
        are all gone (the others were refused), would wait for them for ever; it goes back to the queue (not a
        failure of the batch) and is placed again."""
        live = set(self.members.machines.values())
        for future, out in list(self.running.items()):
            if {out.machine, out.partner} - {None} - live or out.workers is not None and not (
                    set(out.workers) & set(self.members.workers)):
                del self.running[future]
                self.client.cancel([future], force=True)
                self.todo.appendleft((out.index, out.batch))
                _say(f"games {out.batch[0].game_id} to {out.batch[-1].game_id}: every worker of a machine they "
                     "were placed on left; placing them again")

    def _check_scheduler(self) -> None:
        if self.client.status != "running":  # the scheduler is gone, and took the batches out with it
            raise ClusterError(f"lost the Dask scheduler at {self.cluster.address} (client "
                               f"{self.client.status}); workers started with 'pinochle-arena cluster worker' wait "
                               "for it to come back")

    def _submit_more(self) -> None:
        """Send batches while fewer than twice the cluster's threads are out."""
        usable = {w: n for w, n in self.members.workers.items() if w not in self.refused}
        if not self.members.workers:
            self._explain("workers", f"the cluster at {self.cluster.address} has no workers yet; waiting for "
                                     f"some (start them with: pinochle-arena cluster worker "
                                     f"{self.cluster.address} --certs DIR)")
        window = max(2 * sum(self.members.workers.values()), 2)
        for entry in list(self.todo):
            if len(self.running) >= window:
                return
            index, batch = entry
            machine, workers, partner = None, list(usable) if self.refused else None, None
            if self.cluster.seatings_apart:
                machine, workers, partner = self._machine_for(index, usable)
                if machine is None:
                    continue
            elif self._clashes(index) or workers == []:
                continue
            self.todo.remove(entry)
            host = None if partner is None else {"address": self.seat_hosts.on_machines()[partner],
                                                 "token": self.seat_hosts.token}
            future = self.client.submit(play_batch, self.run_id, self.task_config, batch, frozenset(self.retired),
                                        self.transcripts, self.paths, self.shipped, VERSION, host,
                                        key=f"pinochle-arena-{self.run_id}-{next(self.keys)}", pure=False,
                                        workers=workers, allow_other_workers=False)
            self.running[future] = _Out(index, batch, machine, partner, None if workers is None else tuple(workers))
            self.finishing.add(future)

    def _clashes(self, index: int) -> bool:
        """Without seatings apart: whether batch ``index`` would give a bot another hand of a deal in play (two
        seatings of one deal never run at once, wherever they run; one after the other they may share a machine)."""
        group, colour = self.plan.colours[index]
        return any(self.plan.colours[out.index][0] == group and self.plan.colours[out.index][1] != colour
                   for out in self.running.values())

    def _machine_for(self, index: int, usable: dict[str, int]) -> tuple[str | None, list[str], str | None]:
        """Seatings apart: the machine to play batch ``index``, its usable workers, and with partners apart the
        machine whose seat host plays the partner seats; (None, [], None) for now."""
        by_machine: dict[str, list[str]] = {}
        for worker in usable:
            if worker in self.members.machines:
                by_machine.setdefault(self.members.machines[worker], []).append(worker)
        busy = collections.Counter(m for out in self.running.values() for m in (out.machine, out.partner))
        machine = self.placement.choose(self.plan.colours[index], {m: busy[m] for m in by_machine})
        partner = None
        if machine is not None and self.plan.partners is not None:
            hosts = [m for m in self.seat_hosts.on_machines() if m in by_machine]
            partner = self.placement.choose(self.plan.partners[index], {m: busy[m] for m in hosts})
            if partner is None:
                machine = None
        if machine is None and len(by_machine) < self.plan.machines:
            self._explain("machines", f"--seatings-apart: this tournament needs workers on {self.plan.machines} "
                                      f"different machines, the cluster has {len(by_machine)}; waiting for more")
        return machine, by_machine.get(machine, []) if machine is not None else [], partner

    def _explain(self, what: str, text: str) -> None:
        if what not in self.said:
            self.said.add(what)
            _say(text)

    def _collect(self, future) -> None:
        entry = self.running.pop(future, None)
        if entry is None:  # a batch taken back from a machine that left (_release_stranded)
            return
        index, batch = entry.index, entry.batch
        if future.status == "finished":
            self._accept(future.result(), entry)
            return
        games = f"games {batch[0].game_id} to {batch[-1].game_id}"
        error = future.exception() if future.status == "error" else None
        if isinstance(error, CannotPlayHere):
            self._refuse(error.worker, error.reason)
            self.todo.appendleft((index, batch))
            return
        from distributed.scheduler import KilledWorker

        if isinstance(error, KilledWorker):
            raise ClusterError(f"{games} took down {error.allowed_failures + 1} workers of the cluster, one "
                               "after another: a referee or worker problem (memory?), not a bot's fault; "
                               "the worker logs say more") from None
        # Anything else (a worker's link to the scheduler dropped, a full disk, the task cancelled by the
        # scheduler) is the cluster's, not a bot's: the batch is played again, a few times at most.
        self._check_scheduler()
        why = f"{type(error).__name__}: {error}" if error is not None else f"the task was {future.status}"
        self.attempts[index] += 1
        if self.attempts[index] >= BATCH_ATTEMPTS:
            raise ClusterError(f"{games} failed on the cluster {BATCH_ATTEMPTS} times; the last: {why}") from error
        _say(f"{games} failed on the cluster ({why}); playing them again")
        self.todo.appendleft((index, batch))

    def _accept(self, result: BatchResult, out: _Out) -> None:
        """A batch back: its records go to the writer, unless the worker ran another program for a bot."""
        index, batch = out.index, out.batch
        if self.on_batch is not None:
            self.on_batch(self.client, result)
        records = [GameRecord.from_json(line) for line in result.records]
        other = _other_program(records, self.expected) or _other_games(records, batch)
        if other is not None:
            self._refuse(result.worker, other)
            self.todo.appendleft((index, batch))
            return
        for record in records:
            record.extra["worker"] = result.worker
            if out.machine is not None:
                record.extra["machine"] = out.machine
            if out.partner is not None:
                record.extra["partner_machine"] = out.partner
            self.note_retirement(record, self.retired)
        _append_logs(self.logs / "cluster", result.worker, result.logs)
        back = {r.game_id for r in records}
        missing = [g for g in batch if g.game_id not in back]
        if missing and not self.stopping.is_set():
            self.todo.appendleft((index, missing))
        try:
            trio.from_thread.run_sync(_deliver_all, self.deliver, records)  # never blocks
        except (trio.RunFinishedError, trio.ClosedResourceError):  # nobody left to write them
            self.stopping.set()

    def _refuse(self, worker: str, reason: str) -> None:
        """``worker`` plays no more of this tournament's games; said once; with no worker left, stop."""
        usable = [w for w in cluster_workers(self.client) if w not in self.refused and w != worker]
        if worker not in self.refused:
            self.refused[worker] = reason
            _say(f"cluster worker {worker} {reason}{'; its games go to the other workers' if usable else ''}")
        if not usable:
            raise ClusterError("no worker of the cluster can play the games:\n" +
                               "\n".join(f"  {w}: {why}" for w, why in self.refused.items()))


def _other_games(records: list[GameRecord], batch: Sequence[GameSpec]) -> str | None:
    """Why these records are not games of ``batch``, each once, seated as scheduled (or None). (A batch stopped
    with the run sends back fewer.)"""
    asked = {g.game_id: tuple(g.seating) for g in batch}
    ids = [r.game_id for r in records]
    if len(ids) != len(set(ids)) or any(asked.get(r.game_id) != tuple(s.entrant for s in r.seats) for r in records):
        return "sent back games it was not given"
    return None


def _other_program(records: list[GameRecord], expected: dict[str, str]) -> str | None:
    """Why these records were not played with this machine's programs (a bot whose fingerprint differs), or None."""
    for record in records:
        for seat in record.seats:
            mine = expected.get(seat.entrant, "")
            if mine and seat.program != mine:  # (a record that names no program cannot vouch for one)
                there = f"{seat.program[:19]}..." if seat.program else "none named"
                return (f"runs another program for bot {seat.entrant!r} ({there} there, {mine[:19]}... here): its "
                        "games are not counted")
    return None


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
        except Exception:
            pass
    try:
        client.close(timeout=CLOSE_TIMEOUT)
    except Exception:
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
