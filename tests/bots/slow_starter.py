#!/usr/bin/env python3
"""A bot slow to start: before it reads the greeting it spends CPU_SECONDS of CPU time in a busy loop (its CPU
time, not the wall's: on a busy machine the loop takes longer, the same CPU time), then plays the first legal
action.

Usage: slow_starter.py CPU_SECONDS [FOLDER [FROM]]

With FOLDER, each process's pid is added to FOLDER/pids first, and only the FROM-th process started with this
FOLDER and every later one is slow (FROM 1 by default): the check before a run's first game can then find it quick
while its games find it slow.
"""

import os
import sys
import time

seconds = float(sys.argv[1])
slow = True
if len(sys.argv) > 2:
    with open(os.path.join(sys.argv[2], "pids"), "a+") as started:
        started.write(f"{os.getpid()}\n")
        started.seek(0)
        slow = len(started.read().split()) >= (int(sys.argv[3]) if len(sys.argv) > 3 else 1)
while slow and time.process_time() < seconds:
    pass
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "pinochle":
        print("id name slow-starter\nready", flush=True)
    elif words[0] == "ping":
        print("pong", *words[1:], flush=True)
    elif words[0] == "go":
        print(words[4], flush=True)
    elif words[0] == "quit":
        break
