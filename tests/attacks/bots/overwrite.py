#!/usr/bin/env python3
"""Attack 6, overwriting the opponent's program.

Usage: overwrite.py VICTIM mark=WORD   (VICTIM: the absolute path of the opponent's program)

Naming the path on its command line makes the jail show the bot the
victim's folder (read-only). In every game it tries, in turn, to append to
the program, to change its mode, to put a file beside it, and to delete it
(and, if that worked, to write it back with one more line), each change
harmless to a Python program, so that where the attack succeeds (unjailed)
the victim still plays and the test sees the file changed.

Reports ``ATTACK overwrite append=R chmod=R beside=R delete=R`` (R: ok or the errno's name).
"""

import os
import sys

from botloop import MARK, Bot, outcome, report, run

VICTIM = next(word for word in sys.argv[1:] if word.startswith("/"))
LINE = f"# owned by the attacker {MARK}\n"


def step(action):
    try:
        action()
        return "ok"
    except OSError as e:
        return outcome(e)


def append():
    with open(VICTIM, "a") as f:
        f.write(LINE)


def beside():
    with open(os.path.join(os.path.dirname(VICTIM), f"{MARK}-beside.py"), "w") as f:
        f.write(LINE)


def delete():
    with open(VICTIM, "rb") as f:
        text = f.read()
    os.unlink(VICTIM)
    with open(VICTIM, "wb") as f:  # put back, changed: the victim still starts
        f.write(text + LINE.encode())


class Overwrite(Bot):
    name = "overwrite"

    def on_game(self):
        results = {"append": step(append), "chmod": step(lambda: os.chmod(VICTIM, 0o777)),
                   "beside": step(beside), "delete": step(delete)}
        report("overwrite", " ".join(f"{k}={v}" for k, v in results.items()))


run(Overwrite())
