"""A tournament's results folder: a :class:`referee.results.ResultStore`, and the schedule it is checked against."""

from __future__ import annotations

from referee.audit import Schedule
from referee.results import Recovery, ResultStore, StoreError

from .config import TournamentConfig
from .schedule import GameSpec
from .schedule import schedule as games_of


def tournament_schedule(config: TournamentConfig, specs: list[GameSpec] | None = None) -> Schedule:
    """What ``schedule.jsonl`` keeps of a tournament's games (``specs``, by default all of them)."""
    specs = games_of(config) if specs is None else specs
    return Schedule.of_games("tournament", config.variant, [(s.game_id, s.seating) for s in specs])


__all__ = ["Recovery", "ResultStore", "StoreError", "tournament_schedule"]
