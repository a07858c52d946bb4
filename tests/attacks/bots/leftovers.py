#!/usr/bin/env python3
"""Attack 8, leftovers: files and a process meant to outlive the bot.

Usage: leftovers.py mark=WORD

At its first request in every game it writes a file to /dev/shm, /tmp and
its home (names holding the test's word), writes up to 100 MiB into its home
(1 MiB at a time, stopping at the first error: the ``disk`` limit), and
double-forks a ``setsid`` process that sleeps 10 minutes with the word in its
command line.

Reports ``ATTACK leftovers shm=R tmp=R home=R big=BYTES:ERRNO|none daemon=R``.
"""

import os
import sys

from botloop import MARK, Bot, outcome, report, run

MiB = 1 << 20


def write(path, data=b"x\n"):
    try:
        with open(path, "wb") as f:
            f.write(data)
        return "ok"
    except OSError as e:
        return outcome(e)


def big(path, most=100):
    written, error = 0, None
    chunk = b"\x01" * MiB
    try:
        with open(path, "wb") as f:
            for _ in range(most):
                f.write(chunk)
                f.flush()
                written += MiB
    except OSError as e:
        error = e
    return f"{written}:{outcome(error) if error else 'none'}"


def daemon():
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", f"{MARK}-daemon"])
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return "ok"


class Leftovers(Bot):
    name = "leftovers"

    def on_request(self, decision, legal):
        if self.requests != 1:
            return
        home = os.environ.get("HOME", ".")
        results = {"shm": write(f"/dev/shm/{MARK}-shm"), "tmp": write(f"/tmp/{MARK}-tmp"),
                   "home": write(os.path.join(home, f"{MARK}-home")),
                   "big": big(os.path.join(home, f"{MARK}-big"))}
        try:
            results["daemon"] = daemon()
        except OSError as e:
            results["daemon"] = outcome(e)
        report("leftovers", " ".join(f"{k}={v}" for k, v in results.items()))


run(Leftovers())
