"""Boards: one deal played as one hand in every seating of the table, as duplicate bridge scores it.

A whole game to 1000 is a poor unit for telling two bots apart: it spans
several hands, only its win or loss counts, and whoever holds the cards
usually wins it. A *board* is one deal played as a single hand
(``max-hands=1``) in every seating of the table (two seatings for two
players, the rotations or orders for three to five, both directions for
partnerships), so every contestant holds every seat's cards equally often.

A board is scored for each pair of contestants X and Y at the table by
their **margin**: the mean points per hand X scored on the board minus Y's.
The same cards were held by both, so what is left is play. Ratings and the
SPRT use a bounded transform of the margin, as bridge turns points into
IMPs, so that one wild hand cannot outweigh many quiet ones::

    score(X, Y) = 1 / (1 + 10 ** (-margin / S))

with S a tenth of the trick points of one hand of the variant (25 in the
classic two-handed game, 2.5 in the unit-scale games): a margin of S is
worth 10:1, a margin of 0 is 0.5, and score(Y, X) = 1 - score(X, Y). On
this scale a board score is an expected score in the Elo sense, so ratings
are logistic Elo like those of whole games (of boards, not of games).

S was chosen by measurement (bench/boards_vs_games.py): margins have heavy
tails (a meld or a set swings a hand), so a transform close to the sign of
the margin tells bots apart with fewer boards than one close to the margin
itself. On 3,000 boards of greedy against greedy with 5% random moves the
signal per board (effect over spread) was 0.13 for the raw margin, 0.18
with S = 25 and 0.18 for the sign alone; with 15% random moves, 0.25, 0.25
and 0.23 (an earlier run of 1,500 boards: S = 250 0.15, S = 50 0.18). S =
25 is within 1% of the best choice for both pairs, and still ranks a big
win above a narrow one.

The transform is applied to the board's margin as a whole. Scoring each
holding apart (X with one seat's cards against Y with the same cards, as
pairs bridge compares every pair that held a hand) was measured and not
taken. On boards of greedy against greedy with random moves it told the
bots apart with 8-9% more signal per board in the classic two-handed game
(12,000 boards each with 5% and 15%), but with 15% it had 12% less in
Hoyle's two-handed game (3,000 boards), and from as much (two-handed-150)
to 22% less (four-handed) in every other preset (500 boards each): a gain
in one variant's rules, not a better way to score boards.

A board on which a game ended on a fault is lost by the culprit's side
against every other contestant (score 0, no margin); the others draw among
themselves (sides with as many faults on the board as the worst one count
as culprits together, and draw with each other). A board missing some of its seatings (a run stopped in the
middle of it) is left out, since its cards were not held alike.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import attrs

from referee.records.record import GameRecord, Termination
from referee.rules import Variant, get_variant

from .ratings import Outcome, PoolRatings
from .report import (
    Part,
    Table,
    as_text,
    bootstrap_notes,
    elo_cells,
    groups_note,
    json_safe,
    los_text,
    margin_text,
    pool_interval,
    pool_rows,
    prior_note,
    score_percent,
    write_csv,
)
from .stats import MIN_UNITS, EloEstimate, bounded_estimate, mean_interval
from .systems import POOL_ELO, Games


def scale_of(variant: Variant) -> float:
    """S: a tenth of the trick points of one hand of the variant."""
    return variant.trick_points_per_hand / 10


def board_scale(records: Sequence[GameRecord]) -> float:
    """S of the records' variant."""
    first = records[0]
    return scale_of(get_variant(first.variant, first.options))


def board_score(margin: float, scale: float) -> float:
    """The bounded transform of a margin (points per hand on the same cards) into a score in [0, 1]."""
    return 1 / (1 + 10 ** (-margin / scale))


def is_board(record: GameRecord) -> bool:
    return bool(record.extra.get("board"))


def sides_of(record: GameRecord) -> list[str]:
    """The contestant each seat plays for: a team, or the bot itself."""
    return list(record.extra.get("sides") or [s.entrant for s in record.seats])


@attrs.frozen
class Board:
    table: tuple[str, ...]  # the contestants, sorted
    number: int  # the board's number in its run (and pairing)
    games: int
    points: dict[str, float]  # mean points per hand of each contestant over the board's games
    culprits: tuple[str, ...] = ()  # the contestants with the most faults on the board's games (a tie: several)

    def margin(self, a: str, b: str) -> float | None:
        return None if self.culprits else self.points[a] - self.points[b]

    def score(self, a: str, b: str, scale: float) -> float:
        if self.culprits:
            return 0.5 if (a in self.culprits) == (b in self.culprits) else 0.0 if a in self.culprits else 1.0
        return board_score(self.points[a] - self.points[b], scale)


def boards_of(records: Sequence[GameRecord]) -> tuple[list[Board], int]:
    """The boards of ``records`` (games with ``extra["board"]``, their board's number at their table), in a
    canonical order, and how many were left out because some of their seatings are missing."""
    groups: dict[tuple, list[GameRecord]] = defaultdict(list)
    for r in records:
        if is_board(r):
            groups[(tuple(sorted(set(sides_of(r)))), r.extra["board"])].append(r)
    boards, incomplete = [], 0
    for (table, number), games in sorted(groups.items()):
        if not _balanced(games, table):
            incomplete += 1
            continue
        boards.append(Board(table, number, len(games), _mean_points(games, table), _culprits(games)))
    return boards, incomplete


def _culprits(games: list[GameRecord]) -> tuple[str, ...]:
    """The sides with the most faults on a board's games, whatever order the games finished in."""
    faults: dict[str, int] = defaultdict(int)
    for g in games:
        if g.termination is not Termination.COMPLETED and g.culprit is not None:
            faults[sides_of(g)[g.culprit]] += 1
    most = max(faults.values(), default=0)
    return tuple(sorted(side for side, n in faults.items() if n == most)) if most else ()


def _balanced(games: list[GameRecord], table: tuple[str, ...]) -> bool:
    """Every contestant held every seat's cards equally often (a team: through either of its players)."""
    seats = len(games[0].seats)
    held = {(side, seat): 0 for side in table for seat in range(seats)}
    for g in games:
        for seat, side in enumerate(sides_of(g)):
            held[(side, seat)] += 1
    return len(games) > 1 and len(set(held.values())) == 1


def _mean_points(games: list[GameRecord], table: tuple[str, ...]) -> dict[str, float]:
    """Each contestant's mean points per hand on the board (a team: its seats' points, which partners share)."""
    total: dict[str, float] = defaultdict(float)
    for g in games:
        points = g.hands[0]["points"] if g.hands else [0] * len(g.seats)
        sides = sides_of(g)
        for side in table:
            seats = [s for s, x in enumerate(sides) if x == side]
            total[side] += sum(points[s] for s in seats) / len(seats)
    return {side: total[side] / len(games) for side in table}


@attrs.frozen
class BoardHeadToHead:
    a: str
    b: str
    boards: int
    wins: int  # boards a won on margin (faults included)
    draws: int
    losses: int
    estimate: EloEstimate  # from the board scores
    margin: float | None  # a's mean margin per hand (None: every board was decided by a fault)
    margin95: float
    faults: int  # boards decided by a fault


@attrs.frozen
class BoardReport:
    ratings: PoolRatings
    pairs: list[BoardHeadToHead]
    boards: int
    games: int
    scale: float
    incomplete: int
    played: dict[str, int] = attrs.Factory(dict)  # boards each contestant played


def board_units(boards: Sequence[Board], scale: float) -> list[list[Outcome]]:
    """One resampling unit per board: a score for every pair of contestants at its table."""
    return [[Outcome(a, b, board.score(a, b, scale)) for a, b in itertools.combinations(board.table, 2)]
            for board in boards]


def analyse_boards(records: Sequence[GameRecord], anchor: str | None = None, bootstrap: int = 300,
                   level: float = 0.0) -> BoardReport:
    boards, incomplete = boards_of(records)
    if not boards:
        raise ValueError("no complete boards to rate")
    scale = board_scale(records)
    ratings = POOL_ELO.pool(Games(board_units(boards, scale), unit="boards"), anchor, level, bootstrap)
    rank = {name: i for i, name in enumerate(ratings.players)}
    by_pair: dict[tuple[str, str], list[Board]] = defaultdict(list)
    for board in boards:
        for a, b in itertools.combinations(sorted(board.table, key=lambda x: rank[x]), 2):
            by_pair[(a, b)].append(board)
    pairs = []
    for (a, b), played in sorted(by_pair.items(), key=lambda item: (rank[item[0][0]], rank[item[0][1]])):
        scores = [board.score(a, b, scale) for board in played]
        margins = [m for m in (board.margin(a, b) for board in played) if m is not None]
        wins = sum(1 for x in scores if x > 0.5)
        losses = sum(1 for x in scores if x < 0.5)
        margin, margin95 = mean_interval(margins) if margins else (None, math.inf)
        pairs.append(BoardHeadToHead(a, b, len(played), wins, len(played) - wins - losses, losses,
                                     bounded_estimate(scores), margin, margin95,
                                     sum(1 for board in played if board.culprits)))
    boards_played = {p: sum(1 for board in boards if p in board.table) for p in ratings.players}
    return BoardReport(ratings, pairs, len(boards), sum(board.games for board in boards), scale, incomplete, boards_played)


BOARD_RATING_HEADERS = ["rank", "entrant", "Elo", "95% interval", "boards", "score %"]
BOARD_PAIR_HEADERS = ["pairing", "boards", "W-D-L", "score %", "Elo", "95% interval", "LOS", "margin/hand", "faults"]


def board_rating_rows(report: BoardReport) -> list[list]:
    r = report.ratings
    return pool_rows(r, lambda p: [report.played[p], score_percent(r, p)])


def board_pair_rows(report: BoardReport) -> list[list]:
    rows = []
    for h in report.pairs:
        e = h.estimate
        elo, err = elo_cells(e)
        rows.append([f"{h.a} vs {h.b}", h.boards, f"{h.wins}-{h.draws}-{h.losses}", f"{100 * e.score:.1f}%",
                     elo, err, los_text(e.los), margin_text(h.margin, h.margin95), h.faults])
    return rows


def render_boards(report: BoardReport, title: str = "") -> str:
    return as_text(board_parts(report, title))


def board_parts(report: BoardReport, title: str = "") -> list[Part]:
    """The board ratings and head to head by board."""
    r = report.ratings
    anchor = f"anchor {r.anchor} = {r.level:g}" if r.anchor else f"pool average {r.level:g}"
    parts: list[Part] = [title] if title else []
    parts.append(f"Board ratings ({report.boards} boards, {report.games} hands; a board scores "
                 f"1 / (1 + 10^(-margin/{report.scale:g})) for each pair at its table; maximum likelihood, logistic "
                 f"Elo, {anchor}; 95% intervals: percentiles of a bootstrap over boards)")
    if r.prior:
        parts.append("note: an entrant (or a group) scored above (or below) the rest on every board, so no finite "
                     "maximum exists; one virtual draw per pairing was added to give finite ratings")
    parts += groups_note(r)
    parts.append(Table(BOARD_RATING_HEADERS, board_rating_rows(report)))
    parts += prior_note(r, "scored above or below the rest on every board (alone, or together with the others "
                           "marked *)")
    parts += bootstrap_notes(r, "boards")
    parts.append("\nHead to head by board (from the better-rated side; margin: mean points per hand over the other "
                 "on the same cards)")
    parts.append(Table(BOARD_PAIR_HEADERS, board_pair_rows(report)))
    if report.incomplete:
        parts.append(f"{report.incomplete} board(s) missing some of their seatings were left out (their cards "
                     "were not held alike)")
    if any(h.faults for h in report.pairs):
        parts.append("A board with a fault is lost by the culprit's side (score 0, no margin).")
    parts += [note for h in report.pairs for note in _board_pair_note(h)]
    if any(h.estimate.has_interval and not math.isfinite(h.estimate.high - h.estimate.low) for h in report.pairs):
        parts.append("An interval end shown as inf is open: the board score's interval passes 0 or 1 there, where "
                     "Elo has no finite value.")
    return parts


def _board_pair_note(h: BoardHeadToHead) -> list[str]:
    """A sweep's bound, or why a pairing has no interval."""
    n = h.boards
    boards = f"{n} board{'s' if n != 1 else ''}"
    if h.estimate.sweep:
        return [f"{h.a} vs {h.b}: every board scored {1 if h.estimate.score > 0.5 else 0} (lost on a fault, or by a "
                "margin too wide to score otherwise), so no finite Elo exists; shown is the bound of the 95% "
                f"interval (Clopper-Pearson over {boards}){_alike_los_note(h)}"]
    if h.estimate.too_few:
        return [f"{h.a} vs {h.b}: {boards} {'is' if n == 1 else 'are'} too few for an interval or a LOS (they need "
                f"{MIN_UNITS} boards or more)"]
    if not h.estimate.has_interval:
        alike = "one board is one score" if n == 1 else f"all {boards} scored the same"
        return [f"{h.a} vs {h.b}: {alike}, so there is no spread to measure and no interval{_alike_los_note(h)}"]
    return []


def _alike_los_note(h: BoardHeadToHead) -> str:
    """What the LOS of boards that all scored alike rests on: their count alone (a uniform prior on the chance of
    winning a board, as for a sweep), so one board gives 75% whatever its margin."""
    if h.estimate.score == 0.5:
        return ""
    deals = "that one deal" if h.boards == 1 else f"those {h.boards} deals"
    formula, way = ("1 - 0.5^(n+1)", "won") if h.estimate.score > 0.5 else ("0.5^(n+1)", "lost")
    return (f"; its LOS of {los_text(h.estimate.los)} rests on {deals} alone: {formula} for n boards {way} alike "
            "(a uniform prior on the chance of winning a board), whatever the margin")


def write_board_files(report: BoardReport, directory: Path) -> list[Path]:
    """ratings.csv, headtohead.csv and ratings.json of a board report in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = [write_csv(directory / "ratings.csv", BOARD_RATING_HEADERS, board_rating_rows(report)),
               write_csv(directory / "headtohead.csv", BOARD_PAIR_HEADERS, board_pair_rows(report))]
    path = directory / "ratings.json"
    path.write_text(json.dumps(json_safe(board_json(report)), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return [*written, path]


def board_json(report: BoardReport) -> dict:
    r = report.ratings
    return {
        "unit": "board",
        "boards": report.boards,
        "hands": report.games,
        "scale": report.scale,
        "incomplete_boards": report.incomplete,
        "anchor": r.anchor,
        "level": r.level,
        "prior_virtual_draws": r.prior,
        "unbounded": list(r.unbounded),  # ratings that only the virtual draws make finite: bounds
        "groups": [list(g) for g in r.groups],
        "ratings": [{"entrant": p, "elo": r.ratings[p], "interval95": pool_interval(r, p),
                     "boards": report.played[p],
                     "score": r.scores[p] / r.games[p]} for p in r.players],
        "head_to_head": [{"a": h.a, "b": h.b, "boards": h.boards, "wins": h.wins, "draws": h.draws,
                          "losses": h.losses, "score": h.estimate.score,
                          "elo": None if h.estimate.sweep else h.estimate.elo,
                          "sweep_bound": h.estimate.bound if h.estimate.sweep else None,
                          "interval95": [h.estimate.low, h.estimate.high] if h.estimate.has_interval else None,
                          "elo95": h.estimate.elo95, "los": h.estimate.los, "margin": h.margin,
                          "margin95": h.margin95, "faults": h.faults} for h in report.pairs],
    }
