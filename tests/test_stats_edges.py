"""Statistics at their edges (issue 34, items 1-8): a verdict that stays, no interval where nothing was measured,
intervals that follow a skewed or unbounded spread, groups that never met, one LOS for head to head and matrix."""

import argparse

from arena.cli.sprt import print_verdict
from referee.records.record import GameRecord, SeatInfo, Termination
from tournaments.sprt_runner import SprtState
from tournaments.stats import Sprt


def game(first: str, second: str, seed: int, result: tuple, culprit: int | None = None, hands: list | None = None,
         extra: dict | None = None, variant: str = "two-handed") -> GameRecord:
    seats = [first, second] if isinstance(second, str) else [first, *second]
    return GameRecord(game_id=f"{'-'.join(seats)}-{seed}", variant=variant, options={}, seed=seed,
                      seats=[SeatInfo(s, s, s) for s in seats], time_control={}, result=result, culprit=culprit,
                      hands=[{"hand": 1, "points": [30, 20], "totals": [30, 20]}] if hands is None else hands,
                      termination=Termination.COMPLETED if culprit is None else Termination.CRASH,
                      totals=(30, 20, 10)[:len(seats)], extra=extra or {})


def pairs(a: str, b: str, scores: list[float], start: int = 0) -> list[GameRecord]:
    """Duplicate pairs: each deal twice, seats swapped; ``scores`` are a's pair scores (0, 0.5, 1, 1.5 or 2)."""
    records = []
    for k, score in enumerate(scores, start):
        first = 1.0 if score >= 1 else 0.0 if score < 0.5 else 0.5
        second = score - first
        records.append(game(a, b, k, (first, 1 - first)))
        records.append(game(b, a, k, (1 - second, second)))
    return records


# ---------------------------------------------------------------- 1. the SPRT's verdict is final at its crossing
def test_a_pair_finished_after_the_verdict_is_reported_not_counted():
    """Two workers: one finishes the pair that crosses H1 while the other is still saving a lost pair. Fed in that
    order, the late pair must not pull the LLR back inside the bounds (it did: the run said "undecided")."""
    state = SprtState(Sprt(0, 200))
    for k in range(8):  # eight pairs won twice cross H1's bound (fewer do not)
        assert state.verdict is None
        state.add_pair(*pairs("new", "old", [2], start=k), "new")
    assert state.verdict == "H1" and state.pairs == 8
    crossed = state.llr()
    counted = state.add_pair(*pairs("new", "old", [0], start=8), "new")  # the other worker's pair, saved late
    assert not counted and state.verdict == "H1" and state.llr() == crossed
    assert state.pairs == 8 and state.penta == [0, 0, 0, 0, 8] and state.late == 1
    assert Sprt(0, 200).verdict([1, 0, 0, 0, 8]) is None  # counted, it would have undone the verdict


def test_the_verdict_line_reports_the_late_pairs(capsys):
    state = SprtState(Sprt(0, 200))
    for k in range(9):
        state.add_pair(*pairs("new", "old", [2 if k < 8 else 0], start=k), "new")
    args = argparse.Namespace(elo1=200, boards=None, max_pairs=100)
    assert print_verdict(args, state, "new", boards=False) == 0
    line = capsys.readouterr().out
    assert line.startswith("H1 accepted: new is stronger (8 pairs,") and "1 more finished after the verdict" in line
