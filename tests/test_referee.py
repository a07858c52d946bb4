"""The referee against real bot processes, well-behaved and not."""

import sys
from pathlib import Path

import attrs
import pytest
import trio
from helpers import ROOMY
from hypothesis import given
from hypothesis import strategies as st

from referee.bots.samples import SAMPLES
from referee.bots.transport import BotCommand
from referee.match import Entrant, MatchPlan, Player, play_game, run_match
from referee.match.clock import Clock, TimeControl
from referee.match.client import TimedReply
from referee.records.record import GameRecord, Termination, read_records
from referee.records.replay import replay_record
from referee.records.seals import load_key
from referee.rules import action_from_text, get_variant

BOTS = Path(__file__).parent / "bots"
FAST = TimeControl(bank_ms=20_000, increment_ms=0, move_ms=500, grace_ms=100)  # for bots meant to run out of time
V = get_variant("two-handed")


def faulty(mode, n=1, tc=ROOMY):
    return Entrant(f"faulty-{mode}", BotCommand((sys.executable, str(BOTS / "faulty.py"), mode, str(n))), tc)


def sample(name, tc=ROOMY):
    return Entrant(name, SAMPLES[name].command(), tc)


async def one_game(entrants, seed=5, tmp=None):
    async with trio.open_nursery() as nursery:
        players = [Player(e, (tmp / f"{e.name}.log") if tmp else None, startup_timeout=3) for e in entrants]
        with trio.fail_after(30):  # the referee must never hang
            record = await play_game(nursery, players, V, seed, "g1")
        for p in players:
            await p.close()
        nursery.cancel_scope.cancel()
    return record, players


def seeded_random(seed=7, tc=ROOMY):
    """The random sample bot with a seed, so that a test's game goes the same way every time."""
    return Entrant("random", BotCommand((*SAMPLES["random"].command().argv, str(seed))), tc)


def test_illegal_action_is_recorded_with_the_reason(tmp_path):
    # with an unseeded opponent the third request was sometimes a meld, which has its own reason
    record, _ = trio.run(one_game, [seeded_random(), faulty("illegal", 3)], 5, tmp_path)
    assert record.termination is Termination.ILLEGAL_ACTION
    assert record.actions[-1].seat == 1
    assert "not in your hand" in record.detail or "does not" in record.detail


def test_id_keys_the_referee_does_not_know_are_accepted_and_recorded(tmp_path):
    record, _ = trio.run(one_game, [sample("random"), faulty("ids")], 5, tmp_path)
    assert record.termination is Termination.COMPLETED
    assert record.seats[1].ids == {"name": "faulty-ids", "version": "1.0", "url": "https://example.org/bot"}
    assert GameRecord.from_json(record.to_json()).seats[1].ids == record.seats[1].ids


def test_replies_are_read_without_regard_to_case(tmp_path):
    """PROTOCOL.md section 1: 'as' is 'AS'; the record keeps the action as the referee writes it."""
    record, _ = trio.run(one_game, [sample("random"), faulty("lowercase")], 5, tmp_path)
    assert record.termination is Termination.COMPLETED
    mine = [a.action for a in record.actions if a.seat == 1]
    assert mine and all(a == action_from_text(a.swapcase()).to_text() for a in mine)


def test_replying_twice_is_a_protocol_error(tmp_path):
    record, _ = trio.run(one_game, [sample("random"), faulty("twice", 3)], 5, tmp_path)
    assert record.termination is Termination.PROTOCOL_ERROR
    assert record.culprit == 1
    assert "nobody asked" in record.detail


def test_bot_that_never_starts(tmp_path):
    entrants = [sample("random"), Entrant("ghost", BotCommand((str(tmp_path / "no-such-bot"),)), ROOMY)]
    record, _ = trio.run(one_game, entrants, 5, tmp_path)
    assert record.termination is Termination.CRASH and record.culprit == 1
    assert "not found" in record.detail


def test_clean_game_between_samples_is_complete_and_replays(tmp_path):
    record, players = trio.run(one_game, [sample("greedy"), sample("random")], 11, tmp_path)
    assert record.termination is Termination.COMPLETED
    assert record.culprit is None
    assert max(record.totals) >= 1000
    assert sorted(record.result) == [0.0, 1.0]
    assert record.seats[0].bot_name == "greedy"
    assert all(a.ms is not None and a.ms >= 0 for a in record.actions)
    assert replay_record(record).ok
    # a record written before an option existed (it lacks the key) still replays; a bad value does not
    older = attrs.evolve(record, options={k: v for k, v in record.options.items() if k != "roundhouse"})
    assert replay_record(older).ok
    changed = attrs.evolve(record, options={**record.options, "roundhouse": "maybe"})
    assert replay_record(changed).problems[0].startswith("variant: option roundhouse='maybe'")


def test_match_writes_records_and_restarts_a_crashed_bot(tmp_path):
    plan = MatchPlan((sample("random"), faulty("exit", 40)), V, 4, 3, tmp_path)
    records = trio.run(run_match, plan)
    assert len(records) == 4
    on_disk = list(read_records(tmp_path / "games.jsonl", load_key(tmp_path)))
    assert [r.game_id for r in on_disk] == ["g1", "g2", "g3", "g4"]
    assert all(r.termination is Termination.CRASH for r in on_disk)
    # the crashed bot was started again for every game
    assert (tmp_path / "logs" / "faulty-exit.stderr.log").read_text().count("=== pinochle-arena: start") == 4
    # games go in pairs with the same deals and the seats swapped
    assert on_disk[0].seed == on_disk[1].seed and on_disk[0].seats[0].entrant == on_disk[1].seats[1].entrant


def test_clock_charges_and_increments():
    clock = Clock(TimeControl(bank_ms=1000, increment_ms=100, move_ms=300, grace_ms=50))
    assert clock.allowance_ms() == 300 and clock.deadline_ms() == 350
    assert clock.charge(340)  # within grace
    assert clock.bank_ms == 1000 - 340 + 100
    assert not clock.charge(351)
    clock = Clock(TimeControl(bank_ms=200, increment_ms=0, move_ms=None, grace_ms=0))
    assert clock.allowance_ms() == 200
    clock.charge(150)
    assert clock.allowance_ms() == 50  # the bank, not a per-move limit, binds


@given(bank=st.integers(1, 100_000), move=st.none() | st.integers(1, 100_000), grace=st.integers(0, 1_000),
       increment=st.integers(0, 1_000), used=st.lists(st.floats(0, 200_000), max_size=6))
def test_clock_arithmetic_is_the_rule_as_written(bank, move, grace, increment, used):
    """Allowed: the bank or the move limit, whichever is smaller, never below 0; the deadline adds the grace;
    each reply takes its time off the bank (never below 0) and adds the increment."""
    clock = Clock(TimeControl(bank_ms=bank, increment_ms=increment, move_ms=move, grace_ms=grace))
    left = float(bank)
    for u in used:
        allowed = max(int(left if move is None else min(left, move)), 0)
        assert clock.allowance_ms() == allowed
        assert clock.deadline_ms() == allowed + grace
        assert clock.charge(u) == (u <= allowed + grace)
        left = max(left - u, 0.0) + increment
        assert clock.bank_ms == left


def test_each_seat_is_charged_on_its_own_clock(tmp_path):
    """The first request to each bot shows its full bank; later ones show the bank after its own replies."""
    tc = TimeControl(bank_ms=30_000, increment_ms=0, move_ms=5_000, grace_ms=100)
    plan = MatchPlan((sample("random", tc), sample("greedy", tc)), V, 1, 4, tmp_path, transcripts=True)
    (record,) = trio.run(run_match, plan)
    for seat, name in enumerate(s.entrant for s in record.seats):
        banks = [int(line.split()[4]) for line in (tmp_path / "logs" / f"{name}.protocol.log").read_text().splitlines()
                 if line.startswith("> go ")]
        used = [a.ms for a in record.actions if a.seat == seat]  # each of its replies, as the record times it
        assert banks[0] == 30_000
        assert banks == sorted(banks, reverse=True)  # no increment: a bank only goes down
        assert len(banks) == len(used)
        for k, bank in enumerate(banks):  # the bank shown is the bank less this seat's own replies before it
            assert abs(bank - (30_000 - sum(used[:k]))) <= 1


def test_transcript_shows_the_conversation(tmp_path):
    plan = MatchPlan((sample("random"), sample("greedy")), V, 1, 4, tmp_path, transcripts=True)
    (record,) = trio.run(run_match, plan)
    lines = (tmp_path / "logs" / "random.protocol.log").read_text().splitlines()
    assert lines[:7] == ["> pinochle 3", "< id name random", "< id author pinochle-arena sample bots",
                         "< protocol 3", "< option claim bool no", "< ready", "> setoption claim no"]
    wire_id = record.extra["wire_id"]  # the bots are told a random id, not the schedule's g1
    assert lines[7].startswith(f"> game {wire_id} two-handed 0 2 ") and len(wire_id) == 12 and wire_id != "g1"
    assert next(line for line in lines[8:] if not line.startswith("> rule ")).startswith("> deal 1 0 ")
    assert lines[-2:] == ["> matchend", "> quit"]
    # every request is answered by exactly one action line, and the reply is one of the legal actions
    for i, line in enumerate(lines):
        if line.startswith("> go "):
            assert lines[i + 1].startswith("< ")
            assert lines[i + 1][2:] in line.split()[5:]


@pytest.mark.parametrize("heading, seat_bots, variant, options, seed", [
    ("## 11. An annotated transcript (two-handed)", ("greedy", "tactician"), "two-handed", {"target": "200"}, 9),
    ("## 12. An annotated bidding game", ("tactician", "greedy", "greedy"), "three-handed", {"target": "10"}, 8),
])
def test_protocol_md_transcripts_are_what_the_referee_says(tmp_path, heading, seat_bots, variant, options, seed):
    """The annotated transcripts in PROTOCOL.md, replayed: same lines, only the clock figures and game id may differ."""
    doc = (Path(__file__).parent.parent / "protocol" / "PROTOCOL.md").read_text()
    block = doc.split(heading)[1].split("```")[3]
    expected = [line for line in block.strip().splitlines() if not line.startswith("#")]
    entrants = tuple(sample(name, TimeControl()) for name in seat_bots)
    names = [e.name for e in entrants]
    entrants = tuple(attrs.evolve(e, name=f"{e.name}-{i}") if names.count(e.name) > 1 else e
                     for i, e in enumerate(entrants))
    plan = MatchPlan(entrants, get_variant(variant, options), 1, seed, tmp_path, transcripts=True)
    trio.run(run_match, plan)
    actual = (tmp_path / "logs" / f"{entrants[0].name}.protocol.log").read_text().splitlines()

    def mask(line):
        words = line.split()
        if words[:2] == [">", "go"]:
            words[3:5] = ["T", "B"]
        if words[:2] == [">", "game"]:
            words[2] = "ID"  # random, different every game
        return " ".join(words)

    assert [mask(x) for x in actual] == [mask(x) for x in expected]


def test_a_fault_loses_the_game_for_the_whole_side():
    from referee.rules import fault_returns

    assert fault_returns(get_variant("two-handed"), 1) == (1.0, 0.0)
    assert fault_returns(get_variant("three-handed"), 0) == (0.0, 1.0, 1.0)
    assert fault_returns(get_variant("four-handed"), 1) == (1.0, 0.0, 1.0, 0.0)  # seat 3, the partner, loses too
    assert fault_returns(get_variant("call-for-partner"), 4) == (1.0, 1.0, 1.0, 1.0, 0.0)


def test_misbehaving_bot_in_a_partnership_game(tmp_path):
    variant = get_variant("four-handed")

    async def main():
        async with trio.open_nursery() as nursery:
            entrants = [sample("greedy"), faulty("illegal", 4), sample("greedy"), sample("random")]
            players = [Player(e, tmp_path / f"{i}.log") for i, e in enumerate(entrants)]
            with trio.fail_after(30):
                record = await play_game(nursery, players, variant, 3, "g1")
            for p in players:
                await p.close()
            nursery.cancel_scope.cancel()
        return record

    record = trio.run(main)
    assert record.termination is Termination.ILLEGAL_ACTION and record.culprit == 1
    assert record.result == (1.0, 0.0, 1.0, 0.0)
    assert replay_record(record).ok, replay_record(record).problems


class _LateClient:
    """Stands in for a bot: takes the first legal action, reporting it took ``late_ms`` at request ``n``.

    A reply can arrive past its deadline before the clock watcher wakes the reader; the referee's own
    check of the time used must catch it.
    """

    def __init__(self, n: int, late_ms: float):
        self.n, self.late_ms, self.asked, self.name, self.ids = n, late_ms, 0, "stand-in", {}
        self.version, self.wants, self.options = 2, set(), {}

    def post(self, message) -> None:
        pass

    async def send(self, message) -> None:
        pass

    async def request(self, message, wait_ms):
        self.asked += 1
        return TimedReply(message.legal[0], self.late_ms if self.asked == self.n else 1.0)


class _StandIn(Player):
    async def ensure_started(self, nursery):
        return self.client

    def prepare(self, nursery) -> None:  # its client is no process: none to start ahead
        pass

    async def game_over(self, nursery) -> None:
        pass

    async def retire(self) -> None:
        self.client = None


def test_a_reply_past_the_deadline_is_a_timeout_that_names_the_time_the_bot_had():
    bank_only = TimeControl(bank_ms=2_000, increment_ms=0, move_ms=None, grace_ms=100)
    players = []
    for i, client in enumerate([_LateClient(0, 0), _LateClient(3, 10_000)]):
        player = _StandIn(Entrant(f"p{i}", BotCommand(("unused",)), bank_only))
        player.client = client
        players.append(player)

    async def game():
        async with trio.open_nursery() as nursery:
            return await play_game(nursery, players, V, 5, "g1")

    record = trio.run(game)
    assert record.termination is Termination.TIMEOUT and record.culprit == 1
    assert record.detail == "replied after 10000 ms; allowed 2098"  # the bank less two replies of 1 ms, and grace
