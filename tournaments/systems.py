"""Rating systems behind one interface, named in one table.

A rating system reads a set of games (:class:`Games`: each game's pairwise
results, grouped into the units a bootstrap resamples together, and each
game's finishing order) and gives a :class:`RatingTable`: every contestant,
best first, with its rating, the 95% interval of it where there is one, and
its games. :data:`SYSTEMS` holds them by name, and ``pinochle-arena
ratings --system NAME`` prints any of them (:func:`rating_system`). The
tournament report uses the same two instances, :data:`POOL_ELO` and (for
games of three or more sides) :data:`OPEN_SKILL`, through the fuller results
their tables come from (``PoolElo.pool``: LOS, groups and bounds;
``OpenSkill.skill``: sigma, firsts, places). The league enters its working
fit in the table from :mod:`league.ratings`, the room above this one
(:func:`register`).

* ``elo``: the pool maximum likelihood of Ordo (:mod:`.ratings`), with a
  bootstrap over units for intervals and LOS;
* ``openskill``: Weng-Lin's Bayesian Plackett-Luce model on finishing orders
  (the ``openskill`` library), mu with an interval of 1.96 sigma;
* ``bradley-terry`` (registered by the league): the league's working fit, a
  normal prior and the curvature's uncertainty (:mod:`league.ratings`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import attrs

if TYPE_CHECKING:
    from openskill.models import PlackettLuceRating

from .ratings import Outcome, PoolRatings, pool_ratings
from .stats import Z975

Order = tuple[tuple[str, int], ...]  # one game's sides, each with its place (1 first; level sides share one)


@attrs.frozen
class Games:
    """What a rating system reads, made from records by the report that fits them (summary.games_of)."""

    units: Sequence[Sequence[Outcome]]  # pairwise results (a's score against b), each unit resampled as one
    orders: Sequence[Order] = ()  # each game's finishing order, in play order; none for boards (margins)
    unit: str = "games"  # what a unit is, plural: "games", "deal pairs", "deals", "boards"


@attrs.frozen
class Rated:
    """One contestant's line of a rating table."""

    name: str
    rating: float
    interval: tuple[float, float] | None  # 95%; an end at +-inf is open; None: none measured
    games: int


@attrs.frozen
class RatingTable:
    system: str
    about: str  # what the figures are: the model, its scale and level, what the intervals are
    rows: tuple[Rated, ...]  # best first
    scale: str = "Elo"  # the ratings' unit, as the table's heading names it


class RatingSystem(Protocol):
    """What every rating system provides: a name for the table, a line that says what it is, and the fit."""

    @property
    def name(self) -> str: ...

    @property
    def about(self) -> str: ...

    def rate(self, games: Games, anchor: str | None = None, level: float = 0.0, bootstrap: int = 300) -> RatingTable:
        """Ratings of every contestant in ``games``: ``anchor`` rated ``level`` (without one, the pool average is
        ``level``); ``bootstrap``: resamples for intervals where the system draws them. ValueError when the
        system cannot rate these games (or an anchor that did not play)."""
        ...


@attrs.frozen
class PoolElo:
    """Ordo's model: maximum-likelihood logistic Elo over all games, percentile intervals from a bootstrap."""

    name: str = "elo"
    about: str = "maximum likelihood over all games (Ordo's model), logistic Elo"

    def pool(self, games: Games, anchor: str | None = None, level: float = 0.0, bootstrap: int = 300) -> PoolRatings:
        """The whole result: ratings, intervals, LOS, groups and bounds (see :mod:`.ratings`)."""
        return pool_ratings(games.units, anchor=anchor, anchor_rating=level, bootstrap=bootstrap)

    def rate(self, games: Games, anchor: str | None = None, level: float = 0.0, bootstrap: int = 300) -> RatingTable:
        r = self.pool(games, anchor, level, bootstrap)
        rows = tuple(Rated(p, r.ratings[p], None if p in r.unbounded else r.intervals[p], r.games[p])
                     for p in r.players)
        placed = f"anchor {anchor} = {level:g}" if anchor else f"pool average {level:g}"
        return RatingTable(self.name, f"{self.about}, {placed}; 95% intervals: percentiles of a bootstrap over "
                                      f"{games.unit}", rows)


@attrs.frozen
class SkillRow:
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    mean_place: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


Team = tuple[tuple[str, ...], int]  # the players of one side of a game, and the side's place


@attrs.frozen
class OpenSkill:
    """Weng-Lin's Plackett-Luce model: a Bayesian rating of finishing orders and of teams, games in play order."""

    name: str = "openskill"
    about: str = "openskill Plackett-Luce on finishing orders, games in play order; ranked by mu - 3 sigma"

    def skill(self, games: Sequence[Sequence[Team]]) -> list[SkillRow]:
        """Each player's mu and sigma after ``games`` (each its sides as (players, place)), best ordinal first."""
        from openskill.models import PlackettLuce  # (60 ms to import: only when asked, not by every league command)

        model = PlackettLuce()
        ratings: dict[str, PlackettLuceRating] = {}
        played: dict[str, int] = defaultdict(int)
        wins: dict[str, int] = defaultdict(int)
        places: dict[str, list[int]] = defaultdict(list)
        for game in games:  # in play order: each update moves the next
            teams = [[ratings.setdefault(m, model.rating(name=m)) for m in members] for members, _ in game]
            for members, place in game:
                for m in set(members):
                    played[m] += 1
                    places[m].append(place)
                    wins[m] += place == 1
            for team in model.rate(teams, ranks=[place for _, place in game]):
                for player in team:
                    ratings[str(player.name)] = player
        rows = [SkillRow(name, ratings[name].mu, ratings[name].sigma, played[name], wins[name],
                         sum(places[name]) / len(places[name])) for name in ratings]
        return sorted(rows, key=lambda row: -row.ordinal)

    def rate(self, games: Games, anchor: str | None = None, level: float = 0.0, bootstrap: int = 300) -> RatingTable:
        if not games.orders:
            raise ValueError("openskill rates finishing orders, and these games have none (boards are scored by "
                             "margins)")
        if anchor is not None:
            raise ValueError("openskill has no anchor: its ratings are on its own scale (mu 25 before any game)")
        rows = self.skill([[((side,), place) for side, place in order] for order in games.orders])
        return RatingTable(self.name, f"{self.about}; 95% intervals: mu +/- {Z975:.2f} sigma",
                           tuple(Rated(r.name, r.mu, normal_interval(r.mu, r.sigma), r.games) for r in rows), "mu")


SYSTEMS: dict[str, RatingSystem] = {}


def register(system: RatingSystem) -> RatingSystem:
    """Enter ``system`` in :data:`SYSTEMS` under its name (a rating system of a room above this one registers
    itself where it is defined)."""
    SYSTEMS[system.name] = system
    return system


POOL_ELO = PoolElo()
OPEN_SKILL = OpenSkill()
register(POOL_ELO)
register(OPEN_SKILL)


def rating_system(name: str) -> RatingSystem:
    """The system called ``name``; ValueError naming those there are."""
    try:
        return SYSTEMS[name]
    except KeyError:
        raise ValueError(f"no rating system {name!r}; there are: {', '.join(sorted(SYSTEMS))}") from None


def normal_interval(rating: float, sigma: float) -> tuple[float, float] | None:
    """The 95% interval of a rating with a normal uncertainty ``sigma`` (None for 0 or an infinite sigma)."""
    return (rating - Z975 * sigma, rating + Z975 * sigma) if 0 < sigma < math.inf else None


__all__ = ["OPEN_SKILL", "POOL_ELO", "SYSTEMS", "Games", "OpenSkill", "PoolElo", "Rated",
           "RatingSystem", "RatingTable", "SkillRow", "normal_interval", "rating_system", "register"]
