"""Any results, summarised the way that fits them: boards, games of three or more seats, or two-player games.

The command line prints a summary's parts as text and writes its files; the
HTML report (:mod:`viewer.report`) shows the same parts as HTML tables.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from referee.records.record import GameRecord

from .boards import BoardReport, analyse_boards, board_parts, board_scale, board_units, boards_of, is_board, write_board_files
from .multi import MultiReport, analyse_multi, is_multi, multi_parts, pairwise_units, play_orders, write_multi_files
from .report import Part, Report, analyse, report_parts, two_player_games, write_files
from .systems import Games, RatingTable, rating_system


@attrs.frozen
class Summary:
    report: Report | MultiReport | BoardReport
    _parts: Callable[..., list[Part]]
    _write: Callable[..., list[Path]]

    def parts(self, title: str = "") -> list[Part]:
        return self._parts(self.report, title)

    def write(self, directory: Path) -> list[Path]:
        """The tables as CSV and JSON files in ``directory``."""
        return self._write(self.report, directory)


def summarise(records: Sequence[GameRecord], anchor: str | None = None, bootstrap: int = 300,
              level: float = 0.0) -> Summary:
    """Ratings and tables of ``records`` (not empty); ValueError for an anchor that did not play."""
    if any(is_board(r) for r in records):
        return Summary(analyse_boards(records, anchor=anchor, bootstrap=bootstrap, level=level), board_parts,
                       write_board_files)
    if is_multi(records):
        return Summary(analyse_multi(records, anchor=anchor, bootstrap=bootstrap, level=level), multi_parts,
                       write_multi_files)
    return Summary(analyse(records, anchor=anchor, bootstrap=bootstrap, level=level), report_parts, write_files)


def games_of(records: Sequence[GameRecord]) -> Games:
    """``records`` as a rating system reads them (see :mod:`.systems`), by their kind as :func:`summarise` tells
    them apart: boards (scored by margin, no finishing order), games of three or more seats (pairwise results of
    their sides, resampled by deal), two-player games (resampled by deal pair)."""
    if any(is_board(r) for r in records):
        boards, _ = boards_of(records)
        if not boards:
            raise ValueError("no complete boards to rate")
        return Games(board_units(boards, board_scale(records)), unit="boards")
    if is_multi(records):
        return Games(pairwise_units(records), play_orders(records), "deals")
    return attrs.evolve(two_player_games(records), orders=play_orders(records))


def rate(records: Sequence[GameRecord], system: str, anchor: str | None = None, bootstrap: int = 300,
         level: float = 0.0) -> RatingTable:
    """The table of the rating system called ``system`` for ``records`` (not empty); ValueError for an unknown
    system, one that cannot rate these games, or an anchor that did not play."""
    return rating_system(system).rate(games_of(records), anchor, level, bootstrap)
