"""Run a tournament's games concurrently: in one trio referee, or over several referee processes.

``concurrency`` games run at once, each in a *slot* that owns its bot
processes (one per entrant it has met, reused from game to game and
restarted after a fault), so no process ever serves two games at once.

One Python process can only use one core, and the referee is CPU-bound with
fast bots, so with ``processes`` > 1 the slots are spread over that many
worker processes (:mod:`tournaments.worker`), each a trio referee of its
own. The parent hands out games one at a time as slots free up, and is the
only writer of the results: finished games are appended and fsynced in
batches by one writer task, which drains its queue even when the tournament
is cancelled.
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import trio

from referee.match import Entrant, Player, Restart, play_game
from referee.record import GameRecord

from .config import TournamentConfig
from .schedule import GameSpec
from .store import ResultStore

ROOT = Path(__file__).resolve().parent.parent


async def run_games(
    config: TournamentConfig,
    games: Sequence[GameSpec],
    store: ResultStore,
    on_game: Callable[[GameRecord], None] | None = None,
    transcripts: bool = False,
) -> None:
    """Play ``games`` (the ones not yet in the store) with ``config.concurrency`` games at once."""
    slots = min(config.concurrency, max(len(games), 1))
    processes = min(config.referee_processes, slots)
    logs = store.directory / "logs"
    send, receive = trio.open_memory_channel(max(len(games), 1))

    async def finished(record: GameRecord) -> None:
        await send.send(record)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_write_results, receive, store, on_game)
        async with send:
            if processes <= 1:
                await _run_here(config, games, slots, logs, finished, transcripts)
            else:
                await _run_in_workers(config, games, slots, processes, logs, finished, transcripts)


async def _write_results(queue: trio.MemoryReceiveChannel, store: ResultStore,
                         on_game: Callable[[GameRecord], None] | None) -> None:
    """The only writer of the results: every finished game reaches the disk, in batches (group commit).

    Shielded, and it ends only when the games are over and the queue is empty,
    so even a cancelled tournament (Ctrl-C) loses no game that finished. The
    games go on while a batch is written (in a thread: the event loop, and so
    every clock, never waits for the disk).
    """
    with trio.CancelScope(shield=True):
        async with queue:
            async for first in queue:
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


async def play_slot(slot: int, queue: trio.MemoryReceiveChannel, entrants: dict[str, Entrant],
                    config: TournamentConfig, pool: dict[str, Player], logs: Path,
                    finished: Callable[[GameRecord], Awaitable[None]], transcripts: bool, retired: set[str]) -> None:
    """Play the games of ``queue`` one after another with this slot's bots; close them at the end.

    ``retired`` is shared by every slot (and, through the parent, every
    process): entrants with ``restart = "never"`` that faulted anywhere, which
    are not started again for later games.
    """
    async with queue, trio.open_nursery() as bots:
        try:
            async for spec in queue:
                players = [_player(pool, entrants[name], logs, slot, transcripts) for name in spec.seating]
                for player in players:
                    if player.entrant.name in retired:
                        player.faulted = True
                record = await play_game(bots, players, config.variant, spec.seed, spec.game_id,
                                         extra={"pairing": list(spec.pairing), "pair": spec.pair,
                                                "duplicate": config.duplicate, "sides": list(spec.sides),
                                                "bots": list(spec.bots)})
                note_retirement(record, entrants, retired)
                await finished(record)
        finally:
            with trio.CancelScope(shield=True):
                for player in pool.values():
                    await player.close()
            bots.cancel_scope.cancel()


def note_retirement(record: GameRecord, entrants: dict[str, Entrant], retired: set[str]) -> None:
    """Add the entrant at fault to ``retired`` if its restart policy is 'never'."""
    if record.culprit is None or not record.seats:
        return
    name = record.seats[record.culprit].entrant
    entrant = entrants.get(name)
    if entrant is not None and entrant.restart is Restart.NEVER:
        retired.add(name)


async def _run_here(config, games, slots, logs, finished, transcripts) -> None:
    entrants = config.seat_entrants()
    send, receive = trio.open_memory_channel(len(games) or 1)
    for spec in games:
        send.send_nowait(spec)
    send.close()
    retired: set[str] = set()
    async with trio.open_nursery() as nursery:
        for slot in range(slots):
            nursery.start_soon(play_slot, slot, receive.clone(), entrants, config, {}, logs, finished, transcripts,
                               retired)
    receive.close()


class WorkerFailed(RuntimeError):
    """A referee worker process died: a referee bug (its traceback is on stderr above)."""


async def _run_in_workers(config, games, slots, processes, logs, finished, transcripts) -> None:
    from .worker import END, encode, read_lines  # the worker module imports this one

    todo = collections.deque(games)
    shares = [slots // processes + (1 if i < slots % processes else 0) for i in range(processes)]
    entrants = config.seat_entrants()
    retired: set[str] = set()  # sent with every game, so a 'never' entrant's fault in one worker retires it in all
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])

    async def drive(index: int) -> None:
        first = sum(shares[:index])
        process = await trio.lowlevel.open_process([sys.executable, "-m", "tournaments.worker"], env=env,
                                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            await process.stdin.send_all(encode({"config": config, "first_slot": first, "slots": shares[index],
                                                 "logs": logs, "transcripts": transcripts}))
            out = 0

            async def hand_out() -> None:  # the next game, or 'end' once there are none and none are out
                nonlocal out
                if todo:
                    await process.stdin.send_all(encode((todo.popleft(), frozenset(retired))))
                    out += 1
                elif out == 0:
                    await process.stdin.send_all(END + b"\n")

            await hand_out()
            while todo and out < shares[index]:
                await hand_out()
            async with contextlib.aclosing(read_lines(process.stdout)) as lines:
                async for line in lines:
                    record = GameRecord.from_json(line.decode())
                    note_retirement(record, entrants, retired)
                    await finished(record)
                    out -= 1
                    await hand_out()
                    if out == 0:
                        break
            if out:
                raise WorkerFailed(f"referee worker {index + 1} stopped with {out} games unfinished "
                                   f"(exit status {await process.wait()})")
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

    async with trio.open_nursery() as nursery:
        for index in range(processes):
            nursery.start_soon(drive, index)


def _player(pool: dict[str, Player], entrant: Entrant, logs: Path, slot: int, transcripts: bool) -> Player:
    player = pool.get(entrant.name)
    if player is None:
        player = pool[entrant.name] = Player.logged(entrant, logs, f"{entrant.name}.w{slot}", transcripts)
    return player
