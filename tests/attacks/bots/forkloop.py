#!/usr/bin/env python3
"""Attack 7, the process limit: fork sleeping children until the kernel refuses (at most 2,000).

Usage: forkloop.py mark=WORD

At its first request in every game it forks children that only sleep (60 s
at most, then exit: bounded, should every limit fail), until a fork fails
or 2,000 are made, then plays on with them alive. Processes of the jail
count against the bot's own ``processes`` limit, not the opponent's.

Reports ``ATTACK fork made=N error=ERRNO|none``.
"""

import os
import time

from botloop import Bot, outcome, report, run

MOST = 2000
SLEEP = 60


class ForkLoop(Bot):
    name = "forkloop"

    def on_request(self, decision, legal):
        if self.requests != 1:
            return
        made, error = 0, None
        while made < MOST:
            try:
                pid = os.fork()
            except OSError as e:
                error = e
                break
            if pid == 0:
                try:
                    os.close(0)
                    os.close(1)  # not holding the bot's pipes
                    time.sleep(SLEEP)
                finally:
                    os._exit(0)
            made += 1
        report("fork", f"made={made} error={outcome(error) if error else 'none'}")


run(ForkLoop())
