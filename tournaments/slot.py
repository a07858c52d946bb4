"""A tournament's slot: a lane (:mod:`referee.match.lane`) set up from the tournament's configuration.

Used wherever a tournament's games are played: in one referee process
(:func:`referee.match.stream.play_games`), in each referee worker process
(:mod:`tournaments.worker`) and on each cluster machine
(:mod:`tournaments.cluster_worker`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import trio

from referee.match import Entrant
from referee.match.lane import GameSpec, LaneSettings, Seen, open_lane, play_stream
from referee.records.record import GameRecord

from .config import TournamentConfig


def lane_settings(config: TournamentConfig, logs: Path, transcripts: bool, seen: Seen | None = None) -> LaneSettings:
    """What every game of the tournament shares; ``seen`` is given each game's record and notices (the report's
    films: see :data:`~referee.match.lane.Seen`)."""
    return LaneSettings(config.variant, logs, duplicate=config.duplicate, boards=bool(config.boards),
                        wait_ms=config.wait_ms, transcripts=transcripts, game_logs=config.game_logs, seen=seen)


def slot_stem(slot: int) -> str:
    """How slot ``slot``'s logs are told apart: ``ENTRANT.wSLOT.stderr.log``."""
    return f".w{slot}"


async def play_slot(slot: int, queue: trio.MemoryReceiveChannel[GameSpec], entrants: Mapping[str, Entrant],
                    config: TournamentConfig, logs: Path, finished: Callable[[GameRecord], Awaitable[None]],
                    transcripts: bool, retired: set[str], seen: Seen | None = None) -> None:
    """Play the games of ``queue`` one after another with this slot's bots; close them at the end.

    ``retired`` is shared by every slot (and, through the parent, every
    process): entrants with ``restart = "never"`` that faulted anywhere, which
    are not started again for later games.
    """
    async with open_lane(entrants, lane_settings(config, logs, transcripts, seen), slot_stem(slot), retired) as lane:
        await play_stream(lane, queue, finished)
