"""Run a tournament's games concurrently: in one trio referee, over several referee processes, or on a cluster.

``concurrency`` games run at once, each in a *slot* (:mod:`tournaments.slot`)
that owns its bot processes (one per entrant it has met, reused from game to
game and restarted after a fault), so no process ever serves two games at once.

One Python process can only use one core, and the referee is CPU-bound with
fast bots, so with ``processes`` > 1 the slots are spread over that many
worker processes (:mod:`tournaments.worker`), each a trio referee of its
own. The parent hands out games one at a time as slots free up, and is the
only writer of the results: finished games are appended and fsynced in
batches by one writer task, which drains its queue even when the tournament
is cancelled.

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
import math
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import attrs
import trio

from referee.bots import cgroups
from referee.match import board_runs
from referee.records.record import GameRecord

from .config import TournamentConfig
from .schedule import GameSpec, board_and_seating
from .slot import note_retirement, play_slot
from .store import ResultStore
from .worker_wire import END, encode, read_lines

ROOT = Path(__file__).resolve().parent.parent
WORKER_COMMAND = (sys.executable, "-m", "tournaments.worker")
FEED_AHEAD = 4  # with ``more``: games kept waiting per slot, so that choosing the next ones never idles a slot
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
    store: ResultStore,
    on_game: Callable[[GameRecord], None] | None = None,
    transcripts: bool = False,
    hooks: WorkerHooks = WorkerHooks(),
    planned: Sequence[GameSpec] = (),
    played: Sequence[GameRecord] = (),
    more: Callable[[], Awaitable[list[GameSpec]]] | None = None,
    gather: float = 0.0,
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

    ``gather`` (seconds) is how long the writer waits after a game finishes
    for others to write with it: for a store whose every write has a cost of
    its own (a database transaction), fewer and larger writes.
    """
    if config.boards:
        games = board_runs(games, board_and_seating)
        planned = board_runs(planned, board_and_seating) if planned else planned
    slots = config.concurrency if more is not None else min(config.concurrency, max(len(games), 1))
    processes = min(config.referee_processes, slots)
    apart = SeatingsApart(collections.deque(games), open=more is not None)
    logs = store.directory / "logs"
    send, receive = trio.open_memory_channel(max(len(games), 1) if more is None else math.inf)

    async def finished(record: GameRecord) -> None:
        await send.send(record)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_write_results, receive, store, on_game, gather)
        if more is not None:
            nursery.start_soon(_feed, apart, more, FEED_AHEAD * slots)
        async with send:
            if config.cluster is not None:
                from .cluster import run_on_cluster

                entrants = config.seat_entrants()
                await run_on_cluster(config, games, logs, send.send_nowait, transcripts, set(),
                                     lambda record, retired: note_retirement(record, entrants, retired),
                                     hooks.on_batch, planned, played)
            elif processes <= 1:
                await _run_here(config, apart, slots, logs, finished, transcripts)
            else:
                await _run_in_workers(config, apart, slots, processes, logs, finished, transcripts, hooks)


async def _feed(apart: SeatingsApart, more: Callable[[], Awaitable[list[GameSpec]]], low: int) -> None:
    """Keep at least ``low`` games waiting, from ``more()``, until it has no more; then close the queue."""
    while True:
        while len(apart.todo) >= low:
            await apart.freed.wait()
        found = await more()
        if not found:
            apart.close()
            return
        apart.add(found)


async def _write_results(queue: trio.MemoryReceiveChannel, store: ResultStore,
                         on_game: Callable[[GameRecord], None] | None, gather: float = 0.0) -> None:
    """The only writer of the results: every finished game reaches the disk, in batches (group commit).

    Shielded, and it ends only when the games are over and the queue is empty,
    so even a cancelled tournament (Ctrl-C) loses no game that finished. The
    games go on while a batch is written (in a thread: the event loop, and so
    every clock, never waits for the disk).
    """
    with trio.CancelScope(shield=True):
        async with queue:
            async for first in queue:
                if gather:
                    await trio.sleep(gather)
                batch = [first]
                while True:
                    try:
                        batch.append(queue.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                await trio.to_thread.run_sync(store.append_many, batch)
                if on_game is not None:
                    for record in batch:
                        on_game(record)


@attrs.define
class SeatingsApart:
    """The games that may start now: never one that deals the deal of a game in play to one of its bots.

    The two seatings of a duplicate deal (and the same deal in another
    pairing) give a bot both hands of one deal; played at the same time on
    one machine, the two copies could pass their hands through what the
    kernel shares (docs/competition.md, Running a competition). So a game waits while
    another of its deal with one of its bots is in play, and the next game
    in the queue that does not clash goes first.
    """

    todo: collections.deque
    running: dict[str, GameSpec] = attrs.Factory(dict)
    freed: trio.Event = attrs.Factory(trio.Event)  # set (and made anew) when a game ends, or games come or stop
    open: bool = False  # more games may come (run_games's ``more``): an empty queue is not the end

    def take(self) -> GameSpec | None:
        """The first game of the queue that may start now (None: none may), marked as in play."""
        for spec in self.todo:
            if not any(other.seed == spec.seed and set(other.bots) & set(spec.bots)
                       for other in self.running.values()):
                self.todo.remove(spec)
                self.running[spec.game_id] = spec
                return spec
        return None

    def done(self, game_id: str) -> None:
        self.running.pop(game_id, None)
        self._wake()

    def add(self, games: Sequence[GameSpec]) -> None:
        self.todo.extend(games)
        self._wake()

    def close(self) -> None:
        """No more games will come."""
        self.open = False
        self._wake()

    def _wake(self) -> None:
        self.freed.set()
        self.freed = trio.Event()

    @property
    def over(self) -> bool:
        """Nothing waits and nothing more will come."""
        return not self.todo and not self.open

    async def next(self) -> GameSpec | None:
        """The next game that may start, waiting for games in play to end (or for more to come); None when the
        queue is empty and closed."""
        while not self.over:
            spec = self.take()
            if spec is not None:
                return spec
            await self.freed.wait()
        return None


async def _run_here(config, apart: SeatingsApart, slots, logs, finished, transcripts) -> None:
    entrants = config.seat_entrants()
    send, receive = trio.open_memory_channel(0)  # a game is handed out only when a slot is free

    async def done(record: GameRecord) -> None:
        apart.done(record.game_id)
        await finished(record)

    async def hand_out() -> None:
        async with send:
            while (spec := await apart.next()) is not None:
                await send.send(spec)

    retired: set[str] = set()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hand_out)
        for slot in range(slots):
            nursery.start_soon(play_slot, slot, receive.clone(), entrants, config, {}, logs, done, transcripts,
                               retired)
    receive.close()


class WorkerFailed(RuntimeError):
    """A referee worker process kept dying before it finished a game: a referee bug, not a bot's fault
    (its traceback, if it had time to print one, is on stderr above)."""


@attrs.define
class _Session:
    """What one worker process did: the games it returned, and the ones it was handed and did not return."""

    returned: int = 0
    in_flight: dict[str, GameSpec] = attrs.Factory(dict)  # by game id, in the order handed out
    exit: str = ""


async def _run_in_workers(config, apart: SeatingsApart, slots, processes, logs, finished, transcripts,
                          hooks: WorkerHooks) -> None:
    """``apart`` is shared by the workers: a deal's seatings never at once."""
    shares = [slots // processes + (1 if i < slots % processes else 0) for i in range(processes)]
    entrants = config.seat_entrants()
    retired: set[str] = set()  # sent with every game, so a 'never' entrant's fault in one worker retires it in all
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env[cgroups.RUN_ENV] = cgroups.run_name()  # the workers' bots share this run's control group (fair between games)

    async def run_worker(index: int) -> _Session:
        """One worker process, until the games run out (nothing left in flight) or it dies (its output ends)."""
        session = _Session()
        process = await trio.lowlevel.open_process(list(hooks.command), env=env,
                                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        writable = True

        async def send(line: bytes) -> None:
            nonlocal writable
            if writable:
                try:
                    await process.stdin.send_all(line)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    writable = False  # it died: its output ends too, and says which games it took along

        async def fill() -> None:  # games for its free slots, as many as may start now
            while len(session.in_flight) < shares[index] and (spec := apart.take()) is not None:
                session.in_flight[spec.game_id] = spec  # before sending: if the worker dies now, it is replayed
                await send(encode((spec, frozenset(retired))))

        try:
            await send(encode({"config": config, "first_slot": sum(shares[:index]), "slots": shares[index],
                               "logs": logs, "transcripts": transcripts}))
            await fill()
            async with contextlib.aclosing(read_lines(process.stdout)) as lines:
                while session.in_flight or not apart.over:
                    if not session.in_flight:  # every game left waits for one in play elsewhere (or for more)
                        await apart.freed.wait()
                        await fill()
                        continue
                    line = await anext(lines, None)
                    if line is None:
                        break  # its output ended with games out: it died
                    record = GameRecord.from_json(line.decode())
                    if session.in_flight.pop(record.game_id, None) is None:
                        raise WorkerFailed(f"referee worker {index + 1} returned game {record.game_id!r}, "
                                           "which it was not given")
                    apart.done(record.game_id)
                    session.returned += 1
                    note_retirement(record, entrants, retired)
                    await finished(record)
                    if hooks.on_record is not None:
                        hooks.on_record(index, process.pid, record)
                    await fill()
            if not session.in_flight:
                await send(END + b"\n")
            if session.in_flight:  # its output ended with games out: it died
                with trio.move_on_after(10):
                    await process.wait()
            else:
                await process.wait()
        finally:
            with trio.CancelScope(shield=True):
                if process.returncode is None:
                    process.send_signal(signal.SIGTERM)  # it closes its bots and exits (so does a dead parent's)
                    with trio.move_on_after(15):
                        await process.wait()
                    if process.returncode is None:
                        process.kill()
                        await process.wait()
        session.exit = _exit_text(process.returncode)
        return session

    async def drive(index: int) -> None:
        deaths = 0  # in a row, without a finished game
        while True:
            session = await run_worker(index)
            lost = list(session.in_flight.values())
            if not lost:
                return
            apart.todo.extendleft(reversed(lost))  # at the front, in the order they were handed out
            for spec in lost:
                apart.done(spec.game_id)  # no longer in play
            deaths = 0 if session.returned else deaths + 1
            if deaths >= CRASH_LOOP:
                raise WorkerFailed(f"referee worker {index + 1} died {deaths} times in a row before finishing a game "
                                   f"(last: {session.exit}); this is a bug in the referee, not a bot's fault")
            print(f"pinochle-arena: referee worker {index + 1} died ({session.exit}) with {len(lost)} "
                  f"game{'s' if len(lost) != 1 else ''} in flight; starting a new one and playing "
                  f"{'them' if len(lost) != 1 else 'it'} again", file=sys.stderr, flush=True)

    async with trio.open_nursery() as nursery:
        for index in range(processes):
            nursery.start_soon(drive, index)


def _exit_text(status: int | None) -> str:
    if status is not None and status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"
