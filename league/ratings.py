"""The ladder's working ratings: a Bradley-Terry (logistic Elo) fit with an uncertainty per version, quick
enough to be asked before every table the league chooses, at thousands of versions.

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

The fit only needs, for each pair of versions that met, the points and the
weight of their comparisons (a :class:`Tally`, which the league also keeps
in its database): so it is sparse, its size that of the pairs that met, not
of the games. It is Newton's method, each step solved by conjugate
gradients over those pairs (NumPy), warm-started from the last ratings, so
that a fit after a round of new games takes a step or two. The
uncertainties are exact (the curvature's inverse) up to ``EXACT`` versions;
beyond, where that inverse (cubic in the versions) would take seconds, each
is approximated from the curvature's diagonal, with the first correction
for the uncertainty of the opponents (:func:`_approximate_variances`).

This is for choosing tables and for the live ladder; the tables ``league
show`` prints are those of ``ratings`` (the pool's maximum likelihood with a
bootstrap over deals), from the same games. The fit is also a rating system
of :data:`tournaments.systems.SYSTEMS` (:class:`BradleyTerry`, registered
here as ``bradley-terry``), so ``ratings --system bradley-terry`` rates any
results as the ladder would.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from tournaments.elo import NATURAL as SCALE  # Elo points per natural unit of the logistic
from tournaments.systems import Games, Rated, RatingTable, normal_interval, register

if TYPE_CHECKING:
    import numpy as np
# numpy is imported in the functions of the fit, not here: the league's other commands (list, add, pause ...) read
# the tally from this module and start without it (docs/performance.md, "Start of a command").

PRIOR = 350.0  # Elo: the spread of ratings assumed before any game
ITERATIONS = 50  # Newton steps at most
EXACT = 1000  # versions up to which the uncertainties are exact (one dense inverse); approximated beyond
STEP = 1e-9  # natural units: a Newton step this small ends the fit
CG_TOLERANCE = 1e-12  # the conjugate gradients' residual, relative to the gradient's


@attrs.frozen
class Estimate:
    rating: float  # Elo, the pool's average near 0
    sigma: float  # Elo, its standard error
    games: int


@attrs.frozen
class Fit:
    """The ratings of a fit, and how sure it is of the gap between any two of them."""

    estimates: dict[int, Estimate]
    _index: dict[int, int]  # version -> its row in the arrays below
    _covariance: list[list[float]] | None  # the ratings' covariance (natural units), when exact; None beyond EXACT
    _variances: list[float]  # each rating's variance (natural units): the covariance's diagonal, or its approximation
    _direct: Mapping[int, float]  # i * n + j (rows i < j) -> a pair's covariance from its own games (approximated)

    def gap_sigma(self, a: int, b: int) -> float:
        """The standard error (Elo) of the gap between ``a``'s and ``b``'s ratings: two versions that have met
        often are known relative to each other better than each is known relative to the pool."""
        if a == b:
            return 0.0
        i, j = self._index[a], self._index[b]
        if self._covariance is not None:
            c = self._covariance
            variance = c[i][i] + c[j][j] - 2 * c[i][j]
        else:
            i, j = min(i, j), max(i, j)
            variance = self._variances[i] + self._variances[j] - 2 * self._direct.get(i * len(self._index) + j, 0.0)
        return math.sqrt(max(variance, 0.0)) * SCALE


@attrs.define
class Tally:
    """The games so far as the fit needs them, added to game by game: for each pair (a, b) with a < b, a's
    points and the weight of their comparisons; and each version's games."""

    pairs: dict[tuple[int, int], list[float]] = attrs.Factory(lambda: defaultdict(lambda: [0.0, 0.0]))
    games: dict[int, int] = attrs.Factory(lambda: defaultdict(int))

    def add(self, seats: Sequence[tuple[int, float]]) -> None:
        """One game: (version, share) for each seat. Its comparisons share one unit of weight."""
        for key, points, weight in pair_points(seats):
            self.pairs[key][0] += points
            self.pairs[key][1] += weight
        for version in {v for v, _ in seats}:
            self.games[version] += 1


def pair_points(seats: Sequence[tuple[int, float]]) -> list[tuple[tuple[int, int], float, float]]:
    """One game's comparisons as the tally counts them: ((a, b) with a < b, a's points, their weight)."""
    compared = comparisons(seats)
    weight = 1 / len(compared) if compared else 0.0
    out = []
    for (a, share_a), (b, share_b) in compared:
        score = 1.0 if share_a > share_b else 0.0 if share_a < share_b else 0.5
        key, score = ((a, b), score) if a < b else ((b, a), 1 - score)
        out.append((key, weight * score, weight))
    return out


def comparisons(seats: Sequence[tuple[int, float]]) -> list[tuple[tuple[int, float], tuple[int, float]]]:
    """Every pair of seats of one game held by different versions (partners of one version compare with nobody
    on their side)."""
    return [(first, second) for i, first in enumerate(seats) for second in seats[i + 1:] if first[0] != second[0]]


def result_letter(seats: Sequence[tuple[int, float]], version: int) -> str:
    """``version``'s result in one game, as the ladder's latest results show it: W (it scored more than an even
    share of the table), D (an even share) or L."""
    share = next(s for v, s in seats if v == version)
    even = sum(s for _, s in seats) / len(seats)
    return "W" if share > even else "L" if share < even else "D"


def tally(seatings: Iterable[Sequence[tuple[int, float]]]) -> Tally:
    out = Tally()
    for seats in seatings:
        out.add(seats)
    return out


def fit(seatings: Iterable[Sequence[tuple[int, float]]] | Tally, players: Iterable[int] = (),
        start: Mapping[int, float] | None = None) -> dict[int, Estimate]:
    """Ratings of every version that played (and of ``players``, at the prior if they have not), from games given
    as [(version, share)] per seat, or already tallied; ``start``: ratings (Elo) to begin from, such as the last
    fit's (the result is the same, only sooner)."""
    return fit_pool(seatings, players, start).estimates


def fit_pool(seatings: Iterable[Sequence[tuple[int, float]]] | Tally, players: Iterable[int] = (),
             start: Mapping[int, float] | None = None) -> Fit:
    """:func:`fit`, with the uncertainty of every gap between two ratings."""
    import numpy as np

    counted = seatings if isinstance(seatings, Tally) else tally(seatings)
    games = counted.games
    ids = sorted({p for pair in counted.pairs for p in pair} | set(players))
    index = {v: i for i, v in enumerate(ids)}
    pairs = _Pairs.of(counted.pairs, index)
    prior = (PRIOR / SCALE) ** -2
    r = np.array([(start or {}).get(v, 0.0) / SCALE for v in ids], dtype=float)
    for _ in range(ITERATIONS):
        grad, curvature = pairs.derivatives(r, prior)
        step = _solve(curvature, grad)
        r += step
        if not len(step) or np.max(np.abs(step)) < STEP:
            break
    _, curvature = pairs.derivatives(r, prior)
    pool = np.array([index[v] for v in ids if games.get(v)] or range(len(ids)), dtype=int)  # who played
    mean = float(r[pool].mean()) if len(pool) else 0.0
    if len(ids) <= EXACT:
        covariance = np.linalg.inv(curvature.dense()) if ids else np.zeros((0, 0))
        variances = _relative_variances(covariance, pool)
        direct: dict[int, float] = {}
    else:
        covariance = None
        variances, direct = _approximate_variances(curvature)
    rows, spread = r.tolist(), variances.tolist()
    estimates = {v: Estimate((rows[index[v]] - mean) * SCALE, math.sqrt(max(spread[index[v]], 0.0)) * SCALE,
                             games.get(v, 0)) for v in ids}
    return Fit(estimates, index, None if covariance is None else covariance.tolist(),
               (variances if covariance is None else np.diag(covariance)).tolist(), direct)


@attrs.frozen
class _Curvature:
    """The negated Hessian of the log-posterior, sparse: ``diagonal`` less the pairs' weights ``h`` off it."""

    diagonal: np.ndarray
    first: np.ndarray  # the pairs' rows (a's)
    second: np.ndarray  # and columns (b's)
    h: np.ndarray

    def times(self, x: np.ndarray) -> np.ndarray:
        import numpy as np

        n = len(x)
        off = (np.bincount(self.first, self.h * x[self.second], minlength=n)
               + np.bincount(self.second, self.h * x[self.first], minlength=n))
        return self.diagonal * x - off

    def dense(self) -> np.ndarray:
        import numpy as np

        out = np.diag(self.diagonal)
        np.add.at(out, (self.first, self.second), -self.h)
        np.add.at(out, (self.second, self.first), -self.h)
        return out


@attrs.frozen
class _Pairs:
    """The tally as arrays: each pair's rows in the ratings, a's points, their weight."""

    first: np.ndarray
    second: np.ndarray
    points: np.ndarray
    weight: np.ndarray
    n: int

    @classmethod
    def of(cls, pairs: Mapping[tuple[int, int], Sequence[float]], index: dict[int, int]) -> _Pairs:
        import numpy as np

        count = len(pairs)
        first = np.fromiter((index[a] for a, _ in pairs), dtype=np.intp, count=count)
        second = np.fromiter((index[b] for _, b in pairs), dtype=np.intp, count=count)
        points = np.fromiter((p for p, _ in pairs.values()), dtype=float, count=count)
        weight = np.fromiter((w for _, w in pairs.values()), dtype=float, count=count)
        return cls(first, second, points, weight, len(index))

    def derivatives(self, r: np.ndarray, prior: float) -> tuple[np.ndarray, _Curvature]:
        """The gradient of the log-posterior at ``r``, and its curvature (the negated Hessian)."""
        import numpy as np

        p = 1 / (1 + np.exp(r[self.second] - r[self.first]))
        g = self.points - self.weight * p
        grad = -prior * r + np.bincount(self.first, g, minlength=self.n) - np.bincount(self.second, g,
                                                                                        minlength=self.n)
        h = self.weight * p * (1 - p)
        diagonal = prior + np.bincount(self.first, h, minlength=self.n) + np.bincount(self.second, h,
                                                                                       minlength=self.n)
        return grad, _Curvature(diagonal, self.first, self.second, h)


def _solve(curvature: _Curvature, b: np.ndarray) -> np.ndarray:
    """x with ``curvature`` x = ``b``: conjugate gradients, preconditioned by the diagonal (the curvature is
    symmetric and positive definite: the prior's share of its diagonal makes it so)."""
    import numpy as np

    x = np.zeros_like(b)
    residual = b.copy()
    z = residual / curvature.diagonal
    direction = z.copy()
    rz = residual @ z
    goal = CG_TOLERANCE * max(float(np.abs(b).max(initial=0.0)), 1e-300)
    for _ in range(10 * len(b) + 10):
        if np.abs(residual).max(initial=0.0) <= goal:
            break
        product = curvature.times(direction)
        alpha = rz / (direction @ product)
        x += alpha * direction
        residual -= alpha * product
        z = residual / curvature.diagonal
        rz, before = residual @ z, rz
        direction = z + (rz / before) * direction
    return x


def _relative_variances(cov: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """The variance of each rating less the average of ``pool``: the level of the ratings as a whole is known
    only from the prior, and no comparison depends on it."""
    import numpy as np

    if not len(cov):
        return np.zeros(0)
    to_pool = cov[:, pool].mean(axis=1)
    within = to_pool[pool].mean()
    return np.diag(cov) - 2 * to_pool + within


def _approximate_variances(curvature: _Curvature) -> tuple[np.ndarray, dict[int, float]]:
    """Each rating's variance, and the covariance of each pair that met, without the inverse: with the curvature
    written D - W (D its diagonal, W the pairs' weights), its inverse is D^-1 + D^-1 W D^-1 + D^-1 W D^-1 W D^-1
    + ...; the first term is each version's variance as if its opponents' ratings were known, the third (the
    second is zero on the diagonal) adds what each opponent's own uncertainty costs, sum_j w_ij^2 / (d_i^2 d_j),
    and the second gives a pair that met the covariance w_ij / (d_i d_j). The rest of the series is mostly the
    pool's common level, which no rating relative to the pool depends on. ``tests/test_league_scale.py`` checks
    it against the exact inverse."""
    import numpy as np

    d, h = curvature.diagonal, curvature.h
    first, second = curvature.first, curvature.second
    opponents = (np.bincount(first, h * h / d[second], minlength=len(d))
                 + np.bincount(second, h * h / d[first], minlength=len(d)))
    variances = 1 / d + opponents / (d * d)
    direct = dict(zip((first * len(d) + second).tolist(), (h / (d[first] * d[second])).tolist(), strict=True))
    return variances, direct


@attrs.frozen
class BradleyTerry:
    """The working fit as a rating system of the table (:data:`tournaments.systems.SYSTEMS`), so that ``ratings
    --system bradley-terry`` shows any results as the league would rate them: every pairwise result counts as one
    comparison (as the pool ratings count them; the league's own tally shares a game's weight among them)."""

    name: str = "bradley-terry"
    about: str = (f"the league's working fit: Bradley-Terry with a normal prior of {PRIOR:g} Elo, logistic Elo; "
                  "95% intervals: +/- 1.96 sigma from the curvature at the peak")

    def rate(self, games: Games, anchor: str | None = None, level: float = 0.0, bootstrap: int = 300) -> RatingTable:
        names, counted = _tally_outcomes(games)
        if anchor is not None and anchor not in names:
            raise ValueError(f"anchor {anchor!r} played no game; players: {', '.join(names)}")
        fitted = fit_pool(counted)
        fixed = None if anchor is None else names.index(anchor)
        shift = level - (0.0 if fixed is None else fitted.estimates[fixed].rating)
        rows = []
        for i, name in enumerate(names):
            e = fitted.estimates[i]
            sigma = e.sigma if fixed is None else fitted.gap_sigma(i, fixed)  # (the anchor's own: 0, no interval)
            rows.append(Rated(name, e.rating + shift, normal_interval(e.rating + shift, sigma), e.games))
        placed = f"anchor {anchor} = {level:g}" if anchor else f"pool average {level:g}"
        return RatingTable(self.name, f"{self.about}; {placed}", tuple(sorted(rows, key=lambda r: (-r.rating, r.name))))


def _tally_outcomes(games: Games) -> tuple[list[str], Tally]:
    """The contestants of ``games`` (sorted) and the tally of their pairwise results, by index in that list."""
    names = sorted({o.a for unit in games.units for o in unit} | {o.b for unit in games.units for o in unit})
    index = {name: i for i, name in enumerate(names)}
    counted = Tally()
    for unit in games.units:
        for o in unit:
            a, b = index[o.a], index[o.b]
            key, points = ((a, b), o.score) if a < b else ((b, a), 1 - o.score)
            counted.pairs[key][0] += points
            counted.pairs[key][1] += 1
            counted.games[a] += 1
            counted.games[b] += 1
    return names, counted


BRADLEY_TERRY = register(BradleyTerry())

__all__ = ["BRADLEY_TERRY", "BradleyTerry", "EXACT", "Estimate", "Fit", "Tally", "comparisons", "fit", "fit_pool", "pair_points", "result_letter", "tally"]
