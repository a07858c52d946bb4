#!/usr/bin/env python3
"""A protocol 3 test bot: sends the handshake lines it is given, then plays the first legal action.

Usage: v3bot.py [--points keep|strip|wrong|pass] [LINE ...]
  LINE    a handshake line to send before 'ready' ('protocol 3', 'option depth int 3 1 9', 'want state')
  --points what to do with a meld token's '=POINTS': send it as listed (keep), without it (strip), or with
           one point too many (wrong); pass: answer the first meld request 'pass=0' (points on what is no meld)
Every line it receives goes to stderr, so a test can read what the referee sent.
"""

import sys

args = sys.argv[1:]
points = "keep"
if args[:1] == ["--points"]:
    points, args = args[1], args[2:]


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    sys.stderr.write(line)
    words = line.split()
    if not words:
        continue
    if words[0] == "pinochle":
        say("id name v3bot")
        for handshake in args:
            say(handshake)
        say("ready")
    elif words[0] == "ping":
        say("pong " + words[1])
    elif words[0] == "quit":
        break
    elif words[0] == "go":
        legal = words[4:]
        melds = [t for t in legal if "=" in t]
        choice = melds[0] if melds else legal[0]
        if ".." in choice:
            choice = choice.split("..")[0]
        if "=" in choice and points == "pass":
            choice = "pass=0"
        elif "=" in choice and points != "keep":
            action, value = choice.rsplit("=", 1)
            choice = action if points == "strip" else f"{action}={int(value) + 1}"
        say(choice)
