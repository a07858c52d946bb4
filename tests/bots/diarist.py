#!/usr/bin/env python3
"""A bot that plays the first legal action and keeps a diary: every line it is sent, in FOLDER/PID.log.

Usage: diarist.py FOLDER [FAIL_FROM]

With FAIL_FROM, the FAIL_FROM-th process started with this FOLDER (counted in FOLDER/pids) and every later
one exits at once, before the handshake. Every process's pid is added to FOLDER/pids first.
"""

import os
import sys

folder = sys.argv[1]
with open(os.path.join(folder, "pids"), "a+") as started:
    started.write(f"{os.getpid()}\n")
    started.seek(0)
    start = len(started.read().split())
if len(sys.argv) > 2 and start >= int(sys.argv[2]):
    sys.exit(4)
diary = open(os.path.join(folder, f"{os.getpid()}.log"), "w", buffering=1)
for line in sys.stdin:
    diary.write(line)
    words = line.split()
    if not words:
        continue
    if words[0] == "pinochle":
        print("id name diarist\nready", flush=True)
    elif words[0] == "ping":
        print("pong", *words[1:], flush=True)
    elif words[0] == "go":
        print(words[4], flush=True)
    elif words[0] == "quit":
        break
