"""Progress on long work: a live bar on a terminal (tqdm), plain lines otherwise.

tqdm fits the line to the terminal's width as it changes, so a long note
(the last game, a fault's reason) is cut rather than wrapped. The rate and
the time left count only the games of this run: after ``--resume`` the
games played before are where the bar starts, not games done in no time.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO

from tqdm import tqdm


class Progress:
    """Games done of ``total`` (None: open-ended, as a league's run: the count and the rate, no ETA)."""

    def __init__(self, total: int | None, stream: TextIO | None = None, live: bool | None = None, start: int = 0):
        self.total = total
        self.start = start  # games done before this run (a resume)
        self.done = start
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started = time.monotonic()
        self.bar = None
        if self.live:
            tty = self.stream.isatty()  # a terminal is measured as it changes; anything else by $COLUMNS
            self.bar = tqdm(total=total, initial=start, file=self.stream, unit=" games", smoothing=0.05,
                            dynamic_ncols=tty, ncols=None if tty else shutil.get_terminal_size().columns,
                            bar_format=("{n_fmt} {rate_fmt}{postfix}" if total is None else
                                        "{n_fmt}/{total_fmt} {bar:10} {rate_fmt} ETA {remaining}{postfix}"))

    def rate(self) -> float:
        """Games per second in this run."""
        elapsed = time.monotonic() - self.started
        return (self.done - self.start) / elapsed if elapsed > 0 else 0.0

    def eta(self) -> str:
        rate = self.rate()
        if rate <= 0 or self.total is None or self.done >= self.total:
            return "-"
        return _duration((self.total - self.done) / rate)

    def grow(self, total: int) -> None:
        """More games than first thought (a knockout's tie-breaks)."""
        self.total = total
        if self.bar is not None:
            self.bar.total = total
            self.bar.refresh()

    def update(self, done: int, note: str = "") -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(done - self.done)
            self.done = done
            return
        self.done = done
        head = (f"[{done}] {self.rate():.1f} games/s" if self.total is None else
                f"[{done}/{self.total}] {self.rate():.1f} games/s ETA {self.eta()}")
        self.stream.write((f"{head}  {note}" if note else head) + "\n")
        self.stream.flush()

    def interject(self, text: str) -> None:
        """Print ``text`` on stdout above the live progress line (which is drawn again below it)."""
        if self.bar is None:
            print(text, flush=True)
            return
        with self.bar.external_write_mode(file=sys.stdout):
            print(text, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
