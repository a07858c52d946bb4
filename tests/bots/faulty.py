#!/usr/bin/env python3
"""A bot that plays the first legal action until request N, then misbehaves.

Usage: faulty.py MODE [N]

At request N (or at the handshake for the modes marked *):
  sleep        never answers (says 'asleep' on stderr)   slow        answers after 3 s
  exit         exits with status 3             segfault    dies by SIGSEGV
  closeout     closes stdout, keeps running    nohandshake* never says ready
  garbage      a line that is no message       badutf8     a line of invalid UTF-8
  endless      a line that never ends          flood       gigabytes of info lines
  infoflood    plays, but writes 10,000 info lines (just under 1 MiB) before every reply
  stderrflood* floods stderr all game, plays well
  twice        answers twice in one write      unasked     speaks unasked (a pong nobody asked for)
  nonsense     one token that is no action     illegal     a legal-looking card that is not legal
  notheld      a card it does not hold         wrongphase  an action of another phase (a bid for a card)
  illegalbid   a bid below the minimum (bidding games)
  ignoreterm*  ignores SIGTERM, then never answers request N
  fork         forks a grandchild holding the pipes, then exits
  daemon       like fork, but the grandchild leaves the process group (setsid)
  memory       allocates memory without bound  spin        spins on every core, never answers
  wedge*       answers requests but never pings (alive but wedged between games)
  noquit*      plays well but does not exit on quit
  lowercase    from request N, answers the first legal action with its case swapped (ROYAL:kh,qh): legal
  ids*         plays well, and names itself with id keys the referee has no use for (version, url)
  none         behaves
  rotate SALT  a different one of the modes above in each game (chosen from the game id), or none
  crashin ID   plays well, but exits at its first request of game ID
"""

import hashlib
import os
import signal
import sys
import threading
import time

mode = sys.argv[1]
rotating = mode == "rotate"
salt = sys.argv[2] if rotating and len(sys.argv) > 2 else ""
doomed = sys.argv[2] if mode == "crashin" else None
n = int(sys.argv[2]) if len(sys.argv) > 2 and not rotating and doomed is None else 1
ROTATION = ["none", "none", "none", "sleep", "slow", "exit", "segfault", "closeout", "garbage", "badutf8", "endless",
            "flood", "twice", "unasked", "nonsense", "illegal", "notheld", "wrongphase", "fork", "daemon", "memory",
            "spin", "stderrflood", "wedge"]
requests = 0
hand: list[str] = []


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def spin():
    while True:
        pass


def grandchild(leave_group):
    if os.fork() == 0:
        if leave_group:
            os.setsid()
        time.sleep(3600)  # holds stdin, stdout and stderr open
        os._exit(0)
    sys.exit(4)


def stderr_flood():
    """More than the referee keeps (1 MiB) before going on, whatever the machine's load (each write waits for
    the referee to read the pipe), then more all game in a thread."""
    chunk = b"x" * 65536 + b"\n"
    for _ in range(20):
        os.write(2, chunk)
    threading.Thread(target=flood_forever, args=(chunk,), daemon=True).start()


def flood_forever(chunk):
    while True:
        os.write(2, chunk)


if mode == "ignoreterm":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "stderrflood":
    stderr_flood()

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "pinochle":
        if mode == "nohandshake":
            continue
        say("id name faulty-" + mode)
        if mode == "ids":
            say("id version 1.0")
            say("id url https://example.org/bot")
        say("ready")
    elif words[0] == "ping":
        if mode != "wedge":
            say("pong " + words[1])
    elif words[0] == "quit":
        if mode == "noquit":
            time.sleep(3600)
        break
    elif words[0] == "game" and doomed is not None:
        mode = "exit" if words[1] == doomed else "none"
    elif words[0] == "game" and rotating:
        pick = int.from_bytes(hashlib.sha256((salt + words[1]).encode()).digest()[:8], "big")
        mode = ROTATION[pick % len(ROTATION)]
        n, requests = 1 + (pick >> 8) % 25, 0
        if mode == "stderrflood":
            stderr_flood()
    elif words[0] == "deal":
        hand = words[4:]
        if mode == "unasked" and requests + 1 >= n:
            say("pong 99")
    elif words[0] == "go":
        requests += 1
        legal = words[4:]
        if requests < n or mode in ("none", "stderrflood", "wedge", "unasked", "noquit"):
            say(legal[0])
            continue
        if mode in ("sleep", "ignoreterm"):
            print("asleep", file=sys.stderr, flush=True)  # (for a test to know the bot was asked and thinks)
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
        elif mode == "lowercase":
            say(legal[0].swapcase())
        elif mode == "illegal":
            cards = [r + s for r in "ATKQJ9" for s in "CDHS"]
            say(next(c for c in cards if c not in legal))
        elif mode == "notheld":
            cards = [r + s for r in "ATKQJ9" for s in "CDHS"]
            say(next(c for c in cards if c not in hand))
        elif mode == "wrongphase":
            say("bid:250" if words[1] in ("lead", "follow") else "AS")
        elif mode == "illegalbid":
            say("bid:5" if words[1] == "bid" else legal[0])
            if words[1] != "bid":
                requests -= 1  # misbehave at the first bid request instead
        elif mode == "twice":
            # both replies in one write, so they arrive together: a second reply written later, after the
            # referee has sent its next request, cannot be told from an answer to that request
            say(legal[0] + "\n" + legal[0])
            mode = "none"
        elif mode == "badutf8":
            sys.stdout.buffer.write(b"\xff\xfe\n")
            sys.stdout.flush()
        elif mode == "endless":
            while True:
                sys.stdout.write("A" * 65536)
                sys.stdout.flush()
        elif mode == "infoflood":  # keeps playing: just under 1 MiB of info lines before every reply
            sys.stdout.write(("info " + "z" * 95 + "\n") * 10_000 + legal[0].split("..")[0] + "\n")
            sys.stdout.flush()
            requests -= 1  # and again at the next request
        elif mode == "flood":
            junk = "info " + "z" * 1000 + "\n"
            while True:
                sys.stdout.write(junk * 64)
                sys.stdout.flush()
        elif mode == "closeout":
            sys.stdout.close()
            os.close(1)
            time.sleep(3600)
        elif mode == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif mode in ("fork", "daemon"):
            grandchild(mode == "daemon")
        elif mode == "memory":
            hoard = []
            while True:
                hoard.append(b"\x01" * (16 << 20))  # filled, so the pages are really touched
        elif mode == "spin":
            for _ in range(os.cpu_count() or 2):
                if os.fork() == 0:
                    spin()
            spin()
        else:
            say(legal[0])
