"""Statistics at their edges (issue 34, items 1-8): a verdict that stays, no interval where nothing was measured,
intervals that follow a skewed or unbounded spread, groups that never met, one LOS for head to head and matrix."""

import argparse
import math
import re
from pathlib import Path

import pytest

from arena.cli.sprt import print_verdict
from referee.records.record import GameRecord, SeatInfo, Termination
from tournaments.boards import analyse_boards, board_parts, board_rating_rows
from tournaments.multi import analyse_multi, multi_parts
from tournaments.ratings import MIN_UNITS, Outcome, pool_ratings
from tournaments.report import (
    analyse,
    elo_cells,
    footnotes,
    los_rows,
    pair_rows,
    pool_cells,
    ratings_rows,
    render,
    report_parts,
)
from tournaments.sprt_runner import SprtState
from tournaments.stats import Sprt, bounded_estimate, elo_estimate, mean_interval

ROOT = Path(__file__).resolve().parent.parent


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


def interval_of(cell: str) -> tuple[float, float]:
    """The ends of an interval as the tables print it: "[+95.4, +inf)" -> (95.4, inf)."""
    match = re.fullmatch(r"[\[(]([-+]\w+(?:\.\d)?), ([-+]\w+(?:\.\d)?)[\])]", cell)
    assert match, f"not an interval: {cell!r}"
    return float(match[1]), float(match[2])


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


# ---------------------------------------------------------------- 2. no "+/- 0.0" from units that are all alike
def test_pairs_that_all_split_have_no_interval_anywhere():
    """Greedy against greedy, every pair split 1-1: every resample is the same data, so the pool's spread of 0 is
    no measurement; neither is head to head's width from the regularisation of its empty cells."""
    report = analyse(pairs("g1", "g2", [1] * 6), bootstrap=50)
    assert [row[3] for row in ratings_rows(report)] == ["-", "-"]
    (row,) = pair_rows(report)
    assert row[4:7] == ["+0.0", "-", "50.0%"]
    notes = footnotes(report)
    assert any(n.startswith("g1, g2: every resample of the 6 deal pairs gave the same rating") for n in notes)
    assert any(n.startswith("g1 vs g2: all 6 pairs had the same result, so there is no spread") for n in notes)


def test_all_games_drawn_have_no_interval():
    report = analyse([game("a", "b", k, (0.5, 0.5)) for k in range(8)], bootstrap=50)
    assert [row[3] for row in ratings_rows(report)] == ["-", "-"]
    assert pair_rows(report)[0][5] == "-"


def board(a: str, b: str, number: int, points: tuple[int, int]) -> list[GameRecord]:
    """A board of the two-handed game: a and b each hold both seats' cards once; ``points`` are a's and b's."""
    hands = [[{"hand": 1, "points": list(points), "totals": list(points)}],
             [{"hand": 1, "points": list(points[::-1]), "totals": list(points[::-1])}]]
    extra = {"board": number}
    return [game(a, b, number, (1.0, 0.0), hands=hands[0], extra=extra),
            game(b, a, number, (0.0, 1.0), hands=hands[1], extra=extra)]


def test_boards_all_level_have_no_interval():
    records = [r for n in range(1, 7) for r in board("x", "y", n, (25, 25))]
    report = analyse_boards(records, bootstrap=50)
    assert [row[3] for row in board_rating_rows(report)] == ["-", "-"]
    assert any(str(p).startswith("x, y: every resample of the 6 boards gave the same rating")
               for p in board_parts(report))


def three_handed_deal(seed: int) -> list[GameRecord]:
    return [game(order[0], order[1:], seed, (1.0, 0.0, 0.0), variant="three-handed")
            for order in (("p", "q", "r"), ("q", "r", "p"), ("r", "p", "q"))]


def test_two_identical_three_handed_deals_show_no_interval_and_no_los_of_50():
    report = analyse_multi(three_handed_deal(1) + three_handed_deal(2), bootstrap=50)
    parts = multi_parts(report)
    (table,) = [p for p in parts if not isinstance(p, str) and p.headers[3] == "95% interval"]
    assert [row[3] for row in table.rows] == ["-", "-", "-"]
    assert any(str(p).startswith("2 deals are too few for a bootstrap") for p in parts)
    assert not any("Likelihood of superiority" in str(p) for p in parts)  # it printed a matrix of 50s


def test_two_or_three_units_are_too_few_for_a_bootstrap_or_a_head_to_head_los():
    """Three deal pairs, all going x's way: resamples take a handful of values, every one with x ahead: LOS 100
    from them, and as much from the normal approximation of three units. Say too few units instead."""
    for scores in ([1.5, 1.5, 2], [2, 1]):
        report = analyse(pairs("x", "y", scores), bootstrap=50)
        assert report.ratings.los == {} and [row[3] for row in ratings_rows(report)] == ["-", "-"]
        (row,) = pair_rows(report)
        assert row[5:7] == ["-", "-"]
        notes = footnotes(report)
        assert any(n.startswith(f"{len(scores)} deal pairs are too few for a bootstrap") for n in notes)
        assert any(n.startswith(f"x vs y: {len(scores)} pairs are too few for an interval or a LOS") for n in notes)
        assert "Likelihood of superiority" not in render(report)
    assert MIN_UNITS == 4 and 3 ** (1 - 3) > 0.025 > 4 ** (1 - 4)  # the reason for four: see MIN_UNITS
    assert bounded_estimate([0.9, 0.6, 0.7]).too_few and not bounded_estimate([0.9, 0.6, 0.7, 0.8]).too_few


def test_margins_that_are_all_alike_have_no_interval():
    assert mean_interval([10.0, 10.0, 10.0]) == (10.0, math.inf)


# ---------------------------------------------------------------- 3. resamples with no finite maximum
def test_resamples_with_no_finite_maximum_open_the_interval_and_say_so():
    """18-2 over 20 games: one resample in nine is 20-0, which has no finite maximum. Solved with the virtual draws
    and mixed into a symmetric +/-, they gave the winner a closed interval. They are an open end."""
    report = analyse([game("x", "y", k, (1.0, 0.0) if k < 18 else (0.0, 1.0)) for k in range(20)], bootstrap=300)
    r = report.ratings
    assert r.prior == 0 and 0.05 < r.open_resamples < 0.2  # 0.9 ** 20 = 12%
    rows = {row[1]: row for row in ratings_rows(report)}
    low, high = interval_of(rows["x"][3])
    assert 0 < low < r.ratings["x"] and high == math.inf and rows["x"][3].endswith("+inf)")
    assert rows["y"][3].startswith("(-inf,") and interval_of(rows["y"][3])[1] < 0
    assert any(n.startswith(f"In {100 * r.open_resamples:.0f}% of the resamples someone won or lost everything")
               for n in footnotes(report))


def test_an_anchored_rating_is_open_on_the_side_of_the_sweeping_resamples():
    units = [[Outcome("x", "y", 1.0)]] * 18 + [[Outcome("x", "y", 0.0)]] * 2
    r = pool_ratings(units, anchor="y", bootstrap=200)
    assert pool_cells(r, "y") == ("+0.0", "anchor")
    low, high = r.intervals["x"]
    assert low > 0 and high == math.inf


# ---------------------------------------------------------------- 4. a skewed bootstrap: percentiles, not +/-
def test_a_skewed_bootstrap_prints_its_percentile_interval():
    """20 boards, 17 won by a mile and 3 lost: every resample has x far ahead, but the symmetric +/- of their
    spread (+186.1 +/- 359.0) put x's low end below y's high end. The percentile interval keeps x ahead."""
    r = pool_ratings([[Outcome("x", "y", s)] for s in [0.99999] * 17 + [0.3] * 3], bootstrap=300)
    assert r.los[("x", "y")] == 1.0
    x_low, x_high = interval_of(pool_cells(r, "x")[1])
    y_low, y_high = interval_of(pool_cells(r, "y")[1])
    assert 0 < x_low < r.ratings["x"] < x_high and y_low < r.ratings["y"] < y_high < 0
    assert x_high - r.ratings["x"] > 3 * (r.ratings["x"] - x_low)  # skewed: the spread is above, not around
    e = bounded_estimate([0.9] * 17 + [0.3] * 3)  # head to head: the interval's own ends, not elo +/- half-width
    low, high = interval_of(elo_cells(e)[1])
    assert (low, high) == (round(e.low, 1), round(e.high, 1)) and e.elo - low < high - e.elo


# ---------------------------------------------------------------- 5. no width from the regularisation alone
def test_head_to_head_of_identical_pairs_has_no_interval():
    e = elo_estimate([0, 0, 5, 0, 0])  # 5-0-5: every pair split
    assert e.elo95 == math.inf and not e.has_interval and elo_cells(e) == ("+0.0", "-")
    won = elo_estimate([0, 0, 0, 6, 0])  # every pair 1.5-0.5: no spread, and the LOS of six units all won
    assert elo_cells(won) == ("+190.8", "-") and won.los == pytest.approx(1 - 0.5 ** 7)


# ---------------------------------------------------------------- 6. groups that never met
def test_groups_that_never_met_are_ranked_within_each_group_without_los_across():
    records = pairs("x", "y", [1, 2, 1, 0, 1, 2]) + pairs("z", "w", [2, 1, 1, 0, 2, 1, 1], start=20)
    report = analyse(records, bootstrap=50)
    r = report.ratings
    assert r.groups == (("z", "w"), ("x", "y"))  # the larger group first
    assert [row[:2] for row in ratings_rows(report)] == [["A1", "z"], ["A2", "w"], ["B1", "x"], ["B2", "y"]]
    assert not any({p, q} in ({"x", "z"}, {"x", "w"}, {"y", "z"}, {"y", "w"}) for p, q in r.los)
    matrix = {row[0]: row[1:] for row in los_rows(report)}
    z_w = next(row for row in pair_rows(report) if row[0] == "z vs w")[6]
    assert matrix["z"] == ["", f"{float(z_w.rstrip('%')):.0f}", "-", "-"] and matrix["x"][:2] == ["-", "-"]
    parts = report_parts(report)
    note = next(i for i, p in enumerate(parts) if str(p).startswith("note: the entrants form 2 groups"))
    assert "A: z, w; B: x, y" in parts[note] and "no LOS is given across groups" in parts[note]
    assert parts[note + 1].headers[0] == "rank"  # said above the table


# ---------------------------------------------------------------- 7. one LOS for head to head and the matrix
def test_the_los_matrix_shows_what_head_to_head_shows_for_a_sweep_and_a_forfeit():
    records = pairs("strong", "weak", [2, 2, 2])  # a sweep of three pairs: LOS 1 - 0.5^4 = 93.8%, not 100
    records += [game("good", "broken", k, (1.0, 0.0), culprit=1, hands=[]) for k in range(6)]
    records += pairs("strong", "good", [1, 2, 1, 0, 1, 1], start=10) + pairs("good", "weak", [1, 2, 1, 2], start=20)
    report = analyse(records, bootstrap=50)
    rows = {row[0]: row for row in pair_rows(report)}
    matrix = {row[0]: dict(zip(report.ratings.players, row[1:], strict=True)) for row in los_rows(report)}
    assert rows["strong vs weak"][6] == "93.8%" and matrix["strong"]["weak"] == "94" and matrix["weak"]["strong"] == "6"
    assert rows["good vs broken"][6] == "-" and matrix["good"]["broken"] == matrix["broken"]["good"] == "-"
    assert rows["good vs broken"][9] == "-"  # a forfeit's margin: no hand was played, not "+0.0"
    for name, row in rows.items():  # every pairing that met: the same figure in both tables
        a, b = name.split(" vs ")
        if row[6] != "-":
            assert matrix[a][b] == f"{float(row[6].rstrip('%')):.0f}"


def test_pairs_that_met_only_through_others_take_the_pool_los_in_parentheses():
    records = pairs("a", "b", [1, 2, 1, 0, 1, 2]) + pairs("b", "c", [2, 1, 1, 2, 1, 0], start=10)
    report = analyse(records, bootstrap=50)
    matrix = {row[0]: dict(zip(report.ratings.players, row[1:], strict=True)) for row in los_rows(report)}
    assert matrix["a"]["c"] == f"({100 * report.ratings.los[('a', 'c')]:.0f})"
    assert "in parentheses, where they met only through others" in render(report)


def test_a_clamped_end_is_shown_open_not_folded_into_a_half_width():
    e = elo_estimate([2, 0, 18])  # the score's interval passes 99.9%, where fishtest's +/- clamps it
    assert e.high == math.inf and elo_cells(e)[1] == f"[{e.low:+.1f}, +inf)"
    assert round(e.elo95, 1) == 495.7  # fishtest's own figure is kept, for those who compare with it


def test_the_multi_player_los_matrix_is_left_out_without_a_bootstrap():
    records = [r for seed in range(1, 6) for r in three_handed_deal(seed)]
    parts = multi_parts(analyse_multi(records, bootstrap=0))
    assert not any("Likelihood of superiority" in str(p) for p in parts)
    assert any(str(p).startswith("No bootstrap (--bootstrap 0)") for p in parts)


# ---------------------------------------------------------------- 8. README: medians, and the SPRT's fewest pairs
def test_the_fewest_units_an_sprt_needs_are_those_of_a_sweep():
    for elo0, elo1 in ((0, 5), (0, 10), (-3, 1), (0, 100)):
        test = Sprt(elo0, elo1)
        n = test.fewest_units()
        swept = [min(test.llr([0, 0, 0, 0, k]), -test.llr([k, 0, 0, 0, 0])) for k in (n - 1, n)]
        assert test.verdict([0, 0, 0, 0, n]) or test.verdict([n, 0, 0, 0, 0])
        assert test.verdict([0, 0, 0, 0, n - 1]) is None and test.verdict([n - 1, 0, 0, 0, 0]) is None, swept


def docs_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def test_the_docs_say_the_verdict_figures_are_medians_and_state_the_sprts_fewest_pairs():
    text = docs_text()
    verdict_rows = [line for line in text.splitlines() if "to a 95% verdict" in line and line.startswith("|")]
    assert verdict_rows and all("median" in line for line in verdict_rows)
    fewest = Sprt(0, 5).fewest_units()
    assert re.search(rf"no\s+fewer\s+than\s+{fewest}\s+pairs", text), "the SPRT's fewest pairs for 0, 5"
