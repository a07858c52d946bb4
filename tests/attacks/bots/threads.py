#!/usr/bin/env python3
"""The innocent of attack 7: starts 20 threads at every request (a bot that thinks in parallel).

Usage: threads.py mark=WORD

A thread that cannot be started raises, the bot dies and the record says
crash: the test wants none.
"""

import threading

from botloop import Bot, run


class Threads(Bot):
    name = "threads"

    def on_request(self, decision, legal):
        workers = [threading.Thread(target=sum, args=(range(1000),)) for _ in range(20)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()


run(Threads())
