"""Ratings for games of three to five seats and for partnerships.

Each game gives a finishing order of its *sides* (a bot, or a team): by the
game's result, then by final total. Two ratings come from those orders:

* **openskill** (Weng-Lin's Plackett-Luce model, the ``openskill`` library):
  a Bayesian rating for finishing orders and teams, mu and sigma per side,
  and, for partnerships, per individual bot from the teams it played in;
* **pairwise Elo**: every game is split into one result per pair of sides
  (ahead 1, level 1/2, behind 0) and rated with the pool maximum-likelihood
  model of :mod:`.ratings`; its intervals and LOS come from a bootstrap over
  deals (all games dealt from the same cards at one table resampled together),
  not from the naive count of pairs, which are not independent.

Both models are rating systems of :mod:`.systems` (``openskill`` and
``elo``); this module turns records into what they read and shows their tables.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence

import attrs

from referee.records.record import GameRecord

from .ratings import Outcome, PoolRatings
from .report import (
    Part,
    Table,
    as_text,
    bootstrap_notes,
    groups_note,
    json_safe,
    pool_interval,
    pool_rows,
    prior_note,
    score_percent,
)
from .systems import OPEN_SKILL, POOL_ELO, Games, Order, SkillRow


def sides_of(record: GameRecord) -> list[str]:
    """The contestant each seat plays for (a team, or the bot itself)."""
    sides = record.extra.get("sides")
    return list(sides) if sides else [s.entrant for s in record.seats]


def finishing_order(record: GameRecord) -> list[tuple[str, int]]:
    """(side, place) with place 1 for the first; level sides share a place."""
    sides = sides_of(record)
    best: dict[str, tuple[float, int]] = {}
    for seat, side in enumerate(sides):
        key = (record.result[seat], record.totals[seat] if seat < len(record.totals) else 0)
        best[side] = max(best.get(side, key), key)
    ranked = sorted(best.items(), key=lambda kv: kv[1], reverse=True)
    places: list[tuple[str, int]] = []
    for i, (side, key) in enumerate(ranked):
        place = places[-1][1] if i and key == ranked[i - 1][1] else i + 1
        places.append((side, place))
    return places


def is_multi(records: Sequence[GameRecord]) -> bool:
    return any(len(r.seats) > 2 for r in records)


def game_order(game_id: str) -> tuple:
    """A game id's place in play order, its numbers compared as numbers: g2 before g10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", game_id) if part)


def openskill_ratings(records: Sequence[GameRecord], individual: bool = False) -> list[SkillRow]:
    """Plackett-Luce ratings (the ``openskill`` system) from the finishing orders, games taken in game-id order.

    ``individual``: rate the bots behind the seats (team members by their bot), with each
    side as a team of its seats' bots.
    """
    games = [[(_members(r, side) if individual else (side,), place) for side, place in finishing_order(r)]
             for r in sorted(records, key=lambda rec: game_order(rec.game_id))]  # play order: each update moves the next
    return OPEN_SKILL.skill(games)


def _members(record: GameRecord, side: str) -> tuple[str, ...]:
    """The bots behind a side's seats, each once."""
    sides = sides_of(record)
    bots = record.extra.get("bots") or [seat.entrant for seat in record.seats]
    return tuple(dict.fromkeys(bots[s] for s in range(len(sides)) if sides[s] == side))


def play_orders(records: Sequence[GameRecord]) -> tuple[Order, ...]:
    """Each game's finishing order of its sides, in play order (what ``openskill`` reads)."""
    return tuple(tuple(finishing_order(r)) for r in sorted(records, key=lambda rec: game_order(rec.game_id)))


def pairwise_units(records: Sequence[GameRecord]) -> list[list[Outcome]]:
    """Each game as pairwise results between its sides, grouped by deal (table and seed)."""
    groups: dict[tuple, list[Outcome]] = defaultdict(list)
    for r in records:
        order = finishing_order(r)
        table = tuple(sorted(side for side, _ in order))
        for i, (a, pa) in enumerate(order):
            for b, pb in order[i + 1:]:
                groups[(table, r.seed)].append(Outcome(a, b, 1.0 if pa < pb else 0.5 if pa == pb else 0.0))
    return [sorted(groups[k], key=lambda o: (o.a, o.b, o.score)) for k in sorted(groups)]


def pairwise_elo(records: Sequence[GameRecord], anchor: str | None = None, bootstrap: int = 300,
                 level: float = 0.0) -> PoolRatings:
    return POOL_ELO.pool(Games(pairwise_units(records), unit="deals"), anchor, level, bootstrap)


def individual_outcomes(records: Sequence[GameRecord]) -> list[Outcome]:
    """Pairwise results between the bots behind the seats, for bots on different sides of a game."""
    out = []
    for r in records:
        place = dict(finishing_order(r))
        sides = sides_of(r)
        bots = r.extra.get("bots") or [seat.entrant for seat in r.seats]
        for i in range(len(bots)):
            for j in range(i + 1, len(bots)):
                if sides[i] != sides[j] and bots[i] != bots[j]:
                    pi, pj = place[sides[i]], place[sides[j]]
                    out.append(Outcome(bots[i], bots[j], 1.0 if pi < pj else 0.5 if pi == pj else 0.0))
    return out


def pairwise_crosstable(records: Sequence[GameRecord], players: Sequence[str], individual: bool = False) -> list[list[str]]:
    score: dict[tuple[str, str], float] = defaultdict(float)
    count: dict[tuple[str, str], int] = defaultdict(int)
    outcomes = individual_outcomes(records) if individual else [o for unit in pairwise_units(records) for o in unit]
    for o in outcomes:
        score[(o.a, o.b)] += o.score
        score[(o.b, o.a)] += 1 - o.score
        count[(o.a, o.b)] += 1
        count[(o.b, o.a)] += 1
    return [[p] + ["" if p == q else (f"{score[(p, q)]:g}/{count[(p, q)]}" if count[(p, q)] else "-") for q in players]
            for p in players]


@attrs.frozen
class MultiReport:
    skill: list[SkillRow]
    individual: list[SkillRow]  # partnerships: the bots behind the teams; else empty
    individual_cross: list[list[str]]
    elo: PoolRatings
    cross: list[list[str]]
    games: int
    faults: dict[str, int]


def analyse_multi(records: Sequence[GameRecord], anchor: str | None = None, bootstrap: int = 300,
                  level: float = 0.0) -> MultiReport:
    teams = any(len(set(sides_of(r))) < len(r.seats) for r in records)
    elo = pairwise_elo(records, anchor=anchor, bootstrap=bootstrap, level=level)
    faults: dict[str, int] = defaultdict(int)
    for r in records:
        if r.culprit is not None:
            faults[sides_of(r)[r.culprit]] += 1
    individual = openskill_ratings(records, individual=True) if teams else []
    cross = pairwise_crosstable(records, [row.name for row in individual], individual=True) if teams else []
    return MultiReport(openskill_ratings(records), individual, cross, elo, pairwise_crosstable(records, elo.players),
                       len(records), dict(faults))


def render_multi(report: MultiReport, title: str = "") -> str:
    return as_text(multi_parts(report, title))


def multi_parts(report: MultiReport, title: str = "") -> list[Part]:
    """The openskill ratings, the individual bots of teams, pairwise Elo, crosstable and LOS."""
    parts: list[Part] = [title] if title else []
    parts.append(f"Multi-player ratings ({report.games} games; openskill Plackett-Luce on finishing orders; "
                 "ordinal = mu - 3 sigma)")
    rows = skill_rows(report.skill, lambda r: [r.wins, f"{r.mean_place:.2f}", report.faults.get(r.name, 0)])
    parts.append(Table(["rank", "entrant", "mu", "sigma", "ordinal", "games", "firsts", "mean place", "faults"], rows))
    if report.individual:
        parts.append("\nIndividual bots (openskill, each team rated as its two bots)")
        parts.append(Table(["rank", "bot", "mu", "sigma", "ordinal", "games"],
                           skill_rows(report.individual, lambda r: [])))
        parts.append("\nIndividual crosstable (row bot's side finishing ahead of column bot's side, when they were "
                     "opponents)")
        parts.append(Table(["bot", *[r.name for r in report.individual]], report.individual_cross))
    return parts + pairwise_parts(report.elo, report.cross)


def skill_rows(rows: Sequence[SkillRow], columns: Callable[[SkillRow], list]) -> list[list]:
    """The rows of an openskill table, best first: rank, name, mu, sigma, ordinal, games, then ``columns(row)``."""
    return [[i, r.name, f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}", r.games, *columns(r)]
            for i, r in enumerate(rows, 1)]


def pairwise_parts(e: PoolRatings, cross: list[list[str]]) -> list[Part]:
    """Pairwise Elo, its notes, the crosstable, and the LOS matrix when the bootstrap measured any LOS."""
    level = f"anchor {e.anchor} = {e.level:g}" if e.anchor else f"pool average {e.level:g}"
    parts: list[Part] = [f"\nPairwise Elo (each game split into results between its sides; {level}; 95% intervals: "
                         "percentiles of a bootstrap over deals)"]
    if e.prior:
        parts.append("note: an entrant (or a group) finished ahead of (or behind) the rest every time; one virtual "
                     "draw per pairing was added to give finite ratings")
    parts += groups_note(e)
    parts.append(Table(["rank", "entrant", "Elo", "95% interval", "pairs", "ahead %"],
                       pool_rows(e, lambda p: [e.games[p], score_percent(e, p)])))
    parts += prior_note(e, "finished ahead of or behind the rest every time (alone, or together with the others "
                           "marked *)")
    parts += bootstrap_notes(e, "deals")
    parts.append("\nCrosstable (row entrant finishing ahead of column entrant, per game they shared)")
    parts.append(Table(["entrant", *e.players], cross))
    if e.los:  # none without a bootstrap, or with too few deals: a matrix of "-" would say nothing
        los = [[p] + ["" if p == q else f"{100 * e.los[(p, q)]:.0f}" if (p, q) in e.los else "-" for q in e.players]
               for p in e.players]
        parts.append("\nLikelihood of superiority, % (pairwise Elo, from its bootstrap)")
        parts.append(Table(["entrant", *e.players], los))
    return parts


def write_multi_files(report: MultiReport, directory) -> list:
    import csv
    import json
    from pathlib import Path

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "openskill.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["entrant", "mu", "sigma", "ordinal", "games", "firsts", "mean_place"])
        for r in report.skill:
            w.writerow([r.name, r.mu, r.sigma, r.ordinal, r.games, r.wins, r.mean_place])
    e = report.elo
    data = {
        "games": report.games,
        "openskill": [attrs.asdict(r) | {"ordinal": r.ordinal} for r in report.skill],
        "individual": [attrs.asdict(r) | {"ordinal": r.ordinal} for r in report.individual],
        "pairwise_elo": [{"entrant": p, "elo": e.ratings[p], "interval95": pool_interval(e, p), "pairs": e.games[p],
                          "score": e.scores[p], "bound": p in e.unbounded} for p in e.players],
        "pairwise_groups": [list(g) for g in e.groups],
        "faults": report.faults,
    }
    jpath = directory / "ratings.json"
    jpath.write_text(json.dumps(json_safe(data), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return [path, jpath]
