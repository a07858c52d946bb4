"""A slot: one game at a time, with bot processes of its own.

Whether a process is kept for the next game is the :class:`~referee.match.Player`'s
rule (a fresh one for every game unless the bot is trusted with ``persist``;
boards: one per seating of successive boards). On boards a slot closes its
processes when the next game is another seating or table.

Used by the in-process runner (:mod:`tournaments.runner`) and by each
referee worker process (:mod:`tournaments.worker`) alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from referee.match import Entrant, Player, Restart, close_players, play_game
from referee.records.record import GameRecord

from .config import TournamentConfig
from .schedule import GameSpec


async def play_slot(slot: int, queue: trio.MemoryReceiveChannel, entrants: dict[str, Entrant],
                    config: TournamentConfig, pool: dict[str, Player], logs: Path,
                    finished: Callable[[GameRecord], Awaitable[None]], transcripts: bool, retired: set[str]) -> None:
    """Play the games of ``queue`` one after another with this slot's bots; close them at the end.

    ``retired`` is shared by every slot (and, through the parent, every
    process): entrants with ``restart = "never"`` that faulted anywhere, which
    are not started again for later games.
    """
    seating = None

    def seated(game: GameSpec) -> list[Player]:
        return [_player(pool, entrants[name], logs, slot, transcripts, config, retired) for name in game.seating]

    async with queue, trio.open_nursery() as bots:
        try:
            spec = await _next(queue)
            played = False
            while spec is not None:
                if played and config.wait_ms:  # cutechess's -wait: a pause between two games of these processes
                    await trio.sleep(config.wait_ms / 1000)
                played = True
                if config.boards and seating != (spec.pairing, spec.turn):  # each seating of a board: its own processes
                    seating = (spec.pairing, spec.turn)
                    await _close_all(pool)
                players = seated(spec)
                after = _waiting(queue)  # the next game, if it is there already: its bots start during this one
                same_processes = after is not None and not (config.boards and seating != (after.pairing, after.turn))
                upcoming = seated(after) if same_processes else []
                record = await play_game(bots, players, config.variant, spec.seed, spec.game_id,
                                         extra={"pairing": list(spec.pairing), "pair": spec.pair,
                                                "duplicate": config.duplicate, "sides": list(spec.sides),
                                                "bots": list(spec.bots), **({"board": spec.pair} if config.boards else {})},
                                         decks=spec.decks, upcoming=upcoming,
                                         upcoming_game=after.game_id if upcoming else "")
                for player in players:
                    await player.game_over(bots)
                note_retirement(record, entrants, retired)
                await finished(record)
                spec = after or await _next(queue)
        finally:
            await _close_all(pool)
            bots.cancel_scope.cancel()


async def _next(queue: trio.MemoryReceiveChannel) -> GameSpec | None:
    """The queue's next game, waiting for it; None once the queue is closed."""
    try:
        return await queue.receive()
    except trio.EndOfChannel:
        return None


def _waiting(queue: trio.MemoryReceiveChannel) -> GameSpec | None:
    """The queue's next game if it can be had without waiting."""
    try:
        return queue.receive_nowait()
    except (trio.WouldBlock, trio.EndOfChannel):
        return None


async def _close_all(pool: dict[str, Player]) -> None:
    await close_players(pool.values())
    pool.clear()


def note_retirement(record: GameRecord, entrants: dict[str, Entrant], retired: set[str]) -> None:
    """Add the entrant at fault to ``retired`` if its restart policy is 'never'."""
    if record.culprit is None or not record.seats:
        return
    name = record.seats[record.culprit].entrant
    entrant = entrants.get(name)
    if entrant is not None and entrant.restart is Restart.NEVER:
        retired.add(name)


def _player(pool: dict[str, Player], entrant: Entrant, logs: Path, slot: int, transcripts: bool,
            config: TournamentConfig, retired: set[str]) -> Player:
    """The slot's player of ``entrant`` (made on its first game), marked faulted if it was ``retired`` anywhere."""
    player = pool.get(entrant.name)
    if player is None:
        player = pool[entrant.name] = Player.logged(entrant, logs, f"{entrant.name}.w{slot}", transcripts,
                                                    one_seating=bool(config.boards), game_logs=config.game_logs)
    if entrant.name in retired:
        player.faulted = True
    return player
