#!/usr/bin/env python3
"""How many hands until I know? Independent games, duplicate games and boards, for closely matched bots.

For each pair of bots (greedy against greedy with 15% random moves, and
greedy against greedy with 5%: a small, known handicap) it plays whole games
with independent deals, whole games with duplicate deals (pentanomial
statistics) and boards (one hand in both seatings of a deal, scored by the
margin on the same cards), and measures how much each unit tells:

* t per hand: the effect (mean score - 1/2) over the standard deviation of
  a unit, divided by the square root of the hands in a unit. The number of
  hands an interval needs to exclude "equally strong" at 95%, and the
  interval width at any number of hands, go as 1 / t^2.
* hands (and minutes at the measured rate) for a 95% interval that excludes
  equality: (1.96 / t)^2 hands.
* hands an SPRT needs to accept H1 when the truth is the measured effect and
  H0 is equality (alpha = beta = 0.05): Wald's approximation, 2 ln(19) / t^2
  per hand, which moves with t like the interval.

It prints the table and the ratios (independent and duplicate games against
boards). Asserts nothing: it measures, on a shared machine.

    python bench/boards_vs_games.py [--hands 3000] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.boards import board_scale, boards_of  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.runner import run_games  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.store import ResultStore, tournament_schedule  # noqa: E402

GREEDY = str(Path(__file__).resolve().parent.parent / "sample_bots" / "greedy_bot.py")
PAIRS = {"15% random moves": "0.15", "5% random moves": "0.05"}
WALD = 2 * math.log(0.95 / 0.05)  # Wald: expected LLR to cross the upper bound, per unit of drift t^2 / 2


def play(mode: str, noise: str, hands: int, seed: int, concurrency: int, root: Path):
    """Play about ``hands`` hands of ``mode``; returns (unit scores, hands played, seconds)."""
    data = {"tournament": {"seed": seed, "isolation": "none", "output": str(root / f"{mode}-{noise}-{seed}")},
            "bot": [{"name": "greedy", "sample": "greedy"},
                    {"name": "noisy", "command": f"{sys.executable} {GREEDY} --noise {noise}"}]}
    t = data["tournament"]
    if mode == "boards":
        t["boards"] = max(hands // 2, 1)
    else:
        t["games_per_pairing"] = max(2 * round(hands / 4.5 / 2), 2)  # about 4.5 hands a game to 1000
        t["duplicate"] = mode == "duplicate games"
    config = parse_config(data, root / "bench.toml", concurrency=concurrency)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config))
    started = time.monotonic()
    trio.run(run_games, config, schedule(config), store)
    seconds = time.monotonic() - started
    records = store.recover().records
    played = sum(len(r.hands) for r in records)
    if mode == "boards":
        scale = board_scale(records)
        boards, _ = boards_of(records)
        return [b.score("greedy", "noisy", scale) for b in boards], played, seconds, 2
    if mode == "duplicate games":
        pairs: dict[int, list] = {}
        for r in records:
            pairs.setdefault(r.seed, []).append(r.result[0 if r.seats[0].entrant == "greedy" else 1])
        return [sum(p) / 2 for p in pairs.values() if len(p) == 2], played, seconds, played / len(pairs)
    units = [r.result[0 if r.seats[0].entrant == "greedy" else 1] for r in records]
    return units, played, seconds, played / len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, help="hands to play per mode and pair (default 3000)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows, summary = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for label, noise in PAIRS.items():
            t_of = {}
            for mode in ("independent games", "duplicate games", "boards"):
                units, hands, seconds, per_unit = play(mode, noise, args.hands, args.seed, args.concurrency, Path(tmp))
                mean, sd = statistics.fmean(units), statistics.pstdev(units)
                t = (mean - 0.5) / sd / math.sqrt(per_unit) if sd > 0 else math.nan
                t_of[mode] = t
                known = not math.isnan(t) and t != 0
                need = (1.96 / t) ** 2 if known else math.inf
                sprt = WALD / t**2 if known else math.inf
                rate = hands / seconds
                rows.append([label, mode, len(units), hands, f"{100 * mean:.1f}%", f"{t:.4f}", f"{need:,.0f}",
                             f"{need / rate / 60:.1f}", f"{sprt:,.0f}", f"{sprt / rate / 60:.1f}"])
            ratio_ind = (t_of["boards"] / t_of["independent games"]) ** 2
            ratio_dup = (t_of["boards"] / t_of["duplicate games"]) ** 2
            summary.append(f"{label}: boards need {1 / ratio_ind:.2f} of the hands of independent games and "
                           f"{1 / ratio_dup:.2f} of the hands of duplicate games")
    print(tabulate(rows, headers=["pair (greedy vs)", "mode", "units", "hands", "greedy's score", "t per hand",
                                  "hands to 95%", "minutes", "SPRT hands", "SPRT minutes"], tablefmt="github"))
    print()
    for line in summary:
        print(line)
    print("summary: " + "; ".join(summary))


if __name__ == "__main__":
    main()
