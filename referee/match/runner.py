"""A match: the games of a schedule between fixed entrants, played one after another into a results store.

:func:`match_schedule` deals each group of games from one seed with the
seating rotated (duplicate deals), or from a deal file; :func:`board_runs`
orders board games so that each seating's processes play their boards in a
row; :func:`run_match` plays them with the referee's one game loop
(:mod:`referee.match.stream`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs

from ..records.audit import Schedule
from ..records.deals import DealFile
from ..records.record import GameRecord
from ..records.store import ResultStore
from ..rules.dealing import derive_seed
from ..rules.variants import Partners, Variant
from .lane import GameSpec, LaneSettings, Seen, duplicate_orders
from .player import BOARDS_PER_PROCESS, Entrant
from .stream import play_games

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


def match_group(players: int) -> int:
    """Games per deal in a match of ``players`` seats: one per seating (:func:`duplicate_orders`)."""
    return len(duplicate_orders(tuple(str(seat) for seat in range(players))))


def match_schedule(plan: MatchPlan) -> list[GameSpec]:
    """Every game of a match, in order: ``g1``, ``g2``...

    Games go in groups of one game per seating of a deal
    (:func:`~referee.match.lane.duplicate_orders`, as in a tournament):
    every game of a group is dealt from the same seed, so each bot holds each
    seat's cards (for two bots: the same deal twice, seats swapped; three:
    six games, every order). Without ``duplicate`` every game has a deal of
    its own, the seatings still taken in turn (the first game is the same
    either way). With a deal file, deal k is the file's k-th (its seed and
    decks), in turn.
    """
    names = tuple(e.name for e in plan.entrants)
    orders = duplicate_orders(names)
    n = len(orders)
    schedule = []
    for g in range(plan.games):
        group, turn = divmod(g, n)
        k = group if plan.duplicate else g
        if plan.deals is not None:
            deal, decks = plan.deals.deal(k).seed, plan.deals.deal(k).decks
        else:
            deal, decks = derive_seed(plan.seed, "pair", k), ()
        seating = orders[turn]
        schedule.append(GameSpec(f"g{g + 1}", seating, deal, names, k + 1, _sides(plan, seating), seating, decks,
                                 turn))
    return schedule


def match_games(plan: MatchPlan) -> Schedule:
    """What ``schedule.jsonl`` keeps of a match: every game's id and seating."""
    return Schedule.of_games("match", plan.variant, [(spec.game_id, list(spec.seating))
                                                     for spec in match_schedule(plan)])


async def run_match(plan: MatchPlan, on_game: Callable[[GameRecord], None] | None = None,
                    store: ResultStore | None = None, done: Collection[str] = (),
                    concurrency: int = 1, seen: Seen | None = None) -> list[GameRecord]:
    """Play the games of ``plan``, but those in ``done``, ``concurrency`` at a time; records go to ``store``.

    Without a store, one is started in ``out_dir``: it makes ``secret.key``,
    which seals every record, and ``schedule.jsonl``, the games the records
    are checked against (see :class:`~referee.records.store.ResultStore`).
    The games are played by the referee's one game loop
    (:func:`~referee.match.stream.play_games`): each of the ``concurrency``
    lanes with processes of its own (logs ``BOT.wLANE.*.log`` when more
    than one), never two seatings of a deal at once. ``seen`` is given
    each game's record and notices (see :data:`~referee.match.lane.Seen`).
    """
    if store is None:
        store = ResultStore(plan.out_dir, "match.json")
        store.start({}, match_games(plan))
    games = [spec for spec in match_schedule(plan) if spec.game_id not in done]
    if plan.boards:
        games = board_runs(games, lambda spec: (spec.pair - 1, spec.turn))
    entrants = {e.name: e if plan.startup_timeout is None else attrs.evolve(e, startup_timeout=plan.startup_timeout)
                for e in plan.entrants}
    settings = LaneSettings(plan.variant, plan.out_dir / "logs", duplicate=plan.duplicate, boards=plan.boards,
                            wait_ms=plan.wait_ms, transcripts=plan.transcripts, seen=seen)
    records: list[GameRecord] = []

    def saved(record: GameRecord) -> None:
        records.append(record)
        if on_game is not None:
            on_game(record)

    await play_games(games, entrants, settings, store, concurrency, saved,
                     stem=lambda lane: f".w{lane}" if concurrency > 1 else "")
    return records


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


def _sides(plan: MatchPlan, seating: tuple[str, ...]) -> tuple[str, ...]:
    """With partners, the side each seat plays for: the two partners, who sit opposite whatever the rotation,
    are one contestant ("A+C"), so that ratings and tables count the sides, not partners against each other."""
    if plan.variant.partners is not Partners.OPPOSITE:
        return seating
    n = len(seating)
    return tuple("+".join(sorted((seating[s], seating[(s + 2) % n]))) for s in range(n))
