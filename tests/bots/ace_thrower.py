#!/usr/bin/env python3
"""A test bot with a planted blunder, for the decision analysis (docs/analysis.md, tests/test_analysis.py).

It plays as the greedy sample bot, except on a trick it gives up: when an
opponent's card is winning the trick, and greedy would let it win by
throwing a card that counts nothing, it throws its highest counter that
loses the trick too: its ace of trump if that loses (another ace of trump
leads it), else another ace, else a ten (or a king, where a king counts as
much). The counter's points go to the opponents and the card is gone from
a later trick it could have won: at least a ten's worth of points lost,
which the analysis should mark. (Greedy itself never throws a ten or an
ace where a card that counts nothing would do: every such throw is the
planted one.)

Usage: ace_thrower.py (standard library and the greedy sample bot only).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sample_bots"))

from greedy_bot import Bot, serve  # noqa: E402  (a sample bot, found by its folder)


class AceThrower(Bot):
    def on_line(self, line):
        reply = super().on_line(line)
        if line.startswith("pinochle") and reply:
            reply = reply.replace("id name greedy", "id name ace-thrower")
        return reply

    def follow(self, plays, cards):
        choice = super().follow(plays, cards)
        if not self.gives_up(choice) or self.points(choice):
            return choice
        thrown = [p for p in plays if self.gives_up(p) and self.points(p) >= self.counter.get("T", 0)]
        return max(thrown, key=lambda p: (self.points(p), p.split(":")[-1][0] == "A",
                                          p.split(":")[-1][1] == self.trump), default=choice)

    def points(self, play):
        return self.counter.get(play.split(":")[-1][0], 0)

    def gives_up(self, play):
        """Does ``play`` leave the trick to the opponent's card that is winning it?"""
        best = self.current_best()
        winner = next(seat for seat, c in self.trick if c == best)
        if self.partner is not None and winner == self.partner:
            return False
        return not self.beats(play.split(":")[-1], best, self.trick[0][1])


if __name__ == "__main__":
    serve(AceThrower())
