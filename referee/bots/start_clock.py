"""A bot's start allowance, charged the time the bot itself takes: its processes' time on the wall, less the time
they waited for a CPU.

Part of the transport layer. On a machine busy with other work a bot's start may wait long for a core; that wait
is not the bot's fault. A start that computes, reads its files or sleeps is the bot's, and is charged as the clock
runs (so a bot that waits for a line the referee never sends fails at its allowance, not later). A start is charged

    max(age - waited, cpu / cores)

* ``age``: the time since the bot's first process began;
* ``waited``: the time every thread of the bot's live processes was ready to run but waited for a CPU (the
  kernel's run delay: the second field of ``/proc/PID/task/TID/schedstat``);
* ``cpu / cores``: the CPU time its processes used (with their reaped children's), spread over every core: the
  least a start takes on a quiet machine. It is a floor, as threads that wait at the same time each count their
  whole wait.

The waits of processes already reaped are not known: a start that ran its work in a child it waited for is
charged that child's waits too (in the referee's favour, never the bot's). Where the kernel keeps no run delays
(no schedstat), ``waited`` is 0 and the allowance is wall time. A ceiling, ``WALL_FACTOR`` times the allowance on
the wall, ends any start, however long it was kept from a CPU.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import attrs

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
WALL_FACTOR = 10  # the wall-clock ceiling of a start, in times its allowance
LOOK_MIN, LOOK_MAX = 0.05, 2.0  # seconds between two looks at a start (each reads /proc)


@attrs.frozen
class Usage:
    """What a bot's processes have taken so far, in seconds."""

    age: float  # since its first process began
    cpu: float  # on a CPU: its processes' and their reaped children's
    waited: float  # ready to run but waiting for a CPU: its live threads'

    def charged(self, cores: int) -> float:
        """The time charged to the bot's start: its age less its waits, and never less than its CPU time spread
        over ``cores``."""
        return max(self.age - self.waited, self.cpu / cores)


def tree_usage(pid: int) -> Usage | None:
    """What process ``pid`` and everything it started have taken; None when it is gone."""
    stats = _all_stats()
    if pid not in stats:
        return None
    tree = _descendants(pid, stats)
    age = time.clock_gettime(time.CLOCK_BOOTTIME) - stats[pid].started / CLOCK_TICKS
    cpu = sum(stats[p].ticks for p in tree) / CLOCK_TICKS
    return Usage(max(age, 0.0), cpu, sum(_run_delay(p) for p in tree))


@attrs.frozen
class _Stat:
    parent: int
    ticks: int  # clock ticks of CPU: its own and its reaped children's
    started: int  # clock ticks after boot


def _all_stats() -> dict[int, _Stat]:
    stats = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                stats[int(entry.name)] = stat
    return stats


def _stat(pid: int) -> _Stat | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_bytes()
        fields = text[text.rindex(b")") + 2:].split()  # after the name, which may hold spaces and parentheses
        return _Stat(int(fields[1]), sum(int(f) for f in fields[11:15]), int(fields[19]))
    except (OSError, ValueError, IndexError):
        return None


def _descendants(pid: int, stats: dict[int, _Stat]) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for child, stat in stats.items():
        children.setdefault(stat.parent, []).append(child)
    tree, todo = [], [pid]
    while todo:
        here = todo.pop()
        tree.append(here)
        todo += children.get(here, [])
    return tree


def _run_delay(pid: int) -> float:
    """Seconds the threads of process ``pid`` waited for a CPU while ready to run (0 when unknown)."""
    total = 0
    try:
        for task in os.scandir(f"/proc/{pid}/task"):
            try:
                total += int(Path(task.path, "schedstat").read_text().split()[1])
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        pass
    return total / 1e9


@attrs.define
class StartClock:
    """A start allowance being spent: ``allowance`` seconds charged to process ``pid`` and its descendants
    (:meth:`Usage.charged`), within a wall-clock ceiling of ``WALL_FACTOR`` times that. Without a pid (a player that
    is no process here: a bot on another machine, a person in a browser) the allowance is wall time. Times are the
    caller's clock (``trio.current_time``), from ``began``."""

    allowance: float
    pid: int | None
    began: float
    cores: int = attrs.field(factory=lambda: os.cpu_count() or 1)
    usage: Usage | None = None  # at the last look
    looked: float | None = None  # when

    @property
    def ceiling(self) -> float:
        return self.allowance * (WALL_FACTOR if self.pid is not None else 1)

    def next_look(self, now: float) -> float:
        """When to look again: no sooner than the start could have used up its allowance (what is charged grows no
        faster than the wall clock), within LOOK_MIN and LOOK_MAX; never past the ceiling."""
        end = self.began + self.ceiling
        if self.pid is None:
            return end
        if self.usage is None or self.looked is None:  # (set together, at each look)
            charged = 0.0
        else:
            charged = self.usage.charged(self.cores) + now - self.looked
        return min(end, now + min(max(self.allowance - charged, LOOK_MIN), LOOK_MAX))

    def spent(self, now: float) -> str | None:
        """Why the start is over (the allowance used up, or the ceiling reached), or None while it may go on."""
        if self.pid is not None:
            self.usage, self.looked = tree_usage(self.pid) or self.usage, now
            if self.usage is not None and self.usage.charged(self.cores) > self.allowance:
                u = self.usage
                return (f"no 'ready' after {u.charged(self.cores):.1f} s of its own time ({u.age:.1f} s since it "
                        f"began, {u.waited:.1f} s of them waiting for a CPU; {u.cpu:.2f} s of CPU); its start "
                        f"allowance is {self.allowance:g} s")
        if now >= self.began + self.ceiling:
            if self.pid is None:
                return f"no 'ready' within {self.allowance:g} s of the greeting (its start allowance)"
            return (f"no 'ready' within {self.ceiling:g} s of the greeting (its start allowance is "
                    f"{self.allowance:g} s of its own time, within {WALL_FACTOR} times as long on the wall)")
        return None
