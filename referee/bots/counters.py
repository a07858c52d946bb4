"""Fixed figures in place of the machine's counters in a jail's ``/proc``.

Part of the transport layer, used by :mod:`referee.bots.jail`. A jail's
``/proc`` is a procfs of its own PID namespace, but many of its files are the
whole machine's: how many processes were ever forked (``/proc/stat``), the
load, memory and pressure figures, interrupts, open files. One jail can move
such a figure (a burst of threads) and another read it, so two seatings of a
deal, or partners, could talk. As LXCFS does for containers, the jail gets
other files in their place: here fixed ones, the same in every jail and at
every moment, made once in a tmpfs (so their own pages are always in memory)
and bound over the kernel's, read-only:

* :data:`ZEROED`: counters with every figure 0 in the kernel's own layout
  (``/proc/stat`` keeps one line per processor and the boot time, which are
  not counters: runtimes count the processors there);
* :data:`EMPTIED`: files with nothing a bot needs (``/proc/interrupts``,
  ``/proc/locks``, ...): empty;
* ``/proc/meminfo``: the machine's total, all of it free, nothing cached;
* ``/proc/cpuinfo``: the machine's, each processor's current clock given as
  its nominal one (the current one moves with load);
* :data:`HIDDEN`: folders of the machine's file systems and devices (ext4's
  figures in ``/proc/fs`` move with every write): empty.

What a bot reads about itself (``/proc/self``, its own processes) is its own.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from functools import cache
from pathlib import Path

ZEROED = ("/proc/stat", "/proc/loadavg", "/proc/uptime", "/proc/vmstat", "/proc/sys/fs/file-nr",
          "/proc/sys/fs/inode-nr", "/proc/sys/fs/inode-state", "/proc/sys/fs/dentry-state", "/proc/sys/fs/aio-nr",
          "/proc/sys/kernel/pty/nr", "/proc/sys/fs/quota/allocated_dquots", "/proc/sys/fs/quota/free_dquots",
          "/proc/sys/fs/quota/syncs", "/proc/sys/fs/quota/lookups", "/proc/sys/fs/quota/drops",
          "/proc/sys/fs/quota/reads", "/proc/sys/fs/quota/writes", "/proc/sys/fs/quota/cache_hits",
          "/proc/sys/fs/fscache/stats")
PRESSURE = ("/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io", "/proc/pressure/irq")
EMPTIED = ("/proc/diskstats", "/proc/interrupts", "/proc/softirqs", "/proc/schedstat", "/proc/zoneinfo",
           "/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/slabinfo", "/proc/vmallocinfo", "/proc/locks",
           "/proc/swaps", "/proc/cgroups", "/proc/key-users", "/proc/keys", "/proc/timer_list",
           "/proc/sched_debug", "/proc/partitions",
           "/proc/fs/nfsd", "/proc/mdstat", "/proc/latency_stats", "/proc/iomem", "/proc/ioports", "/proc/kmsg",
           "/proc/kallsyms", "/proc/modules", "/proc/dma", "/proc/misc", "/proc/consoles", "/proc/tty/drivers")
REWRITTEN = ("/proc/meminfo", "/proc/cpuinfo")
HIDDEN = ("/proc/fs", "/proc/driver", "/proc/scsi",  # folders of the machine's file systems and devices: empty
          "/proc/irq")  # each interrupt's counters (spurious, affinity hits) move with the machine's work
NUMBER = re.compile(r"\b\d+(\.\d+)?\b")  # a number standing alone ("cpu12" is a name)


def proc_arguments(as_root: bool) -> list[str]:
    """bwrap's arguments that lay the fixed files over the jail's ``/proc`` (after its ``--proc``)."""
    folder = _folder(as_root)
    args = []
    for path in (*ZEROED, *PRESSURE, *EMPTIED, *REWRITTEN):
        if os.path.isfile(path):
            args += ["--ro-bind", str(folder / _name(path)), path]
    for path in HIDDEN:
        if os.path.isdir(path):
            args += ["--ro-bind", str(folder / "empty"), path]
    return args


def fixed_text(path: str) -> str:
    """What the jail shows at ``path`` in place of the kernel's file."""
    if path in PRESSURE:
        return "".join(f"{kind} avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" for kind in ("some", "full"))
    if path in EMPTIED:
        return ""
    if path == "/proc/meminfo":
        return _meminfo()
    if path == "/proc/cpuinfo":
        return _cpuinfo()
    if path == "/proc/stat":
        return _stat()
    if path == "/proc/uptime":
        return "0.00 0.00\n"
    if path == "/proc/loadavg":
        return "0.00 0.00 0.00 1/1 1\n"
    return _zeroed(_read(path))


def _zeroed(text: str) -> str:
    """``text`` with every number 0 (its words and layout kept)."""
    return NUMBER.sub(lambda m: "0.00" if m.group(1) else "0", text)


def _stat() -> str:
    """The kernel's /proc/stat with every counter 0 but the boot time (and a line per processor kept)."""
    out = []
    for line in _read("/proc/stat").splitlines():
        word = line.split(" ", 1)[0]
        out.append(line if word == "btime" else _zeroed(line))
    return "\n".join(out) + "\n"


def _meminfo() -> str:
    total = "0"
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            total = line.split()[1]
    free = ("MemFree", "MemAvailable")
    names = [line.split(":")[0] for line in _read("/proc/meminfo").splitlines() if ":" in line]
    lines = []
    for name in names:
        value = total if name in ("MemTotal", *free) else "0"
        unit = "" if name.startswith("HugePages_") else " kB"
        lines.append(f"{name + ':':<16}{value:>8}{unit}")
    return "\n".join(lines) + "\n"


def _cpuinfo() -> str:
    """The machine's /proc/cpuinfo, each processor's current clock replaced by half its bogomips (a figure
    fixed at boot)."""
    blocks = _read("/proc/cpuinfo").split("\n\n")
    out = []
    for block in blocks:
        bogomips = re.search(r"^bogomips\s*:\s*([\d.]+)", block, re.M)
        mhz = f"{float(bogomips.group(1)) / 2:.3f}" if bogomips else "0.000"
        out.append(re.sub(r"^(cpu MHz\s*:\s*)[\d.]+", lambda m: m.group(1) + mhz, block, flags=re.M))
    return "\n\n".join(out)


def _read(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _name(path: str) -> str:
    return path.removeprefix("/proc/").replace("/", "_")


def _base(as_root: bool) -> Path:
    """Where the folders of fixed files are: the image store (as root), else a folder of this user's."""
    if as_root:
        from . import images
        return images.open_store() / "proc"
    return Path("/dev/shm") / f"pinochle-arena-proc-{os.getuid()}"


_FOLDER_LOCK = threading.Lock()  # (the first jailed starts of a run may come at once, each in a thread)


def _folder(as_root: bool) -> Path:
    """The fixed files, written once in a tmpfs folder named by their digest (readable by every bot)."""
    with _FOLDER_LOCK:
        return _made_folder(as_root)


@cache
def _made_folder(as_root: bool) -> Path:
    texts = {path: fixed_text(path) for path in (*ZEROED, *PRESSURE, *EMPTIED, *REWRITTEN)}
    digest = hashlib.sha256(repr((sorted(texts.items()), HIDDEN)).encode()).hexdigest()[:16]
    base = _base(as_root)
    folder = base / digest
    if folder.is_dir():
        return folder
    base.mkdir(mode=0o755, parents=True, exist_ok=True)
    partial = base / f"{digest}.{os.getpid()}.{threading.get_ident()}.partial"
    partial.mkdir(mode=0o755, exist_ok=True)
    for path, text in texts.items():
        (partial / _name(path)).write_text(text)
        os.chmod(partial / _name(path), 0o444)
    (partial / "empty").mkdir(mode=0o555)
    try:
        os.rename(partial, folder)
    except OSError:  # made by another process meanwhile
        import shutil
        shutil.rmtree(partial, ignore_errors=True)
    return folder
