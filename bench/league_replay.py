#!/usr/bin/env python3
"""The league's matchmaker against a round robin, replayed over a table of real results: many seeds in minutes.

``bench/league_ranking.py`` measures the matchmaker with real games, which
takes about a minute a seed, and the games each method needs until its
ranking holds (Kendall's tau 0.9 for good) vary by a factor of four from seed
to seed, so ten seeds leave a wide interval. This replays instead:

1. ``--build N`` plays once a round robin of duplicate pairs over ``N``
   deals between ten greedy entrants (0%, 10%, ... 90% random moves; one hand
   a game, or whole games with ``--hands 0``) and keeps every game's result
   by deal and pairing in a table (``--table``, JSON lines).
2. Each seed then shuffles the deals and plays, from the table, both
   * the round robin, deal by deal, every pairing the same deal, as
     ``tournament`` schedules it, and
   * the league: the real matchmaker (:func:`league.matchmaking.next_table`
     over :func:`league.ratings.fit_pool`, as ``league run`` calls them)
     chooses each table, which gets the next deal of the shuffled order; its
     results reach the ratings ``--lag`` tables later, as the tables played
     ahead do in ``league run``,

   and counts the games each needs, as ``bench/league_ranking.py`` does.

Printed: per seed the two counts; then the geometric mean of the ratios with
a 95% interval over the seeds. What it cannot show: the league's own speed,
and anything a real run does differently (``league_ranking.py`` is the
measure; this is for trying a change to the matchmaker on many seeds).

    python bench/league_replay.py --build 400 --table /tmp/one-hand.jsonl
    python bench/league_replay.py --table /tmp/one-hand.jsonl --seeds 30
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import geometric_mean_interval, summary  # noqa: E402
from bench.league_ranking import SETTINGS, games_to_tau, noise_of  # noqa: E402
from league.matchmaking import Candidate, next_table  # noqa: E402
from league.ratings import Tally, fit_pool  # noqa: E402
from referee.records.record import read_records  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.runner import run_games  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.store import ResultStore, tournament_schedule  # noqa: E402

Game = list[tuple[int, float]]  # (entrant's noise, share) per seat


def build(table: Path, deals: int, hands: int, concurrency: int) -> None:
    """Play the round robin of ``deals`` duplicate deals and write every game as {deal, seats, result}."""
    tournament = {**SETTINGS["tournament"], "games_per_pairing": 2 * deals, "seed": 7, "concurrency": concurrency}
    tournament["options"] = {"max-hands": str(hands)} if hands else {}
    data = {"tournament": tournament, "time": SETTINGS["time"],
            "bot": [{"name": f"noise{n}", "sample": "greedy", "options": {"noise": n}} for n in noise_of(10)]}
    with tempfile.TemporaryDirectory() as tmp:
        config = parse_config(data, Path(tmp) / "rr.toml", Path(tmp) / "rr")
        specs = schedule(config)
        store = ResultStore(config.output)
        store.start(config.fingerprint(), tournament_schedule(config, specs))
        trio.run(run_games, config, specs, store)
        deal_of = {s.game_id: s.pair for s in specs}
        with table.open("w") as out:
            for r in read_records(store.games_path, store.key):
                seats = [int(s.entrant.removeprefix("noise")) for s in r.seats]
                out.write(json.dumps({"deal": deal_of[r.game_id], "seats": seats, "result": list(r.result)}) + "\n")


def load(table: Path) -> dict[tuple[int, tuple[int, int]], list[Game]]:
    """The table's games by (deal, pairing): both seatings of the deal."""
    games: dict[tuple[int, tuple[int, int]], list[Game]] = defaultdict(list)
    for line in table.open():
        g = json.loads(line)
        games[g["deal"], tuple(sorted(g["seats"]))].append(list(zip(g["seats"], g["result"], strict=True)))
    return games


def round_robin(games, deals: list[int], entrants: list[int], most: int) -> list[Game]:
    played: list[Game] = []
    for deal in deals:
        for pair in itertools.combinations(entrants, 2):
            played += games[deal, pair]
            if len(played) >= most:
                return played
    return played


def league(games, deals: list[int], entrants: list[int], most: int, lag: int, rng: random.Random) -> list[Game]:
    played: list[Game] = []
    tally, tables, meetings = Tally(), Counter(), Counter()
    waiting: list[list[Game]] = []  # the tables chosen whose results the ratings have not seen yet
    for k in itertools.count():
        if len(played) >= most:
            return played
        ratings = fit_pool(tally, entrants)
        candidates = [Candidate(v, ratings.estimates[v].rating, ratings.estimates[v].sigma, tables[v])
                      for v in entrants]
        table = next_table(candidates, meetings, 2, rng, gap_sigma=ratings.gap_sigma)
        for v in table:
            tables[v] += 1
        meetings[frozenset(table)] += 1
        waiting.append(games[deals[k % len(deals)], tuple(sorted(table))])
        while len(waiting) > lag:
            for game in waiting.pop(0):
                played.append(game)
                tally.add(game)
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", type=Path, required=True, help="the table of results (written by --build)")
    parser.add_argument("--build", type=int, metavar="DEALS", help="play the round robin of DEALS deals first")
    parser.add_argument("--hands", type=int, default=1, help="hands a game with --build (0: whole games)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--most", type=int, default=3000, help="games each method may play per seed")
    parser.add_argument("--step", type=int, default=10, help="games between two looks at the ranking")
    parser.add_argument("--tau", type=float, default=0.9)
    parser.add_argument("--lag", type=int, default=8, help="tables chosen before the ratings see a result")
    args = parser.parse_args()
    if args.build:
        build(args.table, args.build, args.hands, args.concurrency)
    games = load(args.table)
    entrants = sorted({v for _, pair in games for v in pair})
    complete = sorted(d for d in {d for d, _ in games}
                      if all((d, p) in games for p in itertools.combinations(entrants, 2)))
    ratios = []
    for seed in range(1, args.seeds + 1):
        rng = random.Random(seed)
        deals = rng.sample(complete, len(complete))
        n_rr = games_to_tau(round_robin(games, deals, entrants, args.most), entrants, args.step, args.tau)
        n_league = games_to_tau(league(games, deals, entrants, args.most, args.lag, rng), entrants, args.step,
                                args.tau)
        if n_rr and n_league:
            ratios.append(n_league / n_rr)
        print(f"seed {seed}: league {n_league or '-'} games, round robin {n_rr or '-'}", flush=True)
    summary(f"league/round-robin games to tau>={args.tau}, replayed over {len(complete)} deals: "
            f"{geometric_mean_interval(ratios)} over {len(ratios)} seeds")


if __name__ == "__main__":
    main()
