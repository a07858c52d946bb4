#!/usr/bin/env python3
"""The innocent of attack 9: works 150 ms of CPU time for each of its first 5 requests of a game, then plays.

Usage: burner.py mark=WORD

Measured with time.process_time, so a bot starved of the CPU takes longer on
the wall clock, the one the referee times it on.
"""

import time

from botloop import Bot, run

WORK = 0.150  # seconds of CPU per request
REQUESTS = 5  # requests of a game that take work (all would make the test long: ~50 per game). Starved, one
# alone takes seconds over its limit (150 ms of CPU beside 100 spinners): a few suffice to prove the fence


class Burner(Bot):
    name = "burner"

    def on_request(self, decision, legal):
        if self.requests > REQUESTS:
            return
        end = time.process_time() + WORK
        while time.process_time() < end:
            sum(range(1000))


run(Burner())
