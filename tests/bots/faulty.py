#!/usr/bin/env python3
"""A bot that plays the first legal action until request N, then misbehaves.

Usage: faulty.py MODE [N]
MODE: sleep (never answers), slow (answers after 3 s), exit (exits with status 3),
garbage (prints words that are no message), nonsense (one token that is no action), illegal (plays a card that is not legal),
twice (answers twice), badutf8 (invalid UTF-8), nohandshake (never says ready),
segfault (dies by SIGSEGV), none (behaves).
"""

import os
import signal
import sys
import time

mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1
requests = 0


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "pinochle":
        if mode == "nohandshake":
            continue
        say("id name faulty-" + mode)
        say("ready")
    elif words[0] == "ping":
        say("pong " + words[1])
    elif words[0] == "quit":
        break
    elif words[0] == "go":
        requests += 1
        legal = words[4:]
        if requests < n or mode == "none":
            say(legal[0])
            continue
        if mode == "sleep":
            time.sleep(3600)
        elif mode == "slow":
            time.sleep(3)
            say(legal[0])
        elif mode == "exit":
            sys.exit(3)
        elif mode == "garbage":
            say("%%% this is not an action %%%")
        elif mode == "nonsense":
            say("xyzzy")
        elif mode == "illegal":
            cards = [r + s for r in "ATKQJ9" for s in "CDHS"]
            say(next(c for c in cards if c not in legal))
        elif mode == "twice":
            # both replies in one write, so they arrive together: a second reply written later, after the
            # referee has sent its next request, cannot be told from an answer to that request
            say(legal[0] + "\n" + legal[0])
            mode = "none"
        elif mode == "badutf8":
            sys.stdout.buffer.write(b"\xff\xfe\n")
            sys.stdout.flush()
        elif mode == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        else:
            say(legal[0])
