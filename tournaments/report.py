"""From game records to tables: pool ratings, head-to-head statistics, crosstable, PGN.

Everything here reads finished records; nothing knows about processes.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
from tabulate import tabulate

from referee.records.record import GameRecord, Termination

from .ratings import MIN_UNITS, Outcome, PoolRatings
from .stats import EloEstimate, elo_estimate, mean_interval
from .systems import POOL_ELO, Games, RatingTable


@attrs.frozen
class HeadToHead:
    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    estimate: EloEstimate
    pentanomial: tuple[int, ...] | None  # [LL, LD, WL+DD, WD, WW] for a, over complete duplicate pairs
    margin: float  # a's mean point margin per hand (per deal pair with duplicate deals)
    margin95: float
    faults: int  # games of this pairing that ended on a fault
    forfeit: str | None = None  # the bot whose faults ended every game of the pairing: it measures nothing


def _two_player(records: Sequence[GameRecord]) -> list[GameRecord]:
    return [r for r in records if len(r.seats) == 2 and len(r.result) == 2]


def units(records: Sequence[GameRecord]) -> list[list[Outcome]]:
    """Games grouped into resampling units: a duplicate pair (same entrants, same seed) is one unit."""
    groups: dict[tuple, list[Outcome]] = defaultdict(list)
    for r in _two_player(records):
        a, b = r.seats[0].entrant, r.seats[1].entrant
        groups[(tuple(sorted((a, b))), r.seed)].append(Outcome(a, b, r.result[0]))
    # a canonical order (not the order games finished in), so the bootstrap gives the same
    # intervals for the same games however they were scheduled or resumed
    return [sorted(groups[k], key=lambda o: (o.a, o.b, o.score)) for k in sorted(groups)]


def _pair_key(r: GameRecord) -> tuple:
    return (frozenset(s.entrant for s in r.seats), r.seed)


def head_to_head(records: Sequence[GameRecord], order: Sequence[str] = ()) -> list[HeadToHead]:
    """One row per pairing; with ``order`` (best first), each pairing is seen from its better-ranked bot."""
    rank = {name: i for i, name in enumerate(order)}
    by_pairing: dict[tuple[str, str], list[GameRecord]] = defaultdict(list)
    for r in _two_player(records):
        pairing = tuple(r.extra.get("pairing") or sorted(s.entrant for s in r.seats))
        if rank and rank.get(pairing[0], 0) > rank.get(pairing[1], 0):
            pairing = (pairing[1], pairing[0])
        by_pairing[pairing].append(r)
    rows = []
    for (a, b), games in sorted(by_pairing.items()):
        wdl = [0, 0, 0]  # losses, draws, wins for a
        per_pair: dict[tuple, list[GameRecord]] = defaultdict(list)
        faults = 0
        for r in games:
            seat = 0 if r.seats[0].entrant == a else 1
            wdl[int(r.result[seat] * 2)] += 1
            per_pair[_pair_key(r)].append(r)
            faults += r.termination is not Termination.COMPLETED
        penta = [0] * 5
        complete = 0
        margins: list[float] = []
        for pair in per_pair.values():
            swapped = len(pair) == 2 and pair[0].seats[0].entrant != pair[1].seats[0].entrant
            if swapped:
                complete += 1
                penta[int(sum(g.result[0 if g.seats[0].entrant == a else 1] for g in pair) * 2)] += 1
                margins.extend(_paired_margins(pair, a))
            else:
                for g in pair:
                    margins.extend(_hand_margins(g, a))
        use_penta = complete > 0 and complete * 2 == len(games)
        estimate = elo_estimate(penta if use_penta else [wdl[0], wdl[1], wdl[2]])
        margin, margin95 = mean_interval(margins)
        culprits = {r.seats[r.culprit].entrant if r.culprit is not None else None for r in games}
        forfeit = culprits.pop() if len(culprits) == 1 and None not in culprits else None
        rows.append(HeadToHead(a, b, len(games), wdl[2], wdl[1], wdl[0], estimate,
                               tuple(penta) if use_penta else None, margin, margin95, faults, forfeit))
    return rows


def _hand_margins(r: GameRecord, a: str) -> list[float]:
    seat = 0 if r.seats[0].entrant == a else 1
    return [h["points"][seat] - h["points"][1 - seat] for h in r.hands]


def _paired_margins(pair: list[GameRecord], a: str) -> list[float]:
    """Margins of the hands dealt from the same cards in both games of a pair, averaged per deal."""
    first, second = (_hand_margins(g, a) for g in pair)
    return [(x + y) / 2 for x, y in zip(first, second, strict=False)]


def crosstable(records: Sequence[GameRecord], players: Sequence[str]) -> list[list[str]]:
    score: dict[tuple[str, str], float] = defaultdict(float)
    games: dict[tuple[str, str], int] = defaultdict(int)
    for r in _two_player(records):
        a, b = r.seats[0].entrant, r.seats[1].entrant
        score[(a, b)] += r.result[0]
        score[(b, a)] += r.result[1]
        games[(a, b)] += 1
        games[(b, a)] += 1
    rows = []
    for p in players:
        row = [p]
        for q in players:
            row.append("" if p == q else (f"{score[(p, q)]:g}/{games[(p, q)]}" if games[(p, q)] else "-"))
        rows.append(row)
    return rows


@attrs.frozen
class Report:
    ratings: PoolRatings
    pairs: list[HeadToHead]
    cross: list[list[str]]
    games: int
    faults: dict[str, int]
    unit: str = "deal pairs"  # what the bootstrap resamples: "deal pairs", or "games" without duplicate deals


def analyse(records: Sequence[GameRecord], anchor: str | None = None, bootstrap: int = 300,
            level: float = 0.0) -> Report:
    """Everything the tables show. ``level``: the anchor's rating, or the pool average without one."""
    games = two_player_games(records)
    ratings = POOL_ELO.pool(games, anchor, level, bootstrap)
    faults: dict[str, int] = defaultdict(int)
    for r in records:
        if r.culprit is not None:
            faults[r.seats[r.culprit].entrant] += 1
    unit = games.unit
    return Report(ratings, head_to_head(records, ratings.players), crosstable(records, ratings.players), len(records),
                  dict(faults), unit)


def two_player_games(records: Sequence[GameRecord]) -> Games:
    """Two-player games as a rating system reads them: resampled by deal pair (by game without duplicate deals)."""
    rated = units(records)
    return Games(rated, unit="deal pairs" if any(len(u) > 1 for u in rated) else "games")


def ratings_rows(report: Report) -> list[list]:
    r = report.ratings
    return pool_rows(r, lambda p: [r.games[p], f"{r.scores[p]:g}", score_percent(r, p), report.faults.get(p, 0)])


def pool_rows(r: PoolRatings, columns: Callable[[str], list]) -> list[list]:
    """The rows of a pool ratings table, best first: rank, name, Elo and its interval, then ``columns(name)``."""
    return [[rank, p, *pool_cells(r, p), *columns(p)] for rank, p in zip(rank_labels(r), r.players, strict=True)]


def score_percent(r: PoolRatings, p: str) -> str:
    return f"{100 * r.scores[p] / r.games[p]:.1f}%"


TABLE_HEADERS = ["rank", "entrant", "rating", "95% interval", "results"]


def rating_table_rows(table: RatingTable) -> list[list]:
    """Any rating system's table (see :mod:`.systems`), best first; ``results``: the pairwise results or games
    it counted."""
    if table.scale == "Elo":
        return [[i, row.name, f"{row.rating:+.1f}", interval_text(*row.interval) if row.interval else "-", row.games]
                for i, row in enumerate(table.rows, 1)]
    return [[i, row.name, f"{row.rating:.2f}", f"[{row.interval[0]:.2f}, {row.interval[1]:.2f}]" if row.interval
             else "-", row.games] for i, row in enumerate(table.rows, 1)]


def rating_table_parts(table: RatingTable, title: str = "") -> list[Part]:
    """A rating system's table as ``ratings --system`` prints it."""
    return [*([title] if title else []), f"Ratings ({table.about})",
            Table([*TABLE_HEADERS[:2], table.scale, *TABLE_HEADERS[3:]], rating_table_rows(table))]


def write_table_files(table: RatingTable, directory: Path) -> list[Path]:
    """ratings.csv and ratings.json of a rating system's table in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    data = {"system": table.system, "about": table.about, "scale": table.scale,
            "ratings": [{"entrant": row.name, "rating": row.rating, "interval95": row.interval, "results": row.games}
                        for row in table.rows]}
    path = directory / "ratings.json"
    path.write_text(json.dumps(json_safe(data), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return [write_csv(directory / "ratings.csv", TABLE_HEADERS, rating_table_rows(table)), path]


def rank_labels(r: PoolRatings) -> list[str]:
    """Each player's rank (in the order of ``r.players``): within its group, named by a letter when there are
    several groups that never met (A1, A2, B1, ...), since nothing ranks one group against another."""
    if len(r.groups) <= 1:
        return [str(i) for i in range(1, len(r.players) + 1)]
    return [f"{_group_name(g)}{i}" for g, group in enumerate(r.groups) for i in range(1, len(group) + 1)]


def _group_name(index: int) -> str:
    return chr(ord("A") + index) if index < 26 else f"G{index + 1}."


def groups_note(r: PoolRatings) -> list[str]:
    """Said above a ratings table whose players form groups that never met."""
    if len(r.groups) <= 1:
        return []
    listed = "; ".join(f"{_group_name(g)}: {', '.join(group)}" for g, group in enumerate(r.groups))
    return [f"note: the entrants form {len(r.groups)} groups that never met, directly or through others ({listed}); "
            "each group is ranked and rated on its own, so ratings of different groups cannot be compared, and "
            "no LOS is given across groups"]


def interval_text(low: float, high: float) -> str:
    """A 95% interval as the tables show it: "[+12.0, +80.5]", an open end as inf ("[+95.4, +inf)"); an
    interval with no finite end says nothing: "-"."""
    if not (math.isfinite(low) or math.isfinite(high)):
        return "-"
    left = "(-inf" if low == -math.inf else f"[{low:+.1f}"
    right = "+inf)" if high == math.inf else f"{high:+.1f}]"
    return f"{left}, {right}"


def pool_cells(r: PoolRatings, p: str) -> tuple[str, str]:
    """A pool rating and its 95% percentile interval as the tables show them: a rating that only the prior makes
    finite marked "*" and without an interval (every resample sweeps too, so its spread would read as
    certainty); no bootstrap, too few units or no spread to measure: "-"; the anchor, fixed by definition."""
    elo = f"{r.ratings[p]:+.1f}" + ("*" if p in r.unbounded else "")
    if p in r.unbounded:
        return elo, "-"
    if p == r.anchor:
        return elo, "anchor"
    interval = r.intervals[p]
    return elo, interval_text(*interval) if interval else "-"


def prior_note(r: PoolRatings, what: str) -> list[str]:
    """The footnote for ratings that only the prior makes finite; ``what`` says what the marked entrants did."""
    if not r.unbounded:
        return []
    return [f"* {', '.join(r.unbounded)}: {what}, so no finite rating exists; the one shown comes from the virtual "
            "draws above and its interval is not shown (every resample sweeps too)"]


def bootstrap_notes(r: PoolRatings, unit: str) -> list[str]:
    """Why a pool interval or LOS is missing or open; ``unit`` names what the bootstrap resamples (plural)."""
    one = unit.removesuffix("s")
    notes = []
    if r.spread == "off":
        notes.append("No bootstrap (--bootstrap 0): the pool ratings have no intervals and no LOS.")
    if r.spread == "few":
        counted = f"1 {one} is" if r.units == 1 else f"{r.units} {unit} are"
        notes.append(f"{counted} too few for a bootstrap: a resample would be one {one} repeated throughout with a "
                     f"chance over 2.5%, so the pool ratings show no interval and no LOS of their own; they need "
                     f"{MIN_UNITS} {unit} or more.")
    if r.alike:
        notes.append(f"{', '.join(r.alike)}: every resample of the {r.units} {unit} gave the same rating (their "
                     f"{unit} all had the same results), so there is no spread to measure and no interval is shown.")
    if r.open_resamples:
        notes.append(f"In {100 * r.open_resamples:.0f}% of the resamples someone won or lost everything against the "
                     "rest, so no finite maximum exists there: those resamples count the ratings only their virtual "
                     "draws make finite as infinitely high or low, and an interval end they reach is open (inf).")
    return notes


RATINGS_HEADERS = ["rank", "bot", "Elo", "95% interval", "games", "score", "score %", "faults"]
PAIR_HEADERS = ["pairing", "games", "W-D-L", "score %", "Elo", "95% interval", "LOS", "nElo", "model", "margin/hand",
                "faults"]


def elo_cells(e: EloEstimate) -> tuple[str, str]:
    """An estimate's Elo and its 95% interval as the tables show them: a sweep, which has no finite Elo, as
    +inf (or -inf) and an interval open on that side ("[-153.5, +inf)": with three pairs, even a sweep does not
    rule out a weaker winner); no interval (one unit, or every unit alike) as "-"."""
    if e.sweep:
        won = e.score > 0.5
        return ("+inf" if won else "-inf"), interval_text(e.bound, math.inf) if won else interval_text(-math.inf, e.bound)
    return f"{e.elo:+.1f}", interval_text(e.low, e.high)


def margin_text(margin: float | None, margin95: float) -> str:
    """A mean margin per hand and its interval; one hand (or none) has no interval to show."""
    if margin is None:
        return "-"
    return f"{margin:+.1f}" + ("" if margin95 == math.inf else f" +/- {margin95:.1f}")


def elo_text(e: EloEstimate) -> str:
    """The same in a line: "Elo +35.2 [+15.1, +55.3]", "Elo +inf [+412.0, +inf)"."""
    elo, interval = elo_cells(e)
    return f"Elo {elo}" + ("" if interval == "-" else f" {interval}")


def los_text(value: float | None) -> str:
    """A LOS as head to head shows it; none (a forfeit, too few units): "-". Beyond 99.9% (or short of 0.1%) it
    says so, since a rounded 100.0% would claim a certainty no finite sample gives."""
    if value is None or math.isnan(value):
        return "-"
    if value > 0.999:
        return ">99.9%"
    if value < 0.001:
        return "<0.1%"
    return f"{100 * value:.1f}%"


def los_sources(report: Report) -> dict[tuple[str, str], tuple[float | None, str]]:
    """The LOS of ordered pairs of bots, for the head-to-head table and the LOS matrix alike: head to head
    ("met") where they met, with None for a forfeit, which measures nothing; the pool ratings' bootstrap
    ("pool") where they met only through others. Absent: not measured (too few units, different groups)."""
    los: dict[tuple[str, str], tuple[float | None, str]] = {pair: (value, "pool")
                                                             for pair, value in report.ratings.los.items()}
    for h in report.pairs:
        value = None if h.forfeit is not None or h.estimate.too_few else h.estimate.los
        los[(h.a, h.b)] = (value, "met")
        los[(h.b, h.a)] = (None if value is None else 1 - value, "met")
    return los


def pair_rows(report: Report) -> list[list]:
    los = los_sources(report)
    rows = []
    for h in report.pairs:
        e = h.estimate
        if h.forfeit is not None:  # every game ended on one bot's fault: a forfeit, not a measure of strength
            (elo, interval), nelo, margin = (f"forfeit by {h.forfeit}", "-"), "-", "-"
        else:  # a sweep has no finite estimate, and no spread for a normalized Elo
            elo, interval = elo_cells(e)
            nelo, margin = "-" if e.sweep else _nelo_text(h), margin_text(h.margin, h.margin95)
        value = los[(h.a, h.b)][0]
        rows.append([f"{h.a} vs {h.b}", h.games, f"{h.wins}-{h.draws}-{h.losses}", f"{100 * e.score:.1f}%", elo,
                     interval, los_text(value), nelo, e.model, margin, h.faults])
    return rows


def footnotes(report: Report) -> list[str]:
    """What a reader needs to read the tables right: bounds, forfeits, missing or open intervals, and why two
    intervals differ."""
    notes = prior_note(report.ratings, "won or lost every game against the rest of the pool (alone, or together "
                                       "with the others marked *)")
    notes += bootstrap_notes(report.ratings, report.unit)
    notes += [note for h in report.pairs for note in _pair_note(h)]
    estimates = [h.estimate for h in report.pairs if h.forfeit is None and not h.estimate.sweep]
    if any(e.has_interval and e.elo95 > 200 and not 0.01 < e.los < 0.99 for e in estimates):
        notes.append("A wide Elo interval beside a certain LOS is no contradiction: LOS and the interval come from "
                     "the score's interval, which Elo stretches near a score of 0% or 100%.")
    if any(e.has_interval and not (math.isfinite(e.low) and math.isfinite(e.high)) for e in estimates):
        notes.append("An interval end shown as inf is open: the score's interval passes 0% or 100% there, where "
                     "Elo has no finite value.")
    if report.pairs:
        notes.append("Head to head uses one pairing's games alone (normal approximation; pentanomial over duplicate "
                     "pairs); the pool ratings fit every game together, with a bootstrap, so the difference of two "
                     "pool ratings and its interval can differ from that pairing's own.")
    return notes


def _pair_note(h: HeadToHead) -> list[str]:
    """A pairing's own footnote: a forfeit, a sweep's bound, or why it has no interval."""
    unit = "pair" if h.pentanomial is not None else "game"
    n = h.estimate.games / (2 if unit == "pair" else 1)
    units = f"{n:g} {unit}{'s' if n != 1 else ''}"
    if h.forfeit is not None:
        return [f"{h.a} vs {h.b}: every game ended on a fault of {h.forfeit} (see faults); they count as its losses "
                "in the ratings, but measure nothing about its play (no margin, no LOS)"]
    if h.estimate.sweep:
        return [f"{h.a} vs {h.b}: {h.a} {'won' if h.estimate.score > 0.5 else 'lost'} every {unit}, so no finite Elo "
                f"exists; its 95% interval is open on that side (Clopper-Pearson over {units}), and LOS is "
                "1 - 0.5^(n+1) (a uniform prior)"]
    if h.estimate.too_few:
        return [f"{h.a} vs {h.b}: {units} {'is' if n == 1 else 'are'} too few for an interval or a LOS (they need "
                f"{MIN_UNITS} {unit}s or more)"]
    if not h.estimate.has_interval:
        los = "" if h.estimate.score == 0.5 else "; LOS is 1 - 0.5^(n+1), as for a sweep of units (a uniform prior)"
        return [f"{h.a} vs {h.b}: all {units} had the same result, so there is no spread to measure and no interval "
                f"(the normal approximation would have only its empty cells' tiny regularisation to go by){los}"]
    return []


def _nelo_text(h: HeadToHead) -> str:
    if not math.isfinite(h.estimate.nelo95):
        return "-"  # every unit has the same result, or too few units: no spread, so no normalized Elo
    return f"{h.estimate.nelo:+.1f} +/- {h.estimate.nelo95:.1f}"


def los_rows(report: Report) -> list[list[str]]:
    """The LOS matrix, from the same source as head to head (see los_sources); a pool figure in parentheses."""
    r = report.ratings
    los = los_sources(report)

    def cell(p: str, q: str) -> str:
        if p == q:
            return ""
        value, source = los.get((p, q), (None, ""))
        if value is None:
            return "-"
        return f"{100 * value:.0f}" if source == "met" else f"({100 * value:.0f})"

    return [[p] + [cell(p, q) for q in r.players] for p in r.players]


def los_heading(report: Report) -> str:
    through = any(source == "pool" for _, source in los_sources(report).values())
    return ("\nLikelihood of superiority, % (row bot stronger than column bot; where they met, their head-to-head "
            "LOS" + ("; in parentheses, where they met only through others, from the pool ratings' bootstrap)"
                     if through else ")"))


@attrs.frozen
class Table:
    """A table of a report, as the terminal and the HTML report both show it."""

    headers: list[str]
    rows: list[list]


Part = str | Table  # a report is a list of paragraphs and tables


def as_text(parts: Sequence[Part]) -> str:
    """A report for the terminal: paragraphs as lines, tables in GitHub's Markdown."""
    return "\n".join(p if isinstance(p, str) else tabulate(p.rows, headers=p.headers, tablefmt="github",
                                                           disable_numparse=True) for p in parts)


def render(report: Report, title: str = "") -> str:
    return as_text(report_parts(report, title))


def report_parts(report: Report, title: str = "") -> list[Part]:
    """The ratings, head to head, footnotes, crosstable and LOS of two-player games."""
    r = report.ratings
    parts: list[Part] = [title] if title else []
    anchor = f"anchor {r.anchor} = {r.level:g}" if r.anchor else f"pool average {r.level:g}"
    parts.append(f"Ratings ({report.games} games; maximum likelihood, logistic Elo, {anchor}; "
                 f"95% intervals: percentiles of a bootstrap over {report.unit})")
    if r.prior:
        parts.append("note: a bot (or a group of bots) won or lost every game against the rest, so no finite "
                     "maximum exists; one virtual draw per pairing was added (as BayesElo does) to give finite "
                     "ratings")
    parts += groups_note(r)
    parts.append(Table(RATINGS_HEADERS, ratings_rows(report)))
    parts.append("\nHead to head (from the better-rated bot's side)")
    parts.append(Table(PAIR_HEADERS, pair_rows(report)))
    parts.extend(footnotes(report))
    parts.append("\nCrosstable (row bot's score against column bot)")
    parts.append(Table(["bot", *r.players], report.cross))
    rows = los_rows(report)
    if any(cell not in ("", "-") for row in rows for cell in row[1:]):  # a matrix of "-" would say nothing
        parts.append(los_heading(report))
        parts.append(Table(["bot", *r.players], rows))
    return parts


def write_files(report: Report, directory: Path) -> list[Path]:
    """ratings.csv, headtohead.csv, crosstable.csv and ratings.json in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []

    def table(name: str, headers: list[str], rows: list[list]) -> None:
        written.append(write_csv(directory / name, headers, rows))

    table("ratings.csv", RATINGS_HEADERS, ratings_rows(report))
    table("headtohead.csv", PAIR_HEADERS, pair_rows(report))
    table("crosstable.csv", ["bot", *report.ratings.players], report.cross)
    r = report.ratings
    los = los_sources(report)
    data = {
        "games": report.games,
        "anchor": r.anchor,
        "level": r.level,
        "bootstrap_unit": report.unit,
        "prior_virtual_draws": r.prior,
        "swept": list(r.unbounded),  # won or lost every game against the rest: their ratings are bounds
        "ratings": [{"bot": p, "elo": r.ratings[p], "interval95": pool_interval(r, p), "games": r.games[p],
                     "score": r.scores[p], "faults": report.faults.get(p, 0)} for p in r.players],
        "groups": [list(g) for g in r.groups],
        "los": {p: {q: los.get((p, q), (None, ""))[0] for q in r.players if q != p} for p in r.players},
        "head_to_head": [pair_json(h, los[(h.a, h.b)][0]) for h in report.pairs],
    }
    path = directory / "ratings.json"
    path.write_text(json.dumps(json_safe(data), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    written.append(path)
    return written


def pool_interval(r: PoolRatings, p: str) -> list[float] | None:
    """A pool rating's 95% interval for JSON: [low, high] (an open end: null), or null when it has none."""
    interval = r.intervals[p]
    return None if p in r.unbounded or interval is None else list(interval)


def pair_json(h: HeadToHead, los: float | None) -> dict:
    e = h.estimate
    return {"a": h.a, "b": h.b, "games": h.games, "wins": h.wins, "draws": h.draws, "losses": h.losses,
            "score": e.score, "elo": None if e.sweep else e.elo, "interval95": [e.low, e.high] if e.has_interval
            else None, "elo95": e.elo95, "los": los, "nelo": e.nelo, "nelo95": e.nelo95,
            "sweep_bound": e.bound if e.sweep else None, "forfeit": h.forfeit, "model": e.model,
            "pentanomial": h.pentanomial, "margin": None if h.forfeit else h.margin, "margin95": h.margin95,
            "faults": h.faults}


def write_csv(path: Path, headers: list[str], rows: list[list]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(headers)
        w.writerows(rows)
    return path


def json_safe(value):
    """JSON has no infinity: undefined intervals (a single deal pair, say) become null."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def to_pgn(records: Sequence[GameRecord], event: str | None = None) -> str:
    """Results as PGN (seat 0 as White), for cross-checking in Ordo or BayesElo; the Event tag is ``event`` (the
    tournament's name), else "pinochle-arena VARIANT"."""
    out = []
    for i, r in enumerate(_two_player(records), 1):
        result = {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}[r.result[0]]
        pair = r.extra.get("pair", i)
        name = _pgn_text(event or f"pinochle-arena {r.variant}")
        out.append(
            f'[Event "{name}"]\n[Site "pinochle-arena"]\n[Round "{pair}"]\n'
            f'[White "{r.seats[0].entrant}"]\n[Black "{r.seats[1].entrant}"]\n[Result "{result}"]\n'
            f'[GameId "{r.game_id}"]\n[Termination "{r.termination.value}"]\n\n{result}\n'
        )
    return "\n".join(out)


def _pgn_text(text: str) -> str:
    """A PGN tag's value: backslash and quote escaped, on one line."""
    return " ".join(text.replace("\\", "\\\\").replace('"', '\\"').split())
