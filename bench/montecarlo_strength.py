"""How strong is the montecarlo sample bot? Its strength table against every other sample bot, every variant.

Opponents: the sample bots tactician, greedy and random; ``sparring``, the stranger-style Rust bot of
bench/sparring (the yardstick; built here if need be); and ``montecarlo-python``, montecarlo itself with
``option.core=python``, the pure-Python search it had before its compiled core (at the same think time).
``--core python`` measures that old montecarlo instead of the new one.

Two-player variants: duplicate games (each deal played twice, seats swapped), montecarlo's score (wins, a
draw a half) with a 95% interval from a bootstrap over the deal pairs. Three to five players: boards
(one deal played as one hand in every seating) with montecarlo in one seat (in both seats of a side in the
partnership variants) and the opponent in the others; its points per hand less the others' on the same
cards, and its mean finishing position in each hand (1 is first; equal bots average (players + 1) / 2),
each with a 95% interval from a bootstrap over boards. A row says "better" or "worse" only where the
intervals exclude equality.

    python bench/montecarlo_strength.py                    # the issue's figures: 100 ms, 400 games, 100 boards
    python bench/montecarlo_strength.py --think 20 --games 40 --boards 20 --variants three-handed
    python bench/montecarlo_strength.py --variants two-handed --opponents tactician --shards 2  # on 2 cores
    python bench/montecarlo_strength.py --variants two-handed --opponents sparring montecarlo-python \
        --games 40 --parallel 1                                                  # the issue's two-handed targets

Matches run as the command line runs them (jailed bots), two at a time (--parallel).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import interval, points_a_hand, side_margin  # noqa: E402
from tabulate import tabulate  # noqa: E402

from referee.bots.samples import entrant_name, unique_names  # noqa: E402
from referee.rules import PRESETS  # noqa: E402
from referee.rules.variants import Partners  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SPARRING = ROOT / "bench" / "sparring"
OPPONENTS = ("tactician", "greedy", "random", "sparring", "montecarlo-python")


def opponent_words(opponent: str, think: int) -> list[str]:
    """An opponent as the command line names it (with its options)."""
    if opponent == "sparring":
        return [str(SPARRING / "target" / "release" / "sparring")]
    if opponent == "montecarlo-python":
        return ["montecarlo", "option.core=python", f"option.think={think}"]
    return [opponent]


def build_sparring() -> None:
    done = subprocess.run(["cargo", "build", "--release", "--offline", "--quiet", "--manifest-path",
                           str(SPARRING / "Cargo.toml")], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"cannot build bench/sparring: {done.stderr[-1000:]}")


def lineup(variant, opponent: str, args) -> list[list[str]]:
    """The match's bots, seat by seat: montecarlo and the opponent, montecarlo twice in a partnership."""
    me = ["montecarlo", f"option.think={args.think}", *(["option.core=python"] if args.core == "python" else [])]
    them = opponent_words(opponent, args.think)
    if variant.partners is Partners.OPPOSITE:
        return [me, them, me, them]
    return [me, *[them] * (variant.players - 1)]


def my_names(variant, opponent: str, args) -> set[str]:
    """The entrant names the records give montecarlo's seats (the match makes repeated names unique in
    seat order: montecarlo, then montecarlo-2 for the opponent when it is montecarlo too)."""
    bots = lineup(variant, opponent, args)
    names = unique_names([entrant_name(tuple(bot[:1])) for bot in bots])
    return {names[i] for i, bot in enumerate(bots) if bot is bots[0]}


def play(name: str, opponent: str, shard: int, args, out: Path) -> list[dict]:
    """One shard of a pairing's games (or boards): its share of them, on deals of a seed of its own."""
    variant = PRESETS[name]
    unit = (["--games", str(shares(args.games, 2, args.shards)[shard])] if variant.players == 2
            else ["--boards", str(shares(args.boards, 1, args.shards)[shard])])
    words = [w for bot in lineup(variant, opponent, args) for w in bot]
    command = [sys.executable, "-m", "arena", "match", *words, "--variant", name,
               *unit, "--seed", str(args.seed + 1000 * shard), "--out", str(out), "--no-report"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{name} vs {opponent} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    faults = [r for r in records if r["termination"] != "completed"]
    if faults:
        print(f"  {name} vs {opponent}: {len(faults)} games ended by a fault: {faults[0]['detail']}", flush=True)
    names = my_names(variant, opponent, args)
    for r in records:
        r["mine"] = [i for i, s in enumerate(r["seats"]) if s["entrant"] in names]
    return records


def shares(total: int, step: int, shards: int) -> list[int]:
    """``total`` cut into ``shards`` near-equal multiples of ``step`` (a duplicate pair is two games)."""
    units = total // step
    return [step * (units // shards + (1 if k < units % shards else 0)) for k in range(shards)]


def mine(record: dict) -> list[int]:
    return record["mine"]


def by_deal(records: list[dict]) -> list[list[dict]]:
    """The games that share a deal (a duplicate pair, or a board's seatings)."""
    groups: dict[int, list[dict]] = defaultdict(list)
    for r in records:
        groups[r["seed"]].append(r)
    return list(groups.values())


def two_player_row(records, rng):
    units = [[r["result"][mine(r)[0]] for r in group] for group in by_deal(records)]
    score, low, high = interval(units, rng)
    verdict = "better" if low > 0.5 else "worse" if high < 0.5 else "not clear"
    return f"{100 * score:.1f}% ({100 * low:.1f}-{100 * high:.1f})", verdict, "", len(records)


def position(points: list[int], seat: int) -> float:
    """Finishing position of ``seat`` by the hand's points: 1 is first; tied seats share their places."""
    above = sum(1 for p in points if p > points[seat])
    level = sum(1 for p in points if p == points[seat])
    return above + (level + 1) / 2


def many_player_row(records, players, rng):
    margins, places = [], []
    for group in by_deal(records):
        m, p = [], []
        for r in group:
            points = points_a_hand(r)  # (a board's game is one hand)
            ours = mine(r)
            m.append(side_margin(points, ours))
            p.append(sum(position(points, s) for s in ours) / len(ours))
        margins.append(m)
        places.append(p)
    margin, low, high = interval(margins, rng)
    place, p_low, p_high = interval(places, rng)
    even = (players + 1) / 2
    verdict = ("better" if low > 0 and p_high < even else "worse" if high < 0 and p_low > even else "not clear")
    return (f"{margin:+.1f} ({low:+.1f} to {high:+.1f}) points a hand",
            verdict, f"{place:.2f} ({p_low:.2f}-{p_high:.2f}); equal: {even:g}", len(records))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think", type=int, default=100, help="montecarlo's ms a decision (default 100)")
    parser.add_argument("--games", type=int, default=400, help="duplicate games a two-player pairing (default 400)")
    parser.add_argument("--boards", type=int, default=100, help="boards a 3-5 player pairing (default 100)")
    parser.add_argument("--variants", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS), choices=list(OPPONENTS))
    parser.add_argument("--core", choices=("native", "python"), default="native",
                        help="montecarlo's search: its compiled core (default), or the pure-Python one it had before")
    parser.add_argument("--seed", type=int, default=1, help="the deals' seed (default 1)")
    parser.add_argument("--parallel", type=int, default=2, help="matches at once (default 2)")
    parser.add_argument("--shards", type=int, default=1,
                        help="play each pairing as this many matches (deals of seeds SEED, SEED+1000, ...), so one "
                             "long pairing can use --parallel cores (default 1)")
    args = parser.parse_args()

    pairings = [(v, o) for v in args.variants for o in args.opponents]
    if "sparring" in args.opponents:
        build_sparring()
    print(f"montecarlo (core {args.core}) at {args.think} ms a decision: {len(pairings)} pairings, "
          f"{args.parallel} at a time", flush=True)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.parallel) as pool:
        jobs = {pair: [pool.submit(play, *pair, k, args, Path(tmp) / f"{pair[0]}-{pair[1]}-{k}")
                       for k in range(args.shards)] for pair in pairings}
        rows = []
        for (name, opponent), shard_jobs in jobs.items():
            records = [r for job in shard_jobs for r in job.result()]
            rng = random.Random(0)
            players = PRESETS[name].players
            if players == 2:
                measure, verdict, place, games = two_player_row(records, rng)
            else:
                measure, verdict, place, games = many_player_row(records, players, rng)
            rows.append([name, opponent, measure, place, games, verdict])
            print(f"  {name} vs {opponent}: {measure}  {place}", flush=True)
    print()
    print(tabulate(rows, headers=["variant", "against", "montecarlo: score (95%) / margin (95%)",
                                  "finishing position (95%)", "games", "montecarlo is"], tablefmt="github"))


if __name__ == "__main__":
    main()
