#!/usr/bin/env python3
"""How many games does the league need to rank its entrants, against a round robin of duplicate pairs?

Ten entrants of known order: the greedy sample with 0%, 10%, ... 90% random
moves (``option.noise``). (Steps of 5% are not a known order in one hand:
measured over 1,600 boards, 0% is clearly ahead, but 5%, 10% and 15% lie
within a few Elo of each other and 25% came out ahead of 20%.) For each seed, the same entrants are played

* by the league (its matchmaker choosing every table), and
* by a round robin of duplicate pairs (every pairing the same deals, the
  pairings interleaved deal by deal, as ``tournament`` schedules them),

and after every ``--step`` games the ranking of the games so far (the same
working ratings, :mod:`league.ratings`, for both) is compared with the true
order by Kendall's tau. The figure is the games each needs until tau reaches
``--tau`` (0.9) for good (it stays there at every later look, up to
``--most`` games: an early lucky ranking does not count), and their ratio per
seed; the summary gives the
geometric mean of the ratios with a 95% interval (t over the seeds' log
ratios). Target (issue 36): the league needs at most 0.6 of the round robin's
games. Also printed: games per second of ``league run`` and of the tournament
runner on the same bots and settings (the league's own overhead: target at
least 0.95).

Games are one hand each (boards), unjailed, for speed; what is measured is
the choice of tables, which neither changes.

``--ladder clustered`` simulates instead a ladder as contests look: 30
entrants over 800 Elo in three clusters (``CLUSTERS``): 4 strong ones 40 Elo
apart (800 to 680), a dense middle of 18 entrants 10 Elo apart (520 to 350)
and a weak tail of 8 entrants 30 Elo apart (210 to 0), with gaps of 160 and
140 Elo between the clusters. No bot plays: each game is a win or a loss
drawn with the logistic (Elo) probability of the true gap, a table being
both seatings of a deal (two games). Three choices of tables play it, each
from the same seed: the league (its matchmaker over its working fit, a
round of ``--round`` tables chosen per fit, whose results the fit sees only
when the round is over, as in ``league run``), random pairing (every table
a pair drawn at random) and a round robin (every pairing once per cycle, in
a new random order each cycle). Printed per seed: the games each needs until
tau reaches 0.9 for good; then the league's and random pairing's games as a
fraction of the round robin's, as geometric means with 95% intervals over the
seeds. ``--ladder even`` simulates the same for ten entrants 30 Elo apart,
the real ladder's spacing in one hand. About 15 s a seed (clustered) on
one core.

    python bench/league_ranking.py [--seeds 10] [--entrants 10] [--step 10] [--most 3000] [--concurrency 2]
    python bench/league_ranking.py --ladder clustered [--seeds 20] [--round 8]
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import trio
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import geometric_mean_interval, summary  # noqa: E402
from league.db import LeagueDB  # noqa: E402
from league.matchmaking import Candidate, next_table  # noqa: E402
from league.ratings import Tally, fit, fit_pool  # noqa: E402
from league.runner import LeagueRunner  # noqa: E402
from referee.bots.fingerprint import fingerprint  # noqa: E402
from referee.bots.samples import SAMPLES  # noqa: E402
from referee.records.record import read_records  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.elo import score_from_elo  # noqa: E402
from tournaments.runner import run_games  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.store import ResultStore, tournament_schedule  # noqa: E402

SETTINGS = {"tournament": {"variant": "two-handed", "options": {"max-hands": "1"}, "isolation": "none", "persist": True},
            "time": {"move": 5000, "bank": 60000}}


def noise_of(entrants: int, step: int = 10) -> list[int]:
    return [step * i for i in range(entrants)]  # the true order: less noise is stronger


def kendall_tau(ranking: list[int], truth: list[int]) -> float:
    """Kendall's tau between two orders of the same items."""
    place = {x: i for i, x in enumerate(truth)}
    pairs = list(itertools.combinations(ranking, 2))
    agree = sum(1 if place[a] < place[b] else -1 for a, b in pairs)
    return agree / len(pairs)


def games_to_tau(seatings: list[list[tuple[int, float]]], truth: list[int], step: int, tau: float) -> int | None:
    """The count of games (a multiple of ``step``) from which the ratings rank ``truth`` with tau >= ``tau`` at
    every later look (a lucky early ranking that is lost again does not count); None if the last look is short."""
    reached, counted = None, Tally()
    for n in range(step, len(seatings) + 1, step):
        for seats in seatings[n - step:n]:
            counted.add(seats)
        estimates = fit(counted, truth)
        ranking = sorted(truth, key=lambda v: -estimates[v].rating)
        if kendall_tau(ranking, truth) >= tau:
            reached = reached or n
        else:
            reached = None
    return reached


def league_games(folder: Path, noises: list[int], games: int, seed: int, concurrency: int):
    """Play ``games`` games of a new league; returns (seatings by noise in game order, games per second)."""
    db = LeagueDB.create(f"sqlite:///{folder / 'league.db'}", SETTINGS)
    program = fingerprint(SAMPLES["greedy"].command())
    for noise in noises:
        db.add(f"noise{noise}", {"sample": "greedy", "options": {"noise": noise}}, program)
    runner = LeagueRunner(folder, db, {"tournament": {"concurrency": concurrency}}, random.Random(seed))
    started = time.monotonic()
    trio.run(runner.run, games)
    rate = db.game_count() / (time.monotonic() - started)
    noise = {v.id: int(v.entrant.removeprefix("noise")) for v in db.versions().values()}
    return [[(noise[version], share) for version, share in seats] for _, seats in db.results()], rate


def round_robin_games(folder: Path, noises: list[int], games: int, seed: int, concurrency: int):
    """A round robin of duplicate pairs, at least ``games`` games; returns (seatings by noise, games per second)."""
    pairings = len(noises) * (len(noises) - 1) // 2
    per_pairing = 2 * math.ceil(games / (2 * pairings))
    data = {"tournament": {**SETTINGS["tournament"], "games_per_pairing": per_pairing, "seed": seed,
                           "concurrency": concurrency},
            "time": SETTINGS["time"],
            "bot": [{"name": f"noise{n}", "sample": "greedy", "options": {"noise": n}} for n in noises]}
    config = parse_config(data, folder / "rr.toml", folder / "rr")
    specs = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, specs))
    started = time.monotonic()
    trio.run(run_games, config, specs, store)
    rate = len(specs) / (time.monotonic() - started)
    order = {s.game_id: i for i, s in enumerate(specs)}
    records = sorted(read_records(store.games_path, store.key), key=lambda r: order[r.game_id])
    return [[(int(s.entrant.removeprefix("noise")), share) for s, share in zip(r.seats, r.result, strict=True)]
            for r in records], rate


CLUSTERS = ((4, 800, 680), (18, 520, 350), (8, 210, 0))  # (entrants, top Elo, bottom Elo), evenly spaced within
EVEN = ((10, 270, 0),)  # ten entrants 30 Elo apart
Game = list[tuple[int, float]]  # (entrant, share) per seat


def ladder_elo(clusters: tuple[tuple[int, float, float], ...]) -> list[float]:
    """The true Elo of each entrant, strongest first (the entrant's id is its place in the true order)."""
    return [top - (top - bottom) * i / (count - 1) for count, top, bottom in clusters for i in range(count)]


def simulated_table(pair: tuple[int, ...], elo: list[float], rng: random.Random) -> list[Game]:
    """Both seatings of a deal between the pair: two games, each won by the first seat with the logistic
    probability of the Elo gap."""
    games = []
    for a, b in (pair, pair[::-1]):
        won = rng.random() < score_from_elo(elo[a] - elo[b])
        games.append([(a, 1.0 if won else 0.0), (b, 0.0 if won else 1.0)])
    return games


def simulated_round_robin(elo: list[float], most: int, rng: random.Random) -> list[Game]:
    played: list[Game] = []
    pairings = list(itertools.combinations(range(len(elo)), 2))
    while len(played) < most:
        for pair in rng.sample(pairings, len(pairings)):
            played += simulated_table(pair, elo, rng)
    return played[:most]


def simulated_random_pairing(elo: list[float], most: int, rng: random.Random) -> list[Game]:
    played: list[Game] = []
    while len(played) < most:
        played += simulated_table(tuple(rng.sample(range(len(elo)), 2)), elo, rng)
    return played


def simulated_league(elo: list[float], most: int, per_round: int, rng: random.Random) -> list[Game]:
    """The league's matchmaker over its working fit, ``per_round`` tables per fit; a round's results reach the fit
    when the round is over."""
    entrants = list(range(len(elo)))
    played: list[Game] = []
    counted, tables, meetings = Tally(), Counter(), Counter()
    while len(played) < most:
        ratings = fit_pool(counted, entrants)
        chosen = []
        for _ in range(per_round):
            candidates = [Candidate(v, ratings.estimates[v].rating, ratings.estimates[v].sigma, tables[v])
                          for v in entrants]
            chosen.append(next_table(candidates, meetings, 2, rng, gap_sigma=ratings.gap_sigma))
            tables.update(chosen[-1])
            meetings[frozenset(chosen[-1])] += 1
        for table in chosen:
            for game in simulated_table(table, elo, rng):
                played.append(game)
                counted.add(game)
    return played


def simulate(clusters, seeds: int, most: int, step: int, tau: float, per_round: int) -> None:
    """Print the games to ``tau`` of the league, random pairing and a round robin on a simulated ladder, per seed,
    and the first two as fractions of the third over the seeds; and the share of the league's games, until it
    reached ``tau``, played within a cluster (a round robin's: the share of its pairings within one)."""
    elo = ladder_elo(clusters)
    truth = list(range(len(elo)))
    cluster = [k for k, (count, _, _) in enumerate(clusters) for _ in range(count)]
    rows, league_ratios, random_ratios, withins = [], [], [], []
    for seed in range(1, seeds + 1):
        league = simulated_league(elo, most, per_round, random.Random(seed))
        n_league = games_to_tau(league, truth, step, tau)
        n_random = games_to_tau(simulated_random_pairing(elo, most, random.Random(seed)), truth, step, tau)
        n_rr = games_to_tau(simulated_round_robin(elo, most, random.Random(seed)), truth, step, tau)
        if n_rr and n_league:
            league_ratios.append(n_league / n_rr)
        if n_rr and n_random:
            random_ratios.append(n_random / n_rr)
        withins.append(statistics.fmean(cluster[g[0][0]] == cluster[g[1][0]] for g in league[:n_league or most]))
        rows.append([seed, n_league or f">{most}", n_random or f">{most}", n_rr or f">{most}",
                     f"{100 * withins[-1]:.0f}%"][:5 if len(clusters) > 1 else 4])
        print(tabulate([rows[-1]], tablefmt="plain"), flush=True)
    print(tabulate(rows, headers=["seed", "league games", "random pairing games", "round robin games",
                                  "league games within a cluster"][:len(rows[0])], tablefmt="github"))
    round_robin_within = statistics.fmean(cluster[a] == cluster[b] for a, b in itertools.combinations(truth, 2))
    shape = ", ".join(f"{n} from {top:g} to {bottom:g}" for n, top, bottom in clusters)
    summary(f"simulated ladder of {len(elo)} ({shape} Elo), games to tau>={tau} as a fraction of a round robin's: "
            f"league {geometric_mean_interval(league_ratios)} over {len(league_ratios)} seeds (target <= 0.6), "
            f"random pairing {geometric_mean_interval(random_ratios)} over {len(random_ratios)} seeds"
            + (f"; games within a cluster: league {100 * statistics.fmean(withins):.0f}%, round robin "
               f"{100 * round_robin_within:.0f}%" if len(clusters) > 1 else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--entrants", type=int, default=10)
    parser.add_argument("--step", type=int, default=None,
                        help="games between two looks at the ranking (default 10; 30 on the clustered ladder)")
    parser.add_argument("--tau", type=float, default=0.9)
    parser.add_argument("--most", type=int, default=None,
                        help="games each method may play per seed (default 3,000; 10,000 on the clustered ladder)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--noise-step", type=int, default=10,
                        help="percent of random moves between two entrants (default 10: 0%%, 10%%, ... 90%%)")
    parser.add_argument("--ladder", choices=["greedy", "clustered", "even"], default="greedy",
                        help="greedy: real games between greedy bots (the default); clustered, even: simulated")
    parser.add_argument("--round", type=int, default=8,
                        help="tables the simulated league chooses per fit (8: a runner at concurrency 4)")
    args = parser.parse_args()
    clustered = args.ladder == "clustered"
    args.step = args.step or (30 if clustered else 10)
    args.most = args.most or (10_000 if clustered else 3000)
    if args.ladder != "greedy":
        simulate(CLUSTERS if clustered else EVEN, args.seeds, args.most, args.step, args.tau, args.round)
        return
    noises = noise_of(args.entrants, args.noise_step)
    rows, ratios, rates = [], [], []
    for seed in range(1, args.seeds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            league, league_rate = league_games(Path(tmp), noises, args.most, seed, args.concurrency)
            rr, rr_rate = round_robin_games(Path(tmp), noises, args.most, seed, args.concurrency)
        n_league = games_to_tau(league, noises, args.step, args.tau)
        n_rr = games_to_tau(rr, noises, args.step, args.tau)
        ratio = n_league / n_rr if n_league and n_rr else None
        if ratio:
            ratios.append(ratio)
        rates.append(league_rate / rr_rate)
        rows.append([seed, n_league or f">{args.most}", n_rr or f">{args.most}",
                     f"{ratio:.2f}" if ratio else "-", f"{league_rate:.1f}", f"{rr_rate:.1f}"])
        print(tabulate([rows[-1]], tablefmt="plain"), flush=True)
    print(tabulate(rows, headers=["seed", "league games", "round robin games", "ratio", "league games/s",
                                  "tournament games/s"], tablefmt="github"))
    interval = geometric_mean_interval(ratios)
    summary(f"league/round-robin games to tau>={args.tau}: {interval} over {len(ratios)} seeds (target <= 0.6); "
            f"league/tournament games per second: {statistics.fmean(rates):.2f} (target >= 0.95)")


if __name__ == "__main__":
    main()
