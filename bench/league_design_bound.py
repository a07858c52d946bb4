#!/usr/bin/env python3
"""How few games could any matchmaker need on an evenly spaced ladder? A bound for issue 36's target.

Ten entrants whose strengths are known exactly, evenly spaced by GAP Elo (in
one hand, bench/league_ranking.py's ladder has 20 to 40 Elo between
neighbours). A matchmaker's tables are a share of the games for each of the
45 pairs. Under the normal approximation of the rating fit (Bradley-Terry's
Fisher information: a game between i and j is worth p(1-p) in log-odds),
the expected number of pairs a fit after N games ranks in the wrong order is
the sum over pairs of Phi(-gap / sd of the gap's estimate). This program
finds the shares that make that count smallest (exponentiated gradient
descent on the simplex), knowing the truth, which no matchmaker does, and
then how many games the round robin (equal shares) needs for the same
count. Their ratio is about the best any choice of tables can do against a
round robin on such a ladder; issue 36 asks for 0.6.

    python bench/league_design_bound.py [--gaps 20 30 40 60] [--games 800] [--steps 400]
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from pathlib import Path
from statistics import NormalDist

from _common import summary
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.elo import NATURAL, solve_linear  # noqa: E402

PHI = NormalDist().cdf


class Ladder:
    def __init__(self, entrants: int, gap_elo: float) -> None:
        self.strength = [(entrants - 1 - i) * gap_elo / NATURAL for i in range(entrants)]  # log-odds
        self.pairs = list(itertools.combinations(range(entrants), 2))
        self.worth = [_p(self.strength[i] - self.strength[j]) * (1 - _p(self.strength[i] - self.strength[j]))
                      for i, j in self.pairs]
        self.entrants = entrants

    def out_of_order(self, shares: list[float], games: float) -> float:
        """Expected pairs ranked in the wrong order after ``games`` games shared out as ``shares``."""
        covariance = self._covariance(shares, games)
        total = 0.0
        for i, j in self.pairs:
            variance = covariance[i][i] + covariance[j][j] - 2 * covariance[i][j]
            total += PHI(-(self.strength[i] - self.strength[j]) / math.sqrt(variance))
        return total

    def _covariance(self, shares: list[float], games: float) -> list[list[float]]:
        """The fit's covariance, entrant 0 held at 0 (differences do not depend on which is held)."""
        n = self.entrants
        info = [[0.0] * n for _ in range(n)]
        for (i, j), share, worth in zip(self.pairs, shares, self.worth, strict=True):
            w = share * worth * games
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
        reduced = [row[1:] for row in info[1:]]
        columns = [solve_linear(reduced, [1.0 if k == c else 0.0 for k in range(n - 1)]) for c in range(n - 1)]
        return [[0.0] * n] + [[0.0] + [columns[c][r] for c in range(n - 1)] for r in range(n - 1)]

    def best_shares(self, games: float, steps: int) -> tuple[list[float], float]:
        """The shares with the fewest expected pairs out of order (exponentiated gradient; the best seen)."""
        shares = [1 / len(self.pairs)] * len(self.pairs)
        best = (self.out_of_order(shares, games), shares)
        for _ in range(steps):
            now = self.out_of_order(shares, games)
            best = min(best, (now, shares))
            gradient = []
            for k in range(len(shares)):
                moved = shares[:]
                moved[k] += 1e-5
                total = sum(moved)
                gradient.append((self.out_of_order([s / total for s in moved], games) - now) / 1e-5)
            largest = max(abs(g) for g in gradient) or 1.0
            shares = [s * math.exp(-0.5 * g / largest) for s, g in zip(shares, gradient, strict=True)]
            total = sum(shares)
            shares = [s / total for s in shares]
        return best[1], best[0]

    def round_robin_games_for(self, target: float, around: float) -> float:
        """Games a round robin needs for ``target`` expected pairs out of order (bisection)."""
        equal = [1 / len(self.pairs)] * len(self.pairs)
        low, high = around / 10, around * 10
        for _ in range(60):
            middle = (low + high) / 2
            low, high = (middle, high) if self.out_of_order(equal, middle) > target else (low, middle)
        return (low + high) / 2


def _p(difference: float) -> float:
    return 1 / (1 + math.exp(-difference))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gaps", type=float, nargs="+", default=[20, 30, 40, 60], help="Elo between neighbours")
    parser.add_argument("--entrants", type=int, default=10)
    parser.add_argument("--games", type=float, default=800)
    parser.add_argument("--steps", type=int, default=400, help="steps of the descent")
    args = parser.parse_args()
    rows, bounds = [], []
    for gap in args.gaps:
        ladder = Ladder(args.entrants, gap)
        equal = ladder.out_of_order([1 / len(ladder.pairs)] * len(ladder.pairs), args.games)
        _, best = ladder.best_shares(args.games, args.steps)
        needed = ladder.round_robin_games_for(best, args.games)
        bounds.append(args.games / needed)
        rows.append([f"{gap:g}", f"{equal:.2f}", f"{best:.2f}", f"{args.games / needed:.2f}"])
        print(tabulate([rows[-1]], tablefmt="plain"), flush=True)
    print(tabulate(rows, headers=["Elo between neighbours", f"pairs out of order, round robin ({args.games:g} games)",
                                  "best shares knowing the truth", "its games / round robin's"],
                   tablefmt="github"))
    summary("best choice of tables, knowing the strengths, against a round robin: "
            + ", ".join(f"{b:.2f} at {g:g} Elo" for g, b in zip(args.gaps, bounds, strict=True))
            + " (issue 36's target: 0.6)")


if __name__ == "__main__":
    main()
