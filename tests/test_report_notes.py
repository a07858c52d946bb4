"""Statistics that never mislead: bounds instead of clamped values, forfeits named, intervals explained."""

import json
from pathlib import Path

import pytest
from helpers import arena

from referee.records.record import GameRecord, SeatInfo, Termination
from tournaments.report import analyse, footnotes, los_rows, pair_rows, ratings_rows, render
from tournaments.stats import elo_estimate, elo_from_score

ROOT = Path(__file__).resolve().parent.parent


def game(first: str, second: str, seed: int, result: tuple, culprit: int | None = None) -> GameRecord:
    return GameRecord(game_id=f"{first}-{second}-{seed}", variant="two-handed", options={}, seed=seed,
                      seats=[SeatInfo(first, first, first), SeatInfo(second, second, second)], time_control={},
                      result=result, culprit=culprit, hands=[{"hand": 1, "points": [30, 20], "totals": [30, 20]}],
                      termination=Termination.COMPLETED if culprit is None else Termination.CRASH)


def pairs(a: str, b: str, scores: list[float], start: int = 0) -> list[GameRecord]:
    """Duplicate pairs: each deal twice, seats swapped; ``scores`` are a's pair scores (0, 0.5, 1, 1.5 or 2)."""
    records = []
    for k, score in enumerate(scores, start):
        first = 1.0 if score >= 1 else 0.0
        second = score - first
        records.append(game(a, b, k, (first, 1 - first)))
        records.append(game(b, a, k, (1 - second, second)))
    return records


def test_a_clean_sweep_is_a_bound_not_a_clamped_value():
    e = elo_estimate([0, 0, 0, 0, 6])
    assert e.sweep and e.score == 1.0
    assert e.bound == pytest.approx(elo_from_score(0.025 ** (1 / 6)))  # Clopper-Pearson over 6 pairs
    assert e.los == pytest.approx(1 - 0.5 ** 7)
    assert elo_estimate([5, 0, 0]).bound == pytest.approx(-elo_from_score(0.025 ** (1 / 5)))
    assert not elo_estimate([0, 1, 0, 0, 6]).sweep

    report = analyse(pairs("strong", "weak", [2] * 6) + pairs("strong", "mid", [1, 2, 1]) +
                     pairs("mid", "weak", [2, 1, 1], start=10), bootstrap=20)
    (row,) = [r for r in pair_rows(report) if r[0] == "strong vs weak"]
    assert row[4] == "+inf" and row[5] == f"[{elo_from_score(0.025 ** (1 / 6)):+.1f}, +inf)" and row[3] == "100.0%"
    assert "1199" not in render(report)
    assert any("strong won every pair, so no finite Elo exists" in n for n in footnotes(report))


def test_a_bot_that_forfeited_every_game_shows_no_interval_and_its_pairing_is_named_a_forfeit():
    records = [game("good", "broken", k, (1.0, 0.0), culprit=1) for k in range(6)]
    records += [game("good", "other", k, (float(k % 2), float(1 - k % 2))) for k in range(6)]
    records += [game("other", "broken", k, (1.0, 0.0), culprit=1) for k in range(6)]
    report = analyse(records, bootstrap=30)
    broken = next(r for r in ratings_rows(report) if r[1] == "broken")
    assert broken[2].endswith("*") and broken[3] == "-"  # not "0.0": a sweep's resamples have no spread
    forfeits = [r for r in pair_rows(report) if "broken" in r[0]]
    assert all(r[4] == "forfeit by broken" and r[6] == "-" for r in forfeits)
    notes = footnotes(report)
    assert any("every game ended on a fault of broken" in n for n in notes)
    assert any(n.startswith("* broken: won or lost every game") for n in notes)


def test_the_bootstrap_heading_names_its_unit():
    independent = [game("a", "b", k, (float(k % 3 == 0), float(k % 3 != 0))) for k in range(9)]
    assert "bootstrap over games)" in render(analyse(independent, bootstrap=10))
    assert "bootstrap over deal pairs)" in render(analyse(pairs("a", "b", [0, 1, 2, 1]), bootstrap=10))


def test_the_footers_say_why_head_to_head_and_pool_intervals_differ():
    report = analyse(pairs("a", "b", [0, 1, 2, 1, 1, 2]), bootstrap=10)
    assert any(n.startswith("Head to head uses one pairing's games alone") for n in footnotes(report))


def test_ratings_anchor_rating_applies_to_two_player_results(tmp_path):
    out = tmp_path / "m"
    random_bot = f"python3 {ROOT / 'sample_bots' / 'random_bot.py'} 4"
    run = arena("match", "greedy", random_bot, "--games", "6", "--option", "target=200", "--seed", "2",
                "--out", str(out), "--isolation", "none")
    assert run.returncode == 0, run.stderr

    def ratings(*flags):
        done = arena("ratings", str(out), "--bootstrap", "10", "--out", str(tmp_path / "r"), *flags)
        assert done.returncode == 0, done.stderr
        return done.stdout, {r["bot"]: r["elo"] for r in json.loads((tmp_path / "r" / "ratings.json").read_text())["ratings"]}

    text, elo = ratings("--anchor-rating", "1500")
    assert "pool average 1500" in text and sum(elo.values()) / 2 == pytest.approx(1500)
    text, elo = ratings("--anchor", "random", "--anchor-rating", "1000")  # the name random_bot.py gives itself
    assert "anchor random = 1000" in text and elo["random"] == pytest.approx(1000)


def test_a_single_deal_pair_has_no_interval_and_no_pool_los():
    """Resampling one unit draws that unit every time: a spread of 0 would read as certainty. So the pool has
    no interval and no LOS of its own, and the LOS matrix shows what head to head shows for the pairing (its
    one unit won: 75%, the uniform prior of a sweep, where the normal approximation said 100%)."""
    report = analyse(pairs("a", "b", [1.5]), bootstrap=30)
    assert [r[3] for r in ratings_rows(report)] == ["-", "-"]
    assert report.ratings.los == {}
    assert pair_rows(report)[0][5:7] == ["-", "75.0%"]
    assert los_rows(report) == [["a", "", "75"], ["b", "25", ""]]
    assert pair_rows(report)[0][9] == "+0.0"  # one paired hand's margin, and no "+/- inf" beside it


def test_a_los_beyond_a_tenth_of_a_percent_of_certainty_says_so():
    """99.95% rounded would print as 100.0%, a certainty no finite sample gives."""
    from tournaments.report import los_text

    assert los_text(0.9995) == ">99.9%" and los_text(0.0004) == "<0.1%"
    assert los_text(0.75) == "75.0%" and los_text(0.999) == "99.9%" and los_text(None) == "-"


def test_openskill_takes_games_in_play_order():
    """Its updates depend on order: g2 comes before g10, not after it as text would have it."""
    from tournaments.multi import game_order

    ids = [f"g{n}" for n in (10, 2, 1, 11, 3)]
    assert sorted(ids, key=game_order) == ["g1", "g2", "g3", "g10", "g11"]


def test_one_boards_los_has_a_footnote_saying_it_rests_on_one_deal():
    """A match of one board shows a LOS of 75% with no interval: the note under the table says that LOS is the
    count of boards alone (a uniform prior), not a measure of the margin."""
    from tournaments.boards import analyse_boards, board_pair_rows, render_boards

    def seating(first: str, second: str, points: list[int]) -> GameRecord:
        return GameRecord(game_id=f"{first}-{second}", variant="two-handed", options={}, seed=1,
                          seats=[SeatInfo(first, first, first), SeatInfo(second, second, second)], time_control={},
                          result=(1.0, 0.0) if points[0] > points[1] else (0.0, 1.0),
                          hands=[{"hand": 1, "points": points, "totals": points}],
                          termination=Termination.COMPLETED, extra={"board": 1})

    report = analyse_boards([seating("greedy", "random", [143, 77]), seating("random", "greedy", [73, 207])],
                            bootstrap=20)
    assert board_pair_rows(report)[0][5:7] == ["-", "75.0%"]
    text = render_boards(report)
    note = next(line for line in text.splitlines() if line.startswith("greedy vs random:"))
    assert "one board is one score" in note and "no interval" in note
    assert "LOS of 75.0% rests on that one deal alone: 1 - 0.5^(n+1) for n boards won alike" in note
