"""Knockout tournaments (cutechess's -tournament knockout): the bracket, tie-breaks, and a run that is played,
resumed and audited like any other."""

from __future__ import annotations

import json

import pytest
from helpers import arena, interrupted_after_first_game

from referee.records.knockout import Knockout


def won_by(knockout: Knockout, winner_of) -> dict:
    """Results for every game the bracket asks for, each won by ``winner_of(pairing)``, until there is a
    champion."""
    results: dict = {}
    while True:
        bracket = knockout.walk(results)
        todo = [g for g in bracket.games() if g.game_id not in results]
        if not todo:
            return results
        for g in todo:
            winner = winner_of(g.pairing)
            results[g.game_id] = (g.seating, tuple(1.0 if knockout.contestant_of(e) == winner else 0.0
                                                  for e in g.seating))


def test_the_bracket_seeds_the_best_apart_and_gives_them_the_byes():
    seeds = tuple(f"s{i}" for i in range(1, 9))
    assert Knockout(seeds, 2, 2).places() == ["s1", "s8", "s4", "s5", "s2", "s7", "s3", "s6"]
    five = Knockout(seeds[:5], 2, 2)
    assert five.walk({}).byes == ((1, "s1"), (1, "s2"), (1, "s3"))
    assert [m.pairing for m in five.walk({}).matches] == [("s4", "s5"), ("s2", "s3")]
    for n in range(2, 17):  # the better seed always wins: seeds 1 and 2 meet in the final, and only there
        knockout = Knockout(tuple(f"s{i}" for i in range(1, n + 1)), 2, 2)
        bracket = knockout.walk(won_by(knockout, lambda pairing: pairing[0]))
        assert bracket.champion == "s1"
        assert bracket.matches[-1].pairing == ("s1", "s2")
        assert len(bracket.matches) == n - 1
        assert sum(m.pairing == ("s1", "s2") for m in bracket.matches) == 1


def test_a_level_match_plays_tie_break_deals_then_goes_to_the_better_seed():
    knockout = Knockout(("a", "b"), 2, 2)
    first = knockout.walk({})
    assert [g.game_id for g in first.games()] == ["r1m1-a-b-1a", "r1m1-a-b-1b"]
    assert [g.seating for g in first.games()] == [("a", "b"), ("b", "a")]
    level = {g.game_id: (g.seating, (1.0, 0.0)) for g in first.games()}  # seat 0 wins each: 1-1
    second = knockout.walk(level)
    assert second.champion is None and [g.game_id for g in second.games()][2:] == ["r1m1-a-b-2a", "r1m1-a-b-2b"]
    b_ahead = {**level, "r1m1-a-b-2a": (("a", "b"), (0.0, 1.0)), "r1m1-a-b-2b": (("b", "a"), (1.0, 0.0))}
    decided = knockout.walk(b_ahead)
    assert decided.champion == "b" and decided.matches[0].how == "on a tie-break deal"
    assert decided.matches[0].score == (1.0, 3.0)
    still_level = {**level, "r1m1-a-b-2a": (("a", "b"), (1.0, 0.0)), "r1m1-a-b-2b": (("b", "a"), (1.0, 0.0))}
    on_seed = knockout.walk(still_level)
    assert on_seed.champion == "a" and on_seed.matches[0].how.startswith("on seed")
    assert len(on_seed.games()) == 4  # at most as many deals again


def test_a_result_seated_otherwise_than_the_bracket_asks_does_not_count():
    knockout = Knockout(("a", "b"), 2, 2)
    swapped = {g.game_id: (g.seating[::-1], (1.0, 0.0)) for g in knockout.walk({}).games()}
    assert knockout.walk(swapped).matches[0].winner is None


def test_partners_sit_opposite_and_their_team_scores_once_per_game():
    members = {"red": ("red.1", "red.2"), "blue": ("blue.1", "blue.2")}
    knockout = Knockout(("red", "blue"), 2, 2, members)
    games = knockout.walk({}).games()
    assert [g.seating for g in games] == [("red.1", "blue.1", "red.2", "blue.2"),
                                          ("blue.1", "red.1", "blue.2", "red.2")]
    bracket = knockout.walk(won_by(knockout, lambda pairing: "blue"))
    assert bracket.champion == "blue" and bracket.matches[0].score == (0.0, 2.0)


def test_independent_deals_alternate_the_seats():
    knockout = Knockout(("a", "b"), 3, 1)
    assert [g.seating for g in knockout.walk({}).games()] == [("a", "b"), ("b", "a"), ("a", "b")]


KNOCKOUT = ("tournament", "--format", "knockout", "--bot", "greedy", "--bot", "random", "--bot", "first-legal",
            "--bot", "tactician", "--games", "2", "--option", "max-hands=1", "--seed", "7", "--no-report",
            "--bootstrap", "0")


def records(out) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def test_a_knockout_plays_its_bracket_to_a_champion_and_audits_clean(tmp_path):
    out = tmp_path / "ko"
    run = arena(*KNOCKOUT, "--out", out)
    assert run.returncode == 0, run.stderr
    assert "round 1:\n  greedy " in run.stdout and "\nround 2:\n" in run.stdout
    champion = run.stdout.split("champion: ")[1].split()[0]
    played = records(out)
    rounds = {r["game_id"].split("m")[0] for r in played}
    assert rounds == {"r1", "r2"} and len(played) >= 6  # three matches of two games, and any tie-breaks
    final = [r for r in played if r["game_id"].startswith("r2m1-")]
    assert champion in final[0]["game_id"]
    replay = arena("replay", out)
    assert replay.returncode == 0 and "0 scheduled game(s) without a record" in replay.stdout
    games = out / "games.jsonl"  # a deleted record of the final is missed
    lines = games.read_text().splitlines(keepends=True)
    gone = json.loads(lines[-1])["game_id"]
    games.write_text("".join(lines[:-1]))
    replay = arena("replay", out)
    assert replay.returncode == 1 and f"{gone}: no record" in replay.stdout


def test_an_interrupted_knockout_resumes_its_bracket(tmp_path):
    out = tmp_path / "ko"
    stopped = interrupted_after_first_game(*KNOCKOUT, "--concurrency", "1", "--out", out, total=6)
    assert stopped.returncode == 130 and "To continue: pinochle-arena tournament --resume" in stopped.stderr
    resumed = arena("tournament", "--resume", out)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming:" in resumed.stdout and "champion: " in resumed.stdout
    ids = [r["game_id"] for r in records(out)]
    assert len(ids) == len(set(ids)) >= 6
    assert arena("replay", out).returncode == 0


@pytest.mark.parametrize("variant", ["three-handed", "call-for-partner"])
def test_a_knockout_needs_two_contestants_at_a_table(variant, tmp_path):
    run = arena("tournament", "--format", "knockout", "--variant", variant, "--bot", "greedy", "--bot", "random",
                "--bot", "first-legal", "--out", tmp_path / "ko")
    assert run.returncode == 2 and "a knockout's matches are between two" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "ko").exists()
