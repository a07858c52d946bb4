"""The match loop: one game between bot processes, and the one loop every command plays its games through.

Owns: an entrant and its running player with the restart policy
(``player``), the protocol client that speaks to one bot (``client``), the
translation of rules events into protocol lines (``wire``), the clock
(``clock``), one game (``game``: ask, validate, apply, inform, record), the
one game loop (``lane``: a game's spec and a lane of games one after
another; ``stream``: lanes side by side, seatings apart, the one writer of
the records), a match's schedule and run (``runner``), and the compliance
check for bot authors (``compliance``).

May import: ``referee.rules``, ``referee.bots``, ``referee.records``,
``protocol`` and ``referee.match``. Never the command line, tournaments or
the viewer: they call down into this package, not the other way round.

The names below are the package's public surface.
"""

# Moved to referee.rules.dealing (the seeds of deals); importable from here for one release, as in 0.1.
from ..rules.dealing import derive_seed  # noqa: F401
from .client import BotClient
from .clock import Clock, TimeControl
from .game import game_wire_id, play_game
from .player import (
    BOARDS_PER_PROCESS,
    Entrant,
    Player,
    Preflight,
    Restart,
    close_players,
    file_safe,
    game_log_name,
    named_by_bots,
    preflight,
)
from .runner import MatchPlan, board_run_groups, board_runs, match_games, match_group, match_schedule, run_match

__all__ = [
    "BOARDS_PER_PROCESS", "BotClient", "Clock", "Entrant", "MatchPlan", "Player", "Preflight", "Restart", "TimeControl",
    "board_run_groups", "board_runs", "close_players", "file_safe", "game_log_name", "game_wire_id", "match_games",
    "match_group", "match_schedule", "named_by_bots", "play_game", "preflight", "run_match",
]
