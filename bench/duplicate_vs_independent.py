#!/usr/bin/env python3
"""How much narrower is the Elo interval with duplicate deals than with independent deals?

Plays the same number of games between two closely matched sample bots
(greedy against greedy with 15% random moves), once with duplicate deals
(each deal twice, seats swapped; pentanomial statistics) and once with
independent deals (trinomial statistics), repeated over several seeds.
Prints a table and a one-line summary. Asserts nothing: it measures.

    python bench/duplicate_vs_independent.py [--games 40] [--repeats 5] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.bots.samples import SAMPLE_DIR, SAMPLES  # noqa: E402
from referee.bots.transport import BotCommand  # noqa: E402
from referee.match import Entrant  # noqa: E402
from referee.match.clock import TimeControl  # noqa: E402
from referee.rules import get_variant  # noqa: E402
from tournaments.config import TournamentConfig  # noqa: E402
from tournaments.report import head_to_head  # noqa: E402
from tournaments.runner import run_games  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.store import ResultStore, tournament_schedule  # noqa: E402


def run(duplicate: bool, games: int, seed: int, concurrency: int, root: Path):
    entrants = (
        Entrant("greedy", SAMPLES["greedy"].command(), TimeControl()),
        Entrant("noisy", BotCommand((sys.executable, str(SAMPLE_DIR / "greedy_bot.py"), "--noise", "0.15")), TimeControl()),
    )
    out = root / f"{'dup' if duplicate else 'ind'}-{seed}"
    config = TournamentConfig("bench", "round-robin", get_variant("two-handed"), entrants, games, seed, concurrency,
                              duplicate, out)
    store = ResultStore(out)
    store.start(config.fingerprint(), tournament_schedule(config))
    trio.run(run_games, config, schedule(config), store)
    (pair,) = head_to_head(store.recover().records)
    return pair


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per run (even)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per mode, each with its own seed")
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    started = time.monotonic()
    rows, widths, spreads, margins = [], {True: [], False: []}, {True: [], False: []}, {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, args.repeats + 1):
            for duplicate in (True, False):
                h = run(duplicate, args.games, seed, args.concurrency, Path(tmp))
                e = h.estimate
                widths[duplicate].append(e.elo95)
                spreads[duplicate].append(e.elo)
                margins[duplicate].append(h.margin95)
                rows.append([seed, "duplicate" if duplicate else "independent", h.games, f"{100 * e.score:.1f}%",
                             f"{e.elo:+.1f}", f"{e.elo95:.1f}", e.model, f"{h.margin:+.1f} +/- {h.margin95:.1f}"])
    print(tabulate(rows, headers=["seed", "deals", "games", "greedy score", "Elo", "+/- 95%", "model", "margin/hand"],
                   tablefmt="github"))
    dup, ind = statistics.mean(widths[True]), statistics.mean(widths[False])
    mdup, mind = statistics.mean(margins[True]), statistics.mean(margins[False])
    print()
    summary = [
        ["mean Elo interval +/-", f"{dup:.1f}", f"{ind:.1f}", f"{ind / dup:.2f}x narrower"],
        ["spread of the Elo estimates (sd over seeds)", f"{statistics.pstdev(spreads[True]):.1f}",
         f"{statistics.pstdev(spreads[False]):.1f}", ""],
        ["mean margin/hand interval +/-", f"{mdup:.1f}", f"{mind:.1f}", f"{mind / mdup:.2f}x narrower"],
    ]
    print(tabulate(summary, headers=["", "duplicate", "independent", "ratio"], tablefmt="github"))
    print(f"\nsummary: with {args.games} games per run, duplicate deals give a {ind / dup:.2f}x narrower Elo interval "
          f"(+/-{dup:.1f} vs +/-{ind:.1f}), worth about {(ind / dup) ** 2:.1f}x as many independent games; "
          f"{args.repeats} seeds, {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
