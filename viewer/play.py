"""`pinochle-arena play`: people at some seats, in their browsers, and bots at the others.

Each game is played by the referee's one game loop, as in a match: the
person's seat is an entrant whose player is a :class:`~viewer.seat.SeatLink`
instead of a process, so the same clock, legality checks, faults and sealed
records apply. Everyone keeps their seat from game to game (deals are new
each game). The results folder is a match's: ``replay``, ``ratings`` and
``report`` read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import trio

from referee.bots.transport import BotCommand
from referee.match import Entrant
from referee.match.clock import TimeControl
from referee.match.lane import GameSpec, LaneSettings
from referee.match.stream import play_games
from referee.records.audit import Schedule
from referee.records.record import GameRecord
from referee.records.store import ResultStore
from referee.rules.dealing import derive_seed
from referee.rules.variants import Variant

from .seat import SeatLink, SeatServer, serve

HUMAN = BotCommand(("human-in-a-browser",))  # what records say started the seat


def human_entrant(seat: int, time_control: TimeControl, link: SeatLink) -> Entrant:
    """A person at ``seat``: kept from game to game (a page is not restarted), connected through ``link``."""
    return Entrant(f"human-{seat}", HUMAN, time_control, persist=True, connect=link.open)


def play_schedule(variant: Variant, seated: Sequence[Entrant], games: int) -> Schedule:
    return Schedule.of_games("match", variant, [(f"g{n}", [e.name for e in seated]) for n in range(1, games + 1)])


async def run_play(seated: Sequence[Entrant], links: dict[int, SeatLink], variant: Variant, games: int, seed: int,
                   out: Path, port: int, on_address: Callable[[list[str]], None],
                   on_game: Callable[[GameRecord], None], startup_timeout: float | None = None) -> list[GameRecord]:
    """Serve the seats, tell ``on_address`` their addresses, play ``games`` games; records go to ``out``. Each seat
    has its entrant's start allowance, or with ``startup_timeout`` that one (a person's page too)."""
    store = ResultStore(out, "play.json")
    store.start({}, play_schedule(variant, seated, games))
    server = SeatServer(links, [e.name for e in seated])
    if startup_timeout is not None:
        seated = [attrs.evolve(e, startup_timeout=startup_timeout) for e in seated]
    records: list[GameRecord] = []

    def saved(record: GameRecord) -> None:
        records.append(record)
        on_game(record)

    async with trio.open_nursery() as nursery:
        chosen = await nursery.start(serve, server, port)
        on_address([server.address(chosen, seat) for seat in sorted(links)])
        await play_games(play_specs(seated, games, seed), {e.name: e for e in seated},
                         LaneSettings(variant, out / "logs", duplicate=False), store, on_game=saved, stem=lambda _: "")
        nursery.cancel_scope.cancel()
    return records


def play_specs(seated: Sequence[Entrant], games: int, seed: int) -> list[GameSpec]:
    """Game n: everyone in their seat, a deal of its own."""
    names = tuple(e.name for e in seated)
    return [GameSpec(f"g{n}", names, derive_seed(seed, "play", n), names, n) for n in range(1, games + 1)]


def seat_entrants(bots: Sequence[Entrant], human_seats: Sequence[int], players: int,
                  human_time: TimeControl) -> tuple[list[Entrant], dict[int, SeatLink]]:
    """Everyone in seat order: people at ``human_seats``, the bots in the other seats in the order given."""
    links = {seat: SeatLink(seat) for seat in human_seats}
    bots = list(bots)
    seated = [human_entrant(seat, human_time, links[seat]) if seat in links else bots.pop(0)
              for seat in range(players)]
    return seated, links
