"""Benchmark 2: referee throughput with instant bots, next to the pipe limit from the same run.

Real tournaments (the runner users get, results fsynced) between copies of
the C first-legal bot (sample_bots/c), which answers every request at once,
so everything measured is the referee: the rules engine, the protocol, the
pipes, trio and the results file. Decisions (requests answered) and games
per second at several concurrencies (spread over one referee process per
core), for the two-handed game and the three-, four- and five-player
presets.

Also the referee's own ceiling: the same two-handed games against in-process
stand-ins that answer at once, with no process and no pipe, so only the
rules engine, the protocol text, the clocks and the record are left. If a
decision with pipes cost that work plus exactly one trio round trip, it
could reach at most 1 / (1/trio + 1/no-pipes) decisions per second; the
summary gives that bound as a share of trio's rate.

    python bench/referee_throughput.py [--games N] [--concurrency 1,2,4,8,32] [--presets ...]
                                       [--isolation jail|none] [--fresh]

By default the bots are jailed and kept from game to game (``persist``), so
what is measured is the referee per decision; ``--isolation none`` takes the
jail away, ``--fresh`` starts a new process for every game (the default of
a tournament: bench/jail_cost.py breaks that start down).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import trio
from _common import summary
from pipe_limit import measure as pipe_rates
from tabulate import tabulate

from referee.bots.transport import BotCommand
from referee.match import Entrant, Player, play_game
from referee.match.client import TimedReply
from referee.records.record import read_records
from referee.rules import get_variant
from tournaments.config import parse_config
from tournaments.runner import run_games
from tournaments.schedule import schedule
from tournaments.store import ResultStore, tournament_schedule

PRESETS = ("two-handed", "three-handed", "four-handed", "call-for-partner")


# first-legal passes every auction; with the dealer stuck at the minimum the hands are played out
OPTIONS = {"three-handed": {"all-pass": "dealer-stuck"}, "four-handed": {"all-pass": "dealer-stuck"}}
SEATS = {"two-handed": 2, "three-handed": 3, "four-handed": 2, "call-for-partner": 5}  # entrants (teams of copies)
GROUP = {"two-handed": 2, "three-handed": 6, "four-handed": 2, "call-for-partner": 5}  # games per duplicate deal


MODE = {"isolation": "jail", "persist": True}  # how the bots run (main() sets it from the flags)


def run_tournament(preset: str, concurrency: int, games: int, processes: int | None = None) -> tuple[float, float, int]:
    """(decisions/s, games/s, referee processes) of a real tournament run (results fsynced to a temp dir)."""
    records, elapsed, processes = play_tournament(preset, concurrency, games, processes)
    return sum(len(r.actions) for r in records) / elapsed, len(records) / elapsed, processes


def play_tournament(preset: str, concurrency: int, games: int, processes: int | None = None,
                    limits: dict | None = None) -> tuple[list, float, int]:
    """(records, seconds, referee processes) of a tournament of about ``games`` games between first-legal bots."""
    per = max(GROUP[preset], games // GROUP[preset] * GROUP[preset])
    # persist (by default): each bot's process is kept from game to game, so what is measured is the referee per
    # decision; bench/jail_cost.py measures the start of a fresh process per game
    data = {"tournament": {"variant": preset, "games_per_pairing": per, "concurrency": concurrency, "seed": 7,
                           "persist": MODE["persist"], "isolation": MODE["isolation"],
                           "options": OPTIONS.get(preset, {}),
                           **({"processes": processes} if processes else {})},
            **({"limits": limits} if limits else {}),
            "bot": [{"name": f"fl{i}", "sample": "first-legal"} for i in range(SEATS[preset])]}
    with tempfile.TemporaryDirectory() as tmp:
        config = parse_config(data, Path(tmp) / "bench.toml", output=Path(tmp) / "out")
        specs = schedule(config)
        store = ResultStore(config.output)
        store.start(config.fingerprint(), tournament_schedule(config, specs))
        start = time.perf_counter()
        trio.run(run_games, config, specs, store)
        elapsed = time.perf_counter() - start
        records = list(read_records(store.games_path, store.key))
    if len(records) != len(specs) or any(r.termination.value != "completed" for r in records):
        details = [r.detail for r in records if r.detail][:1]
        raise SystemExit(f"{len(specs) - len(records)} games missing or not completed {details}")
    return records, elapsed, config.referee_processes


class _InstantClient:
    """A bot without a process: the first legal action at once, nothing written or read. (What a record keeps of
    a seat's bot, as a BotClient has it: its name, its 'id' lines, its protocol and its options.)"""

    name = "instant"
    ids: dict = {}
    version = 3
    options: dict = {}
    wants: frozenset = frozenset()  # no state lines

    def post(self, message) -> None:
        pass

    async def send(self, message) -> None:
        pass

    async def request(self, message, wait_ms: float) -> TimedReply:
        return TimedReply(message.legal[0], 0.0)


class _InProcess(Player):
    async def ensure_started(self, nursery):
        return self.client

    def prepare(self, nursery) -> None:  # no process to start ahead
        pass

    async def game_over(self, nursery) -> None:
        pass


def play_without_pipes(games: int) -> tuple[int, float]:
    """(decisions, seconds) of ``games`` two-handed games against in-process instant stand-ins."""
    variant = get_variant("two-handed")

    async def play() -> tuple[int, float]:
        players = [_InProcess(Entrant(f"p{i}", BotCommand(("in-process",))), client=_InstantClient())
                   for i in range(2)]
        decisions = 0
        start = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for seed in range(games):
                record = await play_game(nursery, players, variant, seed, f"g{seed}")
                if record.termination.value != "completed":
                    raise SystemExit(f"in-process game {seed} did not complete: {record.detail}")
                decisions += len(record.actions)
        return decisions, time.perf_counter() - start

    return trio.run(play)


def no_pipes_rate(games: int, rounds: int = 3) -> float:
    """Decisions/s without pipes, the best of ``rounds`` runs."""
    return max(d / s for d, s in (play_without_pipes(games) for _ in range(rounds)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="games per measurement at concurrency 1 (default 60; "
                        "more at higher concurrency)")
    parser.add_argument("--concurrency", default="1,2,4,8,32")
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--isolation", choices=("jail", "none"), default="jail", help="the bots' isolation "
                        "(default: the jail)")
    parser.add_argument("--fresh", action="store_true", help="a fresh bot process for every game (default: kept)")
    args = parser.parse_args()
    MODE.update(isolation=args.isolation, persist=not args.fresh)
    print(f"bots: isolation {args.isolation}, {'a fresh process every game' if args.fresh else 'kept between games'}")
    levels = [int(x) for x in args.concurrency.split(",")]
    pipes = pipe_rates(2.0)
    alone = no_pipes_rate(max(args.games // 3, 5))  # right after trio's rate: the bound compares the two
    rows = []
    base = {}
    for name in args.presets:
        for c in levels if name == "two-handed" else [1, max(levels)]:
            games_wanted = args.games * (1 if c == 1 else 2) // (1 if name == "two-handed" else 4)
            runs = 2 if name == "two-handed" else 1  # best of two where the summary's ratios come from
            decisions, games, processes = max(run_tournament(name, c, games_wanted) for _ in range(runs))
            base.setdefault(name, decisions)
            rows.append([name, c, processes, f"{decisions:,.0f}", f"{games:,.1f}", f"{decisions / base[name]:.2f}",
                         f"{decisions / pipes['trio']:.0%}"])
            print(f"  {name} at concurrency {c}: {decisions:,.0f} decisions/s, {games:.1f} games/s", flush=True)
    bound = 1 / (1 / pipes["trio"] + 1 / alone)
    print(f"pipe limit in this run: C {pipes['c']:,.0f} round trips/s, trio {pipes['trio']:,.0f}/s")
    print(f"two-handed with in-process instant bots (no pipes): {alone:,.0f} decisions/s; with one trio round "
          f"trip added per decision at most {bound:,.0f}/s ({bound / pipes['trio']:.0%} of trio)")
    print(tabulate(rows, headers=["preset", "concurrency", "processes", "decisions/s", "games/s", "x conc. 1",
                                  "of trio pipe"],
                   tablefmt="github"))
    two = [r for r in rows if r[0] == "two-handed"]
    by_c = {r[1]: float(r[3].replace(",", "")) for r in two}
    ratio8 = by_c.get(8, 0) / by_c[1] if 1 in by_c else 0
    summary(f"referee: two-handed {by_c.get(1, 0):,.0f} decisions/s at concurrency 1 "
            f"({by_c.get(1, 0) / pipes['trio']:.0%} of trio's {pipes['trio']:,.0f} round trips/s; "
            f"{alone:,.0f}/s without pipes, so at most {bound / pipes['trio']:.0%} with them), "
            f"concurrency 8 is {ratio8:.2f}x concurrency 1")


if __name__ == "__main__":
    main()
