#!/usr/bin/env python3
"""Attack 16, a channel through the machine's counters: what two jails both read in /proc.

Usage: counters.py mark=WORD

A bot that moves a machine-wide figure can signal to another jail that reads it: a
burst of forks moves /proc/stat's ``processes``, threads move loadavg's runnable count,
open files move ``/proc/sys/fs/file-nr``, memory moves ``/proc/meminfo``. At its first
deal it reads every file of ``/proc`` that is not a process's own (its processes'
folders, ``self``, ``thread-self`` and the per-namespace ``net`` and ``sys/net`` are
its own), then forks 20 children, starts 8 threads, opens 50 files and touches 64 MiB,
and reads them all again: a file whose text moved is a counter it shares with the
machine, and with every other jail on it.

The same for ``sysinfo(2)``, which answers the machine's thread count, free memory and load
without any file.

Reports ``ATTACK counters id=ID read=N moved=FILE,FILE|- sysinfo=moved|same|ERRNO`` (at most 40 names).
"""

import ctypes
import os
import threading
import time

from botloop import Bot, outcome, report, run

libc = ctypes.CDLL(None, use_errno=True)


def sysinfo():
    """sysinfo(2)'s answer as bytes (its struct), or the error."""
    answer = ctypes.create_string_buffer(128)
    if libc.sysinfo(answer) != 0:
        raise OSError(ctypes.get_errno(), "sysinfo")
    return answer.raw

OWN = {"self", "thread-self", "net", "sysvipc"}  # a process's and a namespace's own
OWN_FILES = {"/proc/sys/kernel/random/uuid",  # a fresh random number at every read
             "/proc/sys/kernel/ns_last_pid",  # the last pid of its own PID namespace
             "/proc/sys/kernel/random/entropy_avail",  # 256 on every kernel since 5.18
             "/proc/kmsg", "/proc/kcore"}  # (unjailed, as root: the kernel's log waits for news, kcore is huge)


def readable():
    found = []
    for top, folders, files in os.walk("/proc"):
        if top == "/proc":
            folders[:] = [f for f in folders if not f.isdigit() and f not in OWN]
        if top == "/proc/sys":
            folders[:] = [f for f in folders if f != "net"]
        found += [os.path.join(top, f) for f in files]
    return sorted(set(found) - OWN_FILES)


def snapshot(paths):
    texts = {}
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                texts[path] = os.read(fd, 1 << 16)
            finally:
                os.close(fd)
        except OSError:
            pass
    return texts


def stir():
    children = []
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    stop = time.monotonic() + 0.3
    threads = [threading.Thread(target=lambda: [None for _ in iter(lambda: time.monotonic() > stop, True)])
               for _ in range(8)]
    for t in threads:
        t.start()
    files = [open("/proc/self/status", "rb") for _ in range(50)]
    block = bytearray(64 << 20)
    block[::4096] = b"x" * len(block[::4096])
    time.sleep(1.1)  # the kernel's figures refresh every second or so (loadavg every five)
    for t in threads:
        t.join()
    for f in files:
        f.close()
    del block


class Counters(Bot):
    name = "counters"

    def on_deal(self):
        paths = readable()
        before = snapshot(paths)
        try:
            machine = sysinfo()
        except OSError as e:
            machine = outcome(e)
        stir()
        after = snapshot(paths)
        moved = [p for p in before if after.get(p) != before[p]]
        if isinstance(machine, bytes):
            machine = "same" if sysinfo()[8:] == machine[8:] else "moved"  # (its first field is the uptime)
        report("counters", f"id={self.game_id} read={len(before)} moved={','.join(moved[:40]) or '-'} "
                           f"sysinfo={machine}")


run(Counters())
