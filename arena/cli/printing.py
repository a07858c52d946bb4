"""What several commands print: a finished game's line, standings, faults, the summary tables, the report."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tabulate import tabulate

from referee.records.record import GameRecord, Termination

from .args import UsageError

if TYPE_CHECKING:
    from referee.match.lane import Seen


def game_line(r: GameRecord) -> str:
    """One finished game for the progress line: who, the result, the totals, and a fault with its reason."""
    names = " vs ".join(s.entrant for s in r.seats)
    res = "-".join(f"{x:g}" for x in r.result)
    totals = ", ".join(str(t) for t in r.totals)  # not joined with '-': totals may be negative
    if r.termination is Termination.COMPLETED:
        return f"{r.game_id}: {names} {res} (totals {totals})"
    who = r.seats[r.culprit].entrant if r.culprit is not None and r.culprit < len(r.seats) else "?"
    return f"{r.game_id}: {names} {res} ({r.termination.value} by {who}: {r.detail})"


def seed_text(given: int | None) -> str:
    """How a run's seed is shown: the organiser's own, or only that a secret one is used (it is kept in OUT)."""
    return f"seed {given}" if given is not None else "a secret seed"


def deals_text(args, deals) -> str:
    """Where a run's deals come from: a deal file, or the seed."""
    if deals is None:
        return seed_text(args.seed)
    return f"the {len(deals.deals)} deals of {args.deals} in turn"


def print_faults(records: list[GameRecord], logs: Path) -> None:
    """Faults by bot and kind, each with how many games and the first reason, and where the logs are."""
    from tournaments.standings import fault_rows

    rows = fault_rows(records)
    if rows:
        print(f"\nfaults (bot stderr logs, with each fault's reason, are in {logs}/):")
        print(tabulate(rows, headers=["bot", "fault", "games", "first reason"], tablefmt="github"))


def print_standings(records: list[GameRecord]) -> None:
    print(standings_text(records))


def standings_text(records: list[GameRecord]) -> str:
    from tournaments.standings import STANDINGS_HEADERS, standings, standings_rows

    return tabulate(standings_rows(standings(records)), headers=STANDINGS_HEADERS, tablefmt="github")


def rating_interval(progress, records: list[GameRecord], every: int | None) -> None:
    """--ratinginterval: the standings after every ``every`` games of this run, above the progress line."""
    if every and records and len(records) % every == 0:
        progress.interject(f"\nstandings after {len(records)} games:\n{standings_text(records)}")


def print_report(records: list[GameRecord], out: Path | None, anchor: str | None, bootstrap: int, title: str = "",
                 anchor_rating: float = 0.0):
    """Print the summary that fits ``records`` (and write its files to ``out``); returns it (None: no records)."""
    from tournaments.report import as_text
    from tournaments.summary import summarise

    if not records:
        print("no games to rate")
        return None
    try:
        summary = summarise(records, anchor=anchor, bootstrap=bootstrap, level=anchor_rating)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print(as_text(summary.parts(title)))
    if out is not None:
        print(f"\nwritten: {', '.join(str(f) for f in summary.write(out))}")
    return summary


def print_table(records: list[GameRecord], system: str, out: Path | None, anchor: str | None, bootstrap: int,
                title: str = "", anchor_rating: float = 0.0) -> None:
    """Print the ratings table of the rating system named ``system`` (and write it to ``out``)."""
    import league.ratings  # noqa: F401  (enters the league's fit in the table of rating systems)
    from tournaments.report import as_text, rating_table_parts, write_table_files
    from tournaments.summary import rate

    try:
        table = rate(records, system, anchor=anchor, bootstrap=bootstrap, level=anchor_rating)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print(as_text(rating_table_parts(table, title)))
    if out is not None:
        print(f"\nwritten: {', '.join(str(f) for f in write_table_files(table, out))}")


class FilmHooks(NamedTuple):
    """How a run hands its games to the report's films while they are played (see :func:`films_ahead`)."""

    seen: Seen | None  # for the game loop (LaneSettings.seen): each film made from its game's notices
    add: Callable[[GameRecord], None]  # called with each finished game's record


@contextmanager
def films_ahead(out: Path, report: bool, from_notices: bool) -> Iterator[FilmHooks]:
    """Unless ``report`` is off, the report's films made while the games are played, so that
    :func:`write_html_report` then only writes them out. With ``from_notices`` (games played on this machine),
    each game hands its notices to ``viewer.film_maker.FilmsSeen`` in the process that played it: a film at a
    third of a replay's CPU, and no process to start. Else (a cluster's games, whose notices stay on its
    machines) a film maker in the kernel's idle class replays each record on a core the run does not want
    (viewer.report.FilmsAhead)."""
    if not report:
        yield FilmHooks(None, _nothing)
        return
    if from_notices:
        from viewer.film_maker import FilmsSeen

        yield FilmHooks(FilmsSeen(out / "report" / "films"), _nothing)
        return
    from viewer.report import FilmsAhead

    with FilmsAhead(out / "report") as films:
        yield FilmHooks(None, films.add)


def _nothing(record: GameRecord) -> None:
    pass


def write_html_report(records: list[GameRecord], out: Path, title: str, summary=None, bootstrap: int = 300) -> Path:
    """OUT/report/index.html (viewer.report), with its path printed; the marks of OUT/analysis.jsonl, if there."""
    from analysis.summary import ANALYSIS_FILE
    from viewer.report import write_report

    index = write_report(records, out / "report", title, summary=summary, bootstrap=bootstrap,
                         analysis=out / ANALYSIS_FILE)
    print(f"report: {index}")
    return index


def open_in_browser(address: str) -> None:
    """``--open``: ``address`` in the user's web browser, or one line saying to open it by hand where there is none."""
    import webbrowser

    try:
        opened = webbrowser.open(address)
    except webbrowser.Error:
        opened = False
    if not opened:
        print(f"--open: no web browser found here; open {address} yourself", file=sys.stderr)


def write_pgn(records: list[GameRecord], path: Path, event: str | None = None) -> None:
    from tournaments.elo import ORDO_SCALE
    from tournaments.report import to_pgn

    try:
        path.write_text(to_pgn(records, event), encoding="utf-8")
    except OSError as e:
        raise UsageError(f"--pgn {path}: cannot write ({e.strerror})") from None
    print(f"PGN written to {path} (seat 0 as White); for Ordo: ordo -p {path} -z {ORDO_SCALE} -a 0")
