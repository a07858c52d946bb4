"""Which table the league plays next: the one expected to teach it the most about the ranking.

A table is a duplicate deal (or a board) in every seating, so luck cancels
within it as in a tournament. The choice, for a table of ``seats``:

1. **Placement.** A version with fewer than ``PLACEMENT`` tables plays first,
   against the opponents it has met least: first the one rated nearest to
   it, then each time the one rated farthest from all it has met, so a new
   version meets the whole spread of the ladder before it is ranked.
2. **Exploration.** With probability ``EXPLORE``, the pair that has met
   least plays (ties at random), so no pair is starved however sure the
   ratings look.
3. **Uncertain order.** Otherwise the pair whose order the ladder is least
   sure of: ``exp(-z^2 / 2)``, ``z`` the gap between their ratings over the
   uncertainty of that gap (``sqrt(sigma_a^2 + sigma_b^2)``), times the
   information of one result, ``p (1 - p)``, discounted by how often they
   have met already (``1 + meetings / (1 + average)``). Pairs far apart on the
   ladder, whose order no game will change, are left alone; neighbours whose
   order is in doubt play most; and a pair that has met ``MAX_SHARE`` times
   the average (plus one) waits until the others catch up, so two entrants
   of equal strength, whose order stays in doubt for ever, cannot take every
   table.
   Tables of three to five seats grow from the best pair by the entrant that
   scores most with those seated.

Beyond ``ALL_PAIRS`` candidates (a contest of thousands), rules 2 and 3 look
not at every pair (millions, each table) but at each candidate's
``NEIGHBOURS`` nearest on the ladder on either side, where the order is in
doubt, and at half as many pairs as candidates drawn at random, so that the
least met pairs still come up (the average meetings are still those of all
pairs): a table's cost grows with the candidates, not with their square.

On ten real bots it needs about 0.7 of the games a round robin of duplicate
pairs needs to rank them (Kendall's tau 0.9 for good): ``bench/league_ranking.py``
measures it with real games, ``bench/league_replay.py`` over many seeds.

Pure: the league's runner gives it the ratings and the meetings so far.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Mapping, Sequence

import attrs

from .ratings import SCALE

PLACEMENT = 2  # tables a version plays before the uncertain-order rule chooses for it
EXPLORE = 0.05  # the share of tables given to the pairs that have met least
MAX_SHARE = 4  # no pair meets more than this many times the average (plus one) of the pairs' meetings
ALL_PAIRS = 60  # candidates up to which every pair is looked at
NEIGHBOURS = 4  # beyond: the candidates nearest on the ladder each one is paired with, on either side


@attrs.frozen
class Candidate:
    id: int
    rating: float  # Elo
    sigma: float  # Elo
    tables: int  # tables played so far (this version)


Meetings = Mapping[frozenset[int], int]  # {a, b} -> tables at which a and b have met
GapSigma = Callable[[int, int], float]  # (a, b) -> the standard error (Elo) of the gap between their ratings


def next_table(candidates: Sequence[Candidate], meetings: Meetings, seats: int, rng: random.Random,
               placement: int = PLACEMENT, explore: float = EXPLORE,
               gap_sigma: GapSigma | None = None) -> tuple[int, ...] | None:
    """The ids of the versions to seat at the next table (None: fewer candidates than seats). ``gap_sigma``: the
    fit's uncertainty of each gap (by default, as if the ratings were independent)."""
    if len(candidates) < seats:
        return None
    if gap_sigma is None:
        sigma = {c.id: c.sigma for c in candidates}

        def gap_sigma(a: int, b: int) -> float:  # as if the two ratings were independent
            return math.hypot(sigma[a], sigma[b])

    new = [c for c in candidates if c.tables < placement]
    if new:
        first = min(new, key=lambda c: (c.tables, c.id))
        faced = [o.rating for o in candidates if o.id != first.id and meetings.get(frozenset((first.id, o.id)), 0)]
        return _grow([first], candidates, lambda table, c: _placement_score(table, c, meetings, faced), seats)
    average = sum(meetings.values()) / max(len(candidates) * (len(candidates) - 1) // 2, 1)
    if rng.random() < explore:
        pair = min(_pairs(candidates, rng), key=lambda p: (meetings.get(frozenset((p[0].id, p[1].id)), 0),
                                                           rng.random()))
    else:
        allowed = [p for p in _pairs(candidates, rng)
                   if meetings.get(frozenset((p[0].id, p[1].id)), 0) < MAX_SHARE * (average + 1)]
        pair = max(allowed or _pairs(candidates, rng),
                   key=lambda p: (_information(p[0], p[1], meetings, average, gap_sigma), rng.random()))
    return _grow(list(pair), candidates,
                 lambda table, c: sum(_information(t, c, meetings, average, gap_sigma) for t in table), seats)


def _pairs(candidates: Sequence[Candidate], rng: random.Random) -> list[tuple[Candidate, Candidate]]:
    """The pairs rules 2 and 3 choose from: all of them, or beyond ``ALL_PAIRS`` candidates each one with its
    ``NEIGHBOURS`` next on the ladder, and half as many pairs as candidates drawn at random."""
    if len(candidates) <= ALL_PAIRS:
        return list(itertools.combinations(candidates, 2))
    ladder = sorted(candidates, key=lambda c: (c.rating, c.id))
    near = [(a, b) for i, a in enumerate(ladder) for b in ladder[i + 1:i + 1 + NEIGHBOURS]]
    drawn = [_pair(rng.sample(ladder, 2)) for _ in range(len(ladder) // 2)]
    return near + drawn


def _pair(two: list[Candidate]) -> tuple[Candidate, Candidate]:
    a, b = two
    return a, b


def doubt(a: Candidate, b: Candidate, gap_sigma: float) -> float:
    """How much a result between ``a`` and ``b`` may change the ladder: how unsure their order is (their gap over
    ``gap_sigma``, its standard error), times how much one result says."""
    z = abs(a.rating - b.rating) / max(gap_sigma, 1e-9)
    p = 1 / (1 + math.exp((b.rating - a.rating) / SCALE))
    return math.exp(-z * z / 2) * p * (1 - p)


def _information(a: Candidate, b: Candidate, meetings: Meetings, average: float, gap_sigma: GapSigma) -> float:
    return doubt(a, b, gap_sigma(a.id, b.id)) / (1 + meetings.get(frozenset((a.id, b.id)), 0) / (1 + average))


def _placement_score(table: list[Candidate], c: Candidate, meetings: Meetings, faced: list[float]) -> tuple:
    """For a placement seat: fewest meetings with those seated first; then, for the newcomer's first opponent,
    the nearest rating to its own, and after that the rating farthest from every opponent it has met (``faced``:
    their ratings; so its opponents spread over the ladder); then the lowest id (a fixed order)."""
    first = table[0]
    met = sum(meetings.get(frozenset((t.id, c.id)), 0) for t in table)
    spread = min(abs(c.rating - r) for r in faced) if faced else -abs(c.rating - first.rating)
    return (-met, spread, -c.id)


def _grow(table: list[Candidate], candidates: Sequence[Candidate], score, seats: int) -> tuple[int, ...]:
    """Add the best-scoring candidate, one seat at a time, until the table is full."""
    while len(table) < seats:
        seated = {t.id for t in table}
        table.append(max((c for c in candidates if c.id not in seated), key=lambda c: score(table, c)))
    return tuple(c.id for c in table)


__all__ = ["ALL_PAIRS", "EXPLORE", "NEIGHBOURS", "PLACEMENT", "Candidate", "GapSigma", "doubt", "next_table"]
