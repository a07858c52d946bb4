#!/usr/bin/env python3
"""Attack 9, starving the opponent on time: spin on every core while the opponent thinks.

Usage: starve.py mark=WORD

At start-up it forks 100 spinners (processes, not Python threads: threads
would share one interpreter lock and one core), each in a session of its
own, so that the kernel's per-session CPU fairness (autogroup) gives each of
them as much CPU as the opponent's whole session. Right after each of its first
25 replies of a game (while burner.py thinks hard), when the opponent is to
move, it lets them spin (SIGCONT); as soon as a line arrives, its own turn,
it stops them (SIGSTOP) and answers. Each spinner exits when the bot is
gone, and after 3 minutes in any case.

Reports ``ATTACK starve spinners=N``.
"""

import atexit
import os
import signal
import time

from botloop import Bot, report, run

SPINNERS = 100
REPLIES = 25  # replies of a game after which the spinners run
LIFETIME = 180


def spin(parent):
    end = time.monotonic() + LIFETIME
    while time.monotonic() < end and os.getppid() == parent:
        for _ in range(100_000):
            pass
    os._exit(0)


class Starve(Bot):
    name = "starve"

    def __init__(self):
        me = os.getpid()
        self.spinners = []
        for _ in range(SPINNERS):
            pid = os.fork()
            if pid == 0:
                os.close(0)
                os.close(1)
                os.setsid()
                spin(me)
            os.kill(pid, signal.SIGSTOP)
            self.spinners.append(pid)
        self.reported = False
        atexit.register(self.signal_all, signal.SIGKILL)

    def signal_all(self, which):
        for pid in self.spinners:
            try:
                os.kill(pid, which)
            except ProcessLookupError:
                pass

    def on_line(self, words):
        self.signal_all(signal.SIGSTOP)

    def after_reply(self):
        if self.requests <= REPLIES:
            self.signal_all(signal.SIGCONT)
        if not self.reported:
            report("starve", f"spinners={len(self.spinners)}")
            self.reported = True


run(Starve())
