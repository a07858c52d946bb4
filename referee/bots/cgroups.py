"""Control groups of one bot: limits that hold for all of its processes together, not for its user.

Part of the transport layer, beside the jail. When the referee may create
control groups (as root, on cgroup v1 or v2), each bot process gets a group
of its own, below the referee's own group, with:

* ``pids.max``: how many processes and threads the bot may have at once;
* a memory limit for all of its processes together (and its tmpfs files,
  which the kernel charges to the group that writes them), swap included
  where the kernel accounts for it;
* a CPU quota (``cpus`` cores at most) and the same CPU weight as every
  other playing bot, so a bot that spins on every core cannot starve its
  opponent: the scheduler shares the cores between groups first, then
  between the threads of a group. A group starts at a low weight and gets
  the full one when its process's first game begins (:meth:`BotCgroup.play`):
  a process started ahead of its game, while other games are played,
  takes little from them whatever it does before its game.

Each run (a tournament, a match, a league: its first process and the
referee worker processes it starts) keeps its bots' groups in a group of
its own, ``pinochle-arena/RUN/`` (``RUN``: the first process's pid and start
time), so the CPU is shared between runs first: the busy bots of one run on
a machine do not slow another's starts and games, while within a run every
playing bot has the same weight whichever of its referee processes plays
it.

A new process joins its group before it runs the bot or bwrap (the first
program it runs is a shell that writes to :attr:`BotCgroup.procs`, see
:mod:`referee.bots.sandbox`), so nothing the bot starts ever runs outside it. At the end every process still
in the group is killed and the group removed; a run's folder, left when it
ends, and the groups of a run that was killed are cleaned up by the next
run that finds its first process gone.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import signal
import threading
import time
from functools import cache
from pathlib import Path

import attrs

CONTROLLERS = ("pids", "memory", "cpu")
PARENT = "pinochle-arena"  # the folder, below the referee's own group, that holds each run's folder
RUN_ENV = "PINOCHLE_ARENA_RUN"  # the run a referee worker process belongs to (its folder's name), from its parent
CPU_PERIOD_US = 100_000


@attrs.frozen
class CgroupLimits:
    """What one bot's group allows; ``None`` for no limit."""

    processes: int | None = None
    memory_bytes: int | None = None
    cpus: float | None = None


@attrs.frozen
class Hierarchy:
    """Where bots' groups are made: one folder per v1 controller, or one v2 folder for all of them."""

    version: int  # 1 or 2
    folders: tuple[Path, ...]  # v1: one per controller in CONTROLLERS order; v2: one

    def weight(self) -> tuple[int, str, str, str]:
        """(folder index, file, a new group's value, a playing group's value) of the CPU weight: the low one is a
        sixteenth of the other."""
        return (2, "cpu.shares", "64", "1024") if self.version == 1 else (0, "cpu.weight", "6", "100")

    def writes(self, limits: CgroupLimits) -> list[tuple[int, str, str]]:
        """(folder index, file, value) that set ``limits`` in a new group, in the order they must be written."""
        out: list[tuple[int, str, str]] = []
        if self.version == 1:
            pids, memory, cpu = range(3)
            out.append((pids, "pids.max", "max" if limits.processes is None else str(limits.processes)))
            if limits.memory_bytes is not None:
                out.append((memory, "memory.limit_in_bytes", str(limits.memory_bytes)))
                out.append((memory, "memory.memsw.limit_in_bytes", str(limits.memory_bytes)))  # if swap is counted
            out.append(self.weight()[:3])
            if limits.cpus is not None:
                out.append((cpu, "cpu.cfs_period_us", str(CPU_PERIOD_US)))
                out.append((cpu, "cpu.cfs_quota_us", str(max(int(limits.cpus * CPU_PERIOD_US), 1000))))
        else:
            out.append((0, "pids.max", "max" if limits.processes is None else str(limits.processes)))
            if limits.memory_bytes is not None:
                out.append((0, "memory.max", str(limits.memory_bytes)))
                out.append((0, "memory.swap.max", "0"))
            out.append(self.weight()[:3])
            if limits.cpus is not None:
                out.append((0, "cpu.max", f"{max(int(limits.cpus * CPU_PERIOD_US), 1000)} {CPU_PERIOD_US}"))
        return out


class CgroupError(OSError):
    """A group could not be made or set up."""


_counter = itertools.count(1)


@attrs.define(eq=False)
class BotCgroup:
    """The group (one folder per hierarchy) of one bot process."""

    folders: tuple[Path, ...]
    playing_weight: tuple[Path, str] | None = None  # the CPU weight's file and the value :meth:`play` writes
    resting_weight: str = ""  # the value :meth:`rest` writes there

    @classmethod
    def create(cls, hierarchy: Hierarchy, limits: CgroupLimits) -> BotCgroup:
        name = f"{os.getpid()}-{next(_counter)}"
        folders = tuple(parent / name for parent in hierarchy.folders)
        index, file, resting, playing = hierarchy.weight()
        group = cls(folders, (folders[index] / file, playing), resting)
        try:
            for folder in folders:
                folder.mkdir()
            for index, file, value in hierarchy.writes(limits):
                path = folders[index] / file
                if file == "memory.memsw.limit_in_bytes" and not path.exists():
                    continue  # the kernel does not count swap separately
                path.write_text(value)
        except OSError as e:
            group.remove()
            raise CgroupError(e.errno, f"cannot set up the bot's control group {folders[0]}: {e.strerror}") from None
        return group

    def play(self) -> None:
        """Give the group the CPU weight of every playing bot (its process's first game begins). A group already
        gone (its process died) is left alone."""
        if self.playing_weight is not None:
            path, value = self.playing_weight
            with contextlib.suppress(FileNotFoundError):
                path.write_text(value)

    @property
    def procs(self) -> tuple[str, ...]:
        """Each folder's cgroup.procs: writing a pid there moves that process into the group (the jail's first
        process: sandbox._JailEnd.admit)."""
        return tuple(str(folder / "cgroup.procs") for folder in self.folders)

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in self.folders:
            try:
                found.update(int(x) for x in (folder / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return found

    def rest(self) -> None:
        """Give the group the low CPU weight of a new one again (a kept jail's next process, started ahead)."""
        if self.playing_weight is not None:
            path, _ = self.playing_weight
            with contextlib.suppress(FileNotFoundError):
                path.write_text(self.resting_weight)

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the group for reaching the group's memory limit."""
        return self.oom_kills() > 0

    def oom_kills(self) -> int:
        """How many processes of the group the kernel killed for reaching the group's memory limit."""
        for folder in self.folders:
            for name in ("memory.events", "memory.oom_control"):  # v2, v1: both have a line "oom_kill N"
                try:
                    text = (folder / name).read_text()
                except OSError:
                    continue
                counts = [line.split()[1] for line in text.splitlines() if line.startswith("oom_kill ")]
                if counts and counts[0].isdigit():
                    return int(counts[0])
        return 0

    def kill(self) -> int:
        """SIGKILL every process in the group until none is left; returns how many were found.

        Blocking (reads the group, waits a little for the dying): run it in a thread.
        """
        killed: set[int] = set()
        for attempt in range(200):  # a fork loop is bounded by pids.max; each round kills all it sees
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            killed |= pids
            time.sleep(0.002 * min(attempt + 1, 10))
        return len(killed)

    def remove(self) -> bool:
        """Remove the group's folders (they must be empty of processes); True if all are gone."""
        gone = True
        for folder in self.folders:
            for attempt in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as e:
                    if e.errno != errno.EBUSY:
                        gone = False
                        break
                    time.sleep(0.002 * min(attempt + 1, 10))  # the last process is still being released
            else:
                gone = False
        return gone

    def close(self) -> None:
        self.kill()
        self.remove()


# ------------------------------------------------------------------ finding where to make groups
def _own_groups(text: str) -> dict[str, str]:
    """controller (or "" for v2) -> the referee's own group path, from /proc/self/cgroup."""
    groups = {}
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            groups[controller] = path
    return groups


def _mounts(text: str) -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, super options) of every cgroup mount, from /proc/self/mountinfo."""
    found = []
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
            found.append((fields[4], rest[0], set(rest[2].split(","))))
    return found


def find_hierarchy(proc_cgroup: str, mountinfo: str) -> tuple[Hierarchy | None, str]:
    """Where this process could make bots' groups, from its /proc/self/cgroup and mountinfo texts.

    Returns (hierarchy, "") or (None, why not). Nothing is created here.
    """
    own = _own_groups(proc_cgroup)
    mounts = _mounts(mountinfo)
    v1 = {}
    for controller in CONTROLLERS:
        for point, kind, options in mounts:
            if kind == "cgroup" and controller in options and controller in own:
                v1[controller] = Path(point) / own[controller].lstrip("/") / PARENT
                break
    if len(v1) == len(CONTROLLERS):
        return Hierarchy(1, tuple(v1[c] for c in CONTROLLERS)), ""
    for point, kind, _ in mounts:
        if kind == "cgroup2" and "" in own:
            root = Path(point)
            try:
                available = set((root / "cgroup.controllers").read_text().split())
            except OSError:
                continue
            missing = [c for c in CONTROLLERS if c not in available]
            if missing:
                return None, f"cgroup v2 at {root} lacks the {', '.join(missing)} controller(s)"
            return Hierarchy(2, (root / own[""].lstrip("/") / PARENT,)), ""
    missing = [c for c in CONTROLLERS if c not in v1]
    return None, f"no cgroup hierarchy with the {', '.join(missing)} controller(s) is mounted"


def usable_hierarchy() -> tuple[Hierarchy | None, str]:
    """The hierarchy this run's bots' groups go in (its folder below the shared ``PARENT``), ready to use, or
    (None, why not). Made once (under a lock: threads may ask at the same time); cleans up gone runs' groups."""
    with _ONCE:
        return _usable_hierarchy()


_ONCE = threading.Lock()


@cache
def _usable_hierarchy() -> tuple[Hierarchy | None, str]:
    if os.geteuid() != 0:
        return None, "the referee does not run as root"
    try:
        shared, why = find_hierarchy(Path("/proc/self/cgroup").read_text(), Path("/proc/self/mountinfo").read_text())
    except OSError as e:
        return None, f"cannot read this process's control groups: {e.strerror}"
    if shared is None:
        return None, why
    hierarchy = Hierarchy(shared.version, tuple(folder / run_name() for folder in shared.folders))
    try:
        for folder in shared.folders:
            folder.mkdir(exist_ok=True)
        sweep(shared)
        for folder in hierarchy.folders:
            folder.mkdir(exist_ok=True)  # (a run's processes share it: made by whichever comes first)
        if hierarchy.version == 2:
            _enable_v2(hierarchy.folders[0])
        probe = BotCgroup.create(hierarchy, CgroupLimits(processes=8, memory_bytes=64 << 20, cpus=1))
        probe.remove()
    except OSError as e:
        return None, f"cannot create control groups in {shared.folders[0].parent}: {e.strerror or e}"
    return hierarchy, ""


def run_name() -> str:
    """This run's folder name: ``PID.START`` of its first process (a pid alone may be a new process's by now);
    a referee worker process is told its run's by its parent (``RUN_ENV``)."""
    return os.environ.get(RUN_ENV) or f"{os.getpid()}.{start_time(os.getpid())}"


def start_time(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot), or None if there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _enable_v2(folder: Path) -> None:
    """Let the groups below ``folder`` use the controllers (v2 delegates them level by level, from the
    referee's own group down)."""
    wanted = " ".join(f"+{c}" for c in CONTROLLERS)
    for level in (folder.parent.parent, folder.parent, folder):
        (level / "cgroup.subtree_control").write_text(wanted)


_RUN = re.compile(r"(\d+)(?:\.(\d+))?")  # a run's folder: PID.START (PID alone: made by an earlier version)
_OLD_GROUP = re.compile(r"(\d+)-\d+")  # a bot's group, as referees before runs' folders made them: PID-N


def sweep(shared: Hierarchy) -> int:
    """Kill and remove the groups of runs whose first process is gone, below the shared folders; returns how
    many groups."""
    removed = 0
    for parent in shared.folders:
        for entry in _folders(parent):
            if run := _RUN.fullmatch(entry.name):
                pid, start = run.groups()
                started = start_time(int(pid))
                if started is not None and start in (None, started):
                    continue  # its run goes on
                removed += _clear(entry)
                with contextlib.suppress(OSError):
                    entry.rmdir()
            elif (old := _OLD_GROUP.fullmatch(entry.name)) and start_time(int(old.group(1))) is None:
                BotCgroup((entry,)).close()
                removed += 1
    return removed


def _clear(folder: Path) -> int:
    """Kill and remove every group in a run's ``folder``; returns how many."""
    groups = _folders(folder)
    for group in groups:
        BotCgroup((group,)).close()
    return len(groups)


def _folders(parent: Path) -> list[Path]:
    try:
        return [entry for entry in parent.iterdir() if entry.is_dir()]
    except OSError:
        return []
