"""The logistic Elo scale, spelt once, and the linear solve the rating fits share. Pure math.

Every rating of the project is on the scale of Elo and Ordo: a gap of
``ELO_PER_DECADE`` (400) points is odds of 10 to 1, so the expected score of
a player ``d`` points above another is ``1 / (1 + 10 ** (-d / 400))``. The
fits work in natural log-odds (Bradley-Terry log-strengths), of which one
unit is ``NATURAL`` (400 / ln 10, about 173.7) Elo points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

ELO_PER_DECADE = 400.0  # Elo points for odds of 10 to 1
NATURAL = ELO_PER_DECADE / math.log(10)  # Elo points per natural unit of log-odds (about 173.7)
NELO_PER_T = 2 * NATURAL  # normalized Elo per unit of t-value (per game), as fishtest defines it
ORDO_SCALE = ELO_PER_DECADE * math.log10(0.76 / 0.24)  # Ordo's -z: the gap at which the better scores 76%


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points above its opponent."""
    return 1 / (1 + 10 ** (-elo / ELO_PER_DECADE))


def elo_from_score(score: float, clamp: float = 1e-3) -> float:
    """The Elo gap that gives an expected score (clamped away from 0 and 1 by ``clamp``; unclamped, 0 and 1 are
    -inf and +inf)."""
    score = min(max(score, clamp), 1 - clamp)
    if score in (0.0, 1.0):
        return math.copysign(math.inf, score - 0.5)
    return -ELO_PER_DECADE * math.log10(1 / score - 1) + 0.0  # + 0.0: an even score is +0.0, not -0.0


def solve_linear(matrix: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    """x with matrix @ x = vector, for a small dense system (a Newton step of a fit).

    LAPACK's LU with partial pivoting, through NumPy (a dependency already, for the league's sparse fit): the
    same elimination the fits each wrote out in Python, at C speed, so a bootstrap's few hundred Newton fits of
    a pool of twenty cost less. ValueError when the system has no single solution (a rating left undetermined).
    """
    import numpy as np  # here: what only reads this module's scale (league list, add ...) starts without numpy

    if not len(vector):
        return []
    try:
        return np.linalg.solve(np.array(matrix, dtype=float), np.array(vector, dtype=float)).tolist()
    except np.linalg.LinAlgError:
        raise ValueError("the games leave a rating undetermined") from None


__all__ = ["ELO_PER_DECADE", "NATURAL", "NELO_PER_T", "ORDO_SCALE", "elo_from_score", "score_from_elo", "solve_linear"]
