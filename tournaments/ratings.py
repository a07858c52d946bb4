"""Pool ratings: maximum-likelihood Elo over all games (Ordo's model), intervals, LOS.

The model is Ordo's: the expected score of ``i`` against ``j`` is
``1 / (1 + 10 ** ((r_j - r_i) / 400))`` on the standard logistic scale, draws
count as half a win and half a loss, and the ratings maximise the
likelihood of all results. At the maximum every player's expected score
equals its actual score, which is how the solver checks itself. Ratings are
centred on a pool average of 0, or pinned to an anchor.

When a player has won (or lost) every game against everybody, its rating
is infinite and no maximum exists. Then, and only then, a prior of one
virtual draw per pairing that met is added (as BayesElo always does), and
the result says so.

Intervals and the LOS matrix come from a bootstrap over *units*: a
duplicate pair of games (same deal, seats swapped) is resampled as one
unit, so the correlation between its two games is kept.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence

import attrs

from .stats import Z975


@attrs.frozen
class Outcome:
    """One game between two entrants: ``score`` is a's result (1, 0.5, 0)."""

    a: str
    b: str
    score: float


@attrs.frozen
class PoolRatings:
    players: tuple[str, ...]
    ratings: dict[str, float]
    errors: dict[str, float]  # half-width of the 95% interval
    los: dict[tuple[str, str], float]  # LOS[i, j]: probability that i is stronger than j
    games: dict[str, int]
    scores: dict[str, float]
    prior: float  # virtual draws added per pairing (0 unless needed)
    anchor: str | None
    level: float = 0.0  # the anchor's rating, or the pool average


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


def needs_prior(outcomes: Sequence[Outcome]) -> bool:
    """True when no finite maximum exists: some group never scores against the rest.

    The maximum exists exactly when the graph "i scored at least a half point
    against j" is strongly connected.
    """
    players = sorted({o.a for o in outcomes} | {o.b for o in outcomes})
    if len(players) < 2:
        return False
    edges: dict[str, set[str]] = defaultdict(set)
    for o in outcomes:
        if o.score > 0:
            edges[o.a].add(o.b)
        if o.score < 1:
            edges[o.b].add(o.a)

    def reach(start: str, graph: dict[str, set[str]]) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reverse: dict[str, set[str]] = defaultdict(set)
    for a, targets in edges.items():
        for b in targets:
            reverse[b].add(a)
    return len(reach(players[0], edges)) < len(players) or len(reach(players[0], reverse)) < len(players)


def solve(outcomes: Sequence[Outcome], prior: float = 0.0, anchor: str | None = None,
          anchor_rating: float = 0.0, tolerance: float = 1e-10) -> dict[str, float]:
    """Maximum-likelihood ratings (minorization-maximization for the Bradley-Terry model).

    ``anchor`` gets ``anchor_rating``; without an anchor the pool average is ``anchor_rating``.
    """
    players, games, score = _tally(outcomes, prior)
    if not players:
        return {}
    opponents = defaultdict(list)
    for (a, b), n in games.items():
        opponents[a].append((b, n))
    strength = {p: 1.0 for p in players}
    for _ in range(100_000):
        biggest = 0.0
        new = {}
        for p in players:
            denominator = sum(n / (strength[p] + strength[q]) for q, n in opponents[p])
            new[p] = score[p] / denominator if denominator else strength[p]
        # keep the scale fixed (geometric mean 1) so the iteration does not drift
        log_mean = sum(math.log(v) for v in new.values()) / len(new)
        for p in players:
            value = math.exp(math.log(new[p]) - log_mean)
            biggest = max(biggest, abs(math.log(value) - math.log(strength[p])))
            strength[p] = value
        if biggest < tolerance:
            break
    ratings = {p: 400 * math.log10(strength[p]) for p in players}
    if anchor is not None:
        shift = anchor_rating - ratings[anchor]
    else:  # the pool average becomes anchor_rating
        shift = anchor_rating - sum(ratings.values()) / len(ratings)
    return {p: r + shift for p, r in ratings.items()}


def expected_scores(outcomes: Sequence[Outcome], ratings: dict[str, float], prior: float = 0.0) -> dict[str, float]:
    """Each player's expected total score under ``ratings`` (equals the actual score at the maximum)."""
    _, games, _ = _tally(outcomes, prior)
    expected: dict[str, float] = defaultdict(float)
    for (a, b), n in games.items():
        expected[a] += n / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
    return dict(expected)


def pool_ratings(units: Sequence[Sequence[Outcome]], anchor: str | None = None, anchor_rating: float = 0.0,
                 bootstrap: int = 300, seed: int = 1) -> PoolRatings:
    """Ratings of every player in ``units`` (a unit: the games resampled together, e.g. a duplicate pair)."""
    outcomes = [o for unit in units for o in unit]
    if not outcomes:
        raise ValueError("no games to rate")
    prior = 1.0 if needs_prior(outcomes) else 0.0
    players, _, _ = _tally(outcomes, 0.0)
    if anchor is not None and anchor not in players:
        raise ValueError(f"anchor {anchor!r} played no game; players: {', '.join(players)}")
    ratings = solve(outcomes, prior, anchor, anchor_rating)
    rng = random.Random(seed)
    samples: list[dict[str, float]] = []
    for _ in range(bootstrap):
        drawn = [o for _ in range(len(units)) for o in units[rng.randrange(len(units))]]
        if {o.a for o in drawn} | {o.b for o in drawn} != set(players):
            continue
        samples.append(solve(drawn, 1.0 if needs_prior(drawn) else 0.0, anchor, anchor_rating, tolerance=1e-7))
    errors = {}
    for p in players:
        values = [s[p] for s in samples]
        if len(values) > 1:
            mean = sum(values) / len(values)
            errors[p] = Z975 * math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
        else:
            errors[p] = math.inf
    los = {}
    for p in players:
        for q in players:
            if p != q and samples:
                los[(p, q)] = sum(1.0 if s[p] > s[q] else 0.5 if s[p] == s[q] else 0.0 for s in samples) / len(samples)
    games: dict[str, int] = defaultdict(int)
    scores: dict[str, float] = defaultdict(float)
    for o in outcomes:
        games[o.a] += 1
        games[o.b] += 1
        scores[o.a] += o.score
        scores[o.b] += 1 - o.score
    order = tuple(sorted(players, key=lambda p: -ratings[p]))
    return PoolRatings(order, ratings, errors, los, dict(games), dict(scores), prior, anchor, anchor_rating)
