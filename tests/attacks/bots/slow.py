#!/usr/bin/env python3
"""An innocent slow thinker: takes 12 seconds over its first request, then plays at once.

Usage: slow.py mark=WORD

Within a generous time control that is its right; the game must go on.
"""

import time

from botloop import Bot, run

THINK = 12.0  # seconds


class Slow(Bot):
    name = "slow"

    def on_request(self, decision, legal):
        if self.requests == 1:
            time.sleep(THINK)


run(Slow())
