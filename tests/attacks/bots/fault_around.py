#!/usr/bin/env python3
"""Attack 15, memory across the seatings of a deal through the page cache, asking nothing the jail refuses.

Usage: fault_around.py mark=WORD

Twenty-four files of the Python runtime every jail shows (``/usr/lib/python3*/*.py`` of
three pages or more, drawn by the mark) stand for the 24 faces of a single-deck pack;
each file's second page is its bit. In every game it first reads which second pages
are cached, then tries to evict them all (``posix_fadvise``, ignored in the jail) and
reads the second page of the files of the faces in its hand. The second seating of a
duplicate deal, a fresh process in a fresh jail, holds the other hand: if its view of
the cache were the first seating's, it would know its opponent's hand.

Two ways of reading the cache, neither refused by any filter:

* **fault-around**: map the file privately with ``MADV_RANDOM`` and touch its first
  page; the kernel maps, besides it, the pages round it that are already cached
  (without reading any), and ``/proc/self/pagemap``'s present bit says which.
  Exact: no timing involved.
* **timed reads**: a one-byte read of the second page, timed; a cached page answers
  in about a microsecond, one read from its file system takes longer. Reported,
  not asserted by the tests (timings are for bench/page_cache_channel.py).

Reports ``ATTACK faultaround id=ID files=N hand=FACES found=FACES|- timed=FACES|-``.
"""

import ctypes
import glob
import os
import random
import struct
import time

from botloop import MARK, Bot, report, run

FACES = [rank + suit for rank in "ATKQJ9" for suit in "CDHS"]
PAGE = os.sysconf("SC_PAGE_SIZE")
CANDIDATES = sorted(p for p in glob.glob("/usr/lib/python3*/*.py") if os.path.getsize(p) >= 3 * PAGE)
FILES = random.Random(MARK).sample(CANDIDATES, 24)  # chosen by the test's mark: two tests at once read others
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
PROT_READ, MAP_PRIVATE, MADV_RANDOM = 1, 2, 1
WINDOW = 16 * PAGE  # the kernel's fault-around window (64 KiB)


def by_fault_around(path):
    """Whether the file's second page is cached: touch the first page of a mapping, ask pagemap about the second."""
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, WINDOW, PROT_READ, MAP_PRIVATE, fd, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        try:
            libc.madvise(address, WINDOW, MADV_RANDOM)  # no read-ahead: the touch reads the first page alone
            ctypes.c_char.from_address(address).value  # the touch
            with open("/proc/self/pagemap", "rb") as pagemap:
                pagemap.seek((address // PAGE + 1) * 8)
                entry = struct.unpack("<Q", pagemap.read(8))[0]
            return bool(entry >> 63 & 1)
        finally:
            libc.munmap(address, WINDOW)
    finally:
        os.close(fd)


def read_time(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        start = time.perf_counter_ns()
        os.pread(fd, 1, PAGE)
        return time.perf_counter_ns() - start
    finally:
        os.close(fd)


class FaultAround(Bot):
    name = "faultaround"

    def on_deal(self):
        found = [face for face, path in zip(FACES, FILES) if by_fault_around(path)]
        times = [read_time(path) for path in FILES]  # (reads the pages, after fault-around has looked)
        fastest = sorted(times)[len(times) // 4]
        timed = [face for face, took in zip(FACES, times) if took < 3 * fastest and took < 5_000]
        for path in FILES:  # leave the hand in the cache: evict all (unjailed), then read the hand's pages
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        for face in sorted(set(self.hand)):
            fd = os.open(FILES[FACES.index(face)], os.O_RDONLY)
            try:
                os.pread(fd, 1, PAGE)
            finally:
                os.close(fd)
        hand = ",".join(f for f in FACES if f in self.hand)
        report("faultaround", f"id={self.game_id} files={len(FILES)} hand={hand} found={','.join(found) or '-'} "
                              f"timed={','.join(timed) or '-'}")


run(FaultAround())
