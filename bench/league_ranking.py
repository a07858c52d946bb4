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

    python bench/league_ranking.py [--seeds 10] [--entrants 10] [--step 10] [--most 3000] [--concurrency 2]
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
from pathlib import Path

import trio
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import geometric_mean_interval, summary  # noqa: E402
from league.db import LeagueDB  # noqa: E402
from league.ratings import fit  # noqa: E402
from league.runner import LeagueRunner  # noqa: E402
from referee.bots.fingerprint import fingerprint  # noqa: E402
from referee.bots.samples import SAMPLES  # noqa: E402
from referee.records.record import read_records  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
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
    reached = None
    for n in range(step, len(seatings) + 1, step):
        estimates = fit(seatings[:n], truth)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--entrants", type=int, default=10)
    parser.add_argument("--step", type=int, default=10, help="games between two looks at the ranking")
    parser.add_argument("--tau", type=float, default=0.9)
    parser.add_argument("--most", type=int, default=3000, help="games each method may play per seed")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--noise-step", type=int, default=10,
                        help="percent of random moves between two entrants (default 10: 0%%, 10%%, ... 90%%)")
    args = parser.parse_args()
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
