"""Regression testing: play duplicate pairs NEW vs OLD until the GSPRT decides.

Workers play whole deal pairs (the same deal twice, seats swapped); after
every finished pair the pentanomial counts are updated and the
log-likelihood ratio compared with the bounds. When it crosses one, the
games in flight are cancelled and their bots stopped.

Records are sealed with ``OUT/secret.key``, made when the test starts, and
``OUT/schedule.jsonl`` says which games it may hold: pair k is ``sprt-<k>a``
(NEW in seat 0) and ``sprt-<k>b`` (OLD in seat 0), k up to ``max_pairs``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import trio

from referee.audit import Schedule, write_schedule
from referee.integrity import new_key
from referee.match import Entrant, Player, derive_seed, play_game
from referee.record import GameRecord, append_record
from referee.rules.variants import Variant

from .stats import Sprt


@attrs.define
class SprtState:
    test: Sprt
    penta: list[int] = attrs.Factory(lambda: [0] * 5)  # NEW's pair scores: LL, LD, WL+DD, WD, WW
    records: list[GameRecord] = attrs.Factory(list)
    verdict: str | None = None

    @property
    def pairs(self) -> int:
        return sum(self.penta)

    def add_pair(self, first: GameRecord, second: GameRecord, new: str) -> None:
        score = sum(r.result[0 if r.seats[0].entrant == new else 1] for r in (first, second))
        self.penta[int(score * 2)] += 1
        self.verdict = self.test.verdict(self.penta)

    def llr(self) -> float:
        return self.test.llr(self.penta)


async def run_sprt(new: Entrant, old: Entrant, variant: Variant, test: Sprt, seed: int, concurrency: int,
                   max_pairs: int, out_dir: Path, on_pair: Callable[[SprtState], None] | None = None) -> SprtState:
    state = SprtState(test)
    counter = iter(range(max_pairs))
    path = out_dir / "games.jsonl"
    logs = out_dir / "logs"
    key = new_key(out_dir)
    write_schedule(out_dir, Schedule.of_sprt(variant, new.name, old.name, max_pairs), key)

    async def worker(w: int, cancel: trio.CancelScope) -> None:
        pool = {e.name: Player.logged(e, logs, f"{e.name}.w{w}") for e in (new, old)}
        async with trio.open_nursery() as bots:
            try:
                for k in counter:
                    deal = derive_seed(seed, "deal", k)
                    pair = []
                    for suffix, seating in (("a", (new, old)), ("b", (old, new))):
                        record = await play_game(bots, [pool[e.name] for e in seating], variant, deal,
                                                 f"sprt-{k + 1}{suffix}", extra={"pairing": [new.name, old.name],
                                                                                 "pair": k + 1, "duplicate": True})
                        await trio.to_thread.run_sync(append_record, path, record, key)
                        state.records.append(record)
                        pair.append(record)
                    state.add_pair(pair[0], pair[1], new.name)
                    if on_pair is not None:
                        on_pair(state)
                    if state.verdict is not None:
                        cancel.cancel()
                        return
            finally:
                with trio.CancelScope(shield=True):
                    for p in pool.values():
                        await p.close()
                bots.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        for w in range(concurrency):
            nursery.start_soon(worker, w, nursery.cancel_scope)
    return state
