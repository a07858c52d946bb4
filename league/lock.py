"""One ``league run`` per league: the runner's claim, kept in the league's database.

A runner claims the league before it plays (its host, pid, the host's boot id, since when, and a heartbeat it
refreshes every ``HEARTBEAT`` seconds) and gives the claim back when it stops. A second runner finds the claim
and is refused with one line naming the holder (:class:`LeagueHeld`). A claim whose runner is gone is taken
over: on the same host (and the same boot) when its process no longer exists, a claim from before the host's
last boot at once, and any claim whose heartbeat is older than ``STALE`` seconds (a runner on another machine,
which this one cannot look at). The claim is swapped in the database in one step
(:meth:`league.db.LeagueDB.swap_runner_claim`), so of two runners taking over the same dead claim one wins.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable

import attrs
import trio

from referee.bots.spawn import is_running

from .db import LeagueDB
from .errors import LeagueRefused

HEARTBEAT = 5.0  # seconds between two refreshes of a runner's claim
STALE = 60.0  # seconds after its last heartbeat that a claim is taken over, wherever its runner was


@attrs.frozen
class Claim:
    """Who holds a league: the runner's host, pid and the host's boot id, since when and its last heartbeat."""

    host: str
    pid: int
    boot: str
    since: float
    heartbeat: float

    @classmethod
    def of_this_process(cls, now: float) -> Claim:
        return cls(socket.gethostname(), os.getpid(), boot_id(), now, now)

    def to_text(self) -> str:
        return json.dumps(attrs.asdict(self), sort_keys=True)

    @classmethod
    def from_text(cls, text: str) -> Claim | None:
        """The claim ``text`` holds, or None if it is none (a claim that cannot be read is taken over)."""
        try:
            return cls(**json.loads(text))
        except (ValueError, TypeError):
            return None

    def is_gone(self, now: float) -> bool:
        """Whether the runner that made this claim has stopped (or may be taken to have)."""
        if now - self.heartbeat > STALE:
            return True
        if self.host != socket.gethostname():
            return False
        if self.boot != boot_id():
            return True  # made before this host's last boot
        return self.pid == os.getpid() or not is_running(self.pid)

    def to_line(self, now: float) -> str:
        since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.since))
        return (f"host {self.host}, pid {self.pid}, since {since} (its last heartbeat {now - self.heartbeat:.0f} s "
                f"ago)")


class LeagueHeld(LeagueRefused):
    """Another runner holds the league."""

    def __init__(self, holder: Claim, now: float) -> None:
        super().__init__(f"another league run holds this league: {holder.to_line(now)}; one runner per league: stop "
                         f"that one first (a runner killed without stopping is taken over once its process is gone, "
                         f"or {STALE:.0f} s after its last heartbeat)")
        self.holder = holder


def boot_id() -> str:
    """This host's boot id (Linux's), or "" where there is none."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return ""


@attrs.define
class Hold:
    """This runner's hold on a league: its claim, as last written."""

    db: LeagueDB
    claim: Claim

    @classmethod
    def take(cls, db: LeagueDB) -> Hold:
        """Claim the league for this process; :class:`LeagueHeld` if another runner holds it. A claim whose
        runner is gone is taken over."""
        while True:
            now = time.time()
            held = db.runner_claim()
            holder = None if held is None else Claim.from_text(held)
            if holder is not None and not holder.is_gone(now):
                raise LeagueHeld(holder, now)
            mine = Claim.of_this_process(now)
            if db.swap_runner_claim(held, mine.to_text()):
                return cls(db, mine)
            # another runner changed the claim between the two steps: look again

    def refresh(self) -> bool:
        """Write a new heartbeat; False if the league is no longer this runner's (another took it over)."""
        fresh = attrs.evolve(self.claim, heartbeat=time.time())
        if not self.db.swap_runner_claim(self.claim.to_text(), fresh.to_text()):
            return False
        self.claim = fresh
        return True

    def release(self) -> None:
        """Give the league back (unless another runner has taken it over since)."""
        self.db.swap_runner_claim(self.claim.to_text(), None)

    async def keep(self, lost: Callable[[], None]) -> None:
        """Refresh the claim every ``HEARTBEAT`` seconds until cancelled; ``lost()`` (and return) if another
        runner took the league over."""
        while True:
            await trio.sleep(HEARTBEAT)
            if not await trio.to_thread.run_sync(self.refresh):
                lost()
                return


__all__ = ["HEARTBEAT", "STALE", "Claim", "Hold", "LeagueHeld", "boot_id", "is_running"]
