#!/usr/bin/env python3
"""Attack 13, writing where the jail has no size: its own / and /dev (tmpfs that bwrap makes without a size,
and, not as root, the bot's own to write), and a core file as large as its limits allow.

Usage: spaces.py mark=WORD

Reports ``ATTACK spaces root=ok|ERR dev=ok|ERR core=SOFT:HARD``.
"""

import os
import resource

from botloop import MARK, Bot, outcome, report, run


def write(folder):
    path = os.path.join(folder, f"{MARK}-spaces")
    try:
        with open(path, "wb") as f:
            f.write(b"x" * (1 << 20))
        os.unlink(path)
        return "ok"
    except OSError as e:
        return outcome(e)


class Spaces(Bot):
    name = "spaces"

    def on_deal(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
        try:
            resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            raised = "ok"
        except (OSError, ValueError) as e:
            raised = outcome(e) if isinstance(e, OSError) else "refused"
        report("spaces", f"root={write('/')} dev={write('/dev')} core={soft}:{hard} raise={raised}")


run(Spaces())
