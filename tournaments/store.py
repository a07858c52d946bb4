"""A tournament's results folder: a :class:`referee.records.store.ResultStore`, the schedule it is checked
against, and opening it to start or resume a tournament."""

from __future__ import annotations

import secrets
from pathlib import Path

import attrs

from referee.records.audit import Schedule
from referee.records.store import Recovery, ResultStore, StoreError

from .config import Format, TournamentConfig, save_config
from .knockout import bracket, games_to_play, knockout_schedule, least_games, spec_of
from .schedule import GameSpec
from .schedule import schedule as games_of


def tournament_schedule(config: TournamentConfig, specs: list[GameSpec] | None = None) -> Schedule:
    """What ``schedule.jsonl`` keeps of a tournament's games (``specs``, by default all of them)."""
    specs = games_of(config) if specs is None else specs
    return Schedule.of_games("tournament", config.variant, [(s.game_id, s.seating) for s in specs])


@attrs.frozen
class OpenTournament:
    """A tournament ready to play: its configuration (with its seed), results folder, games and what was saved.

    A knockout's games follow from its results (:mod:`tournaments.knockout`):
    ``specs`` are the ones it asks for when opened, and :meth:`todo` and
    :meth:`total` take the results so far."""

    config: TournamentConfig
    store: ResultStore
    specs: list[GameSpec]
    recovery: Recovery | None  # None: a new tournament

    def saved(self) -> list:
        """The records already saved (by the run being resumed)."""
        return list(self.recovery.records) if self.recovery is not None else []

    def done(self) -> set[str]:
        """The ids of the games already saved."""
        return {r.game_id for r in self.saved()}

    def todo(self, records: list | None = None) -> list[GameSpec]:
        """The games to play next, given ``records`` (default: the ones saved when it was opened)."""
        records = self.saved() if records is None else records
        if self.config.format is Format.KNOCKOUT:
            return games_to_play(self.config, records)
        done = {r.game_id for r in records}
        return [s for s in self.specs if s.game_id not in done]

    def planned(self, records: list) -> list[GameSpec]:
        """Every game of the run as far as is known, played or not (a knockout's: as far as ``records`` go)."""
        if self.config.format is not Format.KNOCKOUT:
            return self.specs
        return [spec_of(self.config, g) for g in bracket(self.config, records).games()]

    def total(self, records: list | None = None) -> int:
        """Games in all, as far as is known: a knockout's grow with its tie-breaks."""
        if self.config.format is not Format.KNOCKOUT:
            return len(self.specs)
        matches = bracket(self.config, self.saved() if records is None else records).matches
        return least_games(self.config) + sum(max(len(m.games) - self.config.games_per_pairing, 0) for m in matches)


def open_tournament(config: TournamentConfig, data: dict, path: Path, resuming: bool) -> OpenTournament:
    """Start the tournament's results folder, or reopen it to resume (StoreError says why it cannot).

    A tournament without a seed gets a secret one, drawn now or read back
    from the run being resumed, so that a resume deals the same games. The
    configuration (``data``, read as ``path``) is kept in the folder.
    """
    store = ResultStore(config.output)
    if config.seed is None:
        config = attrs.evolve(config, seed=saved_seed(store) if resuming else secrets.randbits(128))
    knockout = config.format is Format.KNOCKOUT
    specs = [] if knockout else games_of(config)
    schedule = knockout_schedule(config) if knockout else tournament_schedule(config, specs)
    recovery = None
    if resuming:
        recovery = store.resume(config.fingerprint(), schedule)
    else:
        store.start(config.fingerprint(), schedule)
    if knockout:
        specs = games_to_play(config, list(recovery.records) if recovery is not None else [])
    save_config(config.output, data, path, store.key)
    return OpenTournament(config, store, specs, recovery)


def saved_seed(store: ResultStore) -> int | None:
    """The seed a tournament in ``store`` started with (None if there is none to read: resume then says why),
    from its sealed metadata (StoreError if that was changed)."""
    if not store.meta_path.exists():
        return None
    return store.read_meta().get("seed")


__all__ = ["OpenTournament", "Recovery", "ResultStore", "StoreError", "open_tournament", "tournament_schedule"]
