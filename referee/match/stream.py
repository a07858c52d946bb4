"""Many lanes at once, and the one writer of their records.

:func:`play_games` plays a run's games ``concurrency`` at a time on this
machine, each lane (:mod:`referee.match.lane`) with processes of its own.
A match, an SPRT test, ``play`` and a tournament or league in one referee
process call it; a tournament over referee worker processes or a cluster
(:mod:`tournaments.runner`) uses its parts: :class:`SeatingsApart` to
hand out games, :func:`open_writer` to save what comes back.

The writer is the only one that saves records: finished games are written
in batches by one task, in a thread (the event loop, and so every bot's
clock, never waits for the disk), and it drains its queue even when the
run is cancelled, so a game that finished is never lost.
"""

from __future__ import annotations

import collections
import contextlib
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import attrs
import trio

from ..records.record import GameRecord
from .lane import GameSpec, LaneSettings, open_lane, play_stream
from .player import Entrant

FEED_AHEAD = 4  # with ``more``: games kept waiting per lane, so that choosing the next ones never idles a lane


class RecordSink(Protocol):
    """Where a run's records go: a results folder (:class:`~referee.records.store.ResultStore`) or a
    league's database. ``append_many`` is called from a worker thread, one batch at a time."""

    directory: Path  # the run's folder: the bots' logs are kept in ``directory/logs``

    def append_many(self, records: list[GameRecord]) -> None: ...


@attrs.define
class Writer:
    """The open writer: hand it each finished record (see :func:`open_writer`)."""

    _send: trio.MemorySendChannel[GameRecord]

    async def put(self, record: GameRecord) -> None:
        await self._send.send(record)

    def put_nowait(self, record: GameRecord) -> None:
        self._send.send_nowait(record)


@contextlib.asynccontextmanager
async def open_writer(sink: RecordSink, on_game: Callable[[GameRecord], None] | None = None,
                      gather: float = 0.0) -> AsyncIterator[Writer]:
    """The one writer of a run's records, until the block ends and every record handed to it is saved.

    ``on_game`` is called with each record once it is saved. ``gather``
    (seconds) is how long the writer waits after a game finishes for others
    to write with it: for a sink whose every write has a cost of its own (a
    database transaction), fewer and larger writes.
    """
    send, receive = trio.open_memory_channel[GameRecord](math.inf)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_write, receive, sink, on_game, gather)
        async with send:
            yield Writer(send)


async def _write(queue: trio.MemoryReceiveChannel[GameRecord], sink: RecordSink,
                 on_game: Callable[[GameRecord], None] | None, gather: float) -> None:
    """Save every record of ``queue``, in batches (group commit); shielded, and it ends only when the queue is
    closed and empty, so even a cancelled run (Ctrl-C) loses no game that finished."""
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
                await trio.to_thread.run_sync(sink.append_many, batch)
                if on_game is not None:
                    for record in batch:
                        on_game(record)


@attrs.define
class SeatingsApart:
    """The games that may start now: never one that deals the deal of a game in play to one of its bots.

    The seatings of a duplicate deal (and the same deal in another pairing)
    give a bot every hand of one deal; played at the same time on one
    machine, the copies could pass their hands through what the kernel
    shares (docs/competition.md, Running a competition). So a game waits
    while another of its deal with one of its bots is in play, and the next
    game in the queue that does not clash goes first.
    """

    todo: collections.deque[GameSpec]
    running: dict[str, GameSpec] = attrs.Factory(dict)
    freed: trio.Event = attrs.Factory(trio.Event)  # set (and made anew) when a game ends, or games come or stop
    open: bool = False  # more games may come (``more`` of play_games): an empty queue is not the end
    # one game at a time (one lane): a game handed out starts only once the last has ended, so the queue's
    # order is kept (the lane takes its next game during the last, to start its bots ahead)
    alone: bool = False

    def take(self) -> GameSpec | None:
        """The first game of the queue that may start now (None: none may), marked as in play."""
        for spec in self.todo:
            if self.alone or not any(other.seed == spec.seed and set(_bots(other)) & set(_bots(spec))
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

    def put_back(self, games: Sequence[GameSpec]) -> None:
        """Games handed out and not played (their referee died): at the front, in the order given."""
        self.todo.extendleft(reversed(games))
        for spec in games:
            self.running.pop(spec.game_id, None)
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


def _bots(spec: GameSpec) -> tuple[str, ...]:
    return spec.bots or spec.seating


async def feed_more(apart: SeatingsApart, more: Callable[[], Awaitable[Sequence[GameSpec]]], low: int) -> None:
    """Keep at least ``low`` games waiting, from ``more()``, until it has no more; then close the queue."""
    while True:
        while len(apart.todo) >= low:
            await apart.freed.wait()
        found = await more()
        if not found:
            apart.close()
            return
        apart.add(found)


async def play_lanes(apart: SeatingsApart, entrants: Mapping[str, Entrant], settings: LaneSettings, lanes: int,
                     writer: Writer, stem: Callable[[int], str], retired: set[str] | None = None) -> None:
    """Play the games of ``apart`` on ``lanes`` lanes (lane ``i``'s logs named with ``stem(i)``); each record
    goes to ``writer``. A game is handed out only when a lane is free."""
    send, receive = trio.open_memory_channel[GameSpec](0)
    retired = set() if retired is None else retired

    async def hand_out() -> None:
        async with send:
            while (spec := await apart.next()) is not None:
                await send.send(spec)

    async def finished(record: GameRecord) -> None:
        apart.done(record.game_id)
        await writer.put(record)

    async def lane(number: int, queue: trio.MemoryReceiveChannel[GameSpec]) -> None:
        async with open_lane(entrants, settings, stem(number), retired) as this:
            await play_stream(this, queue, finished)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(hand_out)
        for number in range(lanes):
            nursery.start_soon(lane, number, receive.clone())
    receive.close()


async def play_games(games: Sequence[GameSpec], entrants: Mapping[str, Entrant], settings: LaneSettings,
                     sink: RecordSink, concurrency: int = 1, on_game: Callable[[GameRecord], None] | None = None,
                     more: Callable[[], Awaitable[Sequence[GameSpec]]] | None = None, gather: float = 0.0,
                     stem: Callable[[int], str] = lambda number: f".w{number}") -> None:
    """Play ``games`` on this machine, ``concurrency`` at a time, never two seatings of a deal for one bot at
    once; every record is saved to ``sink`` by the one writer, then passed to ``on_game``.

    With ``more``, the games do not end with ``games``: whenever fewer wait
    than ``FEED_AHEAD`` a lane, ``more()`` is asked for the next ones, and
    the run ends once it returns none and the games in play are over.
    """
    lanes = concurrency if more is not None else min(concurrency, max(len(games), 1))
    apart = SeatingsApart(collections.deque(games), open=more is not None, alone=lanes == 1)
    async with open_writer(sink, on_game, gather) as writer, trio.open_nursery() as nursery:
        if more is not None:
            nursery.start_soon(feed_more, apart, more, FEED_AHEAD * lanes)
        await play_lanes(apart, entrants, settings, lanes, writer, stem)
