"""Match statistics in the conventions of fishtest and fastchess. Pure math.

Results come as frequency lists of length 2n+1 for units of n games:

* trinomial ``[losses, draws, wins]`` for single games,
* pentanomial ``[LL, LD+DL, WL+LW+DD, WD+DW, WW]`` for duplicate pairs
  (the same deal played twice with the seats swapped).

The pentanomial model counts each pair as one observation, so the strong
correlation between the two games of a pair (same cards!) is used instead of
ignored: card luck cancels and intervals shrink.

Formulas (Elo from the mean score, its 95% interval from the normal
approximation, LOS, normalized Elo, the generalized SPRT's log-likelihood
ratio with the exact multinomial MLE) follow fishtest's published statistics
(``stat_util.py``, ``LLRcalc.py``); the numbers match fishtest's examples
(see tests/test_stats.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import attrs

from .elo import NELO_PER_T, elo_from_score, score_from_elo

_NORMAL = NormalDist()
Z975 = _NORMAL.inv_cdf(0.975)
# The fewest units (games, pairs, boards) whose spread an interval or a LOS is taken from: a bootstrap of n units
# draws one unit n times over with a chance of n ** (1 - n), over 2.5% below four, and the normal approximation of
# two or three units' spread is as thin (their t-distribution's 95% point is 4.3 to 12.7, not 1.96).
MIN_UNITS = 4


def phi(q: float) -> float:
    return _NORMAL.cdf(q)


def regularize(results: Sequence[float]) -> list[float]:
    """Replace empty cells with a tiny count so logs and variances stay finite."""
    return [r if r > 0 else 1e-3 for r in results]


def results_to_pdf(results: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """(number of units, [(score of the unit in 0..1, probability)])."""
    results = regularize(results)
    n = sum(results)
    last = len(results) - 1
    return n, [(i / last, r / n) for i, r in enumerate(results)]


def moments(pdf: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    """Mean, variance, skewness and excess kurtosis of a discrete distribution."""
    mean = sum(p * a for a, p in pdf)
    var = sum(p * (a - mean) ** 2 for a, p in pdf)
    m3 = sum(p * (a - mean) ** 3 for a, p in pdf)
    m4 = sum(p * (a - mean) ** 4 for a, p in pdf)
    return mean, var, m3 / var**1.5, m4 / var**2 - 3


@attrs.frozen
class EloEstimate:
    games: float
    score: float  # mean score per game, 0..1
    elo: float
    elo95: float  # half-width of the 95% interval, as fishtest gives it (its ends clamped); inf: no interval
    los: float  # likelihood of superiority, 0..1
    nelo: float  # normalized Elo
    nelo95: float
    model: str  # "trinomial" or "pentanomial"

    sweep: bool = False  # every unit had the same, extreme result: no finite estimate, only a bound
    low: float = -math.inf  # the 95% interval's ends, unclamped: an end past a score of 0 or 1 is open (inf)
    high: float = math.inf  # (both infinite: no interval, e.g. when every unit had the same result)

    @property
    def bound(self) -> float:
        """With a sweep: the 95% interval's bound on the Elo difference (below a win sweep, above a loss sweep).

        Clopper-Pearson: n units all won is likelier than 2.5% only for a chance of winning a unit of at least
        0.025 ** (1/n), and a unit's score is at least its chance of a perfect result.
        """
        units = self.games / (2 if self.model == "pentanomial" else 1)
        low = 0.025 ** (1 / units)
        return elo_from_score(low, clamp=0) if self.score > 0.5 else -elo_from_score(low, clamp=0)

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.low) or math.isfinite(self.high)

    @property
    def too_few(self) -> bool:
        """Fewer than MIN_UNITS units, not all alike: no interval and no LOS (``los`` is nan)."""
        return math.isnan(self.los)


def elo_estimate(results: Sequence[float]) -> EloEstimate:
    """Elo, its 95% interval, LOS and normalized Elo from trinomial or pentanomial frequencies."""
    if len(results) not in (3, 5):
        raise ValueError("results must be trinomial (3 cells) or pentanomial (5 cells)")
    if sum(1 for r in results if r) == 1:
        return _alike_estimate(results)
    if 0 < sum(results) < MIN_UNITS:
        return _few_estimate(results)
    reg = regularize(results)
    units = sum(reg)
    per_unit = (len(reg) - 1) / 2  # games per unit: 1 or 2
    games = units * per_unit
    mu = sum(r * (i / 2) for i, r in enumerate(reg)) / games
    unit_mean = per_unit * mu
    var = sum(r * (i / 2 - unit_mean) ** 2 for i, r in enumerate(reg)) / games  # per game
    stderr = math.sqrt(var / games)
    elo95, los = _interval_and_los(mu, stderr)  # stderr > 0: regularize leaves no cell empty
    nelo, nelo95 = _normalized_elo(results)
    low, high = _interval_ends(mu, stderr)
    return EloEstimate(sum(results) * per_unit, mu, elo_from_score(mu), elo95, los, nelo, nelo95, _model(results),
                       low=low, high=high)


def _model(results: Sequence[float]) -> str:
    return "trinomial" if len(results) == 3 else "pentanomial"


def _alike_estimate(results: Sequence[float]) -> EloEstimate:
    """Every unit had the same result: its score, no spread to measure (an interval would come from the empty
    cells' regularisation alone), and the LOS of a sweep of units (uniform prior); at 0 or 1, a sweep."""
    last = len(results) - 1
    mu = next(i for i, r in enumerate(results) if r) / last
    units = sum(results)
    return EloEstimate(units * last / 2, mu, elo_from_score(mu), math.inf, _sweep_los(mu, units), 0.0, math.inf,
                       _model(results), mu in (0.0, 1.0))


def _few_estimate(results: Sequence[float]) -> EloEstimate:
    """Fewer than MIN_UNITS units that differ: their score, and no interval or LOS (see MIN_UNITS)."""
    last = len(results) - 1
    units = sum(results)
    mu = sum(i * r for i, r in enumerate(results)) / (last * units)
    return EloEstimate(units * last / 2, mu, elo_from_score(mu), math.inf, math.nan, 0.0, math.inf, _model(results))


def _interval_ends(mu: float, stderr: float) -> tuple[float, float]:
    """The Elo of the ends of a score's 95% interval, unclamped: an end past 0 or 1 is infinite (open)."""
    return elo_from_score(mu - Z975 * stderr, clamp=0), elo_from_score(mu + Z975 * stderr, clamp=0)


def _interval_and_los(mu: float, stderr: float, clamp: float = 1e-3) -> tuple[float, float]:
    """The half-width of the 95% Elo interval and the LOS of a mean score with its standard error (> 0)."""
    elo95 = (elo_from_score(mu + Z975 * stderr, clamp) - elo_from_score(mu - Z975 * stderr, clamp)) / 2
    return elo95, phi((mu - 0.5) / stderr)


def _sweep_los(mu: float, units: float) -> float:
    """LOS when every unit scored ``mu`` alike: from a uniform prior on the chance of winning a unit."""
    return 1 - 0.5 ** (units + 1) if mu > 0.5 else 0.5 ** (units + 1) if mu < 0.5 else 0.5


def _normalized_elo(results: Sequence[float]) -> tuple[float, float]:
    """Normalized Elo (fishtest): the t-value of the score, scaled so it does not depend on draws."""
    n, pdf = results_to_pdf(results)
    mean, var, skew, exkurt = moments(pdf)
    t = (mean - 0.5) / math.sqrt(var)
    var_t = max(1 - t * skew + 0.25 * t * t * (exkurt + 2), 0)
    coeff = NELO_PER_T if len(results) == 3 else NELO_PER_T / math.sqrt(2)
    return coeff * t, coeff * Z975 * math.sqrt(var_t / n)


def bounded_estimate(scores: Sequence[float]) -> EloEstimate:
    """Elo, its 95% interval, LOS and normalized Elo from scores in [0, 1], one per unit (a board).

    The same normal approximation as :func:`elo_estimate`, with the scores'
    own mean and variance (a unit here is one score, of any value in [0, 1]).
    A unit's score is a transform of its margin, so a mean close to 0 or 1 is
    a real (large) Elo, not one to clamp; only exactly 0 or 1, every unit lost
    or won outright, has none: a sweep. An interval whose end passes 0 or 1 is
    open at that end.
    """
    n = len(scores)
    if n == 0:
        raise ValueError("no scores")
    if max(scores) == min(scores):  # every unit scored alike: no spread to measure
        mu = scores[0]
        return EloEstimate(n, mu, elo_from_score(mu, clamp=0), math.inf, _sweep_los(mu, n), 0.0, math.inf, "boards",
                           mu in (0.0, 1.0))
    mu = sum(scores) / n
    if n < MIN_UNITS:
        return EloEstimate(n, mu, elo_from_score(mu, clamp=0), math.inf, math.nan, 0.0, math.inf, "boards")
    sd = math.sqrt(sum((x - mu) ** 2 for x in scores) / n)
    elo95, los = _interval_and_los(mu, sd / math.sqrt(n), clamp=0)
    low, high = _interval_ends(mu, sd / math.sqrt(n))
    return EloEstimate(n, mu, elo_from_score(mu, clamp=0), elo95, los, NELO_PER_T * (mu - 0.5) / sd,
                       NELO_PER_T * Z975 / math.sqrt(n), "boards", False, low, high)


def percentile_interval(values: Sequence[float]) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap values (not empty): the 2.5th and 97.5th percentiles, each
    taken outwards to a value that occurred (no interpolation, so an infinite value makes that end open)."""
    ordered = sorted(values)
    last = len(ordered) - 1
    return ordered[math.floor(0.025 * last)], ordered[math.ceil(0.975 * last)]


SCORE_STEP = 0.005  # scores are binned to this for the LLR: at most 201 support points, however many units


def scores_to_pdf(scores: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """(number of units, [(score, probability)]) of observed scores in [0, 1], binned to SCORE_STEP (the
    LLR's cost then stays the same however many units there are); a tiny weight (as :func:`regularize`
    gives an empty cell) is put on 0 and on 1 when no score is there, so that every hypothesised mean lies
    inside the support."""
    counts: dict[float, float] = {}
    for x in scores:
        x = round(x / SCORE_STEP) * SCORE_STEP
        counts[x] = counts.get(x, 0.0) + 1
    for end in (0.0, 1.0):
        counts.setdefault(end, 1e-3)
    n = sum(counts.values())
    return n, [(x, c / n) for x, c in sorted(counts.items())]


def los_from_wdl(wins: float, losses: float) -> float:
    """The classic likelihood of superiority from decisive games only."""
    if wins + losses == 0:
        return 0.5
    return phi((wins - losses) / math.sqrt(wins + losses))


# ------------------------------------------------------------ generalized SPRT
def _secular(pdf: Sequence[tuple[float, float]]) -> float:
    """Solve sum p_i a_i / (1 + x a_i) = 0 for x (the a_i have both signs)."""
    values = [a for a, _ in pdf]
    lo, hi = -1 / max(values), -1 / min(values)
    eps = 1e-12

    def f(x: float) -> float:
        return sum(p * a / (1 + x * a) for a, p in pdf)

    lo, hi = lo + eps * (hi - lo), hi - eps * (hi - lo)
    flo = f(lo)
    for _ in range(200):
        mid = (lo + hi) / 2
        fm = f(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return (lo + hi) / 2


def _mle_with_mean(pdf: Sequence[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """The distribution closest (in likelihood) to ``pdf`` whose mean is ``s``."""
    shifted = [(a - s, p) for a, p in pdf]
    if min(a for a, _ in shifted) >= 0 or max(a for a, _ in shifted) <= 0:
        raise ValueError("the hypothesised score lies outside the possible scores")
    x = _secular(shifted)
    return [(a, p / (1 + x * (a - s))) for a, p in pdf]


def llr_logistic(elo0: float, elo1: float, results: Sequence[float]) -> float:
    """Generalized log-likelihood ratio of H1 (elo = elo1) against H0 (elo = elo0), logistic Elo."""
    return _llr_of_pdf(elo0, elo1, *results_to_pdf(results))


def llr_bounded(elo0: float, elo1: float, scores: Sequence[float]) -> float:
    """The same generalized LLR for units with any score in [0, 1] (boards): fishtest's model, whose
    maximum-likelihood distributions with a given mean need no more than the scores being bounded."""
    return _llr_of_pdf(elo0, elo1, *scores_to_pdf(scores))


def _llr_of_pdf(elo0: float, elo1: float, n: float, pdf: list[tuple[float, float]]) -> float:
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    p0, p1 = _mle_with_mean(pdf, s0), _mle_with_mean(pdf, s1)
    return n * sum(p * (math.log(q1) - math.log(q0)) for (_, p), (_, q0), (_, q1) in zip(pdf, p0, p1, strict=True))


@attrs.frozen
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be smaller than elo1")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must lie between 0 and 0.5")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, results: Sequence[float]) -> float:
        if sum(results) == 0:
            return 0.0
        return llr_logistic(self.elo0, self.elo1, results)

    def llr_of_scores(self, scores: Sequence[float]) -> float:
        """The LLR of units scored anywhere in [0, 1] (boards)."""
        return llr_bounded(self.elo0, self.elo1, scores) if scores else 0.0

    def fewest_units(self) -> int:
        """The fewest pairs (or boards) after which the test can decide: one unit won outright adds at most
        ln(s1 / s0) to the LLR, one lost ln((1 - s1) / (1 - s0)), so narrow bounds need many units however
        one-sided the results (about 1,000 / (elo1 - elo0) pairs at alpha = beta = 0.05)."""
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        won, lost = self.upper / math.log(s1 / s0), self.lower / math.log((1 - s1) / (1 - s0))
        return math.ceil(min(won, lost))

    def verdict(self, results: Sequence[float]) -> str | None:
        """"H1" (accept: at least elo1), "H0" (reject: at most elo0), or None (play on)."""
        return self.decide(self.llr(results))

    def decide(self, llr: float) -> str | None:
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (normal approximation)."""
    n = len(values)
    if n == 0:
        return 0.0, math.inf
    mean = sum(values) / n
    if n == 1 or max(values) == min(values):  # no spread to measure: an interval of 0 would read as certainty
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, Z975 * math.sqrt(var / n)
