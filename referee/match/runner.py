"""A match: the games of a schedule between fixed entrants, played one after another into a results store.

:func:`match_schedule` deals each group of games from one seed with the
seating rotated (duplicate deals), or from a deal file; :func:`board_runs`
orders board games so that each seating's processes play their boards in a
row; :func:`run_match` plays them with :func:`~referee.match.game.play_game`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs
import trio

from ..records.audit import Schedule
from ..records.deals import DealFile
from ..records.record import GameRecord
from ..records.store import ResultStore
from ..rules.dealing import derive_seed
from ..rules.variants import Variant
from .game import play_game
from .player import BOARDS_PER_PROCESS, Entrant, Player, close_players

T = TypeVar("T")


@attrs.frozen
class MatchPlan:
    entrants: tuple[Entrant, ...]
    variant: Variant
    games: int
    seed: int
    out_dir: Path
    startup_timeout: float | None = None  # every bot's start allowance, if given; None: each entrant's (the usual)
    transcripts: bool = False  # write every protocol line to logs/<entrant>.protocol.log
    duplicate: bool = True  # each deal once per seating; else a new deal every game (the seating still rotates)
    deals: DealFile | None = None  # a deal file's deals, in turn, instead of deals from the seed
    boards: bool = False  # each group of games is a board (one hand in every seating; the variant has max-hands=1)
    wait_ms: int = 0  # a pause between two games of one lane (cutechess's -wait)


def match_schedule(plan: MatchPlan) -> list[tuple[int, int, tuple[int, ...], tuple]]:
    """(game number, game seed, seating, fixed decks) for each game of a match.

    Games go in groups of one game per seat: every game of a group is dealt
    from the same seed with the seating rotated one place, so each bot holds
    each seat's cards once (for two bots: the same deal twice, seats swapped).
    Without ``duplicate`` every game has a deal of its own (the first game
    is the same either way). With a deal file, deal k is the file's k-th
    (its seed and decks), in turn.
    """
    n = len(plan.entrants)
    schedule = []
    for g in range(plan.games):
        group, turn = divmod(g, n)
        k = group if plan.duplicate else g
        if plan.deals is not None:
            deal, decks = plan.deals.deal(k).seed, plan.deals.deal(k).decks
        else:
            deal, decks = derive_seed(plan.seed, "pair", k), ()
        schedule.append((g + 1, deal, tuple((seat + turn) % n for seat in range(n)), decks))
    return schedule


def match_games(plan: MatchPlan) -> Schedule:
    """What ``schedule.jsonl`` keeps of a match: every game's id and seating."""
    return Schedule.of_games("match", plan.variant, [
        (f"g{number}", [plan.entrants[i].name for i in seating]) for number, _, seating, _ in match_schedule(plan)])


async def run_match(plan: MatchPlan, on_game: Callable[[GameRecord], None] | None = None,
                    store: ResultStore | None = None, done: Collection[str] = (),
                    concurrency: int = 1) -> list[GameRecord]:
    """Play the games of ``plan``, but those in ``done``, ``concurrency`` at a time; records go to ``store``.

    Without a store, one is started in ``out_dir``: it makes ``secret.key``,
    which seals every record, and ``schedule.jsonl``, the games the records
    are checked against (see :class:`~referee.records.store.ResultStore`).
    Each of the ``concurrency`` lanes plays its share of the games one after
    another with processes of its own (logs ``BOT.wLANE.*.log`` when more than one).
    """
    if store is None:
        store = ResultStore(plan.out_dir, "match.json")
        store.start({}, match_games(plan))
    records: list[GameRecord] = []
    lanes = match_lanes(plan, done, concurrency)
    async with trio.open_nursery() as nursery:
        for number, games in enumerate(lanes):
            stem = f".w{number}" if len(lanes) > 1 else ""
            nursery.start_soon(_play_lane, plan, games, stem, store, records, on_game)
    return records


def match_lanes(plan: MatchPlan, done: Collection[str], concurrency: int) -> list[list]:
    """The games not ``done``, split over at most ``concurrency`` lanes: round robin by game, or with boards by
    runs of one seating (so that each seating's processes still play their boards in a row)."""
    n = len(plan.entrants)
    games = [g for g in match_schedule(plan) if f"g{g[0]}" not in done]
    if plan.boards:
        groups = board_run_groups(games, lambda game: divmod(game[0] - 1, n))
    else:
        groups = [[g] for g in games]
    lanes: list[list] = [[] for _ in range(min(concurrency, len(groups)) or 1)]
    for i, group in enumerate(groups):
        lanes[i % len(lanes)] += group
    return lanes


async def _play_lane(plan: MatchPlan, games: list, stem: str, store: ResultStore, records: list[GameRecord],
                     on_game: Callable[[GameRecord], None] | None) -> None:
    """Play ``games`` one after another, each record saved, kept in ``records`` and passed to ``on_game``."""
    logs = plan.out_dir / "logs"
    n = len(plan.entrants)

    def seating_lane(number: int) -> int:  # boards: each seating has processes of its own
        return (number - 1) % n if plan.boards else 0

    async with trio.open_nursery() as nursery:
        players: list[Player] = []
        lane = None
        try:
            for played, (number, seed, seating, decks) in enumerate(games):
                if played and plan.wait_ms:
                    await trio.sleep(plan.wait_ms / 1000)
                if seating_lane(number) != lane:
                    lane = seating_lane(number)
                    await close_players(players)
                    players = _new_players(plan, logs, {p.entrant.name for p in players if p.faulted}, stem)
                seated = [players[i] for i in seating]
                board = _board_extra(plan, number, seating) if plan.boards else _sides_extra(plan, seating)
                more = played + 1 < len(games) and seating_lane(games[played + 1][0]) == lane
                record = await play_game(nursery, seated, plan.variant, seed, f"g{number}",
                                         extra={"game": number, "seating": list(seating), **board}, decks=decks,
                                         upcoming=players if more else ())
                for player in seated:
                    await player.game_over(nursery)
                store.append(record)
                records.append(record)
                if on_game is not None:
                    on_game(record)
        finally:
            await close_players(players)
            nursery.cancel_scope.cancel()


def _new_players(plan: MatchPlan, logs: Path, retired: Collection[str], stem: str = "") -> list[Player]:
    """Players for the match's entrants (logs ``BOT{stem}.*.log``); those ``retired`` by a fault under
    ``restart = never`` stay retired."""
    players = [Player.logged(e, logs, e.name + stem, transcripts=plan.transcripts,
                             startup_timeout=plan.startup_timeout, one_seating=plan.boards) for e in plan.entrants]
    for p in players:
        p.faulted = p.entrant.name in retired
    return players


def board_runs(games: Sequence[T], board_and_seating: Callable[[T], tuple[int, Any]]) -> list[T]:
    """Board games in the order to play them: runs of ``BOARDS_PER_PROCESS`` boards, and in each run the
    first seating of every board, then the second, and so on.

    ``board_and_seating`` gives a game's board (from 0) and its seating
    (anything that sorts; a tournament adds its table). Each seating's
    processes thus play their boards in a row (see :class:`Player`), and
    only one seating's processes run at a time.
    """
    def run_then_seating(game: T) -> tuple:
        board, seating = board_and_seating(game)
        return board // BOARDS_PER_PROCESS, seating, board
    return sorted(games, key=run_then_seating)


def board_run_groups(games: Sequence[T], board_and_seating: Callable[[T], tuple[int, Any]]) -> list[list[T]]:
    """:func:`board_runs`, cut into what one set of processes plays: each group one run of one seating."""
    def run_and_seating(game: T) -> tuple:
        board, seating = board_and_seating(game)
        return board // BOARDS_PER_PROCESS, seating
    return [list(group) for _, group in itertools.groupby(board_runs(games, board_and_seating), run_and_seating)]


def _board_extra(plan: MatchPlan, number: int, seating: tuple[int, ...]) -> dict:
    """What a board's game records: its board's number (and, with partners, the sides: :func:`_sides_extra`)."""
    return {"board": (number - 1) // len(plan.entrants) + 1, **_sides_extra(plan, seating)}


def _sides_extra(plan: MatchPlan, seating: tuple[int, ...]) -> dict:
    """With partners, the side each seat plays for: the two partners, who sit opposite whatever the rotation,
    are one contestant ("A+C"), so that ratings and tables count the sides, not partners against each other."""
    if plan.variant.partners.value != "opposite":
        return {}
    names = [plan.entrants[i].name for i in seating]
    n = len(names)
    return {"sides": ["+".join(sorted((names[s], names[(s + 2) % n]))) for s in range(n)]}
