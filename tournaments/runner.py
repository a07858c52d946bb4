"""Run a tournament's games concurrently: in one trio referee, over several referee processes, or on a cluster.

``concurrency`` games run at once, each in a *slot*, a lane of the referee's one game loop
(:mod:`referee.match.lane`, set up by :mod:`tournaments.slot`) that owns its bot processes (one per entrant it has met, reused from game to
game and restarted after a fault), so no process ever serves two games at once.

One Python process can only use one core, and the referee is CPU-bound with
fast bots, so with ``processes`` > 1 the slots are spread over that many
worker processes (:mod:`tournaments.worker`), each a trio referee of its
own. The parent hands out games one at a time as slots free up, and is the
only writer of the results: finished games are saved by the run's one
writer (:func:`referee.match.stream.open_writer`), which drains its queue
even when the tournament is cancelled.

A worker process that dies (the OOM killer, a stray SIGKILL) is replaced:
the parent knows which games it handed that worker and got no record for,
puts them back at the front of the queue and starts a fresh worker for the
same slots. A game whose record arrived is never played again; one whose
record did not is played exactly once more. A worker that dies
``CRASH_LOOP`` times in a row without finishing a game is a referee bug, and
stops the tournament with :class:`WorkerFailed`.

With ``config.cluster`` the games go to a Dask cluster instead
(:mod:`tournaments.cluster`); this process is still the only writer.
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

import attrs
import trio

from referee.bots import cgroups, sandbox
from referee.match import Entrant, board_runs
from referee.match.lane import Seen, note_retirement
from referee.match.stream import FEED_AHEAD, RecordSink, SeatingsApart, Writer, feed_more, open_writer, play_lanes
from referee.records.record import GameRecord

from .config import TournamentConfig
from .schedule import GameSpec, board_and_seating
from .slot import lane_settings, slot_stem
from .worker_wire import END, encode, read_lines

ROOT = Path(__file__).resolve().parent.parent
WORKER_COMMAND = (sys.executable, "-m", "tournaments.worker")
CRASH_LOOP = 3  # deaths in a row, without a finished game, of one worker's processes before the tournament stops


@attrs.frozen
class WorkerHooks:
    """Test seams for the referee worker processes; a tournament runs with the defaults.

    ``command`` starts a worker process. ``on_record(index, pid, record)``
    is called in the parent as each record arrives from worker ``index``
    (0-based) running as process ``pid``: after the record is passed to the
    writer, before that worker is handed its next game. A test can kill the
    worker there: the next game handed out is then certainly lost with it.
    ``on_batch(client, result)`` is the cluster's seam (:mod:`tournaments.cluster`):
    called as each batch comes back, before its records are passed on.
    """

    command: tuple[str, ...] = WORKER_COMMAND
    on_record: Callable[[int, int, GameRecord], None] | None = None
    on_batch: Callable[[object, object], None] | None = None  # on a cluster: (the Dask client, a BatchResult)


async def run_games(
    config: TournamentConfig,
    games: Sequence[GameSpec],
    store: RecordSink,
    on_game: Callable[[GameRecord], None] | None = None,
    transcripts: bool = False,
    hooks: WorkerHooks = WorkerHooks(),
    planned: Sequence[GameSpec] = (),
    played: Sequence[GameRecord] = (),
    more: Callable[[], Awaitable[Sequence[GameSpec]]] | None = None,
    gather: float = 0.0,
    say: Callable[[str], None] | None = None,
    seen: Seen | None = None,
    ahead: WorkersAhead | None = None,
) -> None:
    """Play ``games`` (the ones not yet in the store) with ``config.concurrency`` games at once.

    Boards are played in runs, one seating of a table at a time, so that
    a slot's processes play one seating of successive boards (see
    :func:`referee.match.board_runs`). On a cluster, ``planned`` (all the
    run's games, played or not) and ``played`` (the records of a resumed run)
    keep seatings apart where the run started them (see
    :func:`tournaments.cluster.run_on_cluster`).

    With ``more`` (a league: on this machine), the games do not end with
    ``games``: whenever fewer games wait than there are slots, ``more()`` is
    asked for the next ones, and the run ends once it returns none and the
    games in play are over. The same referee processes play them all.

    ``gather``: see :func:`referee.match.stream.open_writer`. ``say`` is
    told, in one line, of a referee worker process that died and was
    replaced. ``seen`` is given each game's record and notices in the
    process that played it (see :data:`~referee.match.lane.Seen`; not on a
    cluster). ``ahead``: referee worker processes started before the run
    knew its games (see :class:`WorkersAhead`), taken before new ones are.
    """
    if config.boards:
        games = board_runs(games, board_and_seating)
        planned = board_runs(planned, board_and_seating) if planned else planned
    slots = config.concurrency if more is not None else min(config.concurrency, max(len(games), 1))
    processes = min(config.referee_processes, slots)
    apart = SeatingsApart(collections.deque(games), open=more is not None, alone=slots == 1)
    logs = store.directory / "logs"
    entrants = config.seat_entrants()
    async with open_writer(store, on_game, gather) as writer:
        if config.cluster is not None:
            from .cluster import run_on_cluster

            await run_on_cluster(config, games, logs, writer.put_nowait, transcripts, set(),
                                 lambda record, retired: note_retirement(record, entrants, retired),
                                 hooks.on_batch, planned, played)
            return
        async with trio.open_nursery() as nursery:
            if more is not None:
                nursery.start_soon(feed_more, apart, more, FEED_AHEAD * slots)
            if processes <= 1:
                await play_lanes(apart, entrants, lane_settings(config, logs, transcripts, seen), slots, writer,
                                 slot_stem)
            else:
                workers = RefereeWorkers(config, entrants, apart, logs, transcripts, hooks, say or _silent, seen,
                                         ahead=ahead)
                await workers.run(slots, processes, writer)


def _silent(line: str) -> None:
    pass


class WorkerFailed(RuntimeError):
    """A referee worker process kept dying before it finished a game: a referee bug, not a bot's fault
    (its traceback, if it had time to print one, is on stderr above)."""


@attrs.define
class _Session:
    """What one worker process did: the games it returned, and the ones it was handed and did not return."""

    returned: int = 0
    in_flight: dict[str, GameSpec] = attrs.Factory(dict)  # by game id, in the order handed out
    exit: str = ""


@attrs.define
class RefereeWorkers:
    """The games of ``apart`` played by referee worker processes, each running some of the slots.

    ``apart`` is shared by the workers: a deal's seatings never at once. A
    worker that dies is replaced (``say`` is told), and the games it took
    along are played again first.
    """

    config: TournamentConfig
    entrants: Mapping[str, Entrant]
    apart: SeatingsApart
    logs: Path
    transcripts: bool
    hooks: WorkerHooks
    say: Callable[[str], None]
    seen: Seen | None = None  # pickled into each worker: given each game's record and notices there
    retired: set[str] = attrs.Factory(set)  # sent with every game: a 'never' entrant's fault in one retires it in all
    ahead: WorkersAhead | None = None  # processes already started, used first

    async def run(self, slots: int, processes: int, writer: Writer) -> None:
        shares = [slots // processes + (1 if i < slots % processes else 0) for i in range(processes)]
        async with trio.open_nursery() as nursery:
            for index in range(processes):
                nursery.start_soon(self._drive, index, sum(shares[:index]), shares[index], writer)

    async def _drive(self, index: int, first_slot: int, slots: int, writer: Writer) -> None:
        """Worker ``index``'s processes, one after another, until one ends with no game in flight."""
        deaths = 0  # in a row, without a finished game
        while True:
            session = await self._run_worker(index, first_slot, slots, writer)
            lost = list(session.in_flight.values())
            if not lost:
                return
            self.apart.put_back(lost)  # at the front, in the order they were handed out
            deaths = 0 if session.returned else deaths + 1
            if deaths >= CRASH_LOOP:
                raise WorkerFailed(f"referee worker {index + 1} died {deaths} times in a row before finishing a game "
                                   f"(last: {session.exit}); this is a bug in the referee, not a bot's fault")
            self.say(f"pinochle-arena: referee worker {index + 1} died ({session.exit}) with {len(lost)} "
                     f"game{'s' if len(lost) != 1 else ''} in flight; starting a new one and playing "
                     f"{'them' if len(lost) != 1 else 'it'} again")

    async def _run_worker(self, index: int, first_slot: int, slots: int, writer: Writer) -> _Session:
        """One worker process, until the games run out (nothing left in flight) or it dies (its output ends)."""
        session = _Session()
        process = await self._start_worker()
        link = _WorkerLink.to(process)
        try:
            await link.send(encode({"config": self.config, "first_slot": first_slot, "slots": slots,
                                    "logs": self.logs, "transcripts": self.transcripts, "seen": self.seen}))
            await self._fill(session, slots, link)
            async with contextlib.aclosing(read_lines(link.output)) as lines:
                while session.in_flight or not self.apart.over:
                    if not session.in_flight:  # every game left waits for one in play elsewhere (or for more)
                        await self.apart.freed.wait()
                        await self._fill(session, slots, link)
                        continue
                    line = await anext(lines, None)
                    if line is None:
                        break  # its output ended with games out: it died
                    # sealed as the worker wrote it (passed_on): not made again here
                    await self._returned(index, GameRecord.passed_on(line.decode()), session, process.pid, writer)
                    await self._fill(session, slots, link)
            await link.finish(session)
        finally:
            await _stop(process)
        session.exit = _exit_text(process.returncode)
        return session

    async def _start_worker(self) -> trio.Process | _StartedWorker:
        """One started ahead, if one is left; else a new one."""
        started = self.ahead.take() if self.ahead is not None else None
        if started is not None:
            return started
        return await trio.lowlevel.open_process(list(self.hooks.command), env=worker_environment(),
                                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, process_group=0)

    async def _fill(self, session: _Session, slots: int, link: _WorkerLink) -> None:
        """Games for the worker's free slots, as many as may start now."""
        while len(session.in_flight) < slots and (spec := self.apart.take()) is not None:
            session.in_flight[spec.game_id] = spec  # before sending: if the worker dies now, it is replayed
            await link.send(encode((spec, frozenset(self.retired))))

    async def _returned(self, index: int, record: GameRecord, session: _Session, pid: int, writer: Writer) -> None:
        if session.in_flight.pop(record.game_id, None) is None:
            raise WorkerFailed(f"referee worker {index + 1} returned game {record.game_id!r}, which it was not given")
        self.apart.done(record.game_id)
        session.returned += 1
        note_retirement(record, self.entrants, self.retired)
        await writer.put(record)
        if self.hooks.on_record is not None:
            self.hooks.on_record(index, pid, record)


def worker_environment() -> dict[str, str]:
    """A referee worker's environment: this one, the referee importable, and this run's name."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env[cgroups.RUN_ENV] = cgroups.run_name()  # the workers' bots share this run's control group (fair between games)
    return env


class WorkersAhead:
    """Referee worker processes started before a run knows its games, so that their start (a new interpreter
    importing the referee: about 0.2 s of CPU each) overlaps the run's own start (its check of the bots,
    its results folder) instead of delaying the first games. Use as a context manager around the run: a process
    the run did not take is told there is nothing to play (its input ends before any setup) and exits."""

    def __init__(self, count: int) -> None:
        env = worker_environment()
        # In a process group of their own, as the runner's other workers: a Ctrl-C at the terminal goes to the
        # run, which stops them (it reached them while they imported, and each printed a traceback).
        self.started = tuple(subprocess.Popen(list(WORKER_COMMAND), env=env, stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, process_group=0) for _ in range(count))
        sandbox.HELPERS.update(p.pid for p in self.started)  # (an unjailed bot's stop reaps no worker of ours)
        self._waiting = list(self.started)

    @classmethod
    def for_run(cls, config: TournamentConfig) -> WorkersAhead:
        """As many as :func:`play` takes at most for a run of ``config``: its referee processes, or none on a
        cluster or with one process (which plays its games itself). A run of fewer games than processes takes
        fewer; the rest exit."""
        return cls(config.referee_processes if config.cluster is None and config.referee_processes > 1 else 0)

    def take(self) -> _StartedWorker | None:
        """One of them, driven from trio from now on (None: none left)."""
        return _StartedWorker(self._waiting.pop(0)) if self._waiting else None

    def __enter__(self) -> WorkersAhead:
        return self

    def __exit__(self, *_) -> None:
        for popen in self._waiting:
            for pipe in (popen.stdin, popen.stdout):
                if pipe is not None:
                    pipe.close()
            try:
                popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                popen.kill()
                popen.wait()
        sandbox.HELPERS.difference_update(p.pid for p in self.started)  # (the taken ones too, reaped by the run)


@attrs.define(eq=False)
class _StartedWorker:
    """A worker started with :mod:`subprocess`, driven as :func:`trio.lowlevel.open_process`'s processes are:
    trio streams over its pipes, its exit waited for on its pidfd."""

    popen: subprocess.Popen
    stdin: trio.lowlevel.FdStream = attrs.field(init=False)
    stdout: trio.lowlevel.FdStream = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.stdin, self.stdout = (_fd_stream(self.popen.stdin), _fd_stream(self.popen.stdout))

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def send_signal(self, number: int) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(number)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    async def wait(self) -> int:
        if self.popen.poll() is None:
            pidfd = os.pidfd_open(self.popen.pid)
            try:
                await trio.lowlevel.wait_readable(pidfd)
            finally:
                os.close(pidfd)
        status = self.popen.wait()
        sandbox.HELPERS.discard(self.popen.pid)  # (reaped: the pid may be a new child's soon)
        return status


def _fd_stream(pipe: IO[bytes] | None) -> trio.lowlevel.FdStream:
    """A trio stream over the pipe ``pipe`` was opened on, which is closed (the stream has its own descriptor)."""
    if pipe is None:
        raise WorkerFailed("a referee worker was started without pipes to it")
    stream = trio.lowlevel.FdStream(os.dup(pipe.fileno()))
    pipe.close()
    return stream


@attrs.define
class _WorkerLink:
    """The parent's ends of a worker's pipes: a send to a worker that died is dropped (its output ends too, and
    says which games it took along)."""

    process: trio.Process | _StartedWorker
    input: trio.abc.SendStream
    output: trio.abc.ReceiveStream
    writable: bool = True

    @classmethod
    def to(cls, process: trio.Process | _StartedWorker) -> _WorkerLink:
        """The link to a worker started with pipes for its stdin and stdout."""
        if process.stdin is None or process.stdout is None:
            raise WorkerFailed("a referee worker was started without pipes to it")
        return cls(process, process.stdin, process.stdout)

    async def send(self, line: bytes) -> None:
        if self.writable:
            try:
                await self.input.send_all(line)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.writable = False

    async def finish(self, session: _Session) -> None:
        """No games out: tell it there are no more and let it exit; games out: it died, wait a little for it."""
        if not session.in_flight:
            await self.send(END + b"\n")
            await self.process.wait()
        else:
            with trio.move_on_after(10):
                await self.process.wait()


async def _stop(process: trio.Process | _StartedWorker) -> None:
    """A worker still running is stopped: SIGTERM (it closes its bots and exits), then SIGKILL."""
    with trio.CancelScope(shield=True):
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            with trio.move_on_after(15):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()


def _exit_text(status: int | None) -> str:
    if status is not None and status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"
