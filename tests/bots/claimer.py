#!/usr/bin/env python3
"""A test bot for claims (two-handed games with claim=yes): plays a random legal card or meld, and claims

  random    at random, one time in five that 'claim' is offered (as a bot that picks any token would);
            protocol 2
  counted   exactly when its count reaches the target as the 'state' line gives it: game total, this
            hand's meld and the counters of its tricks (PROTOCOL.md, section 13); protocol 3
  stale     when its game total has reached the first target (the 'rule target' line): a bot that misses
            that the target rose (tiebreak=play-on) claims at the next hand and loses; protocol 3

Usage: claimer.py random|counted. Its choices depend only on the game id, so a game replays the same way.
"""

import random
import sys

mode = sys.argv[1]
rng = random.Random(0)
seat = 0
count = target = first_target = total = None


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def per_seat(value):
    return [int(x) for x in value.split("/")]


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "pinochle":
        say("id name claimer")
        if mode in ("counted", "stale"):
            say("protocol 3")
            say("want state")
        say("ready")
    elif words[0] == "game":
        rng, seat = random.Random(words[1]), int(words[3])
    elif words[0] == "rule" and words[1] == "target":
        first_target = int(words[2])
    elif words[0] == "state":
        fields = dict(word.split("=", 1) for word in words[1:])
        count = sum(per_seat(fields[key])[seat] for key in ("totals", "meld", "tricks"))
        target = int(fields["target"])
        total = per_seat(fields["totals"])[seat]
    elif words[0] == "go":
        legal = words[4:]
        others = [token for token in legal if token != "claim"]
        if mode == "random":
            claim = rng.random() < 0.2
        elif mode == "counted":
            claim = count is not None and count >= target
        else:
            claim = total is not None and total >= first_target
        say("claim" if "claim" in legal and claim else rng.choice(others).split("..")[0])
    elif words[0] == "ping":
        say("pong " + words[1])
    elif words[0] == "quit":
        break
