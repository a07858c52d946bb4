"""A league's settings, checked before the league is made.

A league keeps the [tournament], [time] and [limits] tables of a tournament's
configuration, which every one of its games is played under, and a [league]
table of its own (:mod:`league.db` stores them; :func:`league.runner.league_config`
makes each run's configuration from them). :func:`check_settings` refuses, in
one line, settings no game could be played under, with the messages a
tournament's configuration gives for the same tables.
"""

from __future__ import annotations

from typing import Any

from referee.bots.sandbox import Isolation, Limits, Sandbox, SandboxError
from referee.match.clock import TimeControl
from referee.rules import VariantError, get_variant

from .errors import LeagueError

DEFAULT_VARIANT = "two-handed"
TIME_KEYS = {"move": "move_ms", "bank": "bank_ms", "increment": "increment_ms", "grace": "grace_ms"}


def check_settings(settings: dict[str, Any], where: str = "league init") -> None:
    """LeagueError, in one line naming ``where``, if a game could not be played under ``settings``: its variant
    with its options, its time control, its limits, and the jail its isolation asks for on this machine."""
    tournament = settings.get("tournament", {})
    check_variant(tournament, where)
    try:
        TimeControl(**{TIME_KEYS[k]: v for k, v in settings.get("time", {}).items() if v is not None})
    except ValueError as e:
        raise LeagueError(f"{where}: time: {e}") from None
    try:
        limits = Limits.from_dict(settings.get("limits", {}))
    except ValueError as e:
        raise LeagueError(f"{where}: limits: {e}") from None
    try:
        Sandbox(limits, Isolation(tournament.get("isolation", Isolation.JAIL.value))).check()
    except SandboxError as e:
        raise LeagueError(f"{where}: tournament.isolation: {e}") from None


def check_variant(tournament: dict[str, Any], where: str) -> None:
    """LeagueError if the [tournament] table's variant is unknown (the message lists the known ones), or its
    options are not rules of that variant."""
    name = tournament.get("variant", DEFAULT_VARIANT)
    try:
        get_variant(name)
    except VariantError as e:
        raise LeagueError(str(e)) from None
    try:
        get_variant(name, tournament.get("options", {}))
    except VariantError as e:
        raise LeagueError(f"{where}: tournament: {e}") from None


__all__ = ["DEFAULT_VARIANT", "check_settings", "check_variant"]
