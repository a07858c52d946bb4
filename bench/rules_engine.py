"""Benchmark 3: the rules engine in-process, without any bot or pipe.

* Random complete hands per second, per preset (best of three runs, CPU
  time of this process): a seat picks a uniformly
  random legal action (bids: mostly pass, else the lowest; claims avoided),
  every action validated and applied exactly as the referee does.
* The cost of legal-action generation (one decision, computed afresh) and
  of meld finding: the melds of a 12-card hand on the table (two-handed) and
  the meld count of a 20-card double-deck hand (four-handed-double, what a
  bidder values), in evaluations per second.

    python bench/rules_engine.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import time

from _common import summary
from tabulate import tabulate

from referee.rules import PRESETS, get_variant, new_game
from referee.rules import events as ev
from referee.rules.actions import Bid, Claim, Pass
from referee.rules.cards import Suit, make_deck
from referee.rules.events import DecisionKind
from referee.rules.melds import MeldBoard, count_hand_meld


def chooser(rng: random.Random):
    bid = DecisionKind.BID  # a global lookup, not the enum's (which costs ten times as much on Python 3.11)

    def choose(decision):
        legal = decision.legal
        if decision.kind is bid:
            bids = [a for a in legal if isinstance(a, Bid)]
            if bids and (rng.random() < 0.35 or Pass() not in legal):
                return bids[0]
            return Pass() if Pass() in legal else bids[0]
        if len(legal) > 1 and type(legal[-1]) is Claim:  # a claim is always listed last
            legal = legal[:-1]
        return rng.choice(legal)
    return choose


def hands_per_second(name: str, seconds: float, rounds: int = 3) -> tuple[float, float]:
    """(hands per second, actions per second) of random play: the best of ``rounds`` (this machine is noisy)."""
    return max(_hands_per_second(name, seconds / rounds) for _ in range(rounds))


def _hands_per_second(name: str, seconds: float) -> tuple[float, float]:
    variant = get_variant(name)
    hands = actions = 0
    seed = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game_hands, game_actions = play_random_game(variant, seed)
        hands += game_hands
        actions += game_actions
        seed += 1
    elapsed = time.process_time() - start
    return hands / elapsed, actions / elapsed


def play_random_game(variant, seed: int) -> tuple[int, int]:
    """One whole game of random play from ``seed``: (hands, actions)."""
    game, _ = new_game(variant, seed)
    choose = chooser(random.Random(seed))
    hands = actions = 0
    while not game.is_terminal():
        action = choose(game.decision())
        game.check(action)  # as the referee validates every reply
        for notice in game.apply(action):
            if isinstance(notice.event, ev.HandEnded):
                hands += 1
                break
        actions += 1
    return hands, actions


def meld_rates(seconds: float) -> dict[str, float]:
    rng = random.Random(5)
    single = make_deck(2, get_variant("two-handed").deck_ranks)
    double_variant = get_variant("four-handed-double")
    double = make_deck(double_variant.deck_copies, double_variant.deck_ranks)
    two = get_variant("two-handed")
    hands12 = [rng.sample(single, 12) for _ in range(200)]
    hands20 = [rng.sample(double, 20) for _ in range(200)]
    suits = list(Suit)
    rates = {}
    kinds = two.melds.types()
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        hand = hands12[n % 200]
        MeldBoard().options(hand, two.melds, suits[n % 4], kinds)
        n += 1
    rates["melds of a 12-card hand (two-handed, on the table)"] = n / (time.perf_counter() - start)
    start, n = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        count_hand_meld(hands20[n % 200], suits[n % 4], double_variant.melds)
        n += 1
    rates["meld count of a 20-card double-deck hand"] = n / (time.perf_counter() - start)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement (default 2)")
    args = parser.parse_args()
    rows = []
    figures = {}
    for name in sorted(PRESETS):
        hands, actions = hands_per_second(name, args.seconds)
        legal = _time_decisions_for(name)
        figures[name] = hands
        rows.append([name, f"{hands:,.0f}", f"{actions:,.0f}", f"{legal:.1f}"])
        print(f"  {name}: {hands:,.0f} hands/s", flush=True)
    print(tabulate(rows, headers=["preset", "random hands/s", "actions/s", "legal actions (us)"], tablefmt="github"))
    melds = meld_rates(args.seconds)
    print(tabulate([[k, f"{v:,.0f}"] for k, v in melds.items()], headers=["meld finding", "per second"],
                   tablefmt="github"))
    double = melds["meld count of a 20-card double-deck hand"]
    summary(f"rules engine: {figures['two-handed']:,.0f} two-handed hands/s on one core; "
            f"{double:,.0f} meld counts of a 20-card double-deck hand/s")


def _time_decisions_for(name: str) -> float:
    variant = get_variant(name)
    rng = random.Random(1)
    total, count, seed = 0.0, 0, 10_000
    while count < 3000:
        game, _ = new_game(variant, seed)
        choose = chooser(rng)
        while not game.is_terminal() and count < 3000:
            decision = game.decision()
            t = time.perf_counter()
            game._decide()  # computed afresh (decision() caches it per state)
            total += time.perf_counter() - t
            count += 1
            game.apply(choose(decision))
        seed += 1
    return total / count * 1e6


if __name__ == "__main__":
    main()
