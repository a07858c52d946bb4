"""Progress on long work: a live line on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, live: bool | None = None):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started = time.monotonic()
        self._width = 0

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def eta(self) -> str:
        rate = self.rate()
        if rate <= 0 or self.done >= self.total:
            return "-"
        return _duration((self.total - self.done) / rate)

    def update(self, done: int, note: str = "") -> None:
        self.done = done
        head = f"[{done}/{self.total}] {self.rate():.1f} games/s ETA {self.eta()}"
        text = f"{head}  {note}" if note else head
        if self.live:
            pad = max(self._width - len(text), 0)
            self.stream.write("\r" + text + " " * pad)
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.live and self._width:
            self.stream.write("\n")
            self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
