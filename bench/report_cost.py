#!/usr/bin/env python3
"""Issue 53, item 1: what the HTML report costs, per game and in games/s with both cores busy.

The report's work is almost all its films (viewer/film.py): one per game,
made while the games are played and at the end. This script measures:

* CPU per game of a film, first (each seat's view from the rules after
  every step: tests/film_reference.py, packed as the report packed it),
  then (the replay's events, which the page's script turns into the views:
  still the film of a record given to ``report`` later) and now (the same
  events from the notices the game made while it was played, written where
  it was played: viewer.film_maker.FilmsSeen, with the record's text and its
  reading back for the film's name), in this process, over the records of a
  short two-handed run;
* CPU per game of the whole report written at the end (``write_report``:
  films, tables, plots, and the film makers it starts);
* games/s of a two-handed tournament between two first-legal bots at
  concurrency 2, with and without the report (``--no-report``), with
  ``--isolation none`` and with the default jail (a fresh jailed process a
  game), rows interleaved, and the CPU per game of each run's whole process
  tree. The report's cost is 1 - (games/s with it) / (games/s without).

Target (issue 53): the report's cost at concurrency 2 at most 5% of games/s (34% when the issue was filed).

    python bench/report_cost.py [--games 200] [--rounds 2] [--concurrency 2] [--source CHECKOUT]
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import ROOT, summary, tournament_rate
from tabulate import tabulate

sys.path.insert(0, str(ROOT / "tests"))
import film_reference  # noqa: E402  (the film before: every seat's view from the rules after every step)

from referee.records.record import GameRecord, read_records  # noqa: E402
from referee.rules import action_from_text, get_variant, new_game  # noqa: E402
from referee.rules.events import Notice  # noqa: E402
from viewer.film import packed_film  # noqa: E402
from viewer.film_maker import FilmsSeen  # noqa: E402
from viewer.report import write_report  # noqa: E402

ROWS = {"--isolation none": ["--isolation", "none"], "jail (default)": []}


def cpu() -> float:
    """CPU seconds of this process and the children it reaped."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def old_packed_film(record: GameRecord) -> str:
    """A record's film as the report made it before (zlib's default level, in base64)."""
    data = json.dumps(film_reference.film(record), separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode()


def notices_in_play(record: GameRecord) -> list[list[Notice]]:
    """The notices the game loop kept while it played ``record`` (play_game's ``seen``), made again here."""
    game, dealt = new_game(get_variant(record.variant, record.options), record.seed)
    return [dealt, *(game.apply(action_from_text(entry.action)) for entry in record.actions)]


def ms_per_game(make: Callable[[GameRecord], object], records: list[GameRecord]) -> float:
    started = cpu()
    for record in records:
        make(record)
    return (cpu() - started) / len(records) * 1000


def run(flags: list[str], report: bool, games: int, concurrency: int, source: Path = ROOT,
        keep: Path | None = None) -> tuple[float, float]:
    """(games/s, CPU ms per game of the whole process tree) of one tournament run from the checkout ``source``;
    its folder kept in ``keep``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = keep or Path(tmp) / "out"
        command = [sys.executable, "-m", "arena", "tournament", "--bot", "first-legal", "--bot", "first-legal",
                   "--games", str(games), "--concurrency", str(concurrency), "--out", str(out), *flags,
                   *([] if report else ["--no-report"])]
        started = cpu()
        rate, _ = tournament_rate(command, out, source)
        return rate, (cpu() - started) / games * 1000


def films(records: list[GameRecord]) -> list[list[str]]:
    old, replayed = ms_per_game(old_packed_film, records), ms_per_game(packed_film, records)
    seen = {id(record): notices_in_play(record) for record in records}
    with tempfile.TemporaryDirectory() as tmp:
        write_seen = FilmsSeen(Path(tmp) / "films")
        now = ms_per_game(lambda record: write_seen(record, seen[id(record)]), records)
        started = cpu()
        write_report(records, Path(tmp) / "report", "bench", bootstrap=0)
        whole = (cpu() - started) / len(records) * 1000
    sizes = [len(old_packed_film(r)) for r in records[:20]], [len(packed_film(r)) for r in records[:20]]
    print(f"films of {len(records)} two-handed games: first {old:.1f} ms a game, then (a replay's events) "
          f"{replayed:.1f} ms, now (the notices of play, written) {now:.1f} ms (packed "
          f"{statistics.mean(sizes[0]) / 1000:.1f} kB, now {statistics.mean(sizes[1]) / 1000:.1f} kB); "
          f"the whole report at the end, every film replayed, {whole:.1f} ms a game", flush=True)
    return [["film a game, first: every seat's view (ms CPU)", f"{old:.2f}"],
            ["film a game, then: a replay's events (ms CPU)", f"{replayed:.2f}"],
            ["film a game, now: the notices of play, written (ms CPU)", f"{now:.2f}"],
            ["the whole report at the end, every film replayed, a game (ms CPU)", f"{whole:.2f}"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games of each tournament")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each row, interleaved")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="run the tournaments from this checkout (e.g. an older commit's, for the figures before)")
    args = parser.parse_args()
    jail = shutil.which("bwrap") is not None
    rows = {name: flags for name, flags in ROWS.items() if jail or flags}
    if not jail:
        print("no bubblewrap: the jail's rows are left out (apt-get install bubblewrap)")
    with tempfile.TemporaryDirectory() as tmp:
        run(ROWS["--isolation none"], False, args.games, 1, keep=Path(tmp) / "records")
        records = list(read_records(Path(tmp) / "records" / "games.jsonl", None))
    table = films(records)
    found: dict[tuple[str, bool], list[tuple[float, float]]] = {(n, r): [] for n in rows for r in (False, True)}
    order = list(found)
    for number in range(args.rounds):
        for key in order[number % len(order):] + order[:number % len(order)]:
            found[key].append(run(rows[key[0]], key[1], args.games, args.concurrency, args.source.resolve()))
            rate, ms = found[key][-1]
            print(f"  round {number + 1}: {key[0]}, {'report' if key[1] else '--no-report'}: "
                  f"{rate:.1f} games/s, {ms:.1f} ms CPU a game", flush=True)
    costs = []
    for name in rows:
        without, with_report = (statistics.median(r for r, _ in found[(name, report)]) for report in (False, True))
        cpu_without, cpu_with = (statistics.median(c for _, c in found[(name, report)]) for report in (False, True))
        cost = 1 - with_report / without
        costs.append(f"{name} {cost:.0%}")
        table += [[f"{name}: games/s without / with the report", f"{without:.1f} / {with_report:.1f}"],
                  [f"{name}: CPU ms a game without / with", f"{cpu_without:.1f} / {cpu_with:.1f}"],
                  [f"{name}: the report's cost in games/s", f"{cost:.1%}"]]
    print(tabulate(table, headers=["", f"concurrency {args.concurrency}, {args.games} games, medians"],
                   tablefmt="github"))
    summary(f"the report costs {', '.join(costs)} of games/s at concurrency {args.concurrency} (target <= 5%); "
            f"a film {table[2][1]} ms CPU a game from the notices of play ({table[1][1]} replayed, {table[0][1]} "
            "first)")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)")
