"""Regression testing: play duplicate pairs NEW vs OLD until the GSPRT decides.

The referee's one game loop plays deal pairs (the same deal twice, seats
swapped; never both at once); after every finished pair the pentanomial
counts are updated and the log-likelihood ratio compared with the bounds.
When it crosses one, the games in flight are cancelled and their bots
stopped. The verdict is final
at that first crossing: a pair that another worker finishes afterwards (its
record was still being saved, say) is kept and reported, but not counted,
so it cannot undo the verdict.

Records are sealed with ``OUT/secret.key``, made when the test starts, and
``OUT/schedule.jsonl`` says which games it may hold: pair k is ``sprt-<k>a``
(NEW in seat 0) and ``sprt-<k>b`` (OLD in seat 0), k up to ``max_pairs``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import trio

from referee.match import Entrant
from referee.match.lane import GameSpec, LaneSettings
from referee.match.stream import play_games
from referee.records.audit import Schedule
from referee.records.deals import DealFile
from referee.records.record import GameRecord
from referee.records.store import ResultStore
from referee.rules.dealing import derive_seed
from referee.rules.variants import Variant

from .boards import boards_of, scale_of
from .stats import Sprt


@attrs.define
class SprtState:
    """The test so far: over duplicate pairs of whole games (the pentanomial), or over boards (their scores)."""

    test: Sprt
    penta: list[int] = attrs.Factory(lambda: [0] * 5)  # NEW's pair scores: LL, LD, WL+DD, WD, WW
    records: list[GameRecord] = attrs.Factory(list)
    verdict: str | None = None
    board_scale: float | None = None  # boards: S of the board score (tournaments.boards); None: whole games
    scores: list[float] = attrs.Factory(list)  # boards: NEW's score on each board
    late: int = 0  # pairs or boards finished after the verdict: kept, not counted
    _llr: float = 0.0  # the LLR after the last pair or board (computed once per unit)

    @property
    def pairs(self) -> int:
        """The pairs (or boards) counted: those finished up to the verdict."""
        return len(self.scores) if self.board_scale else sum(self.penta)

    def add_pair(self, first: GameRecord, second: GameRecord, new: str) -> bool:
        """Count a finished pair (or board), and whether it was counted: after the verdict it is only ``late``."""
        if self.verdict is not None:
            self.late += 1
            return False
        if self.board_scale:
            (board,), _ = boards_of([first, second])
            old = next(x for x in board.table if x != new)
            self.scores.append(board.score(new, old, self.board_scale))
        else:
            score = sum(r.result[0 if r.seats[0].entrant == new else 1] for r in (first, second))
            self.penta[int(score * 2)] += 1
        self._llr = self.test.llr_of_scores(self.scores) if self.board_scale else self.test.llr(self.penta)
        self.verdict = self.test.decide(self._llr)
        return True

    def llr(self) -> float:
        return self._llr


def sprt_games(variant: Variant, new: Entrant, old: Entrant, max_pairs: int) -> Schedule:
    """What ``schedule.jsonl`` keeps of an SPRT: its pattern of pairs."""
    return Schedule.of_sprt(variant, new.name, old.name, max_pairs)


async def run_sprt(new: Entrant, old: Entrant, variant: Variant, test: Sprt, seed: int, concurrency: int,
                   max_pairs: int, out_dir: Path, on_pair: Callable[[SprtState], None] | None = None,
                   store: ResultStore | None = None, played: Sequence[GameRecord] = (),
                   deals: DealFile | None = None, boards: bool = False) -> SprtState:
    """Play pairs until the test decides. ``played`` are the records of a resumed test: its whole pairs count at
    once, and the missing game of a half-played pair is played before anything else. With ``deals``, pair k
    plays the deal file's k-th deal (in turn). With ``boards`` each pair is a board (``variant`` has
    max-hands=1) and the test runs on the board scores.

    The games are played by the referee's one game loop
    (:func:`referee.match.stream.play_games`), ``concurrency`` at a time,
    never the two seatings of a deal at once."""
    if store is None:
        store = ResultStore(out_dir, "sprt.json")
        store.start({}, sprt_games(variant, new, old, max_pairs))
    state = SprtState(test, board_scale=scale_of(variant) if boards else None)
    halves = _pairs_of(played)
    for k in sorted(halves):
        if len(halves[k]) == 2:
            state.records.extend(halves[k].values())
            state.add_pair(halves[k]["a"], halves[k]["b"], new.name)
    if state.verdict is not None:
        return state
    for k in sorted(halves):
        if len(halves[k]) == 1:
            state.records.extend(halves[k].values())
    to_play = sorted(range(max_pairs), key=lambda k: (k + 1 not in halves, k))  # half-played pairs first
    pairs = iter([k for k in to_play if len(halves.get(k + 1, {})) < 2])
    settings = LaneSettings(variant, out_dir / "logs", duplicate=True, boards=boards)

    async def more() -> list[GameSpec]:
        k = next(pairs, None)
        if k is None or state.verdict is not None:
            return []
        deal, decks = (deals.deal(k).seed, deals.deal(k).decks) if deals else (derive_seed(seed, "deal", k), ())
        return [_half(new, old, k, half, deal, decks) for half in "ab" if half not in halves.get(k + 1, {})]

    with trio.CancelScope() as decided:
        def saved(record: GameRecord) -> None:
            state.records.append(record)
            number, half = _pair_and_half(record.game_id)
            pair = halves.setdefault(number, {})
            pair[half] = record
            if len(pair) == 2 and state.add_pair(pair["a"], pair["b"], new.name) and on_pair is not None:
                on_pair(state)
            if state.verdict is not None:
                decided.cancel()

        await play_games([], {e.name: e for e in (new, old)}, settings, store, concurrency, saved, more=more)
    return state


def _half(new: Entrant, old: Entrant, k: int, half: str, deal: int, decks: tuple) -> GameSpec:
    """Pair ``k``'s game ``half``: "a" with NEW in seat 0, "b" with OLD."""
    seating = (new.name, old.name) if half == "a" else (old.name, new.name)
    return GameSpec(f"sprt-{k + 1}{half}", seating, deal, (new.name, old.name), k + 1, seating, seating, decks,
                    turn="ab".index(half))


def _pair_and_half(game_id: str) -> tuple[int, str]:
    """``sprt-3b`` is pair 3's "b"."""
    return int(game_id.removeprefix("sprt-")[:-1]), game_id[-1]


def _pairs_of(records: Sequence[GameRecord]) -> dict[int, dict[str, GameRecord]]:
    """The records of a resumed test by pair number and half (``sprt-3b`` is pair 3's "b")."""
    pairs: dict[int, dict[str, GameRecord]] = {}
    for r in records:
        number, half = _pair_and_half(r.game_id)
        pairs.setdefault(number, {})[half] = r
    return pairs
