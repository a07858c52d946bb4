"""Run a tournament's games concurrently in one trio referee.

``concurrency`` workers take games from a queue. Each worker owns its bot
processes (one per entrant it has met, reused from game to game and
restarted after a fault), so no process ever serves two games at once. A
finished game is written to the results file (in a worker thread, so the
fsync does not stall the other games' clocks) before its worker takes the
next game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import trio

from referee.match import Entrant, Player, play_game
from referee.record import GameRecord

from .config import TournamentConfig
from .schedule import GameSpec
from .store import ResultStore


async def run_games(
    config: TournamentConfig,
    games: Sequence[GameSpec],
    store: ResultStore,
    on_game: Callable[[GameRecord], None] | None = None,
    transcripts: bool = False,
) -> None:
    """Play ``games`` (the ones not yet in the store) with ``config.concurrency`` workers."""
    entrants = config.seat_entrants()
    send, receive = trio.open_memory_channel(len(games) or 1)
    for spec in games:
        send.send_nowait(spec)
    send.close()
    logs = store.directory / "logs"
    async with trio.open_nursery() as nursery:
        for worker in range(min(config.concurrency, max(len(games), 1))):
            nursery.start_soon(_worker, worker, receive.clone(), entrants, config, store, logs, on_game, transcripts)
    receive.close()


async def _worker(worker: int, queue: trio.MemoryReceiveChannel, entrants: dict[str, Entrant], config: TournamentConfig,
                  store: ResultStore, logs: Path, on_game, transcripts: bool) -> None:
    pool: dict[str, Player] = {}
    async with queue, trio.open_nursery() as bots:
        try:
            async for spec in queue:
                players = [_player(pool, entrants[name], logs, worker, transcripts) for name in spec.seating]
                record = await play_game(bots, players, config.variant, spec.seed, spec.game_id,
                                         extra={"pairing": list(spec.pairing), "pair": spec.pair,
                                                "duplicate": config.duplicate, "sides": list(spec.sides),
                                                "bots": list(spec.bots)})
                await trio.to_thread.run_sync(store.append, record)
                if on_game is not None:
                    on_game(record)
        finally:
            with trio.CancelScope(shield=True):
                for player in pool.values():
                    await player.close()
            bots.cancel_scope.cancel()


def _player(pool: dict[str, Player], entrant: Entrant, logs: Path, worker: int, transcripts: bool) -> Player:
    player = pool.get(entrant.name)
    if player is None:
        player = pool[entrant.name] = Player.logged(entrant, logs, f"{entrant.name}.w{worker}", transcripts)
    return player
