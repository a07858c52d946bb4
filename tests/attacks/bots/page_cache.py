#!/usr/bin/env python3
"""Attack 11, memory across the seatings of a deal through the page cache.

Usage: page_cache.py mark=WORD

Twenty-four files of the Python runtime (``/usr/lib/python3*/*.py``, drawn by the mark) stand for
the 24 faces of a single-deck pack. In every game it first reads which of
them the kernel has cached (``mincore`` on a mapping of each, else a read
with ``RWF_NOWAIT``, which fails rather than wait for the disk), then evicts
all 24 (``posix_fadvise(DONTNEED)``) and reads the files of the faces in its
hand. The second seating of a duplicate deal, a fresh process in a fresh
jail, holds the other hand: if it could read the cache, it would know its
opponent's hand.

It also tries the ways round a filter on those calls: the kernel's AIO (whose
reads may say RWF_NOWAIT too) and ``process_madvise``.

Reports ``ATTACK pagecache id=ID hand=FACES mincore=ok|ERR nowait=ok|ERR aio=ok|ERR pmadvise=ok|ERR found=FACES|unknown``.
"""

import ctypes
import glob
import os
import random

from botloop import MARK, Bot, outcome, report, run

FACES = [rank + suit for rank in "ATKQJ9" for suit in "CDHS"]
# 24 distinct files of the Python runtime every jail shows, chosen by the test's mark (two tests at once read others)
FILES = random.Random(MARK).sample(sorted(p for p in glob.glob("/usr/lib/python3*/*.py") if os.path.getsize(p) >= 4096), 24)
PAGE = os.sysconf("SC_PAGE_SIZE")
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def by_mincore(path):
    """Whether the file's first page is cached, asked of the kernel directly."""
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, PAGE, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        try:
            vector = ctypes.create_string_buffer(1)
            if libc.mincore(address, PAGE, vector) != 0:
                raise OSError(ctypes.get_errno(), "mincore")
            return vector.raw[0] & 1 == 1
        finally:
            libc.munmap(address, PAGE)
    finally:
        os.close(fd)


def by_nowait(path):
    """Whether the file's first page is cached: a read that may not wait for the disk succeeds only then."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.preadv(fd, [bytearray(PAGE)], 0, os.RWF_NOWAIT)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def by_aio(path):
    """The kernel's AIO, whose reads may also say RWF_NOWAIT: can the bot even make a context?"""
    context = ctypes.c_ulong(0)
    if libc.syscall(206, 1, ctypes.byref(context)) != 0:  # io_setup (x86_64)
        raise OSError(ctypes.get_errno(), "io_setup")
    libc.syscall(207, context)  # io_destroy
    return True


def by_process_madvise(path):
    """madvise's advice through process_madvise (a pidfd of its own), which a filter on madvise does not see."""
    pidfd = libc.syscall(434, os.getpid(), 0)  # pidfd_open
    if pidfd < 0:
        raise OSError(ctypes.get_errno(), "pidfd_open")
    try:
        if libc.syscall(440, pidfd, None, 0, 3, 0) < 0:  # process_madvise(WILLNEED) of nothing
            raise OSError(ctypes.get_errno(), "process_madvise")
        return True
    finally:
        os.close(pidfd)


def primitive(probe):
    try:
        probe(FILES[0])
        return "ok"
    except OSError as e:
        return outcome(e)


class PageCache(Bot):
    name = "pagecache"

    def on_deal(self):
        ways = {"mincore": primitive(by_mincore), "nowait": primitive(by_nowait), "aio": primitive(by_aio),
                "pmadvise": primitive(by_process_madvise)}
        probe = by_mincore if ways["mincore"] == "ok" else by_nowait if ways["nowait"] == "ok" else None
        found = "unknown" if probe is None else ",".join(f for f, path in zip(FACES, FILES) if probe(path))
        for path in FILES:  # leave the hand in the cache: evict all, then read the hand's faces
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            except OSError:
                pass
            finally:
                os.close(fd)
        for face in sorted(set(self.hand)):
            with open(FILES[FACES.index(face)], "rb") as f:
                f.read(PAGE)
        hand = ",".join(f for f in FACES if f in self.hand)
        report("pagecache", f"id={self.game_id} files={len(FILES)} hand={hand} mincore={ways['mincore']} "
                            f"nowait={ways['nowait']} aio={ways['aio']} pmadvise={ways['pmadvise']} "
                            f"found={found or '-'}")


run(PageCache())
