#!/usr/bin/env python3
"""Attack 12, a channel between running copies of a bot through kernel state every jail shares.

Usage: locks.py mark=WORD

Two copies of one bot playing at once (the two seatings of a duplicate deal
under --concurrency 2, or two partners) see the same system files. One copy
could signal to the other by locking such a file (``flock``, ``fcntl``
record or open-file locks), or by opening and reading it while the other
watches it (``inotify``, ``fanotify``), or through ``io_uring``, which a
filter cannot see into. It tries each primitive between two of its own
processes (a parent and a forked child stand for the two copies: they share
nothing but what every jail shares) on one of the system's files.

Reports ``ATTACK locks flock=seen|unseen|ERR fcntl=seen|unseen|ERR ofd=... highbits=... inotify=ok|ERR fanotify=ok|ERR io_uring=ok|ERR``
(highbits: fcntl's F_GETLK with the register's high bits set, which the kernel ignores).
"""

import ctypes
import fcntl
import os
import struct

from botloop import Bot, outcome, report, run

SHARED = "/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd"
F_OFD_GETLK, F_OFD_SETLK = 36, 37
libc = ctypes.CDLL(None, use_errno=True)


def in_child(probe):
    """Run ``probe()`` in a forked child (the other copy); its answer, as a word, through a pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            word = probe()
        except OSError as e:
            word = outcome(e)
        os.write(write, word.encode())
        os._exit(0)
    os.close(write)
    answer = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    return answer


def flock_seen():
    """The parent holds an exclusive flock: can the child see it (its own non-blocking try fails)?"""
    with open(SHARED, "rb") as mine:
        try:
            fcntl.flock(mine, fcntl.LOCK_EX)
        except OSError as e:
            return outcome(e)

        def probe():
            with open(SHARED, "rb") as theirs:
                try:
                    fcntl.flock(theirs, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return "unseen"
                except BlockingIOError:
                    return "seen"
        return in_child(probe)


def record_lock_seen(set_command, get_command):
    """The parent holds a read lock on the file; can the child see it by asking who would block a write lock?"""
    with open(SHARED, "rb") as mine:
        try:
            fcntl.fcntl(mine, set_command, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
        except OSError as e:
            return outcome(e)

        def probe():
            with open(SHARED, "rb") as theirs:
                answer = fcntl.fcntl(theirs, get_command, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
                return "seen" if struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK else "unseen"
        return in_child(probe)


def high_bits_seen():
    """As record_lock_seen, with the command's high register bits set: the kernel reads an int, a filter that
    compares the whole register would not recognise F_GETLK."""
    with open(SHARED, "rb") as mine:
        try:
            fcntl.fcntl(mine, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
        except OSError as e:
            return outcome(e)

        def probe():
            with open(SHARED, "rb") as theirs:
                lock = ctypes.create_string_buffer(struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0), 32)
                libc.syscall.argtypes = None
                if libc.syscall(72, theirs.fileno(), ctypes.c_ulong((1 << 32) | fcntl.F_GETLK), lock) < 0:
                    raise OSError(ctypes.get_errno(), "fcntl")
                return "seen" if struct.unpack_from("hhqqi", lock.raw)[0] != fcntl.F_UNLCK else "unseen"
        return in_child(probe)


def syscall_works(number, *args):
    result = libc.syscall(number, *args)
    if result < 0:
        return outcome(OSError(ctypes.get_errno(), "syscall"))
    os.close(result)
    return "ok"


class Locks(Bot):
    name = "locks"

    def on_deal(self):
        results = {
            "flock": flock_seen(),
            "fcntl": record_lock_seen(fcntl.F_SETLK, fcntl.F_GETLK),
            "ofd": record_lock_seen(F_OFD_SETLK, F_OFD_GETLK),
            "highbits": high_bits_seen(),
            "inotify": syscall_works(294, 0),  # x86_64 inotify_init1(0)
            "fanotify": syscall_works(300, 0, 0),  # fanotify_init
            "io_uring": syscall_works(425, 1, ctypes.create_string_buffer(120)),  # io_uring_setup(1, params)
        }
        report("locks", " ".join(f"{k}={v}" for k, v in results.items()))


run(Locks())
