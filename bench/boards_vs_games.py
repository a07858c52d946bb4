#!/usr/bin/env python3
"""How many hands until I know? Independent games, duplicate games and boards, for closely matched bots.

For each pair of bots (greedy against greedy with 15% random moves, and
greedy against greedy with 5%: a small, known handicap) it plays whole games
with independent deals, whole games with duplicate deals (pentanomial
statistics) and boards (one hand in both seatings of a deal, scored by the
margin on the same cards), over several seeds, and measures how much each
unit tells:

* t per hand: the effect (mean score - 1/2) over the standard deviation of
  a unit, divided by the square root of the hands in a unit. The number of
  hands an interval needs to exclude "equally strong" at 95%, and the
  interval width at any number of hands, go as 1 / t^2.
* hands (and minutes at the measured rate) for a 95% interval that excludes
  equality: (1.96 / t)^2 hands.
* hands an SPRT needs to accept H1 when the truth is the measured effect and
  H0 is equality (alpha = beta = 0.05): Wald's approximation, 2 ln(19) / t^2
  per hand, which moves with t like the interval.

Boards are also scored two other ways from the same boards, for comparison
with the score the tool uses (S = a tenth of a hand's trick points): the
sign of the margin, and the raw margin.

The ratios "boards against duplicate games" come with a 95% interval from a
bootstrap over the units of both modes (seeds pooled). It prints the table
and the ratios. Asserts nothing: it measures, on a shared machine.

    python bench/boards_vs_games.py [--hands 2000] [--seeds 1 2 3] [--pairs 0.15 0.05] [--concurrency 2]
                                    [--isolation jail]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import attrs
import trio
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.bots import jail  # noqa: E402
from tournaments.boards import board_scale, boards_of  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.runner import run_games  # noqa: E402
from tournaments.schedule import schedule  # noqa: E402
from tournaments.store import ResultStore, tournament_schedule  # noqa: E402

GREEDY = str(Path(__file__).resolve().parent.parent / "sample_bots" / "greedy_bot.py")
PAIRS = {"15% random moves": "0.15", "5% random moves": "0.05"}
MODES = ("independent games", "duplicate games", "boards")
WALD = 2 * math.log(0.95 / 0.05)  # Wald: expected LLR to cross the upper bound, per unit of drift t^2 / 2
RESAMPLES = 1000


@attrs.define
class Sample:
    """What one way of playing (or of scoring boards) gave: greedy's score per unit, and its cost."""

    units: list[float] = attrs.Factory(list)  # greedy's score per unit (its margin, for the raw margin)
    hands: int = 0
    seconds: float = 0.0
    null: float = 0.5  # the score of equal strength

    def add(self, units: list[float], hands: int, seconds: float) -> None:
        self.units += units
        self.hands += hands
        self.seconds += seconds

    @property
    def hands_per_unit(self) -> float:
        return self.hands / len(self.units)


def t_per_hand(units: list[float], null: float, hands_per_unit: float) -> float:
    sd = statistics.pstdev(units)
    return (statistics.fmean(units) - null) / sd / math.sqrt(hands_per_unit) if sd > 0 else math.nan


def play(mode: str, noise: str, hands: int, seed: int, concurrency: int, isolation: str, root: Path) -> dict:
    """Play about ``hands`` hands of ``mode``; returns {scoring: (units, hands played, seconds)}."""
    data = {"tournament": {"seed": seed, "isolation": isolation, "output": str(root / f"{mode}-{noise}-{seed}")},
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

    def greedys(r) -> float:
        return r.result[0 if r.seats[0].entrant == "greedy" else 1]

    if mode == "boards":
        scale = board_scale(records)
        boards, _ = boards_of(records)
        margins = [b.margin("greedy", "noisy") for b in boards]
        return {"boards": ([b.score("greedy", "noisy", scale) for b in boards], played, seconds),
                "boards, sign of margin": ([0.5 if m is None or m == 0 else float(m > 0) for m in margins], 0, 0),
                "boards, raw margin": ([m or 0.0 for m in margins], 0, 0)}
    if mode == "duplicate games":
        pairs: dict[int, list] = {}
        for r in records:
            pairs.setdefault(r.seed, []).append(greedys(r))
        return {mode: ([sum(p) / 2 for p in pairs.values() if len(p) == 2], played, seconds)}
    return {mode: ([greedys(r) for r in records], played, seconds)}


def hands_ratio(a: Sample, b: Sample, rng: random.Random) -> tuple[float, float, float]:
    """Hands ``a`` needs over hands ``b`` needs for the same interval, with a 95% bootstrap interval."""
    def ratio(ua: list[float], ub: list[float]) -> float:
        ta, tb = t_per_hand(ua, a.null, a.hands_per_unit), t_per_hand(ub, b.null, b.hands_per_unit)
        return (tb / ta) ** 2

    draws = sorted(ratio(rng.choices(a.units, k=len(a.units)), rng.choices(b.units, k=len(b.units)))
                   for _ in range(RESAMPLES))
    return ratio(a.units, b.units), draws[int(0.025 * RESAMPLES)], draws[int(0.975 * RESAMPLES) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per mode, pair and seed (default 2000)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--pairs", nargs="+", choices=sorted(PAIRS.values()), default=list(PAIRS.values()),
                        help="which pairs: greedy against greedy with this share of random moves (default both)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--isolation", choices=["jail", "none"], default=None,
                        help="default: jail where bubblewrap runs (as users run), else none")
    args = parser.parse_args()
    isolation = args.isolation or ("none" if jail.problem() else "jail")
    print(f"isolation {isolation}; {args.hands} hands per mode, pair and seed; seeds {args.seeds}", flush=True)
    rng = random.Random(0)
    rows, summary = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for label, noise in PAIRS.items():
            if noise not in args.pairs:
                continue
            samples: dict[str, Sample] = {}
            for seed in args.seeds:
                for mode in MODES:
                    for scoring, (units, hands, seconds) in play(mode, noise, args.hands, seed, args.concurrency,
                                                                 isolation, Path(tmp)).items():
                        samples.setdefault(scoring, Sample(null=0.0 if scoring.endswith("raw margin") else 0.5))
                        samples[scoring].add(units, hands, seconds)
            for scoring in ("boards, sign of margin", "boards, raw margin"):  # the same boards, scored otherwise
                samples[scoring].hands, samples[scoring].seconds = samples["boards"].hands, samples["boards"].seconds
            for scoring, s in samples.items():
                t = t_per_hand(s.units, s.null, s.hands_per_unit)
                known = not math.isnan(t) and t != 0
                need = (1.96 / t) ** 2 if known else math.inf
                sprt = WALD / t**2 if known else math.inf
                rate = s.hands / s.seconds
                score = f"{statistics.fmean(s.units):+.1f} points" if s.null == 0 else f"{100 * statistics.fmean(s.units):.1f}%"
                rows.append([label, scoring, len(s.units), s.hands, score, f"{t:.4f}", f"{need:,.0f}",
                             f"{need / rate / 60:.2f}", f"{sprt:,.0f}", f"{sprt / rate / 60:.2f}"])
            boards = samples["boards"]
            for other in ("duplicate games", "independent games"):
                ratio, low, high = hands_ratio(boards, samples[other], rng)
                time_ratio = ratio * (boards.seconds / boards.hands) / (samples[other].seconds / samples[other].hands)
                summary.append(f"{label}: boards need {ratio:.2f} (95% {low:.2f}-{high:.2f}) of the hands of "
                               f"{other} and {time_ratio:.2f} of the time")
    print(tabulate(rows, headers=["pair (greedy vs)", "mode", "units", "hands", "greedy's score", "t per hand",
                                  "hands to 95%", "minutes", "SPRT hands", "SPRT minutes"], tablefmt="github"))
    print()
    for line in summary:
        print(line)
    print("summary: " + "; ".join(summary))


if __name__ == "__main__":
    main()
