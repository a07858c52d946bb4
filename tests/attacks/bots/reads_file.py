#!/usr/bin/env python3
"""Not an attack: a bot that needs a file of a runtime the jail's system image does not hold unless the organiser
names it (``runtimes`` / ``--runtime``).

Usage: reads_file.py mark=WORD path=/usr/share/X

Reports ``ATTACK readsfile found=yes|ERRNO``.
"""

from botloop import ARGS, Bot, outcome, report, run


class ReadsFile(Bot):
    name = "readsfile"

    def on_deal(self):
        try:
            with open(ARGS["path"], "rb") as f:
                f.read(16)
            found = "yes"
        except OSError as e:
            found = outcome(e)
        report("readsfile", f"found={found}")


run(ReadsFile())
