"""Chess-clock time control for one seat in one game. Pure arithmetic, no I/O.

A seat has a time bank for the game; each request may also have its own
limit (``move_ms``). The bot may use the smaller of the two, plus a small
``grace_ms`` that absorbs the referee's and the operating system's own
jitter. After each reply the time used is taken from the bank and the
increment added.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class TimeControl:
    bank_ms: int = 60_000
    increment_ms: int = 100
    move_ms: int | None = 5_000  # None: no per-request limit beyond the bank
    grace_ms: int = 100

    def __attrs_post_init__(self) -> None:
        for name in ("bank_ms", "increment_ms", "grace_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name.replace('_ms', '')} must not be negative")
        if self.move_ms is not None and self.move_ms <= 0:
            raise ValueError("time per move must be positive")
        if self.bank_ms == 0:
            raise ValueError("time bank must be positive")

    def to_dict(self) -> dict:
        return attrs.asdict(self)


@attrs.define
class Clock:
    control: TimeControl
    bank_ms: float = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        if self.bank_ms is None:
            self.bank_ms = float(self.control.bank_ms)

    # Asked three times per request, so plain comparisons: min(), max() and a method call per step cost
    # several times as much on CPython 3.11.
    def allowance_ms(self) -> int:
        """What the bot is told it may spend on this reply."""
        limit, move = self.bank_ms, self.control.move_ms
        if move is not None and move < limit:
            limit = move
        return int(limit) if limit > 0 else 0

    def deadline_ms(self) -> float:
        """When the referee gives up waiting, counted from the request."""
        return self.allowance_ms() + self.control.grace_ms

    def charge(self, used_ms: float) -> bool:
        """Take ``used_ms`` off the bank; True if the reply came in time."""
        in_time = used_ms <= self.deadline_ms()
        left = self.bank_ms - used_ms
        self.bank_ms = (left if left > 0.0 else 0.0) + self.control.increment_ms
        return in_time
