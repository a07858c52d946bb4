#!/usr/bin/env python3
"""Attack 3, memory across the seatings of a duplicate deal.

Usage: memory.py mark=WORD

In every game it first looks for what an earlier game left in $HOME, /tmp,
/dev/shm and its own program folder, then leaves its hand and the game's id
there. In the second seating of a deal, a memory would tell it the
opponent's hand. It also reports the game id it was told.

Reports ``ATTACK memory id=ID found=WHERE:ID|none wrote=WHERE:ok|ERR,...``.
"""

import os

from botloop import MARK, Bot, outcome, report, run

HERE = os.path.dirname(os.path.abspath(__file__))
PLACES = (os.environ.get("HOME", "/home/bot"), "/tmp", "/dev/shm", HERE)


def note(place):
    return os.path.join(place, f"{MARK}-memory")


class Memory(Bot):
    name = "memory"

    def on_deal(self):
        found = []
        for place in PLACES:
            try:
                with open(note(place)) as f:
                    found.append(f"{place}:{f.read().split()[0]}")
            except (OSError, IndexError):
                pass
        wrote = []
        for place in PLACES:
            error = None
            try:
                with open(note(place), "w") as f:
                    f.write(f"{self.game_id} {self.seat} {' '.join(self.hand)}\n")
            except OSError as e:
                error = e
            wrote.append(f"{place}:{outcome(error)}")
        report("memory", f"id={self.game_id} found={','.join(found) or 'none'} wrote={','.join(wrote)}")


run(Memory())
