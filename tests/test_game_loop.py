"""The referee's one game loop (referee.match.lane and referee.match.stream): every runner plays through it, so
they agree on the record's ``extra``, on the meaning of duplicate, on saving records off the event loop and on
keeping a deal's seatings apart."""

from __future__ import annotations

import collections
import threading
from pathlib import Path

import attrs
import trio
from helpers import play_tournament

from referee.bots.samples import SAMPLES
from referee.match import Entrant, MatchPlan, match_games, match_schedule, run_match
from referee.match.clock import TimeControl
from referee.match.lane import GameSpec, LaneSettings, duplicate_orders
from referee.match.stream import play_games
from referee.records.audit import Schedule
from referee.records.record import GameRecord
from referee.records.store import ResultStore
from referee.rules import get_variant
from referee.rules.variants import apply_option
from tournaments.sprt_runner import run_sprt
from tournaments.stats import Sprt

ROOMY = TimeControl(bank_ms=60_000, increment_ms=0, move_ms=None, grace_ms=500)
SHORT = apply_option(get_variant("two-handed"), "max-hands", "1")
EXTRA_KEYS = {"pairing", "pair", "duplicate", "sides", "bots", "wire_id"}


def sample(name: str) -> Entrant:
    return Entrant(name, SAMPLES[name].command(), ROOMY)


def test_every_runner_writes_the_same_extra(tmp_path):
    match = trio.run(run_match, MatchPlan((sample("random"), sample("greedy")), SHORT, 2, 1, tmp_path / "m"))
    sprt = trio.run(run_sprt, sample("random"), sample("greedy"), SHORT, Sprt(0, 5), 1, 1, 1, tmp_path / "s")
    _, tournament = play_tournament({"tournament": {"games_per_pairing": 2, "seed": 1, "options": {"max-hands": 1}},
                                     "bot": [{"name": "random", "sample": "random"},
                                             {"name": "greedy", "sample": "greedy"}]}, tmp_path / "t")
    for records in (match, sprt.records, tournament):
        assert len(records) == 2
        for record in records:
            assert set(record.extra) == EXTRA_KEYS, record.extra
            assert record.extra["duplicate"] is True and record.extra["pair"] == 1
            assert record.extra["bots"] == record.extra["sides"] == [s.entrant for s in record.seats]
            assert set(record.extra["pairing"]) == {"random", "greedy"}


def test_three_seats_play_a_deal_in_all_six_orders_in_a_match_as_in_a_tournament():
    bots = tuple(sample(name) for name in ("random", "greedy", "tactician"))
    games = match_schedule(MatchPlan(bots, get_variant("three-handed"), 12, 5, Path("unused")))
    names = ("random", "greedy", "tactician")
    assert [g.seating for g in games[:6]] == duplicate_orders(names)
    assert len(set(duplicate_orders(names))) == 6
    assert {g.seed for g in games[:6]} == {games[0].seed} and games[6].seed != games[0].seed
    assert [g.pair for g in games] == [1] * 6 + [2] * 6
    from tournaments.config import parse_config
    from tournaments.schedule import schedule

    config = parse_config({"tournament": {"games_per_pairing": 6, "variant": "three-handed", "seed": 5},
                           "bot": [{"name": n, "sample": n} for n in names]}, Path("t.toml"))
    assert [g.seating for g in schedule(config)] == duplicate_orders(names)


@attrs.define
class ThreadNotingStore(ResultStore):
    """A results folder that notes the thread each batch of records is saved on."""

    threads: list[int] = attrs.Factory(list)

    def append_many(self, records: list[GameRecord]) -> None:
        self.threads.append(threading.get_ident())
        super().append_many(records)


def test_records_are_saved_off_the_event_loop_and_every_one_reaches_the_folder(tmp_path):
    """A match (as play does) once saved and fsynced each record in the event loop, holding every bot's clock."""
    store = ThreadNotingStore(tmp_path)
    plan = MatchPlan((sample("random"), sample("greedy")), SHORT, 4, 3, tmp_path)
    store.start({}, match_games(plan))
    loop = []

    async def main() -> list[GameRecord]:
        loop.append(threading.get_ident())
        return await run_match(plan, store=store)

    records = trio.run(main)
    assert len(records) == 4 and store.threads and loop[0] not in store.threads
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 4


def test_a_match_at_concurrency_two_never_plays_two_seatings_of_a_deal_at_once(tmp_path):
    records = trio.run(run_match, MatchPlan((sample("random"), sample("greedy")), SHORT, 8, 4, tmp_path), None,
                       None, (), 2)
    assert len(records) == 8
    by_deal = collections.defaultdict(list)
    for r in records:
        by_deal[r.seed].append(r)
    assert len(by_deal) == 4
    for seatings in by_deal.values():
        first, second = sorted(seatings, key=lambda r: r.started)
        assert second.started >= first.started + first.seconds - 0.05  # the second began once the first had ended
    logs = {p.name for p in (tmp_path / "logs").iterdir()}
    assert {"random.w0.stderr.log", "random.w1.stderr.log"} <= logs  # two lanes, each with processes of its own


def test_one_lane_plays_the_games_in_the_order_given(tmp_path):
    plan = MatchPlan((sample("random"), sample("greedy")), SHORT, 6, 2, tmp_path)
    records = trio.run(run_match, plan)
    assert [r.game_id for r in records] == ["g1", "g2", "g3", "g4", "g5", "g6"]


def test_on_boards_an_sprt_keeps_one_process_per_seating_from_board_to_board(tmp_path):
    """Its two seatings of each board alternate; the lane keeps the processes of both (a board's seating each)."""
    boards = apply_option(get_variant("two-handed"), "max-hands", "1")
    state = trio.run(run_sprt, sample("random"), sample("greedy"), boards, Sprt(0, 5), 1, 1, 4, tmp_path,
                     None, None, (), None, True)
    assert len(state.records) == 8 and state.pairs == 4
    starts = (tmp_path / "logs" / "random.w0.stderr.log").read_text().count("=== pinochle-arena: start")
    assert starts == 2, starts  # one process for seating a, one for b, each playing four boards


def test_games_handed_in_later_are_played_until_none_come(tmp_path):
    """``more``: how the league and the SPRT feed the loop."""
    store = ResultStore(tmp_path)
    store.start({}, Schedule.of_games("match", SHORT, [(f"x{k}", ["random", "greedy"]) for k in range(3)]))
    batches = [[GameSpec(f"x{k}", ("random", "greedy"), k, ("random", "greedy"), k)] for k in range(3)]
    saved = []

    async def more() -> list[GameSpec]:
        return batches.pop(0) if batches else []

    trio.run(lambda: play_games([], {"random": sample("random"), "greedy": sample("greedy")},
                                LaneSettings(SHORT, tmp_path / "logs", duplicate=False), store, 2, saved.append,
                                more=more))
    assert sorted(r.game_id for r in saved) == ["x0", "x1", "x2"]
    assert all(r.extra["duplicate"] is False for r in saved)
