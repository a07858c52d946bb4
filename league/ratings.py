"""The ladder's working ratings: a Bradley-Terry (logistic Elo) fit with an uncertainty per version, quick
enough to be asked before every table the league chooses.

Every game counts as comparisons between its seats: in a game of two, the
one result; in a game of more, every pair of seats held by different
versions (the higher share ahead, equal shares a draw). A game weighs one
unit in all, whatever its seats, shared equally by its comparisons: a
partnership game of two versions (four seats, four comparisons across the
table) weighs what a game of two does, and so does a game of three (three
comparisons, which share one deal and are not three independent results).
A weak prior (a normal of ``PRIOR`` Elo around 0)
keeps the fit finite for a version that has won or lost everything, and
the uncertainty of each rating is the Laplace approximation: the inverse of
the curvature of the log-likelihood at its peak.

This is for choosing tables and for the live ladder; the tables ``league
show`` prints are those of ``ratings`` (the pool's maximum likelihood with a
bootstrap over deals), from the same games.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

import attrs

SCALE = 400 / math.log(10)  # Elo points per natural unit of the logistic
PRIOR = 350.0  # Elo: the spread of ratings assumed before any game
ITERATIONS = 50


@attrs.frozen
class Estimate:
    rating: float  # Elo, the pool's average near 0
    sigma: float  # Elo, its standard error
    games: int


@attrs.frozen
class Fit:
    """The ratings of a fit, and how sure it is of the gap between any two of them."""

    estimates: dict[int, Estimate]
    _covariance: dict[tuple[int, int], float]  # (a, b) -> covariance of a's and b's ratings, natural units

    def gap_sigma(self, a: int, b: int) -> float:
        """The standard error (Elo) of the gap between ``a``'s and ``b``'s ratings: two versions that have met
        often are known relative to each other better than each is known relative to the pool."""
        c = self._covariance
        return math.sqrt(max(c[a, a] + c[b, b] - 2 * c[a, b], 0.0)) * SCALE


@attrs.define
class Tally:
    """The games so far as the fit needs them, added to game by game: for each pair (a, b) with a < b, a's
    points and the weight of their comparisons; and each version's games."""

    pairs: dict[tuple[int, int], list[float]] = attrs.Factory(lambda: defaultdict(lambda: [0.0, 0.0]))
    games: dict[int, int] = attrs.Factory(lambda: defaultdict(int))

    def add(self, seats: Sequence[tuple[int, float]]) -> None:
        """One game: (version, share) for each seat. Its comparisons share one unit of weight."""
        compared = comparisons(seats)
        weight = 1 / len(compared) if compared else 0.0
        for (a, share_a), (b, share_b) in compared:
            score = 1.0 if share_a > share_b else 0.0 if share_a < share_b else 0.5
            key, score = ((a, b), score) if a < b else ((b, a), 1 - score)
            self.pairs[key][0] += weight * score
            self.pairs[key][1] += weight
        for version in {v for v, _ in seats}:
            self.games[version] += 1


def comparisons(seats: Sequence[tuple[int, float]]) -> list[tuple[tuple[int, float], tuple[int, float]]]:
    """Every pair of seats of one game held by different versions (partners of one version compare with nobody
    on their side)."""
    return [(first, second) for i, first in enumerate(seats) for second in seats[i + 1:] if first[0] != second[0]]


def tally(seatings: Iterable[Sequence[tuple[int, float]]]) -> Tally:
    out = Tally()
    for seats in seatings:
        out.add(seats)
    return out


def fit(seatings: Iterable[Sequence[tuple[int, float]]] | Tally, players: Iterable[int] = ()) -> dict[int, Estimate]:
    """Ratings of every version that played (and of ``players``, at the prior if they have not), from games given
    as [(version, share)] per seat, or already tallied."""
    return fit_pool(seatings, players).estimates


def fit_pool(seatings: Iterable[Sequence[tuple[int, float]]] | Tally, players: Iterable[int] = ()) -> Fit:
    """:func:`fit`, with the uncertainty of every gap between two ratings."""
    counted = seatings if isinstance(seatings, Tally) else tally(seatings)
    pairs, games = dict(counted.pairs), counted.games
    ids = sorted({p for pair in pairs for p in pair} | set(players))
    index = {v: i for i, v in enumerate(ids)}
    r = [0.0] * len(ids)  # natural units
    prior = (PRIOR / SCALE) ** -2
    for _ in range(ITERATIONS):
        grad, hess = _derivatives(r, pairs, index, prior)
        step = _solve(hess, grad)
        r = [x - s for x, s in zip(r, step, strict=True)]
        if max((abs(s) for s in step), default=0.0) < 1e-9:
            break
    _, hess = _derivatives(r, pairs, index, prior)
    pool = [index[v] for v in ids if games.get(v)] or list(range(len(ids)))  # the average is of those who played
    cov = _covariance(hess)
    variances = _relative_variances(cov, pool)
    mean = sum(r[k] for k in pool) / len(pool) if pool else 0.0
    estimates = {v: Estimate((r[index[v]] - mean) * SCALE, math.sqrt(max(variances[index[v]], 0.0)) * SCALE,
                             games.get(v, 0)) for v in ids}
    return Fit(estimates, {(a, b): cov[index[a]][index[b]] for a in ids for b in ids})


def _derivatives(r, pairs, index, prior):
    """The gradient and Hessian of the log-posterior at ``r``."""
    n = len(r)
    grad = [-prior * x for x in r]
    hess = [[0.0] * n for _ in range(n)]
    for i in range(n):
        hess[i][i] = -prior
    for (a, b), (points, weight) in pairs.items():
        i, j = index[a], index[b]
        p = 1 / (1 + math.exp(r[j] - r[i]))
        g = points - weight * p
        grad[i] += g
        grad[j] -= g
        h = weight * p * (1 - p)
        hess[i][i] -= h
        hess[j][j] -= h
        hess[i][j] += h
        hess[j][i] += h
    return grad, hess


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with ``matrix`` x = ``vector``."""
    return _solve_many(matrix, [vector])[0]


def _solve_many(matrix: list[list[float]], vectors: list[list[float]]) -> list[list[float]]:
    """x with ``matrix`` x = v for each v of ``vectors``, by one Gaussian elimination (partial pivoting)."""
    n, k = len(matrix), len(vectors)
    m = [row[:] + [v[i] for v in vectors] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for c in range(col, n + k):
                    m[r][c] -= f * m[col][c]
    solutions = []
    for j in range(n, n + k):
        x = [0.0] * n
        for r in range(n - 1, -1, -1):
            x[r] = (m[r][j] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
        solutions.append(x)
    return solutions


def _covariance(hess: list[list[float]]) -> list[list[float]]:
    """The covariance of the ratings: the negated Hessian's inverse, found in one elimination."""
    n = len(hess)
    return _solve_many([[-x for x in row] for row in hess], [[1.0 if k == i else 0.0 for k in range(n)]
                                                            for i in range(n)])


def _relative_variances(cov: list[list[float]], pool: list[int]) -> list[float]:
    """The variance of each rating less the average of ``pool``: the level of the ratings as a whole is known
    only from the prior, and no comparison depends on it."""
    n = len(cov)
    to_pool = [sum(cov[i][k] for k in pool) / len(pool) for i in range(n)]
    within = sum(to_pool[k] for k in pool) / len(pool)
    return [cov[i][i] - 2 * to_pool[i] + within for i in range(n)]


__all__ = ["Estimate", "Fit", "Tally", "comparisons", "fit", "fit_pool", "tally"]
