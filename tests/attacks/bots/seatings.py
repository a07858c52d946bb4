#!/usr/bin/env python3
"""Attack 3b, memory from board to board: on boards a process plays on to the next board.

Usage: seatings.py mark=WORD

A process that played one seating of a board and then played its other
seating would hold the opponent's cards. This bot keeps, in the memory of
its process, every hand it was dealt, and reports for every game a token
of its process (drawn when it starts: process ids repeat from jail to
jail), the game id it was told and whether it was dealt this hand before.

Reports ``ATTACK seatings proc=TOKEN id=ID seen=yes|no``.
"""

import secrets

from botloop import Bot, report, run

TOKEN = secrets.token_hex(6)


class Seatings(Bot):
    name = "seatings"
    hands: set = set()

    def on_deal(self):
        hand = " ".join(sorted(self.hand))
        seen = "yes" if hand in self.hands else "no"
        self.hands.add(hand)
        report("seatings", f"proc={TOKEN} id={self.game_id} seen={seen}")


run(Seatings())
