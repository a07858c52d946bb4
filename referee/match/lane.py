"""A lane: games played one after another by one pool of players. The referee's one game loop.

Every way of playing games goes through a :class:`Lane`: a match, a
tournament (in this process, in a referee worker process, on a cluster
machine), an SPRT test, the league, ``play`` (people in browsers) and
``check``. A lane owns its players (one per entrant it has met: see
:class:`~referee.match.Player` for when a player's process is kept from one
game to the next) and the nursery their processes run in; it plays a
:class:`GameSpec` with :func:`~referee.match.game.play_game`, starts the
processes of the game after it ahead, stops those that will not play again,
and retires entrants whose restart policy is "never" after their fault.

:func:`play_stream` feeds a lane from a queue of specs. Many lanes at once,
with the one writer of the records, are :mod:`referee.match.stream`.

A run may hand its lanes a :data:`Seen` function (``LaneSettings.seen``):
it is given each game's record with the notices its game made, step by
step, in the process that played it, before the record goes on. The
report's films are made there from what the bots were told, rather than by
playing each record through the rules again; the lane knows nothing of
what is done with them.

Every game's record keeps the same ``extra`` (:meth:`GameSpec.extra`):
``pairing`` (the contestants at the table, in the run's order), ``pair``
(the deal's number at that table, or the game's without duplicate deals),
``duplicate``, ``sides`` (per seat, the contestant it plays for: a team in a
partnership), ``bots`` (per seat, the run's bot) and, on boards, ``board``.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from ..bots import kept
from ..records.record import GameRecord
from ..rules.events import Notice
from ..rules.variants import Variant
from .game import play_game
from .player import Entrant, Player, Restart, close_players


@attrs.frozen
class GameSpec:
    """One game to play: who sits where, its deal, and where it stands in the run's schedule."""

    game_id: str
    seating: tuple[str, ...]  # entrant name per seat (a team member's own name in partnerships)
    seed: int
    pairing: tuple[str, ...]  # the contestants at this table (bots, or teams), in the run's order
    pair: int  # deal number (duplicate) or game number within the pairing
    sides: tuple[str, ...] = ()  # per seat: the contestant it plays for (the team, or the bot itself)
    bots: tuple[str, ...] = ()  # per seat: the run's bot (differs from seating for team members)
    decks: tuple = ()  # a deal file's decks for the first deals (the rest come from the seed)
    turn: int = 0  # which of its deal's seatings this game is (duplicate deals and boards)
    rules: Variant | None = None  # this game's rules, where they are not the run's (check's game without claims)

    def extra(self, duplicate: bool, boards: bool) -> dict[str, Any]:
        """What the game's record keeps of the schedule (the one ``extra`` every runner writes)."""
        return {"pairing": list(self.pairing), "pair": self.pair, "duplicate": duplicate,
                "sides": list(self.sides or self.seating), "bots": list(self.bots or self.seating),
                **({"board": self.pair} if boards else {})}


def duplicate_orders(table: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The seatings of one duplicate deal at ``table`` (seat order), the one meaning of duplicate for a match,
    an SPRT, a tournament and the league: every contestant holds every hand once. Two seats: both ways; three:
    all six orders (so each also has each other contestant on its left once with each hand); four or more:
    the rotations (a balanced subset of the orders: each holds each hand and sits in each seat once)."""
    n = len(table)
    if n <= 3:
        return sorted(itertools.permutations(table), key=lambda order: [table.index(x) for x in order])
    return [tuple(table[(i + r) % n] for i in range(n)) for r in range(n)]


# Given each game's record and its notices, step by step (the deal's, then each action's: see play_game's ``seen``)
Seen = Callable[[GameRecord, Sequence[Sequence[Notice]]], None]


@attrs.frozen
class LaneSettings:
    """What every game of a run shares."""

    variant: Variant
    logs: Path  # the bots' logs: ``logs/ENTRANT{stem}.stderr.log`` (see :meth:`Player.logged`)
    duplicate: bool = True  # recorded in each game's extra
    boards: bool = False  # each seating of successive boards has processes of its own (see :class:`Player`)
    wait_ms: int = 0  # a pause between two games of one lane (cutechess's -wait)
    transcripts: bool = False  # every protocol line to ``logs/ENTRANT{stem}.protocol.log``
    game_logs: bool = False  # a stderr log for each game and seat (the league's: see :meth:`Player.logged`)
    seen: Seen | None = None  # given each game's record and notices, where it was played (the report's films)


class Lane:
    """One game at a time, with players of its own. Made by :func:`open_lane`.

    On boards, each seating (a table and which of its seatings) has players
    of its own, whose processes play that seating of successive boards; the
    lane keeps those of the last ``SEATINGS_KEPT`` seatings it played (an
    SPRT's two seatings of each board, or a tournament's run of one seating
    and the next) and stops older ones.
    """

    SEATINGS_KEPT = 2

    def __init__(self, nursery: trio.Nursery, entrants: Mapping[str, Entrant], settings: LaneSettings,
                 stem: str, retired: set[str], players: Mapping[str, Player]):
        self.nursery = nursery  # the players' processes run here
        self.entrants = entrants
        self.settings = settings
        self.stem = stem
        self.retired = retired  # shared by the lanes of a run: entrants not started again after a fault
        self.players: dict[tuple[str, tuple], Player] = {(name, ()): p for name, p in players.items()}
        self.played = 0
        self._seatings: list[tuple] = []  # boards: the seatings whose players are kept, the latest last

    def player(self, name: str, seating: tuple = ()) -> Player:
        """The lane's player of entrant ``name`` (made on its first game; on boards, one per ``seating``),
        marked faulted if the entrant was retired."""
        player = self.players.get((name, seating))
        if player is None:
            entrant = self.entrants[name]
            player = self.players[name, seating] = Player.logged(
                entrant, self.settings.logs, f"{entrant.name}{self.stem}", self.settings.transcripts,
                one_seating=self.settings.boards, game_logs=self.settings.game_logs)
        if name in self.retired:
            player.faulted = True
        return player

    def seated(self, spec: GameSpec) -> list[Player]:
        """The players of ``spec``'s seats."""
        return [self.player(name, self._seating_of(spec)) for name in spec.seating]

    async def play(self, spec: GameSpec, after: GameSpec | None = None) -> GameRecord:
        """Play ``spec``; the processes of ``after`` (the lane's next game, if known) start during it."""
        if self.played and self.settings.wait_ms:  # cutechess's -wait: a pause between two games of these processes
            await trio.sleep(self.settings.wait_ms / 1000)
        self.played += 1
        await self._keep_seating(self._seating_of(spec))
        players = self.seated(spec)
        upcoming = self.seated(after) if after is not None and self._seating_of(after) in self._seatings else []
        seen: list[Sequence[Notice]] | None = [] if self.settings.seen is not None else None
        record = await play_game(self.nursery, players, spec.rules or self.settings.variant, spec.seed, spec.game_id,
                                 extra=spec.extra(self.settings.duplicate, self.settings.boards), decks=spec.decks,
                                 upcoming=upcoming, upcoming_game=after.game_id if after is not None else "",
                                 seen=seen)
        for player in players:
            await player.game_over(self.nursery)
        note_retirement(record, self.entrants, self.retired)
        if self.settings.seen is not None and seen is not None:
            self.settings.seen(record, seen)
        return record

    async def close(self) -> None:
        """Stop every player's processes (the lane may play on with new ones), and the kept jails they leave
        idle (:mod:`referee.bots.kept`: a lane that plays on makes new ones)."""
        await close_players(self.players.values())
        self.players.clear()
        self._seatings.clear()
        await trio.to_thread.run_sync(kept.close_idle)

    def _seating_of(self, spec: GameSpec) -> tuple:
        """Which players a game's seats take: on boards, those of its seating; else the entrants' only ones."""
        return (spec.pairing, spec.turn) if self.settings.boards else ()

    async def _keep_seating(self, seating: tuple) -> None:
        """Mark ``seating`` as the latest; stop the players of a seating that falls out of the kept ones."""
        if seating in self._seatings:
            self._seatings.remove(seating)
        self._seatings.append(seating)
        for old in self._seatings[: -self.SEATINGS_KEPT]:
            await close_players([p for (_, s), p in self.players.items() if s == old])
            self.players = {key: p for key, p in self.players.items() if key[1] != old}
        del self._seatings[: -self.SEATINGS_KEPT]


@contextlib.asynccontextmanager
async def open_lane(entrants: Mapping[str, Entrant], settings: LaneSettings, stem: str = "",
                    retired: set[str] | None = None, players: Mapping[str, Player] | None = None) -> AsyncIterator[Lane]:
    """A lane for ``entrants`` (by name); its processes are stopped when the block ends.

    ``stem`` tells this lane's logs from another's (``.w3``); ``retired`` is
    shared by the lanes of one run; ``players`` are players made by the
    caller to use for their entrants (``check`` keeps its bot's).
    """
    async with trio.open_nursery() as nursery:
        lane = Lane(nursery, entrants, settings, stem, set() if retired is None else retired, players or {})
        try:
            yield lane
        finally:
            await lane.close()
            nursery.cancel_scope.cancel()


async def play_stream(lane: Lane, queue: trio.MemoryReceiveChannel[GameSpec],
                      finished: Callable[[GameRecord], Awaitable[None]]) -> None:
    """Play the games of ``queue`` one after another on ``lane``, each record handed to ``finished``.

    The next game, if it is in the queue already, is taken at once, so that
    its bots start during this one.
    """
    async with queue:
        spec = await _next(queue)
        while spec is not None:
            after = _waiting(queue)
            await finished(await lane.play(spec, after))
            spec = after or await _next(queue)


def note_retirement(record: GameRecord, entrants: Mapping[str, Entrant], retired: set[str]) -> None:
    """Add the entrant at fault to ``retired`` if its restart policy is 'never'."""
    if record.culprit is None or not record.seats:
        return
    name = record.seats[record.culprit].entrant
    entrant = entrants.get(name)
    if entrant is not None and entrant.restart is Restart.NEVER:
        retired.add(name)


async def _next(queue: trio.MemoryReceiveChannel[GameSpec]) -> GameSpec | None:
    """The queue's next game, waiting for it; None once the queue is closed."""
    try:
        return await queue.receive()
    except trio.EndOfChannel:
        return None


def _waiting(queue: trio.MemoryReceiveChannel[GameSpec]) -> GameSpec | None:
    """The queue's next game if it can be had without waiting."""
    try:
        return queue.receive_nowait()
    except (trio.WouldBlock, trio.EndOfChannel):
        return None
