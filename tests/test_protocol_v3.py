"""Protocol 3 against the referee: the negotiation, options, rule lines, state lines and meld points."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from referee.bots.samples import SAMPLES
from referee.bots.transport import BotCommand
from referee.match import Entrant, Player, play_game
from referee.match.clock import TimeControl
from referee.match.wire import rule_messages
from referee.records.record import Termination
from referee.rules import get_variant

V3BOT = Path(__file__).parent / "bots" / "v3bot.py"
TC = TimeControl(bank_ms=60_000, increment_ms=0, move_ms=5_000, grace_ms=1_000)  # generous: nothing here is timed


def v3bot(*args: str, options: tuple = ()) -> Entrant:
    return Entrant("v3bot", BotCommand((sys.executable, str(V3BOT), *args)), TC, options=options)


def seeded_random() -> Entrant:
    return Entrant("random", BotCommand((*SAMPLES["random"].command().argv, "3")), TC)


def play(tmp_path: Path, bot: Entrant, variant: str = "two-handed", seed: int = 4, options=None):
    """One game, the bot in seat 0 and seeded random bots in the others; (record, the lines the bot was sent)."""
    v = get_variant(variant, options or {"target": "300"})

    async def run():
        async with trio.open_nursery() as nursery:
            players = [Player(bot, tmp_path / "bot.log", startup_timeout=5)]
            players += [Player(seeded_random(), None, startup_timeout=5) for _ in range(v.players - 1)]
            with trio.fail_after(60):
                record = await play_game(nursery, players, v, seed, "g1")
            for p in players:
                await p.close()
            nursery.cancel_scope.cancel()
        return record

    record = trio.run(run)
    lines = [x for x in (tmp_path / "bot.log").read_text().splitlines() if not x.startswith("=== ")]
    return record, lines


def test_a_bot_that_does_not_opt_in_hears_version_2(tmp_path):
    record, lines = play(tmp_path, v3bot())
    assert record.termination is Termination.COMPLETED
    assert lines[0] == "pinochle 3"
    assert not [x for x in lines if x.split()[0] in ("rule", "state", "setoption")]
    assert not [x for x in lines if x.startswith("go ") and "=" in x]
    assert record.seats[0].protocol == 2 and record.seats[0].options == {}


def test_a_version_3_bot_hears_its_options_the_rules_a_state_before_each_request_and_meld_points(tmp_path):
    bot = v3bot("protocol 3", "want state", "option depth int 3 1 9", "option style choice safe safe bold",
                options=(("depth", "5"),))
    record, lines = play(tmp_path, bot)
    assert record.termination is Termination.COMPLETED, record.detail
    assert record.seats[0].protocol == 3 and record.seats[0].options == {"depth": "5", "style": "safe"}
    # the options come before the first game, every declared one with its value
    first_game = next(i for i, x in enumerate(lines) if x.startswith("game "))
    assert lines[1:first_game] == ["setoption depth 5", "setoption style safe"]
    # then the rules of the game
    rules = [r.to_text() for r in rule_messages(get_variant("two-handed", {"target": "300"}))]
    assert lines[first_game + 1:first_game + 1 + len(rules)] == rules
    assert "rule meld run 150 300" in rules and "rule follow 2 suit trump head" in rules
    # a state line just before each request
    requests = [i for i, x in enumerate(lines) if x.startswith("go ")]
    assert requests and all(lines[i - 1].startswith("state ") for i in requests)
    # a meld token's points are what the meld then scores
    scored = 0
    for i in requests:
        melds = [t for t in lines[i].split()[4:] if "=" in t]
        if melds:
            action, points = melds[0].rsplit("=", 1)
            shown = next(x for x in lines[i + 1:] if x.startswith("meld 0 ")).split()
            assert shown[1:4] == ["0", action.split(":")[0], points]
            scored += 1
    assert scored >= 2


@pytest.mark.parametrize("how", ["strip", "wrong"])
def test_a_meld_reply_may_leave_its_points_off_but_not_change_them(tmp_path, how):
    record, _ = play(tmp_path, v3bot("--points", how, "protocol 3"))
    if how == "strip":
        assert record.termination is Termination.COMPLETED, record.detail
    else:
        assert record.termination is Termination.ILLEGAL_ACTION and record.culprit == 0
        assert "scores" in record.detail and "now, not" in record.detail


def test_points_on_a_meld_requests_pass_are_an_illegal_action_not_a_referee_crash(tmp_path):
    """``pass=0``: a legal pass carrying points only a meld has. The referee once asked the rules what the pass
    would score as a meld, and its game loop died of the AttributeError."""
    record, _ = play(tmp_path, v3bot("--points", "pass", "protocol 3"))
    assert record.termination is Termination.ILLEGAL_ACTION and record.culprit == 0
    assert "only a meld may carry =POINTS" in record.detail


@pytest.mark.parametrize("handshake, options, reason", [
    (("protocol 3",), (("depth", "5"),), "declares no option depth (its options: none)"),
    ((), (("depth", "5"),), "it speaks protocol 2, which has no options"),
    (("protocol 3", "option depth int 3 1 9"), (("depth", "12"),), "refused: depth takes 1 to 9, not 12"),
    (("option depth int 3 1 9",), (), "'option' and 'want' lines belong to protocol 3"),
    (("protocol 4",), (), "this referee speaks up to 3"),
])
def test_options_and_versions_the_referee_cannot_honour_are_refused_with_the_reason(tmp_path, handshake, options,
                                                                                     reason):
    record, _ = play(tmp_path, v3bot(*handshake, options=options))
    assert record.termination is Termination.PROTOCOL_ERROR and record.culprit == 0
    assert reason in record.detail


@pytest.mark.parametrize("variant", ["four-handed-double", "call-for-partner", "three-handed", "two-handed-dummy"])
def test_the_bidding_games_tell_a_version_3_bot_their_rules_and_state(tmp_path, variant):
    record, lines = play(tmp_path, v3bot("protocol 3", "want state"), variant, options={"target": "100"})
    assert record.termination is Termination.COMPLETED, record.detail
    rules = [x for x in lines if x.startswith("rule ")]
    assert rules == [r.to_text() for r in rule_messages(get_variant(variant, {"target": "100"}))]
    if variant in ("four-handed-double", "call-for-partner"):
        assert "rule copies 4" in rules and "rule meld run 25 250 450 500" in rules
        assert "rule meld roundhouse 24 240 - -" in rules
    states = [x for x in lines if x.startswith("state ")]
    assert len(states) == len([x for x in lines if x.startswith("go ")])
