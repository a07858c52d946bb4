"""Replay game records through the rules engine and report every mismatch.

A record is consistent when, starting from its variant, options and seed:
the deals are the ones recorded, every recorded action is legal for the
recorded seat, the melds, hand points, totals and result come out the same,
and a game that ended on a fault stopped where the record says it did
(an illegal action really is illegal).

A record is replayed under the rules of the version it names
(:data:`referee.rules.variants.RULES_VERSION`, sealed with the rest of the
line; a record without one was written before the first change of the
rules, version 1): never under rules it does not name, so a record of
today cannot pass by the rules of an earlier day.
"""

from __future__ import annotations

import attrs

from ..rules import (
    IllegalActionError,
    VariantError,
    get_variant,
    new_game,
    recorded_action,
)
from ..rules import events as ev
from ..rules.events import Notice
from ..rules.state import GameState
from ..rules.variants import Variant, rules_of_version
from .deals import record_decks
from .record import GameRecord, Termination


@attrs.frozen
class ReplayReport:
    game_id: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def replay_record(record: GameRecord) -> ReplayReport:
    """The record's problems under the rules of its version."""
    try:
        variant = rules_of_version(get_variant(record.variant, record.options), record.rules)
    except VariantError as e:
        return ReplayReport(record.game_id, (f"variant: {e}",))
    return _replay(record, variant)


def _replay(record: GameRecord, variant: Variant) -> ReplayReport:
    problems: list[str] = []
    settings = variant.settings()
    # a record lists every option of its day; an option added since then takes its preset's value
    if any(settings.get(key) != value for key, value in record.options.items()):
        problems.append("options: the record's options do not rebuild the same variant")
    if record.seats and len(record.seats) != variant.players:
        problems.append(f"seats: {len(record.seats)} recorded, variant has {variant.players}")
        return ReplayReport(record.game_id, tuple(problems))
    try:
        decks = record_decks(record, variant)  # a deal file's, if the game was given some
    except (KeyError, ValueError, TypeError) as e:
        problems.append(f"deals: the record's fixed decks cannot be read back ({e})")
        return ReplayReport(record.game_id, tuple(problems))
    game, notices = new_game(variant, record.seed, decks)
    kept = _Kept()
    kept.collect(notices)
    problems += _action_problems(record, game, kept)
    started = bool(record.deals or record.actions)  # a fault before the first deal leaves neither
    if started and game.deals != record.deals:
        problems.append("deals: the seed does not give the recorded deals")
    if kept.melds != record.melds:
        problems.append(f"melds: replay gives {len(kept.melds)} melds, record has {len(record.melds)}"
                        + _first_difference(kept.melds, record.melds))
    if kept.hands != record.hands:
        problems.append("hands: hand points or totals differ" + _first_difference(kept.hands, record.hands))
    problems += _ending_problems(record, game, variant)
    return ReplayReport(record.game_id, tuple(problems))


@attrs.define
class _Kept:
    """What a record keeps of the events, as the replay makes them: the melds and each hand's points and totals."""

    melds: list[dict] = attrs.Factory(list)
    hands: list[dict] = attrs.Factory(list)

    def collect(self, notices: list[Notice]) -> None:
        for n in notices:
            e = n.event
            if isinstance(e, ev.Melded):
                self.melds.append({"hand": len(self.hands) + 1, "seat": e.seat, "meld": e.name, "points": e.points,
                                   "cards": [c.to_text() for c in e.cards]})
            elif isinstance(e, ev.HandEnded):
                self.hands.append({"hand": e.hand, "points": list(e.points), "totals": list(e.totals)})


def _action_problems(record: GameRecord, game: GameState, kept: _Kept) -> list[str]:
    """Play the record's actions in turn, keeping their events, up to the first that does not fit: by the wrong
    seat, after the end, illegal (unless the record says it was, as its last), or legal where the record says
    the last one was not."""
    faulted_last = record.termination is Termination.ILLEGAL_ACTION
    for i, entry in enumerate(record.actions):
        where = f"action {i + 1} ({entry.seat}: {entry.action})"
        if game.is_terminal():
            return [f"{where}: the game was already over"]
        seat = game.current_seat()
        if entry.seat != seat:
            return [f"{where}: seat {seat} was to act, not seat {entry.seat}"]
        is_last = i == len(record.actions) - 1
        try:
            action = recorded_action(game, entry.action, last=is_last)
            game.check(action)
        except IllegalActionError as e:
            return [] if is_last and faulted_last else [f"{where}: illegal: {e}"]
        if is_last and faulted_last:
            return [f"{where}: recorded as illegal, but the rules accept it"]
        kept.collect(game.apply(action))
    return []


def _ending_problems(record: GameRecord, game: GameState, variant: Variant) -> list[str]:
    """How the replayed game ends against the record's termination: a completed game's result and totals; a
    fault's game not over, with the seat at fault (the one to act, for a timeout) losing."""
    problems = []
    if record.termination is Termination.COMPLETED:
        if not game.is_terminal():
            problems.append("result: the record says completed, but the game is not over after its actions")
        elif tuple(game.returns()) != tuple(record.result) or tuple(game.totals) != tuple(record.totals):
            problems.append(f"result: replay gives {game.returns()} with totals {tuple(game.totals)}, "
                            f"record has {record.result} with totals {record.totals}")
        return problems
    faulted_last = record.termination is Termination.ILLEGAL_ACTION
    if game.is_terminal():
        problems.append(f"termination: the record says {record.termination.value}, but the game was complete")
    if record.culprit is None:
        problems.append(f"termination: {record.termination.value} names no seat at fault")
    elif not faulted_last and record.actions and game.current_seat() != record.culprit and record.termination is Termination.TIMEOUT:
        problems.append(f"termination: seat {record.culprit} timed out, but seat {game.current_seat()} was to act")
    if record.culprit is not None and len(record.result) == variant.players and record.result[record.culprit] != 0.0:
        problems.append("result: the seat at fault did not lose")
    return problems


def _first_difference(mine: list, theirs: list) -> str:
    for i, (a, b) in enumerate(zip(mine, theirs)):
        if a != b:
            return f"; first difference at #{i + 1}: replay {a}, record {b}"
    return ""
