#!/usr/bin/env python3
"""Attack 1, seed from the clock: guess the match seed among the last 600 whole seconds.

Usage: clock_seed.py lib=FOLDER mark=WORD   (FOLDER holds copies of the referee and protocol packages)

The old default seed was ``int(time.time())``. With its own copy of the
rules engine, the bot deals every candidate seed exactly as a match deals
its first pair of games, and looks for the one that deals its own hand. If
one does, it knows the opponent's hand (and the stock).

Reports ``ATTACK clock seat=S hand=CARDS match=SECONDS|none claim=CARDS|none engine=PATH``.
"""

import sys
import time

from botloop import ARGS, Bot, report, run

sys.path.insert(0, ARGS["lib"])  # before the virtualenv's own (editable) referee, which the jail hides anyway

import referee  # noqa: E402
from referee.rules import get_variant, new_game  # noqa: E402
from referee.rules.dealing import derive_seed  # noqa: E402

WINDOW = 600


class ClockSeed(Bot):
    name = "clock-seed"

    def on_deal(self):
        variant = get_variant(self.variant, self.options)
        mine = sorted(self.hand)
        now = int(time.time())
        match = claim = None
        for guess in range(now - WINDOW, now + 2):
            game, _notices = new_game(variant, derive_seed(guess, "pair", 0))  # the first pair of a match
            hands = game.deals[0]["hands"]
            if sorted(hands[self.seat]) == mine:
                match, claim = guess, hands[1 - self.seat]
                break
        report("clock", f"seat={self.seat} hand={','.join(self.hand)} match={match if match is not None else 'none'} "
                        f"claim={','.join(claim) if claim else 'none'} engine={referee.__file__}")


run(ClockSeed())
