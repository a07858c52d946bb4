#!/usr/bin/env python3
"""Attack 5, forged results: append a record that says it won to OUT/games.jsonl.

Usage: forge.py out=OUT mark=WORD

In every game it appends a forged record (game g1, itself the winner, the
word FORGED in its detail) to the records file by its absolute path and by
relative paths from its working directory, creating the file if need be.

Reports ``ATTACK forge wrote=PATH,...|-`` (the paths of OUT/games.jsonl it appended to).
"""

import json
import os

from botloop import ARGS, MARK, Bot, report, run


def forged(seat):
    result = [0.0, 0.0]
    result[seat] = 1.0
    return json.dumps({"format": 1, "game_id": "g1", "variant": "two-handed", "options": {}, "seed": 1,
                       "seats": [], "time_control": {}, "deals": [], "actions": [], "melds": [], "hands": [],
                       "termination": "completed", "culprit": None, "detail": f"FORGED {MARK}",
                       "result": result, "totals": [0, 0], "started": 0.0, "seconds": 0.0, "extra": {}})


class Forge(Bot):
    name = "forge"

    def on_game(self):
        out = os.path.realpath(ARGS["out"])
        paths = [os.path.join(out, "games.jsonl")] + ["../" * up + "games.jsonl" for up in range(1, 6)]
        wrote = []
        for path in paths:
            try:
                with open(path, "a") as f:
                    f.write(forged(self.seat) + "\n")
                if os.path.dirname(os.path.realpath(path)) == out:
                    wrote.append(os.path.abspath(path))
            except OSError:
                pass
        report("forge", f"wrote={','.join(wrote) or '-'}")


run(Forge())
