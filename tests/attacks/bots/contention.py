#!/usr/bin/env python3
"""Attack 17, a channel between partners through CPU contention.

Usage: contention.py mark=WORD [slot=MS] [repeat=N]

The two partners of a four-handed game are two processes in two jails at the
same time. The jails share no file, lock or counter the bots could use, but
they share the machine's cores. Each partner pins one thread to the same
core (the last one both may use: ``sched_setaffinity`` is an ordinary call),
and on the shared monotonic clock bits go in slots of ``slot`` ms (default
0.25), each cut in two halves. The sender spins through the first half for a 1
and through the second for a 0 (Manchester coding: the receiver needs no
threshold, and the sender uses half a core whatever it sends, well inside
its quota); the receiver counts the turns of a tight loop it gets through in
each half, and reads a 1 where the first half got less done.

The referee writes a seat its events, its deal included, only before its
next request, so the partner asked second learns its hand after the first
has replied. Both follow one schedule on the shared clock: periods of two
windows, the lower seat sending in the first and the higher in the second.
From its first deal a partner sends a frame (16 known bits, then its hand)
``repeat`` times (default 40) in its window of every period, and listens in
the other until it hears its partner's known bits (at most one wrong), each
bit read from what all the copies say (every slot's log2 ratio of its
halves' work, clipped to +-1, added up); it holds its first reply for one
whole period, so the second partner's hold is a period in which both talk,
and the game waits for it as it would for a bot that thinks within its
clock. A hand goes as the number of copies of every face held, in base
copies + 1: 39 bits for a single deck, 47 for a double.

Reports ``ATTACK contention id=ID seat=S partner=P slot=MS repeat=N pin=ok|ERR bits=N listened=N
heard=yes|no hand=CARDS got=CARDS|none`` (one line) at the end of its first period, before its first
reply, and again when it hears its partner later (``got``: the partner's hand as read; ``listened``:
windows listened to so far); ``partner=none`` in a game without partners.
"""

from __future__ import annotations

import math
import os
import threading
import time

from botloop import ARGS, Bot, outcome, report, run

SUITS = "SHDC"
DECKS = {"four-handed": ("ATKQJ9", 2), "four-handed-double": ("ATKQJ", 4)}  # ranks and copies of each face
GAP = 2  # slots between the two windows of a period
MARGIN = 0.05  # seconds from the deal to the earliest start of a period
PERIODS = 60  # periods a partner talks at most
PREAMBLE = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0]  # the known bits that begin a frame
CLIP = 1.0  # the most one slot says for its bit (a log2 ratio): a half in which the receiver got no CPU at all
            # (the machine's other work) counts no more than a clear one


def channel_cpu() -> int:
    """The core both ends use: the last one this process may run on (every jail may use them all)."""
    return max(os.sched_getaffinity(0))


def pin() -> str:
    """Pin the calling thread to :func:`channel_cpu`; 'ok' or the errno's name."""
    try:
        os.sched_setaffinity(0, {channel_cpu()})
        return "ok"
    except OSError as e:
        return outcome(e)


def _sleep_until(moment: float) -> None:
    left = moment - time.monotonic()
    if left > 0:
        time.sleep(left)


def _spin_until(moment: float) -> None:
    while time.monotonic() < moment:
        pass


def send(bits: list[int], start: float, slot: float) -> None:
    """Send ``bits`` from monotonic time ``start``, one every ``slot`` seconds: busy in the first half of a
    slot for a 1, in the second for a 0."""
    half = slot / 2
    for i, bit in enumerate(bits):
        busy = start + i * slot + (0 if bit else half)
        _sleep_until(busy)
        _spin_until(busy + half)


def work(count: int, start: float, slot: float) -> list[int]:
    """Turns of a tight loop done in each half of ``count`` slots from ``start`` (two numbers a slot)."""
    half = slot / 2
    _sleep_until(start)
    done = []
    for i in range(2 * count):
        end = start + (i + 1) * half
        turns = 0
        while time.monotonic() < end:
            turns += 1
        done.append(turns)
    return done


def decode(done: list[int]) -> list[int]:
    """The bits in :func:`work`'s counts: 1 where the first half of a slot got less done than the second."""
    return [1 if done[2 * i] < done[2 * i + 1] else 0 for i in range(len(done) // 2)]


def votes(done: list[int]) -> list[float]:
    """What each slot of :func:`work`'s counts says: log2 of its second half's work over its first's, clipped to
    +-CLIP (positive: a 1)."""
    return [max(-CLIP, min(CLIP, math.log2(max(done[2 * i + 1], 1) / max(done[2 * i], 1))))
            for i in range(len(done) // 2)]


def receive(count: int, start: float, slot: float) -> list[int]:
    """The ``count`` bits sent from ``start``, one every ``slot`` seconds."""
    return decode(work(count, start, slot))


# ------------------------------------------------------------------ a hand as bits
def hand_bits(variant: str) -> int:
    ranks, copies = DECKS[variant]
    return math.ceil(len(ranks) * len(SUITS) * math.log2(copies + 1))


def faces(variant: str) -> list[str]:
    return [rank + suit for suit in SUITS for rank in DECKS[variant][0]]


def to_bits(hand: list[str], variant: str) -> list[int]:
    base = DECKS[variant][1] + 1
    number = 0
    for face in reversed(faces(variant)):
        number = number * base + hand.count(face)
    return [(number >> i) & 1 for i in range(hand_bits(variant))]


def from_bits(bits: list[int], variant: str) -> list[str]:
    """The hand ``bits`` stand for (a wrong bit gives another hand, perhaps an impossible one)."""
    base = DECKS[variant][1] + 1
    number = sum(bit << i for i, bit in enumerate(bits))
    hand = []
    for face in faces(variant):
        number, copies = divmod(number, base)
        hand += [face] * copies
    return hand


class Contention(Bot):
    name = "contention"
    held: threading.Event | None = None

    def on_deal(self):
        if self.variant not in DECKS:
            report("contention", f"id={self.game_id} seat={self.seat} partner=none")
            return
        self.held = threading.Event()
        slot = float(ARGS.get("slot", "0.25")) / 1000
        repeat = int(ARGS.get("repeat", "40"))
        threading.Thread(target=self.talk, args=(slot, repeat, self.held), daemon=True).start()

    def talk(self, slot: float, repeat: int, held: threading.Event) -> None:
        """Send ``repeat`` copies of a frame of this hand in its window of every period, listen in the other
        until the partner is heard; report at the end of the first period, then set ``held``, and again when
        the partner is heard."""
        partner = (self.seat + 2) % 4
        frame = PREAMBLE + to_bits(self.hand, self.variant)
        window = (repeat * len(frame) + GAP) * slot
        period = 2 * window
        mine = 0 if self.seat < partner else 1
        pinned = pin()
        said = f"id={self.game_id} seat={self.seat} partner={partner} slot={slot * 1000:g} repeat={repeat} " \
               f"pin={pinned} bits={hand_bits(self.variant)}"
        heard, listened = None, 0

        def tell() -> None:
            got = "none" if heard is None else ",".join(sorted(from_bits(heard, self.variant))) or "-"
            report("contention", f"{said} listened={listened} heard={'no' if heard is None else 'yes'} "
                                 f"hand={','.join(sorted(self.hand))} got={got}")

        k = math.ceil((time.monotonic() + MARGIN) / period)
        try:
            for _ in range(PERIODS):
                for w in (0, 1):
                    at = k * period + w * window
                    if w == mine:
                        send(frame * repeat, at, slot)
                    elif heard is None:
                        slots = votes(work(repeat * len(frame), at, slot))
                        got = [1 if sum(slots[i::len(frame)]) > 0 else 0 for i in range(len(frame))]
                        listened += 1
                        if sum(a != b for a, b in zip(got, PREAMBLE)) <= 1:
                            heard = got[len(PREAMBLE):]
                            if held.is_set():
                                tell()
                if not held.is_set():
                    tell()
                    held.set()
                k += 1
        except Exception as e:
            report("contention", f"{said} error={type(e).__name__}")
        finally:
            held.set()  # (whatever happens here, the game goes on)

    def on_request(self, decision, legal):
        if self.held is not None:  # the first reply waits for one whole period of talking
            self.held.wait()
            self.held = None


if __name__ == "__main__":
    run(Contention())
