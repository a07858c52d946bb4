"""The CPU time a bot's processes have used, and its start allowance counted in it.

Part of the transport layer. A bot's start (until its ``ready``) is
charged the CPU time of its processes, not the time on the wall: on a
machine busy with other work a bot may wait long for a core, and is not
to blame for that; a bot that burns its allowance is. A wall-clock
ceiling, some times the allowance, still ends a start that sleeps or
waits for something that never comes.

The CPU time is read from the bot's own control group where the jail
gave it one on cgroup v2 (``cpu.stat``'s ``usage_usec``: every process
the group ever held), else from ``/proc``: ``utime`` and ``stime`` of
its first process and of every process descended from it, plus
``cutime`` and ``cstime`` (what their reaped children used).
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from . import cgroups

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
WALL_FACTOR = 10  # the wall-clock ceiling of a start, in times its CPU allowance
LOOK_MIN, LOOK_MAX = 0.05, 2.0  # seconds between two readings of a start's CPU time (each reads /proc)


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU seconds used by process ``pid`` and everything it started; None when it cannot be read (gone)."""
    try:
        group = group_seconds(Path(f"/proc/{pid}/cgroup").read_text(), Path("/proc/self/mountinfo").read_text())
    except OSError:
        return None
    return group if group is not None else _proc_tree_seconds(pid)


def group_seconds(proc_cgroup: str, mountinfo: str) -> float | None:
    """The CPU seconds of the cgroup v2 group that ``proc_cgroup`` (a process's /proc/PID/cgroup) names, if that is
    a bot's own group (``PARENT/RUN/NAME``, made by :mod:`referee.bots.cgroups`); else None (a process in a group
    shared with others: the referee's)."""
    hierarchy, _ = cgroups.find_hierarchy(proc_cgroup, mountinfo)
    if hierarchy is None or hierarchy.version != 2:
        return None
    group = hierarchy.folders[0].parent  # (find_hierarchy names the folder it would make groups in, below it)
    if group.parent.parent.name != cgroups.PARENT:
        return None
    try:
        for line in (group / "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
    except (OSError, ValueError):
        pass
    return None


def _proc_tree_seconds(pid: int) -> float | None:
    """From /proc: the CPU time of ``pid`` and its descendants, with what their reaped children used."""
    stats = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                stats[int(entry.name)] = stat
    if pid not in stats:
        return None
    children: dict[int, list[int]] = {}
    for child, (parent, _) in stats.items():
        children.setdefault(parent, []).append(child)
    total, todo = 0, [pid]
    while todo:
        here = todo.pop()
        total += stats[here][1]
        todo += children.get(here, [])
    return total / CLOCK_TICKS


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, clock ticks of CPU: its own and its reaped children's) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_bytes()
        fields = text[text.rindex(b")") + 2:].split()  # after the name, which may hold spaces and parentheses
        return int(fields[1]), sum(int(f) for f in fields[11:15])  # ppid; utime, stime, cutime, cstime
    except (OSError, ValueError, IndexError):
        return None


@attrs.define
class StartClock:
    """A start allowance being spent: ``allowance`` CPU seconds of process ``pid`` and its descendants, within a
    wall-clock ceiling of ``WALL_FACTOR`` times that. Without a pid (a player that is no process here: a bot on
    another machine, a person in a browser) the allowance is wall time. Times are the caller's clock
    (``trio.current_time``), from ``began``."""

    allowance: float
    pid: int | None
    began: float
    used: float = 0.0  # CPU seconds at the last look

    @property
    def ceiling(self) -> float:
        return self.allowance * (WALL_FACTOR if self.pid is not None else 1)

    def next_look(self, now: float) -> float:
        """When to look at the CPU time again: as soon as the processes could have spent what is left on every
        core, within LOOK_MIN and LOOK_MAX; never past the ceiling."""
        end = self.began + self.ceiling
        if self.pid is None:
            return end
        wait = (self.allowance - self.used) / (os.cpu_count() or 1)
        return min(end, now + min(max(wait, LOOK_MIN), LOOK_MAX))

    def spent(self, now: float) -> str | None:
        """Why the start is over (the allowance used up, or the ceiling reached), or None while it may go on."""
        if self.pid is not None:
            used = tree_cpu_seconds(self.pid)
            self.used = self.used if used is None else used
            if self.used > self.allowance:
                return (f"no 'ready' after {self.used:.2f} s of CPU time; its start allowance is "
                        f"{self.allowance:g} s of CPU time")
        if now >= self.began + self.ceiling:
            if self.pid is None:
                return f"no 'ready' within {self.allowance:g} s of the greeting (its start allowance)"
            return (f"no 'ready' within {self.ceiling:g} s of the greeting, having used {self.used:.1f} s of CPU "
                    f"time; its start allowance is {self.allowance:g} s of CPU time, within {self.ceiling:g} s")
        return None
