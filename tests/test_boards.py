"""Boards: scoring checked against boards worked by hand, the SPRT on board scores against fishtest's
figures, and boards played in match, tournament and sprt."""

import itertools
import json
import math
import random
from pathlib import Path

import pytest
from attrs import evolve as attrs_evolve
from helpers import arena

from referee.match import BOARDS_PER_PROCESS, board_runs
from referee.records.record import GameRecord, SeatInfo, Termination
from referee.rules import PRESETS, get_variant, new_game
from referee.rules import events as ev
from referee.rules.auction_game import MAX_DEALS_PER_HAND
from tournaments.boards import analyse_boards, board_score, boards_of, render_boards
from tournaments.stats import Sprt, bounded_estimate, elo_estimate, llr_bounded, llr_logistic

ROOT = Path(__file__).resolve().parent.parent


def hand(seats: list[str], points: list[int], seed: int = 1, sides: list[str] | None = None, culprit: int | None = None,
         variant: str = "two-handed") -> GameRecord:
    """One game of a board: who sat where, and the points each seat scored in its one hand."""
    extra = {"board": seed, **({"sides": sides} if sides else {})}
    return GameRecord(game_id=f"{seed}-{'-'.join(seats)}", variant=variant, options={"max-hands": "1"}, seed=seed,
                      seats=[SeatInfo(s, s, s) for s in seats], time_control={}, extra=extra,
                      hands=[] if culprit is not None else [{"hand": 1, "points": points, "totals": points}],
                      termination=Termination.COMPLETED if culprit is None else Termination.TIMEOUT, culprit=culprit,
                      result=tuple(1.0 if p == max(points) else 0.0 for p in points))


def test_a_two_handed_board_worked_by_hand():
    # the same cards twice: A holds seat 0's cards first (scores 120 to B's 80), then B holds them (150 to A's 60)
    (board,), left_out = boards_of([hand(["A", "B"], [120, 80]), hand(["B", "A"], [150, 60])])
    assert left_out == 0 and board.points == {"A": 90, "B": 115}
    assert board.margin("A", "B") == -25  # A made 120 where B made 150, and 60 where B made 80: 25 less a hand
    assert board.score("A", "B", 250) == pytest.approx(1 / (1 + 10 ** (25 / 250)))  # 0.4427
    assert board.score("A", "B", 250) + board.score("B", "A", 250) == pytest.approx(1)
    assert board_score(0, 250) == 0.5 and board_score(250, 250) == pytest.approx(10 / 11)


def test_luck_cancels_on_a_three_handed_board():
    """Seat 0's cards always make 30, seat 1's 20, seat 2's 10, whoever holds them: every margin is 0. A bot
    that makes 6 more than anyone with the same cards has a margin of 6 over each."""
    orders = list(itertools.permutations(["X", "Y", "Z"]))
    flat = [hand(list(o), [30, 20, 10], variant="three-handed") for o in orders]
    (board,), _ = boards_of(flat)
    assert board.points == {"X": 20, "Y": 20, "Z": 20} and board.margin("X", "Y") == 0
    better = [hand(list(o), [p + (6 if s == "X" else 0) for s, p in zip(o, [30, 20, 10], strict=True)],
                   variant="three-handed") for o in orders]
    (board,), _ = boards_of(better)
    assert board.margin("X", "Y") == 6 and board.margin("X", "Z") == 6 and board.margin("Y", "Z") == 0


def test_a_partnership_board_scores_each_side_once():
    # partners share their side's points; each team holds each side's cards once
    first = hand(["a1", "b1", "a2", "b2"], [40, 10, 40, 10], sides=["A", "B", "A", "B"], variant="four-handed")
    second = hand(["b1", "a1", "b2", "a2"], [25, 5, 25, 5], sides=["B", "A", "B", "A"], variant="four-handed")
    (board,), _ = boards_of([first, second])
    assert board.points == {"A": 22.5, "B": 17.5} and board.margin("A", "B") == 5


def test_a_fault_loses_the_board_and_an_incomplete_board_is_left_out():
    (board,), _ = boards_of([hand(["A", "B"], [0, 0], culprit=1), hand(["B", "A"], [150, 60])])
    assert board.culprits == ("B",) and board.margin("A", "B") is None
    assert board.score("A", "B", 250) == 1.0 and board.score("B", "A", 250) == 0.0
    boards, left_out = boards_of([hand(["A", "B"], [120, 80], seed=1), hand(["B", "A"], [150, 60], seed=1),
                                  hand(["A", "B"], [100, 100], seed=2)])
    assert len(boards) == 1 and left_out == 1


def test_board_ratings_and_head_to_head_from_boards():
    records = []
    for seed in range(1, 21):  # A makes 20 more a hand than B with the same cards
        records += [hand(["A", "B"], [100 + seed, 80 + seed], seed), hand(["B", "A"], [90, 110], seed)]
    report = analyse_boards(records, bootstrap=50)
    (pair,) = report.pairs
    expected = board_score(20, 25)
    assert (pair.a, pair.b, pair.boards, pair.wins) == ("A", "B", 20, 20)
    assert pair.margin == pytest.approx(20) and pair.estimate.score == pytest.approx(expected)
    diff = report.ratings.ratings["A"] - report.ratings.ratings["B"]
    assert diff == pytest.approx(-400 * math.log10(1 / expected - 1), abs=0.01)  # the Elo of the board score
    text = render_boards(report)
    assert "20 boards, 40 hands" in text and "1 / (1 + 10^(-margin/25))" in text


def test_the_board_sprt_reproduces_fishtests_published_llr():
    """Boards scored as fishtest's pentanomial pairs (0, 1/4, ..., 1) give its LLR (2.131 for elo0=-3, elo1=1
    on 10789, 19328, 33806, 19402, 10543 pairs) and its Elo interval: the bounded model contains it."""
    penta = [10789, 19328, 33806, 19402, 10543]
    scores = [i / 4 for i, count in enumerate(penta) for _ in range(count)]
    assert llr_bounded(-3, 1, scores) == pytest.approx(llr_logistic(-3, 1, penta), rel=1e-9)
    assert llr_bounded(-3, 1, scores) == pytest.approx(2.131, abs=0.005)
    board, pair = bounded_estimate(scores), elo_estimate(penta)
    assert (board.elo, board.elo95, board.los) == pytest.approx((pair.elo, pair.elo95, pair.los))
    test = Sprt(0, 5)
    assert test.decide(test.llr_of_scores([0.7] * 400 + [0.4] * 100)) == "H1"
    assert test.decide(test.llr_of_scores([0.3] * 400 + [0.6] * 100)) == "H0"
    assert test.llr_of_scores([]) == 0


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_board_is_one_hand_in_every_variant(name):
    """max-hands=1 ends every variant's game after its one hand (redeals of a passed-out hand aside)."""
    variant = get_variant(name, {"max-hands": "1"})
    for seed in range(20):
        game, _ = new_game(variant, seed)
        rng = random.Random(seed)
        ended = 0
        while not game.is_terminal():
            decision = game.decision()
            ended += sum(isinstance(n.event, ev.HandEnded) for n in game.apply(rng.choice(list(decision.legal))))
        assert ended <= 1 and len(game.deals) <= MAX_DEALS_PER_HAND


@pytest.mark.parametrize("name", ["three-handed", "call-for-partner"])
def test_a_match_of_boards_with_three_and_five_seats(name, tmp_path):
    players = get_variant(name).players
    out = tmp_path / "m"
    run = arena("match", *["greedy"] * players, "--variant", name, "--boards", "1", "--seed", "4", "--out", str(out),
                "--isolation", "none")
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    seatings = {3: 6, 5: 5}[players]  # a board: one game per seating (three seats: all six orders)
    assert len(records) == seatings and {r["seed"] for r in records} == {records[0]["seed"]}
    assert all(r["options"]["max-hands"] == "1" and len(r["hands"]) <= 1 and r["extra"]["board"] == 1 for r in records)
    assert "Board ratings (1 boards" in run.stdout
    assert arena("replay", str(out)).returncode == 0


def test_boards_in_a_tournament_and_an_sprt(tmp_path):
    out = tmp_path / "t"
    run = arena("tournament", "--bot", "greedy", "--bot", "random", "--boards", "3", "--seed", "1", "--out", str(out),
                "--isolation", "none", "--bootstrap", "20")
    assert run.returncode == 0, run.stderr
    assert "3 boards per pairing (6 one-hand games)" in run.stdout and "Board ratings (3 boards, 6 hands" in run.stdout
    assert json.loads((out / "ratings.json").read_text())["unit"] == "board"
    again = arena("ratings", str(out), "--bootstrap", "20")
    assert again.returncode == 0 and "Board ratings (3 boards" in again.stdout
    sprt = arena("sprt", "greedy", "random", "--boards", "40", "--elo0", "0", "--elo1", "100", "--seed", "2",
                 "--out", str(tmp_path / "s"), "--isolation", "none")
    assert sprt.returncode in (0, 3), sprt.stderr
    assert "boards" in sprt.stdout.splitlines()[-1] and "LLR" in sprt.stderr
    refused = arena("match", "greedy", "random", "--boards", "2", "--games", "4")
    assert refused.returncode == 2 and "takes no --games" in refused.stderr
    refused = arena("tournament", "--bot", "greedy", "--bot", "random", "--boards", "2", "--option", "max-hands=3")
    assert refused.returncode == 2 and "max-hands" in refused.stderr


def test_boards_are_played_in_runs_of_one_seating_so_a_process_can_play_on():
    games = [(board, seating) for board in range(45) for seating in range(3)]
    order = board_runs(games, lambda game: game)
    assert sorted(order) == games
    run = BOARDS_PER_PROCESS
    assert order[:run] == [(board, 0) for board in range(run)]  # seating 0 of the first run, then seating 1 ...
    assert order[run:2 * run] == [(board, 1) for board in range(run)]
    assert order[3 * run] == (run, 0)  # ... then the next run of boards
    assert order[-1] == (44, 2)
    # whole seatings of a run are contiguous, so a slot switches processes once per seating and run
    switches = sum(1 for a, b in itertools.pairwise(order) if a[1] != b[1])
    assert switches == 3 * 3 - 1


def test_boards_are_told_apart_by_number_when_a_deal_file_repeats_a_seed():
    same_seed = [hand(["A", "B"], [120, 80], seed=1), hand(["B", "A"], [150, 60], seed=1)]
    again = [attrs_evolve(r, extra={**r.extra, "board": 2}) for r in same_seed]
    boards, left_out = boards_of(same_seed + again)
    assert [b.number for b in boards] == [1, 2] and left_out == 0 and all(b.games == 2 for b in boards)


def test_faults_on_both_sides_of_a_board_draw_it_whatever_finished_first():
    a_faults = hand(["A", "B"], [0, 0], culprit=0)
    b_faults = hand(["B", "A"], [0, 0], culprit=0)
    for order in ([a_faults, b_faults], [b_faults, a_faults]):
        (board,), _ = boards_of(order)
        assert board.culprits == ("A", "B") and board.score("A", "B", 250) == 0.5


def test_a_sweep_of_lost_boards_is_bounded_below_zero():
    lost = bounded_estimate([0.0] * 10)
    assert lost.sweep and lost.bound < -100  # Clopper-Pearson over the 10 boards, not over 5 "pairs"
    assert bounded_estimate([1.0] * 10).bound == pytest.approx(-lost.bound)


def test_a_wide_board_win_shows_its_own_elo_not_a_clamped_one():
    """A board score near 1 is a wide margin, not a sweep: head to head shows its Elo (the pool's difference),
    not the 1199.8 a score clamped at 99.9% would give. An exact 1 (a fault) is a sweep, shown as a bound."""
    from tournaments.boards import board_pair_rows, board_parts

    seats = ["X", "Y", "Z"]
    records = [hand(list(o), [p + {"X": 10, "Y": 2, "Z": 0}[s] for s, p in zip(o, [30, 20, 10], strict=True)],
                    variant="three-handed") for o in itertools.permutations(seats)]
    report = analyse_boards(records, bootstrap=20)
    rows = {r[0]: r for r in board_pair_rows(report)}
    pool = report.ratings.ratings
    x_z = next(h for h in report.pairs if (h.a, h.b) == ("X", "Z")).estimate
    assert x_z.score > 0.999 and not x_z.sweep
    assert x_z.elo == pytest.approx(pool["X"] - pool["Z"], abs=0.01) and x_z.elo == pytest.approx(1600)  # 400 * 10 / 2.5
    assert rows["X vs Z"][4] == f"{x_z.elo:+.1f}" and "1199" not in render_boards(report)
    # one board: the bootstrap has a single unit to draw, so nothing has an interval or a pool LOS
    assert all(r[5] == "-" for r in rows.values()) and report.ratings.los == {}
    assert all(e == math.inf for e in report.ratings.errors.values())
    assert any(str(p).startswith("1 board is too few for a bootstrap") for p in board_parts(report))

    faulted = analyse_boards([hand(["A", "B"], [0, 0], seed=s, culprit=1) for s in (1, 2)]
                             + [hand(["B", "A"], [150, 60], seed=s) for s in (1, 2)], bootstrap=20)
    (pair,) = faulted.pairs
    assert pair.estimate.sweep and board_pair_rows(faulted)[0][4:6] == ["+inf", f"[{pair.estimate.bound:+.1f}, +inf)"]
    assert any(str(p).startswith("A vs B: every board scored 1") for p in board_parts(faulted))


def test_the_board_llr_bins_scores_so_its_cost_does_not_grow_with_the_boards():
    from tournaments.stats import SCORE_STEP, scores_to_pdf

    scores = [(i * 0.618034) % 1 for i in range(5000)]
    n, pdf = scores_to_pdf(scores)
    assert len(pdf) <= 1 / SCORE_STEP + 1 and n == pytest.approx(5000)
    assert llr_bounded(0, 5, scores) == pytest.approx(llr_bounded(0, 5, [round(x, 6) for x in scores]), abs=0.05)


def test_max_hands_is_quiet_at_its_default_so_earlier_records_and_game_lines_are_unchanged():
    assert "max-hands" not in get_variant("two-handed").settings()
    assert get_variant("two-handed", {"max-hands": "1"}).settings()["max-hands"] == "1"
    assert get_variant("two-handed").settings(complete=True)["max-hands"] == "200"


def test_partners_are_one_side_on_a_match_board(tmp_path):
    out = tmp_path / "m"
    run = arena("match", "greedy", "random", "greedy", "random", "--variant", "four-handed", "--boards", "1",
                "--seed", "3", "--out", str(out), "--isolation", "none")
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert all(set(r["extra"]["sides"]) == {"greedy+greedy-2", "random+random-2"} for r in records)
    assert "greedy+greedy-2 vs random+random-2" in run.stdout or "random+random-2 vs greedy+greedy-2" in run.stdout


def test_flags_that_contradict_boards_are_refused(tmp_path):
    for args, message in ((["sprt", "greedy", "random", "--boards", "10", "--max-pairs", "5"], "not both"),
                          (["tournament", "--bot", "greedy", "--bot", "random", "--boards", "2", "--games", "4"],
                           "not both"),
                          (["match", "--resume", str(tmp_path / "a"), "--out", str(tmp_path / "b")], "two folders")):
        run = arena(*args)
        assert run.returncode == 2 and message in run.stderr, run.stderr


def test_an_entrant_that_wins_every_board_is_a_bound_without_an_interval():
    """X scores above both others on every board: no finite board rating exists for it, so the table marks it
    with "*" and shows no interval (every resample sweeps too: its spread would read as certainty)."""
    from tournaments.boards import board_parts, board_rating_rows

    seats = ["X", "Y", "Z"]
    records = [hand(list(o), [p + {"X": 60, "Y": 0, "Z": 0}[s] + board for s, p in zip(o, [30, 20, 10], strict=True)],
                    seed=board, variant="three-handed")
               for board in range(1, 5) for o in itertools.permutations(seats)]
    for k, r in enumerate(records):  # Y and Z split their boards, so they are measured against each other
        r.hands[0]["points"] = [p + (5 if (s.entrant == "Y") == (k % 12 < 6) else 0)
                                for s, p in zip(r.seats, r.hands[0]["points"], strict=True)]
    report = analyse_boards(records, bootstrap=20)
    assert report.ratings.prior and report.ratings.unbounded == ("X",)
    rows = {r[1]: r for r in board_rating_rows(report)}
    assert rows["X"][2].endswith("*") and rows["X"][3] == "-"
    assert not rows["Y"][2].endswith("*") and rows["Y"][3] != "-"
    assert any(str(p).startswith("* X: scored above or below the rest on every board") for p in board_parts(report))
