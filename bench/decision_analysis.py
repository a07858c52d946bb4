"""What the decision analysis costs and how far its marks can be trusted (docs/analysis.md, issue 54).

Plays two matches as the command line plays them (jailed bots, duplicate games, two-handed), then analyses
every seat of every game in this process, at the default budget unless told otherwise:

* ``random`` against ``montecarlo``: the points each loses a hand in each phase, with 95% intervals
  (a bootstrap over the games), and how many times more ``random`` loses;
* ``tests/bots/ace_thrower.py`` against ``greedy``: the planted blunder (greedy, but throwing its highest
  counter on a trick it gives up), found from the rules in every game, and the share of those throws the
  analysis marks (any mark, and mistakes or blunders);
* the cost: decisions per second and CPU seconds per game of the analysis (one core), against the target of
  30 s a two-handed game;
* the agreement between two seeds: the same games analysed again with another seed, decision by decision:
  the same best action, the same mark, the mean difference of the loss;
* the bidding games (``--boards``, default 2 of each of three-handed and call-for-partner, ``greedy`` in every
  seat, one hand a game): the CPU a hand, and the points lost a hand in each phase (bids, trump and passing,
  trick play), with how many of its decisions were valued and how many of those exactly, and how stable the
  marks before the tricks are under a second seed.

    python bench/decision_analysis.py                       # the issue's figures: 100 games of each match
    python bench/decision_analysis.py --concurrency 2       # the same, two games played and analysed at once
    python bench/decision_analysis.py --games 10 --think 30  # a quick look
    python bench/decision_analysis.py --games 0 --boards 2   # the bidding games only
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import interval, summary  # noqa: E402

from analysis import Budget, analyse, losses_by_bot  # noqa: E402
from analysis.summary import SeatAnalysis  # noqa: E402
from analysis.values import DEFAULT_WORLDS  # noqa: E402
from referee.records.record import GameRecord  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
THROWER = ROOT / "tests" / "bots" / "ace_thrower.py"
TARGET_S = 30.0  # the cost target: a two-handed game analysed in at most this much CPU


WORKERS = 1  # games the matches play at once, processes the analysis searches in (--concurrency)


def play(words: list[str], games: int, seed: int, out: Path) -> list[GameRecord]:
    command = [sys.executable, "-m", "arena", "match", *words, *(["--games", str(games)] if games else []),
               "--seed", str(seed), "--out", str(out), "--no-report", "--concurrency", str(WORKERS)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(words)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return [GameRecord.from_json(line) for line in (out / "games.jsonl").read_text().splitlines()]


def cpu_seconds() -> float:
    """CPU of this process and of its children reaped so far (the analysis's worker processes, once done)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed_analysis(records: list[GameRecord], budget: Budget, path: Path,
                   skip: str | None = None) -> tuple[list[SeatAnalysis], float]:
    """Every seat of ``records`` analysed (but ``skip``'s), and the CPU seconds it took (every process's)."""
    started = cpu_seconds()
    analyses = analyse(records, lambda r: {s for s, x in enumerate(r.seats) if x.entrant != skip}, budget, path,
                       workers=WORKERS)
    return analyses, cpu_seconds() - started


def by_game_interval(analyses: list[SeatAnalysis], bot: str, rng: random.Random) -> tuple[float, float, float]:
    """A bot's points lost a hand, all phases, with a 95% bootstrap interval over its games."""
    units = []
    for a in analyses:
        if a.entrant == bot:
            per_hand = {h: 0.0 for h in a.hands}
            for w in a.decisions:
                per_hand[w.hand] += w.loss
            units.append(list(per_hand.values()))
    return interval(units, rng)


def planted(record: GameRecord, seat: int) -> list[int]:
    """The planted throws of ``seat`` (tests/test_analysis.py's rule, on the record)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_analysis import planted as found

    return found(record, seat)


def report_losses(analyses: list[SeatAnalysis], rng: random.Random) -> float:
    print("points lost a hand, by phase (95% over hands):")
    for bot, (hands, phases) in losses_by_bot(analyses).items():
        shown = ", ".join(f"{phase} {loss.mean:.1f} ({loss.low:.1f} to {loss.high:.1f})"
                          for phase, loss in phases.items() if loss.valued)
        print(f"  {bot}: {hands} hands; {shown}")
    mean_r, low_r, high_r = by_game_interval(analyses, "random", rng)
    mean_m, low_m, high_m = by_game_interval(analyses, "montecarlo", rng)
    print(f"all phases, 95% over games: random {mean_r:.1f} ({low_r:.1f}-{high_r:.1f}), montecarlo {mean_m:.1f} "
          f"({low_m:.1f}-{high_m:.1f}): random loses {mean_r / max(mean_m, 1e-9):.1f}x as much")
    return mean_r / max(mean_m, 1e-9)


def report_planted(records: list[GameRecord], analyses: list[SeatAnalysis]) -> float:
    thrower = {(a.game_id, a.seat): a for a in analyses if a.entrant != "greedy"}
    marks = []
    for r in records:
        for seat, info in enumerate(r.seats):
            if info.entrant != "greedy":
                numbers = set(planted(r, seat))
                marks += [w.mark for w in thrower[r.game_id, seat].decisions if w.number in numbers]
    found = sum(m != "" for m in marks) / max(len(marks), 1)
    serious = sum(m in ("mistake", "blunder") for m in marks) / max(len(marks), 1)
    print(f"planted blunder: {len(marks)} throws in {len(records)} games; marked {found:.1%}, as a mistake or "
          f"blunder {serious:.1%}")
    return found


def report_cost(analyses: list[SeatAnalysis], games: int, seconds: float) -> float:
    valued = sum(w.values is not None for a in analyses for w in a.decisions)
    total = sum(len(a.decisions) for a in analyses)
    per_game = seconds / games
    print(f"cost: {total} decisions ({valued} valued) of {games} games in {seconds:.1f} s of CPU: "
          f"{valued / seconds:.1f} valued decisions/s, {per_game:.1f} s a game (both seats; target "
          f"{TARGET_S:.0f} s: {'met' if per_game <= TARGET_S else 'NOT met'})")
    return per_game


def report_agreement(first: list[SeatAnalysis], second: list[SeatAnalysis]) -> float:
    pairs = [(w, v) for a, b in zip(first, second) for w, v in zip(a.decisions, b.decisions) if w.values is not None]
    sampled = [(w, v) for w, v in pairs if not w.exact]
    same_best = sum(w.best == v.best for w, v in sampled) / max(len(sampled), 1)
    same_mark = sum(w.mark == v.mark for w, v in pairs) / max(len(pairs), 1)
    marked = [(w, v) for w, v in pairs if w.mark or v.mark]
    kept = sum(w.mark == v.mark for w, v in marked) / max(len(marked), 1)
    both = sum(bool(w.mark) and bool(v.mark) for w, v in marked) / max(len(marked), 1)
    drift = sum(abs(w.loss - v.loss) for w, v in sampled) / max(len(sampled), 1)
    print(f"two seeds: {len(pairs)} valued decisions ({len(sampled)} sampled, the rest exact): the same best action "
          f"{same_best:.1%} of the sampled, the same mark {same_mark:.1%} of all; of the {len(marked)} marked by "
          f"either, marked by both {both:.1%}, with the same class {kept:.1%}; mean |loss difference| "
          f"{drift:.2f} points")
    return both


BIDDING = {"three-handed": 3, "call-for-partner": 5}  # the bidding presets --boards plays, and their seats


def report_bidding(boards: int, budget: Budget, folder: Path) -> None:
    """Greedy in every seat of each bidding preset, ``boards`` deals each played once a seating (one hand a game):
    the analysis's CPU a hand, and greedy's points lost a hand per phase (every seat's hands)."""
    for name, seats in BIDDING.items():
        records = play(["greedy"] * seats + ["--variant", name, "--boards", str(boards)], 0, 1, folder / name)
        analyses, seconds = timed_analysis(records, budget, folder / name / "analysis.jsonl")
        hands = sum(len(a.hands) for a in analyses) / seats
        print(f"{name}: {len(records)} hands of greedy, {seconds:.1f} s of CPU, {seconds / max(hands, 1):.1f} s a hand "
              f"(every seat)")
        weighed = [w for a in analyses for w in a.decisions]
        every_copy = [attrs.evolve(a, entrant="greedy") for a in analyses]  # the match names them greedy-2 ...
        for phase, loss in losses_by_bot(every_copy)["greedy"][1].items():
            mine = [w for w in weighed if w.phase == phase]
            if not mine:
                continue
            exact = sum(w.exact for w in mine)
            print(f"  {phase}: {loss.mean:.2f} ({loss.low:.2f} to {loss.high:.2f}) a hand; valued {loss.valued}/"
                  f"{loss.decisions}, {exact} exact; marks {loss.marks}")
        again, _ = timed_analysis(records, attrs.evolve(budget, seed=budget.seed + 1),
                                  folder / name / "analysis.jsonl")
        print("  before the tricks (bids, trump, calls, passing, burying), ", end="")
        report_agreement(*(before_tricks(x) for x in (analyses, again)))


def before_tricks(analyses: list[SeatAnalysis]) -> list[SeatAnalysis]:
    """``analyses`` with only the decisions made before the tricks."""
    return [attrs.evolve(a, decisions=tuple(w for w in a.decisions if w.phase != "trick play")) for a in analyses]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="games of each match (default 100; even)")
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS, help="the analysis's worlds a decision")
    parser.add_argument("--think", type=int, default=100, help="montecarlo's think time in the match, ms")
    parser.add_argument("--seed", type=int, default=1, help="the matches' seed")
    parser.add_argument("--boards", type=int, default=2, help="deals of each bidding preset (0: none)")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="games the matches play at once, and processes the analysis searches in (the CPU "
                             "figures count them all)")
    args = parser.parse_args()
    global WORKERS
    WORKERS = max(1, args.concurrency)
    rng = random.Random(args.seed)
    budget = Budget(worlds=args.worlds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.boards:
            report_bidding(args.boards, budget, folder)
        if not args.games:
            return
        print(f"playing {args.games} games of random against montecarlo (think {args.think} ms), and of the "
              "ace thrower against greedy ...", flush=True)
        weak = play(["random", "montecarlo", f"option.think={args.think}"], args.games, args.seed, folder / "weak")
        thrown = play([f"{sys.executable} {THROWER}", "greedy", "--read-only", str(ROOT / "sample_bots")], args.games,
                      args.seed, folder / "thrown")  # (the thrower imports greedy from its folder)
        analyses, seconds = timed_analysis(weak, budget, folder / "weak" / "analysis.jsonl")
        ratio = report_losses(analyses, rng)
        per_game = report_cost(analyses, len(weak), seconds)
        again, _ = timed_analysis(weak, Budget(worlds=args.worlds, seed=budget.seed + 1),
                                  folder / "weak" / "analysis.jsonl")
        both = report_agreement(analyses, again)
        planted_analyses, _ = timed_analysis(thrown, budget, folder / "thrown" / "analysis.jsonl", skip="greedy")
        found = report_planted(thrown, planted_analyses)
    summary(f"analysis: {per_game:.1f} s of CPU a two-handed game at {args.worlds} worlds; random loses {ratio:.1f}x "
            f"montecarlo's points a hand; planted blunder marked {found:.0%}; marks kept by a second seed {both:.0%}")


if __name__ == "__main__":
    main()
