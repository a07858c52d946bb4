"""The HTML report of a match or tournament: one folder that works offline, from ``file://``.

``write_report(out)`` reads the sealed records of a results folder and
writes ``out/report/``:

* ``index.html``: the standings, head to head, crosstable and the other
  tables of the terminal's summary (the same parts, :mod:`tournaments.summary`),
  the faults by kind with their detail, two plots, and the game list with
  its filters and the replay viewer;
* ``cards.js``, ``film.js``, ``report.js`` and ``report.css`` (copied from this package:
  no server, no CDN, nothing fetched);
* ``films/N.js``: game N's film (:mod:`viewer.film`: its game's events,
  each with the seats that saw it, from which ``film.js`` keeps every
  seat's table in the page), gzipped and loaded by the viewer only when
  the game is opened (a browser may load a script from ``file://`` but not
  fetch a file), so a report of thousands of games opens at once. Films
  are most of a report's cost, so a tournament or match makes them while
  its games are played: on this machine, from the notices each made, in the
  process that played it (:class:`viewer.film_maker.FilmsSeen`: about 1 ms of
  CPU a game, no rules); a cluster's, by one process in the kernel's idle
  class that replays each record (:class:`FilmsAhead`), yielding its core
  to the games at once. The films still missing at the end (records
  given to ``report`` later) are replayed, and
  written here, or by a process per core when there are many;
* where the results folder has an ``analysis.jsonl`` (``pinochle-arena
  analyse``, docs/analysis.md), ``analysis.js`` and ``analysis/N.js``:
  game N's weighed decisions (:mod:`viewer.marks`), loaded with its film,
  from which the viewer marks the inaccuracies, mistakes and blunders,
  goes to the next and previous mark, and draws the side's evaluation.

The plots are small hand-written SVG: two line charts do not justify
shipping and auditing a charting library.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from tabulate import tabulate

from referee.records.record import GameRecord, Termination
from tournaments.report import Part
from tournaments.summary import Summary, summarise

from .film import film_script, film_script_of
from .film_maker import AHEAD, READY, ahead_name
from .marks import read_marks

STATIC = Path(__file__).resolve().parent / "static"
ROOT = Path(__file__).resolve().parent.parent  # on the film makers' PYTHONPATH
VIEWER_FILES = ("cards.js", "film.js", "report.js", "report.css")  # copied into each report
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]


def write_report(records: Sequence[GameRecord], directory: Path, title: str, summary: Summary | None = None,
                 bootstrap: int = 300, analysis: Path | None = None) -> Path:
    """Write the report of ``records`` into ``directory`` (made if missing); returns its index.html.
    ``summary``: the records' tables if the caller has them already (else made with ``bootstrap``). ``analysis``:
    an ``analysis.jsonl`` (``pinochle-arena analyse``), whose marks the viewer shows on the games it analysed."""
    films = directory / "films"
    films.mkdir(parents=True, exist_ok=True)
    for name in VIEWER_FILES:
        shutil.copyfile(STATIC / name, directory / name)
    write_films(records, films)
    games = [game_row(number, record) for number, record in enumerate(records)]
    analysed = write_marks(records, games, directory, analysis)
    sections = [f"<h1>{html.escape(title)}</h1>"]
    if records:
        summary = summary or summarise(records, bootstrap=bootstrap)
        sections.append(_parts_html(summary.parts()))
    sections.append(_faults_html(records))
    sections.append(_plots_html(records))
    sections.append(GAMES_HTML)
    page = PAGE.format(title=html.escape(title), body="\n".join(sections),
                       games=script_json(games), analysis=ANALYSIS_SCRIPT if analysed else "")
    index = directory / "index.html"
    index.write_text(page)
    return index


ANALYSIS_SCRIPT = '<script src="analysis.js"></script>\n'  # before report.js, which shows its part of a step


def write_marks(records: Sequence[GameRecord], games: list[dict], directory: Path, analysis: Path | None) -> bool:
    """``analysis/N.js`` for each game that ``analysis`` has lines for (:func:`viewer.marks.read_marks`), loaded by
    ``analysis.js`` when the game is opened (its row says ``"analysis": true``); whether any game has some. An
    earlier report's analysis in ``directory`` goes first: without lines, the page is the one without analysis."""
    folder = directory / "analysis"
    shutil.rmtree(folder, ignore_errors=True)
    (directory / "analysis.js").unlink(missing_ok=True)
    found = read_marks(analysis, records) if analysis is not None else {}
    if not found:
        return False
    folder.mkdir()
    shutil.copyfile(STATIC / "analysis.js", directory / "analysis.js")
    for row, record in zip(games, records, strict=True):
        data = found.get(record.game_id)
        if data is not None:
            (folder / f"{row['n']}.js").write_text(f"pinochleAnalysis({row['n']}, {script_json(data)});\n")
            row["analysis"] = True
    return True


GAMES_PER_PROCESS = 200  # films worth a process of their own (starting one costs about as much as 50 films)
FILM_MAKER = (sys.executable, "-m", "viewer.film_maker")


def write_films(records: Sequence[GameRecord], films: Path) -> None:
    """``films/N.js`` for every record: those made ahead as they are (their folder is then removed), the rest in
    this process for a few games, else shared out over a film maker per core (:mod:`viewer.film_maker`)."""
    films.mkdir(parents=True, exist_ok=True)
    missing = []
    for number, record in enumerate(records):
        made = films / AHEAD / ahead_name(record)
        if made.exists():
            (films / f"{number}.js").write_text(film_script_of(number, made.read_text()))
        else:
            missing.append((number, record))
    shutil.rmtree(films / AHEAD, ignore_errors=True)
    processes = min(os.cpu_count() or 1, len(missing) // GAMES_PER_PROCESS)
    if processes <= 1:
        for number, record in missing:
            (films / f"{number}.js").write_text(film_script(number, record))
        return
    makers = [_start_film_maker(films) for _ in range(processes)]
    try:
        for maker in makers:
            _set_up(maker)
        feeders = [threading.Thread(target=_feed, args=(maker, missing[i::processes]), daemon=True)
                   for i, maker in enumerate(makers)]
        for feeder in feeders:
            feeder.start()
        for feeder, maker in zip(feeders, makers, strict=True):
            feeder.join()
            if maker.wait() != 0:
                raise RuntimeError(f"a film maker failed (exit status {maker.returncode})")
    finally:  # (Ctrl-C or a failure: the others are stopped, never left behind)
        for maker in makers:
            if maker.poll() is None:
                maker.kill()
                maker.wait()


def _film_maker(films: Path, idle: bool = False) -> subprocess.Popen[str]:
    """A film maker writing into ``films``, fed records on its standard input, once it is set up (the kernel
    kills it with this process from then on); with ``idle``, then put in the kernel's idle class (SCHED_IDLE,
    below nice 19): it runs only on a core nothing else wants, and a waking game takes the core back at once."""
    maker = _start_film_maker(films)
    _set_up(maker, idle)
    return maker


def _start_film_maker(films: Path) -> subprocess.Popen:
    """A film maker for ``films`` starting (:func:`_set_up` waits for it). In a process group of its own, so that
    Ctrl-C goes to the run alone, which then stops it; nothing on the terminal but a failure's words."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen([*FILM_MAKER, str(films), str(os.getpid())], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, text=True, process_group=0)


def _piped(stream: IO[str] | None) -> IO[str]:
    """A film maker's stdin or stdout: a pipe, as _film_maker starts it (never None)."""
    if stream is None:
        raise ValueError("the film maker was started without its pipes")
    return stream


def _set_up(maker: subprocess.Popen[str], idle: bool = False) -> None:
    """Wait for the maker's one line, which says it is set up: an event, where a wait for it to be seen reading
    would wait for CPU time that an idle-class process beside busy ones may never get. Only then is it put in
    the idle class (by this process: it need not run to get there). One that failed to start is left to its
    exit status to say so."""
    out = _piped(maker.stdout)
    said = out.readline()
    out.close()
    if idle and said.strip() == READY:
        with contextlib.suppress(OSError):  # (gone meanwhile)
            os.sched_setscheduler(maker.pid, os.SCHED_IDLE, os.sched_param(0))


def _feed(maker: subprocess.Popen[str], numbered: Sequence[tuple[int, GameRecord]]) -> None:
    with contextlib.suppress(OSError):  # (a maker that failed: its exit status says so)
        with _piped(maker.stdin) as stdin:
            for number, record in numbered:
                stdin.write(f"{number} {record.to_json()}\n")


class FilmsAhead:
    """Films made while a run's games are played on a cluster (games played on this machine hand their notices
    to :class:`viewer.film_maker.FilmsSeen` instead), for :func:`write_films` to find in ``films/ahead/``.

    A film maker (:mod:`viewer.film_maker`) in the kernel's idle class
    makes them as records are added, on a core this machine does not want
    (the cluster plays the games elsewhere). At most
    ``WAITING`` records wait for it; beyond that a record is left for the
    report to film at the end. Use as a context manager: leaving it stops
    the film maker (the films it had not finished are made at the end)."""

    WAITING = 64

    def __init__(self, report: Path) -> None:
        self._maker = _film_maker(report / "films", idle=True)
        self._stdin = _piped(self._maker.stdin)
        self._waiting: queue.Queue = queue.Queue(self.WAITING)
        self._feeder = threading.Thread(target=self._feed, daemon=True)
        self._feeder.start()

    def add(self, record: GameRecord) -> None:
        with contextlib.suppress(queue.Full):
            self._waiting.put_nowait(record)

    def _feed(self) -> None:
        with contextlib.suppress(OSError):  # (the maker was stopped)
            while (record := self._waiting.get()) is not None:
                self._stdin.write(f"- {record.to_json()}\n")
                self._stdin.flush()

    def __enter__(self) -> FilmsAhead:
        return self

    def __exit__(self, *_) -> None:
        # Out of the idle class first: a killed process still needs the CPU to die, and beside busy processes an
        # idle-class one may get none for minutes (a Ctrl-C'd tournament waited here past two minutes).
        with contextlib.suppress(OSError):
            os.sched_setscheduler(self._maker.pid, os.SCHED_OTHER, os.sched_param(0))
        self._maker.kill()  # (every file it writes is whole or absent)
        self._maker.wait()
        with contextlib.suppress(queue.Empty):
            while True:
                self._waiting.get_nowait()
        self._waiting.put_nowait(None)
        self._feeder.join()
        with contextlib.suppress(OSError):
            self._stdin.close()


# what an inline script's JSON writes as escapes: < and > (the HTML parser's tags and comments in a script), & (a
# character reference, were the text ever read as HTML) and U+2028/U+2029 (line ends in a string to older JavaScript;
# json.dumps escapes them already, as it does all of non-ASCII, but this table does not count on it)
SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_json(data) -> str:
    """``data`` as JSON to be written inside an inline ``<script>``, where the HTML parser ends the script at
    ``</script>`` and keeps it open past that after ``<!--<script>``: every ``<``, ``>`` and ``&`` in its strings
    (bots' names and fault details) is written as a ``\\u`` escape, which JavaScript reads back as the same text."""
    return json.dumps(data, separators=(",", ":")).translate(SCRIPT_ESCAPES)


def game_row(number: int, r: GameRecord) -> dict:
    """A game as the viewer's game list shows it."""
    names = [s.entrant for s in r.seats]
    return {"n": number, "id": r.game_id, "anchor": f"game-{r.game_id}", "variant": r.variant, "names": names, "result": list(r.result),
            "totals": list(r.totals), "hands": len(r.hands), "termination": r.termination.value,
            "culprit": names[r.culprit] if r.culprit is not None and r.culprit < len(names) else None,
            "detail": r.detail}


def _parts_html(parts: Sequence[Part]) -> str:
    """The summary's paragraphs and tables; the first paragraph before a table is its heading."""
    out = ['<section id="standings"><h2>Standings</h2>']
    for part in parts:
        if isinstance(part, str):
            text = part.strip()
            if text:
                out.append(f"<p>{html.escape(text)}</p>")
        else:
            out.append(tabulate(part.rows, headers=part.headers, tablefmt="html", disable_numparse=True))
    out.append("</section>")
    return "\n".join(out)


def _faults_html(records: Sequence[GameRecord]) -> str:
    """Faults by kind and bot, each with its first reason, and every faulted game with its detail."""
    faulted = [r for r in records if r.termination is not Termination.COMPLETED]
    out = ['<section id="faults"><h2>Faults</h2>']
    if not faulted:
        out.append("<p>No game ended on a fault.</p></section>")
        return "\n".join(out)
    kinds: dict[tuple[str, str], list[GameRecord]] = defaultdict(list)
    for r in faulted:
        kinds[(_culprit(r), r.termination.value)].append(r)
    rows = [[bot, kind, len(games), games[0].detail] for (bot, kind), games in sorted(kinds.items())]
    out.append(tabulate(rows, headers=["bot", "kind", "games", "first reason"], tablefmt="html"))
    rows = [[r.game_id, _culprit(r), r.termination.value, r.detail] for r in faulted]
    out.append('<details><summary>every game that ended on a fault</summary>')
    out.append(tabulate(rows, headers=["game", "bot", "kind", "detail"], tablefmt="html"))
    out.append("</details></section>")
    return "\n".join(out)


def _culprit(r: GameRecord) -> str:
    return r.seats[r.culprit].entrant if r.culprit is not None and r.culprit < len(r.seats) else "?"


def _plots_html(records: Sequence[GameRecord]) -> str:
    """Each bot's score over the games it played, and its mean time per decision by move number."""
    score: dict[str, list[float]] = defaultdict(list)  # running score share after each game it played
    won: dict[str, float] = defaultdict(float)
    times: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        for seat, info in enumerate(r.seats):
            if seat < len(r.result):
                won[info.entrant] += r.result[seat]
                score[info.entrant].append(100 * won[info.entrant] / (len(score[info.entrant]) + 1))
        moves: dict[int, int] = defaultdict(int)
        for entry in r.actions:
            if entry.ms is not None and entry.seat < len(r.seats):
                moves[entry.seat] += 1
                times[r.seats[entry.seat].entrant][moves[entry.seat]].append(entry.ms)
    bots = sorted(score)
    lines = {b: list(enumerate(score[b], 1)) for b in bots}
    mean_ms = {b: sorted((k, sum(v) / len(v)) for k, v in times[b].items()) for b in bots}
    return "\n".join([
        '<section id="plots"><h2>Over the games</h2><div class="plots">',
        _svg_chart("Score % after each game played", "games played", "score %", lines, bots, y_range=(0, 100)),
        _svg_chart("Mean time per decision, by move of the game", "move", "ms", mean_ms, bots),
        "</div></section>"])


def _svg_chart(title: str, x_label: str, y_label: str, lines: Mapping[str, Sequence[tuple[float, float]]],
               bots: list[str], y_range: tuple[float, float] | None = None) -> str:
    """A line chart as inline SVG, one coloured line per bot, with its legend."""
    width, height, left, bottom, top, right = 460, 260, 48, 36, 28, 12
    points = [p for line in lines.values() for p in line]
    if not points:
        return f'<figure class="chart"><figcaption>{html.escape(title)}: no data</figcaption></figure>'
    x_max = max(x for x, _ in points) or 1
    y_min, y_max = y_range or (0, max(y for _, y in points) or 1)

    def at(x: float, y: float) -> str:
        px = left + (width - left - right) * (x - 1) / max(x_max - 1, 1)
        py = height - bottom - (height - top - bottom) * (y - y_min) / ((y_max - y_min) or 1)
        return f"{px:.1f},{py:.1f}"

    out = [f'<figure class="chart"><svg viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(title)}">',
           f'<text x="{width / 2}" y="16" text-anchor="middle" class="title">{html.escape(title)}</text>',
           f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" class="axis"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" class="axis"/>',
           f'<text x="{left - 4}" y="{top + 4}" text-anchor="end">{y_max:g}</text>',
           f'<text x="{left - 4}" y="{height - bottom}" text-anchor="end">{y_min:g}</text>',
           f'<text x="{width - right}" y="{height - bottom + 14}" text-anchor="end">{x_max:g}</text>',
           f'<text x="{(width + left) / 2}" y="{height - 6}" text-anchor="middle">{html.escape(x_label)}</text>',
           f'<text x="12" y="{(height - bottom + top) / 2}" transform="rotate(-90 12 {(height - bottom + top) / 2})" '
           f'text-anchor="middle">{html.escape(y_label)}</text>']
    for i, bot in enumerate(bots):
        colour = COLOURS[i % len(COLOURS)]
        if lines.get(bot):
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                       f'points="{" ".join(at(x, y) for x, y in lines[bot])}"><title>{html.escape(bot)}</title></polyline>')
    out.append("</svg><figcaption>")
    out += [f'<span class="key" style="color:{COLOURS[i % len(COLOURS)]}">&#9632; {html.escape(b)}</span>'
            for i, b in enumerate(bots)]
    out.append("</figcaption></figure>")
    return "".join(out)


GAMES_HTML = """<section id="games"><h2>Games</h2>
<div class="filters">
 <label>bot <select id="filter-bot"><option value="">any</option></select></label>
 <label>variant <select id="filter-variant"><option value="">any</option></select></label>
 <label>ending <select id="filter-termination"><option value="">any</option></select></label>
 <span id="shown"></span>
</div>
<table id="game-list"><thead><tr><th>game</th><th>seats</th><th>variant</th><th>result</th><th>totals</th>
<th>hands</th><th>ending</th></tr></thead><tbody></tbody></table>
</section>
<section id="viewer" hidden>
<h2 id="viewer-title"></h2>
<div class="controls">
 <button id="first" title="first step (Home)">|&#9664;</button>
 <button id="back" title="step back (left arrow)">&#9664;</button>
 <button id="forward" title="step forward (right arrow)">&#9654;</button>
 <button id="last" title="last step (End)">&#9654;|</button>
 <label>hand <select id="hand-select"></select></label>
 <label>view <select id="view-select"></select></label>
 <span id="step-count"></span>
 <button id="close-viewer">close</button>
</div>
<p id="step-text"></p>
<div id="table-area"></div>
</section>"""

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="report.css">
</head><body>
{body}
<script>window.REPORT_GAMES = {games};</script>
<script src="cards.js"></script>
<script src="film.js"></script>
{analysis}<script src="report.js"></script>
</body></html>
"""
