#!/usr/bin/env python3
"""greedy: sensible heuristics for two-handed pinochle, Python standard library only.

* melds: always the highest-scoring meld on offer;
* first phase: keeps trumps, aces, tens and meld cards; leads and discards
  its least useful card; takes a counter (ace, ten, king) when it can win it
  cheaply;
* last two stock cards: takes the turn-up when it is a trump or an ace;
* second phase: wins tricks with the cheapest card that wins, leads its
  sure winners (aces) first, throws its cheapest card when it cannot win.

It keeps track of its hand, its melded cards and the trick from the
protocol's events, which makes it a worked example of that bookkeeping.

Usage: greedy_bot.py [--noise P]   (with --noise, a random legal action with
probability P: a slightly weaker opponent for statistics experiments; the
randomness is seeded from the game id, so games replay the same way)
"""

import random
import sys

RANKS = "ATKQJ9"
STRENGTH = {r: 6 - i for i, r in enumerate(RANKS)}  # A=6 ... 9=1
COUNTER = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
CLASSIC = {"run": 150, "royal": 40, "marriage": 20, "dix": 10, "aces": 100, "kings": 80, "queens": 60,
           "jacks": 40, "pinochle": 40, "roundhouse": 240}
UNIT = {"run": 15, "royal": 4, "marriage": 2, "dix": 1, "aces": 10, "kings": 8, "queens": 6, "jacks": 4,
        "pinochle": 4, "roundhouse": 24}
DOUBLE = {"double-": 2, "triple-": 3, "quadruple-": 4}


class Bot:
    def __init__(self, noise=0.0):
        self.noise = noise
        self.rng = random.Random(0)
        self.seat = 0
        self.options = {}
        self.trump = None
        self.phase = 1
        self.trick = []  # (seat, card) played to the current trick

    # ----------------------------------------------------------- bookkeeping
    def on_game(self, words):
        self.rng = random.Random(words[1])
        self.seat = int(words[3])
        self.options = dict(w.split("=", 1) for w in words[5:] if "=" in w)

    def on_deal(self, words):
        self.trump = words[3][1]
        self.phase = 1
        self.trick = []

    def on_play(self, words):
        seat, action = int(words[1]), words[2]
        card = action.split(":")[-1]
        self.trick.append((seat, card))

    def on_trick(self, words):
        self.trick = []

    # ------------------------------------------------------------ decisions
    def meld_value(self, action):
        name = action.split(":")[0]
        times = 1
        for prefix, n in DOUBLE.items():
            if name.startswith(prefix):
                name, times = name[len(prefix):], n
        table = UNIT if self.options.get("scale") == "unit" else CLASSIC
        value = table.get(name, 0) * times
        if name == "pinochle" and times == 2 and self.options.get("double-pinochle") == "bonus":
            value = 30 if table is UNIT else 300
        return value

    def keep_value(self, card, cards):
        """How much we want to keep ``card``, given everything we hold."""
        rank, suit = card[0], card[1]
        value = STRENGTH[rank]
        if suit == self.trump:
            value += 8
        if rank in "AT":
            value += 4
        if rank in "KQ":  # marriage partner held?
            partner = ("Q" if rank == "K" else "K") + suit
            if partner in cards:
                value += 5 if suit == self.trump else 3
        if card in ("JD", "QS") and ("QS" if card == "JD" else "JD") in cards:
            value += 3
        if self.phase == 1 and sum(1 for c in cards if c[0] == rank) >= 3 and rank in "AKQJ":
            value += 3  # working towards something "around"
        return value

    def beats(self, mine, best, led):
        if mine[1] == best[1]:
            return STRENGTH[mine[0]] > STRENGTH[best[0]]
        return mine[1] == self.trump

    def current_best(self):
        led = self.trick[0][1]
        best = led
        for _, c in self.trick[1:]:
            if self.beats(c, best, led):
                best = c
        return best

    def choose(self, decision, legal):
        if self.noise and self.rng.random() < self.noise:
            return self.rng.choice(legal)
        if decision == "meld":
            melds = [a for a in legal if ":" in a]
            return max(melds, key=self.meld_value) if melds else "pass"
        if decision == "take":
            return "take:turnup" if "take:turnup" in legal and self.turnup_wanted else "take:stock"
        plays = [a for a in legal if a != "claim"]
        cards = [a.split(":")[-1] for a in plays]
        if decision == "lead":
            return self.lead(plays, cards)
        return self.follow(plays, cards)

    def lead(self, plays, cards):
        if self.phase == 2:
            aces = [p for p in plays if p[0] == "A" and p[1] != self.trump]
            if aces:
                return aces[0]
        # keep meld cards on the table (cheaper to give up hand cards? no: table cards are known anyway)
        return min(plays, key=lambda p: (self.keep_value(p.split(":")[-1], cards), p.startswith("table:")))

    def follow(self, plays, cards):
        best = self.current_best()
        led = self.trick[0][1]
        winners = [p for p in plays if self.beats(p.split(":")[-1], best, led)]
        at_stake = sum(COUNTER[c[0]] for _, c in self.trick)
        if winners and (self.phase == 2 or at_stake >= 10 or led[1] != self.trump and best[0] in "AT"):
            return min(winners, key=lambda p: (self.keep_value(p.split(":")[-1], cards), p))
        return min(plays, key=lambda p: (COUNTER[p.split(":")[-1][0]] * 2 + self.keep_value(p.split(":")[-1], cards), p))

    @property
    def turnup_wanted(self):
        return self.last_turnup is not None and (self.last_turnup[1] == self.trump or self.last_turnup[0] == "A")


def main():
    noise = float(sys.argv[sys.argv.index("--noise") + 1]) if "--noise" in sys.argv else 0.0
    bot = Bot(noise)
    bot.last_turnup = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        verb = words[0]
        if verb == "pinochle":
            name = f"greedy-noise{bot.noise:g}" if bot.noise else "greedy"
            print(f"id name {name}\nid author pinochle-arena sample bots\nready", flush=True)
        elif verb == "game":
            bot.on_game(words)
        elif verb == "deal":
            bot.on_deal(words)
            bot.last_turnup = words[3]
        elif verb == "exchange":
            bot.last_turnup = words[2]
        elif verb == "play":
            bot.on_play(words)
        elif verb == "trick":
            bot.on_trick(words)
        elif verb == "phase2":
            bot.phase = 2
        elif verb == "go":
            print(bot.choose(words[1], words[4:]), flush=True)
        elif verb == "ping":
            print("pong", words[1], flush=True)
        elif verb == "quit":
            return


if __name__ == "__main__":
    main()
