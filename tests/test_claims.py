"""Claims (issue 55, item 2): which requests offer ``claim``, what a claim must reach, and bots that never claim
unless asked to.

PROTOCOL.md says (sections 4 and 13): only a game with a stock and ``claim=yes`` offers ``claim``, in every
lead, follow and meld request, never in a take; a claim counts the game total, this hand's meld and the
counters of the tricks won so far, against the target as it stands (raised under ``tiebreak=play-on``).
Its 20-line bot (section 8) and the sample ``random`` never claim unless told to.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import trio

from referee.bots.samples import SAMPLES
from referee.bots.sandbox import Isolation, Sandbox
from referee.bots.transport import BotCommand
from referee.match import Entrant, MatchPlan, TimeControl, run_match
from referee.records.record import Termination
from referee.rules import PRESETS, Claim, DecisionKind, Game, get_variant, new_game
from referee.rules.events import TargetRaised

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "protocol" / "PROTOCOL.md"
OFFERED_IN = {DecisionKind.LEAD, DecisionKind.FOLLOW, DecisionKind.MELD}


def protocol_md_bot(folder: Path) -> Path:
    """Section 8's "complete bot in 20 lines", as printed, in a file."""
    section = PROTOCOL.read_text(encoding="utf-8").split("## 8. A complete bot in 20 lines")[1]
    code = section.split("```python\n")[1].split("```")[0]
    bot = folder / "tiny.py"
    bot.write_text(code)
    return bot


def play(entrants: tuple[Entrant, ...], variant, games: int, seed: int, out: Path):
    """``games`` games (a new deal each) with transcripts; returns the records."""
    plan = MatchPlan(entrants, variant, games, seed, out, transcripts=True, duplicate=False)
    return trio.run(run_match, plan)


def greedy(players: int) -> list[Entrant]:
    return [Entrant(f"greedy-{i}", SAMPLES["greedy"].command(), TimeControl()) for i in range(1, players)]


def claims_by(records, name: str) -> list[str]:
    """The game ids in which the entrant ``name`` claimed."""
    found = []
    for record in records:
        seat = next(i for i, s in enumerate(record.seats) if s.entrant == name)
        if any(a.seat == seat and a.action == "claim" for a in record.actions):
            found.append(record.game_id)
    return found


# ---------------------------------------------------------------- the bots that never claim unless asked to
def test_the_bot_of_protocol_md_stays_about_twenty_lines(tmp_path):
    lines = [line for line in protocol_md_bot(tmp_path).read_text().splitlines() if line.strip()]
    assert len(lines) <= 21


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_bot_of_protocol_md_plays_every_preset_legally_and_never_claims(preset, tmp_path):
    variant = get_variant(preset, {"max-hands": "1"})
    tiny = Entrant("tiny", BotCommand((sys.executable, str(protocol_md_bot(tmp_path)))), TimeControl(),
                   Sandbox(isolation=Isolation.NONE))  # unjailed: its file is in the test's private folder
    records = play((tiny, *greedy(variant.players)), variant, 1, 5, tmp_path / "out")
    assert [r.termination for r in records] == [Termination.COMPLETED], records[0].detail
    assert claims_by(records, "tiny") == []
    offered = [line for line in (tmp_path / "out" / "logs" / "tiny.protocol.log").read_text().splitlines()
               if line.startswith("> go ") and line.endswith(" claim")]
    assert bool(offered) == variant.claim  # two-handed-hoyle offered it, and it was left out


def random_bot(*options: tuple[str, str]) -> Entrant:
    """The sample random, seeded (the same games play the same way), with ``options`` (protocol 3)."""
    command = BotCommand((*SAMPLES["random"].argv, "7"))
    return Entrant("random", command, TimeControl(), options=options)


def test_random_claims_only_with_option_claim_yes(tmp_path):
    variant = get_variant("two-handed-hoyle", {"max-hands": "1"})
    records = play((random_bot(), *greedy(2)), variant, 4, 3, tmp_path / "default")
    assert claims_by(records, "random") == []
    assert all(r.termination is Termination.COMPLETED for r in records)
    records = play((random_bot(("claim", "yes")), *greedy(2)), variant, 4, 3, tmp_path / "claims")
    claimed = claims_by(records, "random")
    assert claimed  # offered in nearly every request: a random choice takes it within a hand
    for record in records:
        if record.game_id in claimed:  # a random claim in hand 1 of a game to 1000 is wrong, and ends the game
            assert record.actions[-1].action == "claim" and record.result[record.actions[-1].seat] == 0.0
    assert records[0].seats[0].options == {"claim": "yes"}


# ---------------------------------------------------------------- the rules, as PROTOCOL.md words them
def without_claims(rng: random.Random):
    return lambda decision: rng.choice([a for a in decision.legal if a != Claim()])


@pytest.mark.parametrize("preset, options", [(name, {}) for name in PRESETS] + [
    ("two-handed", {"claim": "yes"}), ("two-handed-150", {"claim": "yes"}),
    ("two-handed-hoyle", {"claim": "no"})])
def test_claim_is_offered_in_every_lead_follow_and_meld_of_a_game_with_claim_yes_and_nowhere_else(preset, options):
    variant = get_variant(preset, {**options, "max-hands": "2"})
    choose = without_claims(random.Random(1))
    game, _ = new_game(variant, 11)
    kinds = set()
    while not game.is_terminal():
        decision = game.decision()
        offered = Claim() in decision.legal
        assert offered == (variant.claim and decision.kind in OFFERED_IN), (decision.kind, decision.legal)
        kinds.add(decision.kind)
        game.apply(choose(decision))
    if variant.family == "stock":
        assert OFFERED_IN <= kinds  # each of them was asked
    if preset == "two-handed" and variant.claim:
        assert DecisionKind.TAKE_LAST in kinds  # and the take, which never offers a claim, too


def count_now(game, seat: int) -> tuple[int, int]:
    """(the claimant's count, the target) as a bot may know them: its observation."""
    seen = game.observation(seat)
    return seen.totals[seat] + seen.meld_points[seat] + seen.trick_points[seat], seen.target


def test_a_claim_counts_total_meld_and_the_tricks_won_so_far_and_wins_exactly_when_that_reaches_the_target():
    variant = get_variant("two-handed-hoyle", {"target": "150"})
    outcomes = {True: 0, False: 0}
    for seed in range(4):
        choose = without_claims(random.Random(seed))
        game, _ = new_game(variant, seed)
        while not game.is_terminal():
            decision = game.decision()
            if Claim() in decision.legal:
                trial = Game.copy(game)
                count, target = count_now(trial, decision.seat)
                trial.apply(Claim())
                right = count >= target
                assert trial.returns()[decision.seat] == (1.0 if right else 0.0)
                assert trial.totals[decision.seat] == count  # what was counted, and nothing of the trick in play
                outcomes[right] += 1
            game.apply(choose(decision))
    assert outcomes[True] and outcomes[False]


def test_after_the_target_rises_a_claim_must_reach_the_raised_target():
    """Both seats pass 100 in hand 1, the target rises to 600: a claim at 100 or more, but under 600, loses."""
    variant = get_variant("two-handed-hoyle", {"target": "100", "target-step": "500"})
    for seed in range(40):
        choose = without_claims(random.Random(seed))
        game, notices = new_game(variant, seed)
        while not game.is_terminal() and not any(isinstance(n.event, TargetRaised) for n in notices):
            notices = game.apply(choose(game.decision()))
        if not game.is_terminal():
            break
    else:
        pytest.fail("no seed of 40 raised the target")
    decision = game.decision()  # the first request of hand 2
    count, target = count_now(game, decision.seat)
    assert target == 600 and 100 <= game.totals[decision.seat] == count < 600
    assert Claim() in decision.legal
    game.apply(Claim())
    assert game.returns()[decision.seat] == 0.0


def test_a_random_claim_ends_the_game_as_completed_and_lost_not_as_a_fault(tmp_path):
    """The wire text of a wrong claim (PROTOCOL.md, section 13): 'claim <seat> no', then handend and a completed
    gameover that the claimant lost; no 'error' line."""
    variant = get_variant("two-handed-hoyle", {"max-hands": "1"})
    records = play((random_bot(("claim", "yes")), *greedy(2)), variant, 2, 3, tmp_path)
    record = next(r for r in records if r.actions[-1].action == "claim")
    seat = record.actions[-1].seat
    assert record.termination is Termination.COMPLETED and record.culprit is None and record.result[seat] == 0.0
    log = (tmp_path / "logs" / "random.protocol.log").read_text().splitlines()
    at = log.index(f"> claim {seat} no")
    assert log[at - 1] == "< claim" and log[at + 1].startswith("> handend ")
    assert log[at + 2].startswith("> gameover completed - result ")
    assert not any(line.startswith("> error") for line in log)


def test_the_samples_list_names_the_option():
    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `random` |"))
    assert "option.claim=yes" in row
