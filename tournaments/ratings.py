"""Pool ratings: maximum-likelihood Elo over all games (Ordo's model), intervals, LOS.

The model is Ordo's: the expected score of ``i`` against ``j`` is
``1 / (1 + 10 ** ((r_j - r_i) / 400))`` on the standard logistic scale, draws
count as half a win and half a loss, and the ratings maximise the
likelihood of all results. At the maximum every player's expected score
equals its actual score, which is how the solver checks itself. Ratings are
centred on a pool average of 0, or pinned to an anchor.

When a player has won (or lost) every game against everybody, or a group
of players every game against the rest, the gap between them is infinite
and no maximum exists. Then, and only then, a prior of one virtual draw per
pairing that met is added (as BayesElo always does), and the result says so
and names the players whose ratings only the prior makes finite
(``unbounded``).

Intervals and LOS come from a bootstrap over *units*: a duplicate pair of
games (same deal, seats swapped) is resampled as one unit, so the
correlation between its two games is kept. An interval is the 2.5th and
97.5th percentiles of the resampled ratings, so it follows a skewed
spread instead of pretending it is symmetric. A resample with no finite
maximum counts the ratings only its virtual draws make finite as infinitely
high or low, and an interval end such resamples reach is open. With fewer
than ``MIN_UNITS`` units there is no bootstrap, and a player whose resampled
ratings never vary (every unit alike) has no interval: there is no spread
to measure. Players in groups that never met are ranked within their group,
and no LOS is given across groups.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict
from collections.abc import Sequence

import attrs

from .elo import NATURAL, score_from_elo, solve_linear
from .stats import MIN_UNITS, percentile_interval


@attrs.frozen
class Outcome:
    """One game between two entrants: ``score`` is a's result (1, 0.5, 0)."""

    a: str
    b: str
    score: float


@attrs.frozen
class PoolRatings:
    players: tuple[str, ...]  # best first within each group (see groups), the groups in turn
    ratings: dict[str, float]
    intervals: dict[str, tuple[float, float] | None]  # 95% percentile interval (an end at +-inf is open); None: none
    los: dict[tuple[str, str], float]  # LOS[i, j]: probability that i is stronger than j (bootstrap; one group)
    games: dict[str, int]
    scores: dict[str, float]
    prior: float  # virtual draws added per pairing (0 unless needed)
    anchor: str | None
    level: float = 0.0  # the anchor's rating, or the pool average
    unbounded: tuple[str, ...] = ()  # players whose rating only the prior makes finite (see unbounded())
    groups: tuple[tuple[str, ...], ...] = ()  # players linked by games, directly or through others, as ranked
    units: int = 0  # units resampled by the bootstrap
    spread: str = ""  # why there was no bootstrap: "off" (none asked for), "few" (fewer than MIN_UNITS units)
    alike: tuple[str, ...] = ()  # players whom every resample gave the same rating: no spread to measure
    open_resamples: float = 0.0  # the share of resamples that left a measured rating unbounded (+-inf in them)

    @property
    def errors(self) -> dict[str, float]:
        """Half the width of each 95% interval (inf when it has none, or an open end)."""
        return {p: (i[1] - i[0]) / 2 if i else math.inf for p, i in self.intervals.items()}


def _tally(outcomes: Sequence[Outcome], prior: float) -> tuple[list[str], dict, dict]:
    players = sorted({o.a for o in outcomes} | {o.b for o in outcomes})
    games: dict[tuple[str, str], float] = defaultdict(float)
    score: dict[str, float] = defaultdict(float)
    for o in outcomes:
        games[(o.a, o.b)] += 1
        games[(o.b, o.a)] += 1
        score[o.a] += o.score
        score[o.b] += 1 - o.score
    if prior:
        met = {tuple(sorted(k)) for k in games}
        for a, b in met:
            games[(a, b)] += prior
            games[(b, a)] += prior
            score[a] += prior / 2
            score[b] += prior / 2
    return players, games, score


# A score closer than this to 0 or 1 counts as a sweep: the gap it implies (over 3,600 Elo) is past what
# floating point lets the solver measure (a board score of 1 - 4e-16 left its system singular).
SWEEP = 1e-9


def _scored_against(outcomes: Sequence[Outcome]) -> tuple[list[str], dict[str, set[str]], dict[str, set[str]]]:
    """The players, and the graph "i scored something against j" both ways (i -> j, and j <- i)."""
    players = sorted({o.a for o in outcomes} | {o.b for o in outcomes})
    forward: dict[str, set[str]] = defaultdict(set)
    backward: dict[str, set[str]] = defaultdict(set)
    for o in outcomes:
        for p, q, scored in ((o.a, o.b, o.score > SWEEP), (o.b, o.a, o.score < 1 - SWEEP)):
            if scored:
                forward[p].add(q)
                backward[q].add(p)
    return players, forward, backward


def _reach(start: str, graph: dict[str, set[str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _structure(outcomes: Sequence[Outcome]) -> tuple[list[set[str]], bool]:
    """The players in groups linked by games (one group, in any real tournament), and whether a finite maximum
    exists: it does exactly when, in each group, the graph "i scored something against j" is strongly
    connected (every player reaches every other along it, and is reached by every other)."""
    players, forward, backward = _scored_against(outcomes)
    groups = _groups(players, forward, backward)
    return groups, all(_reach(min(g), forward) == g and _reach(min(g), backward) == g for g in groups)


def _groups(players: list[str], forward: dict[str, set[str]], backward: dict[str, set[str]]) -> list[set[str]]:
    """The players in groups linked by a game, whoever scored in it."""
    met = {p: forward[p] | backward[p] for p in players}
    groups: list[set[str]] = []
    for p in players:
        if not any(p in g for g in groups):
            groups.append(_reach(p, met))
    return groups


def needs_prior(outcomes: Sequence[Outcome]) -> bool:
    """True when no finite maximum exists: within a group of players linked by games, some never score
    against the rest (see :func:`_structure`)."""
    return not _structure(outcomes)[1]


def unbounded(outcomes: Sequence[Outcome]) -> tuple[str, ...]:
    """The players whose rating is a bound, not a measure: only a prior makes it finite.

    In a group that is not strongly connected (see :func:`needs_prior`) the parts that do score against each
    other (strongly connected components) are separated by sweeps. The largest part is measured among
    itself; every other part is only known to be above or below it. When no part is largest, all are bounds.
    """
    players, forward, backward = _scored_against(outcomes)
    found: list[str] = []
    for group in _groups(players, forward, backward):
        parts: list[set[str]] = []
        for p in sorted(group):
            if not any(p in part for part in parts):
                parts.append(_reach(p, forward) & _reach(p, backward))
        if len(parts) == 1:
            continue
        largest = max(len(part) for part in parts)
        reference = [part for part in parts if len(part) == largest]
        found += [p for part in parts if len(reference) > 1 or part is not reference[0] for p in part]
    return tuple(sorted(found))


def solve(outcomes: Sequence[Outcome], prior: float = 0.0, anchor: str | None = None,
          anchor_rating: float = 0.0, tolerance: float = 1e-10,
          groups: list[set[str]] | None = None) -> dict[str, float]:
    """Maximum-likelihood ratings, by Newton's method on the players' log-strengths.

    The log-likelihood is concave, so Newton's steps (each halved while it
    would lower the likelihood by more than rounding) climb to its maximum,
    and near it every step doubles the correct digits: a few dozen steps at
    most (the limit is 200). ``tolerance`` is the largest step, in natural-log
    strength, taken as arrived (1e-10: 4e-8 Elo). (The textbook
    minorization-maximization crawls when a rating is extreme: a seat that
    scored 0.4% of one board took it 0.1 s a bootstrap sample, and a chain
    of 99.9% scores 100,000 rounds without reaching the maximum.)
    Players who never met, directly or through others, are rated within
    their own group (``groups``, when the caller has them already, as
    :func:`_structure` gives them). ``anchor`` gets ``anchor_rating``;
    without an anchor the pool average is ``anchor_rating``.
    """
    players, games, score = _tally(outcomes, prior)
    if not players:
        return {}
    opponents: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for (a, b), n in games.items():
        opponents[a].append((b, n))
    strength = {p: 0.0 for p in players}  # natural log of the Bradley-Terry strength
    for group in groups if groups is not None else _structure(outcomes)[0]:
        _climb(sorted(group), opponents, score, strength, tolerance)
    ratings = {p: NATURAL * s for p, s in strength.items()}
    if anchor is not None:
        shift = anchor_rating - ratings[anchor]
    else:  # the pool average becomes anchor_rating
        shift = anchor_rating - sum(ratings.values()) / len(ratings)
    return {p: r + shift for p, r in ratings.items()}


def _climb(group: list[str], opponents: dict[str, list[tuple[str, float]]], score: dict[str, float],
           strength: dict[str, float], tolerance: float) -> None:
    """Newton's method for one group's log-strengths (in place), its first player held fixed, then centred."""
    free = group[1:]

    def log_likelihood(s: dict[str, float]) -> float:
        total = sum(score[p] * s[p] for p in group)
        for p in group:
            for q, n in opponents[p]:
                if p < q:  # each pair once: log(e^s_p + e^s_q), written to not overflow
                    high, low = max(s[p], s[q]), min(s[p], s[q])
                    total -= n * (high + math.log1p(math.exp(low - high)))
        return total

    for _ in range(200):
        # gradient: actual score less expected; information: the expected scores' derivatives
        gradient = {p: score[p] for p in free}
        information = {p: {q: 0.0 for q in free} for p in free}
        for p in free:
            for q, n in opponents[p]:
                gap = strength[p] - strength[q]
                small = math.exp(-abs(gap))  # never overflows
                expected = 1 / (1 + small) if gap >= 0 else small / (1 + small)
                gradient[p] -= n * expected
                weight = n * small / (1 + small) ** 2  # expected * (1 - expected), which rounds to 0 near 1
                information[p][p] += weight
                if q in information:
                    information[p][q] -= weight
        step = solve_linear([[information[p][q] for q in free] for p in free], [gradient[p] for p in free])
        if max((abs(d) for d in step), default=0.0) < tolerance:  # arrived: the last step is too small to matter
            for p, d in zip(free, step):
                strength[p] += d
            break
        before, size = log_likelihood(strength), 1.0
        rounding = 1e-12 * (1 + abs(before))  # near the top a better step can look worse by rounding alone
        while True:
            trial = dict(strength)
            for p, d in zip(free, step):
                trial[p] += size * d
            if log_likelihood(trial) >= before - rounding or size < 1e-9:
                break
            size /= 2
        strength.update(trial)
    centre = sum(strength[p] for p in group) / len(group)
    for p in group:
        strength[p] -= centre


def expected_scores(outcomes: Sequence[Outcome], ratings: dict[str, float], prior: float = 0.0) -> dict[str, float]:
    """Each player's expected total score under ``ratings`` (equals the actual score at the maximum)."""
    _, games, _ = _tally(outcomes, prior)
    expected: dict[str, float] = defaultdict(float)
    for (a, b), n in games.items():
        expected[a] += n * score_from_elo(ratings[a] - ratings[b])
    return dict(expected)


def pool_ratings(units: Sequence[Sequence[Outcome]], anchor: str | None = None, anchor_rating: float = 0.0,
                 bootstrap: int = 300, seed: int = 1) -> PoolRatings:
    """Ratings of every player in ``units`` (a unit: the games resampled together, e.g. a duplicate pair), with
    95% percentile intervals and LOS from a bootstrap over the units (with at least MIN_UNITS of them)."""
    outcomes = [o for unit in units for o in unit]
    if not outcomes:
        raise ValueError("no games to rate")
    groups, finite = _structure(outcomes)
    players = sorted(set().union(*groups))
    if anchor is not None and anchor not in players:
        raise ValueError(f"anchor {anchor!r} played no game; players: {', '.join(players)}")
    ratings = solve(outcomes, 0.0 if finite else 1.0, anchor, anchor_rating, groups=groups)
    ranked = _ranked(groups, ratings)
    bounds = unbounded(outcomes) if not finite else ()
    spread = "off" if bootstrap == 0 else "few" if len(units) < MIN_UNITS else ""
    samples, opened = ([], 0.0) if spread else _bootstrap(units, groups, anchor, anchor_rating, bootstrap, seed,
                                                          set(bounds))
    intervals = {p: _interval([s[p] for s in samples]) for p in players}
    alike = tuple(p for p in players if samples and intervals[p] is None and p != anchor and p not in bounds)
    games, scores = _totals(outcomes)
    return PoolRatings(players=tuple(p for g in ranked for p in g), ratings=ratings, intervals=intervals,
                       los=_los(samples, ranked, {*alike, anchor}), games=games, scores=scores,
                       prior=0.0 if finite else 1.0, anchor=anchor, level=anchor_rating, unbounded=bounds,
                       groups=ranked, units=len(units), spread=spread, alike=alike, open_resamples=opened)


def _ranked(groups: list[set[str]], ratings: dict[str, float]) -> tuple[tuple[str, ...], ...]:
    """Each group best first (ties by name), the larger groups first: nothing ranks one group against another."""
    ordered = sorted(groups, key=lambda g: (-len(g), min(g)))
    return tuple(tuple(sorted(g, key=lambda p: (-ratings[p], p))) for g in ordered)


def _bootstrap(units: Sequence[Sequence[Outcome]], groups: list[set[str]], anchor: str | None, level: float,
               count: int, seed: int, bounds: set[str]) -> tuple[list[dict[str, float]], float]:
    """``count`` resamples of the units, each solved (the ratings the virtual draws make finite as +-inf, see
    _open_ends), and the share of them in which a rating the whole data measure (one not in ``bounds``) had
    no finite maximum."""
    rng = random.Random(seed)
    samples: list[dict[str, float]] = []
    opened = 0
    for _ in range(count):
        drawn = [o for _ in range(len(units)) for o in units[rng.randrange(len(units))]]
        # a resample that misses a player, or splits the pool into groups that never met, cannot say how far
        # apart they are: it is left out rather than solved with an arbitrary gap
        drawn_groups, drawn_finite = _structure(drawn)
        if set().union(*drawn_groups) != set().union(*groups) or len(drawn_groups) > len(groups):
            continue
        sample = solve(drawn, 0.0 if drawn_finite else 1.0, anchor, level, tolerance=1e-7, groups=drawn_groups)
        if not drawn_finite:
            sample = _open_ends(drawn, sample, drawn_groups, anchor)
            opened += any(math.isinf(v) for p, v in sample.items() if p not in bounds)
        samples.append(sample)
    return samples, opened / len(samples) if samples else 0.0


def _open_ends(drawn: Sequence[Outcome], sample: dict[str, float], groups: list[set[str]],
               anchor: str | None) -> dict[str, float]:
    """A resample with no finite maximum: a rating that only its virtual draws make finite (see unbounded()) is
    +inf or -inf, on the side of the rest of its group it lies on; the anchor keeps its rating."""
    loose = set(unbounded(drawn)) - {anchor}
    opened = dict(sample)
    for group in groups:
        measured = [sample[p] for p in group if p not in loose] or [sample[p] for p in group]
        centre = sum(measured) / len(measured)
        for p in group & loose:
            opened[p] = math.copysign(math.inf, sample[p] - centre)
    return opened


def _interval(values: list[float]) -> tuple[float, float] | None:
    """The 95% percentile interval of one player's resampled ratings; None when they never vary (no spread to
    measure: every unit alike, or the anchor) or there are none."""
    if not values or max(values) == min(values) or max(values) - min(values) < 1e-6:
        return None
    return percentile_interval(values)


def _los(samples: list[dict[str, float]], groups: Sequence[Sequence[str]], fixed: set) -> dict[tuple[str, str], float]:
    """LOS within each group from the resamples (none across groups, whose gap nothing measures, and none between
    two players whose ratings never varied)."""
    los = {}
    for group in groups:
        for p, q in itertools.permutations(group, 2):
            if samples and not (p in fixed and q in fixed):
                los[(p, q)] = sum(1.0 if s[p] > s[q] else 0.5 if s[p] == s[q] else 0.0 for s in samples) / len(samples)
    return los


def _totals(outcomes: Sequence[Outcome]) -> tuple[dict[str, int], dict[str, float]]:
    """Each player's games and score."""
    games: dict[str, int] = defaultdict(int)
    scores: dict[str, float] = defaultdict(float)
    for o in outcomes:
        games[o.a] += 1
        games[o.b] += 1
        scores[o.a] += o.score
        scores[o.b] += 1 - o.score
    return dict(games), dict(scores)
