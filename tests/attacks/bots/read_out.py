#!/usr/bin/env python3
"""Attack 2, reading OUT: the results, the seal key, the logs, the other bot's stderr.

Usage: read_out.py out=OUT mark=WORD

At every game it tries the output folder's files by relative paths (from its
working directory, up to four levels up) and by their absolute paths (the
test tells it OUT), and reads every file it can find by walking OUT.

It also looks for OUT's path in the command line of every process it can
see (the jail's first process is bubblewrap, whose arguments name the folders
it covers).

Reports ``ATTACK readout read=PATH:BYTES,...|- listed=PATH:N,...|- cmdline=PID,...|-`` (what it
could read, folders of OUT it could list that were not empty, and processes whose command line names OUT).
"""

import os

from botloop import ARGS, Bot, report, run

NAMES = ("tournament.json", "games.jsonl", "secret.key", "schedule.jsonl", "logs", "work")


def candidates(out):
    for up in range(5):
        for name in NAMES:
            yield "../" * up + name
    for name in NAMES:
        yield os.path.join(out, name)
    yield out
    for top, folders, files in os.walk(out):  # whatever the walk finds (nothing, when OUT is hidden)
        for name in files + folders:
            yield os.path.join(top, name)


def inside(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder + os.sep)


class ReadOut(Bot):
    name = "read-out"

    def on_game(self):
        read, listed = {}, {}
        for path in candidates(ARGS["out"]):
            try:
                if os.path.isdir(path):
                    entries = os.listdir(path)
                    if entries and inside(path, ARGS["out"]):
                        listed[os.path.abspath(path)] = len(entries)
                    continue
                with open(path, "rb") as f:
                    read[os.path.abspath(path)] = len(f.read(1 << 20))
            except OSError:
                pass
        named = []  # processes it can see whose command line names OUT (the jail's own, bwrap, might)
        for pid in (p for p in os.listdir("/proc") if p.isdigit()):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:  # OUT as an argument of its own: not out=OUT
                    if os.fsencode(ARGS["out"]) in f.read().split(b"\0"):
                        named.append(pid)
            except OSError:
                pass
        report("readout", f"read={','.join(f'{p}:{n}' for p, n in read.items()) or '-'} "
                          f"listed={','.join(f'{p}:{n}' for p, n in listed.items()) or '-'} "
                          f"cmdline={','.join(named) or '-'}")


run(ReadOut())
