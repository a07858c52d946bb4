#!/usr/bin/env python3
"""greedy: sensible heuristics for every pinochle variant, Python standard library only.

* melds: always the highest-scoring meld on offer;
* first phase: keeps trumps, aces, tens and meld cards; leads and discards
  its least useful card; takes a counter (ace, ten, king) when it can win it
  cheaply;
* last two stock cards: takes the turn-up when it is a trump or an ace;
* second phase: wins tricks with the cheapest card that wins, leads its
  sure winners (aces) first, throws its cheapest card when it cannot win.

In the bidding games it bids what its best trump suit's meld plus a share of
the trick points is worth, names that suit, calls the ace of trump, passes
its partner trumps and aces (and gets rid of its weakest cards), buries its
weakest cards, and plays the tricks as above without overtaking a partner.

It keeps track of its hand, its melded cards and the trick from the
protocol's events, which makes it a worked example of that bookkeeping.
It speaks protocol 3: the meld values and card points come from the game's
``rule`` lines, a meld's points from its token (``royal:KH,QH=40``), and it
declares one option, ``noise``.

Usage: greedy_bot.py [--noise P]   (with --noise, a random legal action with
probability P: a slightly weaker opponent for statistics experiments; the
randomness is seeded from the game id, so games replay the same way. The
organiser may set it per bot instead: option.noise=15 is 15 percent.)
"""

import random
import sys

RANKS = "ATKQJ9"
STRENGTH = {r: 6 - i for i, r in enumerate(RANKS)}  # A=6 ... 9=1


def hand_meld(cards, trump, table):
    """What a hand melds with this trump, as the bidding games count it."""
    count = {}
    for c in cards:
        count[c] = count.get(c, 0) + 1

    def sets(pattern):
        return min(count.get(c, 0) for c in pattern)

    def value(kind, times):
        row = table.get(kind, ())
        total = 0
        while times > 0 and row:
            m = min(times, len(row))
            total += row[m - 1]
            times -= m
        return total

    runs = sets([r + trump for r in "ATKQJ"])
    total = value("run", runs) + value("royal", sets(["K" + trump, "Q" + trump]) - runs)
    total += sum(value("marriage", sets(["K" + s, "Q" + s])) for s in "CDHS" if s != trump)
    total += value("dix", count.get("9" + trump, 0))
    for kind, rank in (("aces", "A"), ("kings", "K"), ("queens", "Q"), ("jacks", "J")):
        total += value(kind, sets([rank + s for s in "CDHS"]))
    return total + value("pinochle", sets(["JD", "QS"]))


class Bot:
    def __init__(self, noise=0.0):
        self.noise = noise
        self.rng = random.Random(0)
        self.seat = 0
        self.trump = None
        self.phase = 1
        self.trick = []  # (seat, card) played to the current trick
        self.players = 2
        self.hand = []  # bidding games: our cards
        self.bidder = None
        self.partner = None
        # from the game's rule lines (protocol 3)
        self.meld_values = {}  # kind -> its value once, twice... (up to the first level that is no meld)
        self.counter = {}  # rank -> points taken in tricks
        self.copies = 2  # of each card
        self.trick_points = 0  # counters in the deck plus the last trick
        self.last_turnup = None  # the stock game's turn-up while it lies there

    def on_rule(self, words):
        """``rule meld run 150 300``, ``rule points A=11 T=10 ...``: what the game is worth (PROTOCOL.md, 10)."""
        key, values = words[1], words[2:]
        if key == "meld":
            levels = []
            for v in values[1:]:
                if v == "-":
                    break
                levels.append(int(v))
            self.meld_values[values[0]] = tuple(levels)
        elif key == "points":
            self.counter = {v.split("=")[0]: int(v.split("=")[1]) for v in values}
        elif key == "copies":
            self.copies = int(values[0])
        elif key == "last-trick":
            self.trick_points = sum(self.counter.values()) * 4 * self.copies + int(values[0])

    # ----------------------------------------------------------- bookkeeping
    def on_game(self, words):
        self.rng = random.Random(words[1])
        self.seat = int(words[3])
        self.players = int(words[4])
        self.meld_values, self.counter = {}, {}

    def on_deal(self, words):
        bidding = words[3] == "-"
        self.trump = None if bidding else words[3][1]
        self.phase = 2 if bidding else 1  # the bidding games play strict tricks from the start
        self.trick = []
        self.hand = words[4:]
        self.bidder = self.partner = None
        if bidding and self.players == 4:
            self.partner = (self.seat + 2) % 4

    def on_event(self, words):
        """Bidding-game bookkeeping: the cards that come to and leave our hand."""
        verb = words[0]
        if verb == "bidwon":
            self.bidder = int(words[1])
        elif verb == "kitty" and self.bidder == self.seat:
            self.hand += words[1:]
        elif verb == "trump":
            self.trump = words[2]
        elif verb == "partner":
            bidder, partner = int(words[1]), words[2]
            if partner != "-":
                if self.seat == bidder:
                    self.partner = int(partner)
                elif self.seat == int(partner):
                    self.partner = bidder
        elif verb == "give":
            giver, receiver, cards = int(words[1]), int(words[2]), [c for c in words[3:] if c != "??"]
            if giver == self.seat:
                for c in cards:
                    if c in self.hand:
                        self.hand.remove(c)
            if receiver == self.seat:
                self.hand += cards
        elif verb == "bury" and int(words[1]) == self.seat:
            for c in words[2:]:
                if c in self.hand:
                    self.hand.remove(c)

    def on_play(self, words):
        seat, action = int(words[1]), words[2]
        card = action.split(":")[-1]
        self.trick.append((seat, card))
        if seat == self.seat and card in self.hand:
            self.hand.remove(card)

    def on_trick(self, words):
        self.trick = []

    # ------------------------------------------------------------ decisions
    @staticmethod
    def meld_value(action):
        """A meld token's points: protocol 3 writes them after '=' (``run:AH,TH,JH=110``, an upgrade)."""
        return int(action.rsplit("=", 1)[1])

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
            choice = self.rng.choice(legal)
            return choice.split("..")[0] if ".." in choice else choice
        if decision in ("bid", "trump", "call", "give", "bury"):
            return getattr(self, "choose_" + decision)(legal)
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

    # ------------------------------------------------------- bidding games
    def suit_value(self, suit):
        """Meld with this suit as trump, plus two points a trump for the trick play."""
        return hand_meld(self.hand, suit, self.meld_values) + 2 * sum(1 for c in self.hand if c[1] == suit)

    def choose_bid(self, legal):
        bids = [t for t in legal if t.startswith("bid:")]
        if not bids:
            return "pass"
        lowest = int(bids[0][4:].split("..")[0])
        share = self.trick_points / max(self.players, 2)
        best = max(hand_meld(self.hand, s, self.meld_values) for s in "CDHS")
        aces = sum(1 for c in self.hand if c[0] == "A")
        estimate = best + share + aces + (share / 2 if self.partner is not None else 0)
        if estimate >= lowest or "pass" not in legal:
            return f"bid:{lowest}"
        return "pass"

    def choose_trump(self, legal):
        return "trump:" + max("CDHS", key=self.suit_value)

    def choose_call(self, legal):
        for rank in "ATK":
            token = f"call:{rank}{self.trump}"
            if token in legal and self.hand.count(rank + self.trump) < 4:
                return token
        return legal[0]

    def choose_give(self, legal):
        cards = [t[5:] for t in legal]
        if self.seat != self.bidder:  # to the bid winner: our best trumps and aces
            return "give:" + max(cards, key=lambda c: (c[1] == self.trump, c[0] == "A", STRENGTH[c[0]]))
        return "give:" + min(cards, key=lambda c: (c[1] == self.trump, self.keep_value(c, self.hand)))

    def choose_bury(self, legal):
        cards = [t[5:] for t in legal]
        return "bury:" + min(cards, key=lambda c: (c[1] == self.trump, self.keep_value(c, self.hand)))

    def follow(self, plays, cards):
        best = self.current_best()
        winner = next(seat for seat, c in self.trick if c == best)
        if self.partner is not None and winner == self.partner:  # partner has it: throw points, keep strength
            return max(plays, key=lambda p: (self.counter[p.split(":")[-1][0]] - self.keep_value(p.split(":")[-1], cards) / 10, p))
        led = self.trick[0][1]
        winners = [p for p in plays if self.beats(p.split(":")[-1], best, led)]
        at_stake = sum(self.counter[c[0]] for _, c in self.trick)
        if winners and (self.phase == 2 or at_stake >= 10 or led[1] != self.trump and best[0] in "AT"):
            return min(winners, key=lambda p: (self.keep_value(p.split(":")[-1], cards), p))
        return min(plays, key=lambda p: (self.counter[p.split(":")[-1][0]] * 2 + self.keep_value(p.split(":")[-1], cards), p))

    @property
    def turnup_wanted(self):
        return self.last_turnup is not None and (self.last_turnup[1] == self.trump or self.last_turnup[0] == "A")

    # ------------------------------------------------------------ the protocol
    def on_line(self, line):
        """Take in one line from the referee; return our reply (text ending in a newline), or None.

        ``"quit"`` is returned for the referee's ``quit``. The montecarlo bot
        feeds every line to a greedy bot of its own, for the decisions it
        does not simulate.
        """
        words = line.split()
        if not words:
            return None
        verb = words[0]
        if verb == "pinochle":
            name = f"greedy-noise{self.noise:g}" if self.noise else "greedy"
            return (f"id name {name}\nid author pinochle-arena sample bots\nprotocol 3\n"
                    f"option noise int {round(self.noise * 100)} 0 100\nready\n")
        if verb == "setoption" and words[1] == "noise":
            self.noise = int(words[2]) / 100
        elif verb == "game":
            self.on_game(words)
        elif verb == "rule":
            self.on_rule(words)
        elif verb == "deal":
            self.on_deal(words)
            self.last_turnup = words[3]
        elif verb == "exchange":
            self.last_turnup = words[2]
            if int(words[1]) == self.seat:
                self.hand.append(words[3])
        elif verb == "play":
            self.on_play(words)
        elif verb == "trick":
            self.on_trick(words)
        elif verb == "phase2":
            self.phase = 2
        elif verb in ("bidwon", "kitty", "trump", "partner", "give", "bury"):
            self.on_event(words)
        elif verb == "go":
            return self.choose(words[1], words[4:]) + "\n"
        elif verb == "ping":
            return f"pong {words[1]}\n"
        elif verb == "quit":
            return "quit"
        return None


def serve(bot):
    """Answer the referee on standard input and output until it says quit (montecarlo serves this way too)."""
    for line in sys.stdin:
        reply = bot.on_line(line)
        if reply == "quit":
            return
        if reply is not None:
            sys.stdout.write(reply)
            sys.stdout.flush()


def main():
    noise = float(sys.argv[sys.argv.index("--noise") + 1]) if "--noise" in sys.argv else 0.0
    serve(Bot(noise))


if __name__ == "__main__":
    main()
