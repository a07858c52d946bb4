"""A knockout tournament (cutechess's ``-tournament knockout``): the contestants in seed order, matches of
``games_per_pairing`` games, the winner of each match through to the next round.

The bracket itself (who meets whom, tie-breaks, byes) is
:mod:`referee.records.knockout`, which the audit of the records shares. This
module turns the games a bracket asks for into the tournament's
:class:`~tournaments.schedule.GameSpec`: which deal each plays, who plays for
whom. Every round plays deals of its own, and every match of a round the same
ones (with duplicate deals), so that luck is shared within a round as in a
round robin; a match's tie-break deals follow its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.records.audit import Schedule
from referee.records.knockout import Bracket, Knockout, KnockoutGame, results_of

from .config import TournamentConfig
from .schedule import GameSpec, deal_of


def knockout_of(config: TournamentConfig) -> Knockout:
    """The bracket of a knockout configuration: its contestants seeded in configuration order."""
    members = {t.name: t.members() for t in config.teams}
    return Knockout(tuple(config.contestants()), config.games_per_pairing, 2 if config.duplicate else 1, members)


def knockout_schedule(config: TournamentConfig) -> Schedule:
    """What ``schedule.jsonl`` keeps of a knockout: its bracket, from which its games follow."""
    return Schedule.of_knockout("tournament", config.variant, knockout_of(config))


def bracket(config: TournamentConfig, records: Iterable) -> Bracket:
    """The bracket as far as ``records`` take it."""
    return knockout_of(config).walk(results_of(records))


def games_to_play(config: TournamentConfig, records: Iterable) -> list[GameSpec]:
    """The games the bracket asks for now that have no record in ``records``: empty once there is a champion."""
    records = list(records)
    done = {r.game_id for r in records}
    return [spec_of(config, g) for g in bracket(config, records).games() if g.game_id not in done]


def spec_of(config: TournamentConfig, game: KnockoutGame) -> GameSpec:
    knockout = knockout_of(config)
    if config.duplicate:  # round r plays deals of its own; every match of the round the same ones
        seed, decks = deal_of(config, (game.round - 1) * 2 * knockout.deals + game.deal)
    else:
        seed, decks = deal_of(config, game.deal, f"r{game.round}m{game.match}")
    bot_of = config.member_bots()
    return GameSpec(game.game_id, game.seating, seed, game.pairing, game.deal + 1,
                    sides=tuple(knockout.contestant_of(e) for e in game.seating),
                    bots=tuple(bot_of.get(e, e) for e in game.seating), decks=decks, turn=game.turn)


def least_games(config: TournamentConfig) -> int:
    """The games of a knockout without tie-breaks: one match fewer than contestants."""
    return (len(config.contestants()) - 1) * config.games_per_pairing


def bracket_lines(result: Bracket) -> list[str]:
    """The bracket round by round, for the terminal: each match's score and how it was decided."""
    lines = []
    for round_ in sorted({m.round for m in result.matches} | {r for r, _ in result.byes}):
        lines.append(f"round {round_}:")
        for m in (m for m in result.matches if m.round == round_):
            (a, b), (x, y) = m.pairing, m.score
            verdict = f"{m.winner} through {m.how}" if m.winner else "playing"
            lines.append(f"  {a} {x:g} - {y:g} {b}  ({len(m.games)} games): {verdict}")
        lines += [f"  {name}: a bye" for r, name in result.byes if r == round_]
    lines.append(f"champion: {result.champion}" if result.champion else "no champion yet")
    return lines


__all__ = ["bracket", "bracket_lines", "games_to_play", "knockout_of", "knockout_schedule", "least_games",
           "spec_of"]
