#!/usr/bin/env python3
"""Attack 18, memory between the games of a kept jail: the same command starts a fresh process in the same kept
jail each game; each looks for what an earlier game left, then leaves all of it, then attacks the jail's keeper.
Not a pinochle bot: it writes one report line and waits for its input's end (tests/attacks/test_kept.py).

Usage: kept_game.py mark=WORD

What it looks for and leaves:

* files: ``MARK`` in its home, /tmp and /dev/shm;
* a process: a child in a session of its own, sleeping, named kept-sleeper;
* IPC: a SysV shared memory segment, semaphore set and message queue under a key from MARK, and a POSIX
  message queue named after MARK;
* a terminal: a pseudo-terminal with MARK written to its master, whose descriptor it leaves in flight in a
  cycle of two Unix sockets: no process holds it, and it lives until the kernel's collector of such cycles runs
  (only when some Unix socket is released, anywhere on the machine), so after the game's processes are gone.
  It looks for one in /dev/pts and reads what it holds; it also tells which devpts instance it sees (the time
  its ptmx was made, which a fresh instance does not share);
* its uid's count of descriptors in flight: how many it can send in flight before the kernel refuses
  (ETOOMANYREFS past its limit on open files, counted per uid), fewer if the terminal's cycle above is still
  counted against its uid;
* its memory control group (what /proc/self/cgroup says of it), which a later game must not share: what a game
  leaves in flight holds memory charged to its group, which would count against that game's limit;
* pages: 8 files of the Python runtime (12 pages or more, drawn by MARK, none of which it imports): it asks
  whether each one's eighth page is cached, by fault-around (attack 15's way, nothing refused), then reads
  them all: a page found cached was warmed by an earlier game;
* the keeper: the processes it can see, what /proc shows of each (its program, descriptors, a namespace to join,
  root and environment), SIGTERM and SIGKILL to each and PTRACE_ATTACH, its open descriptors,
  "game" written to every socket among them, and its uid, groups, capabilities (every set), no_new_privs,
  seccomp mode and limit on open files.

Reports ``ATTACK kept files=NAMES|- process=PIDS|- ipc=KINDS|- ptys=NAMES|- note=TEXT|- devpts=NS inflight=N
cgroup=PATH pages=N seen=PIDS procfs=... signals=... ptrace=...
fds=FDS sent=... caps=HEX nnp=N seccomp=N``.
"""

import array
import ctypes
import errno
import fcntl
import glob
import os
import random
import resource
import signal
import socket
import struct
import sys
import time
import zlib

MARK = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("mark="))
KEY = zlib.crc32(MARK.encode()) & 0x7FFFFFFF or 1
QUEUE = f"/{MARK}".encode()
PAGE = os.sysconf("SC_PAGE_SIZE")
FILES = random.Random(MARK).sample(sorted(p for p in glob.glob("/usr/lib/python3*/*.py")
                                          if os.path.getsize(p) >= 12 * PAGE), 8)
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
IPC_CREAT, O_CREAT, O_RDWR, PTRACE_ATTACH, PR_SET_NAME = 0o1000, 0o100, 0o2, 16, 15
SLEEPER = b"kept-sleeper"  # the name of the process it leaves
PROT_READ, MAP_PRIVATE, MADV_RANDOM = 1, 2, 1
TIOCSPTLCK = 0x40045431  # unlock a pseudo-terminal's other end


def error(code):
    return "ok" if code == 0 else os.strerror(code).replace(" ", "_")


def files_found():
    return [d for d in ("/home/bot", "/tmp", "/dev/shm") if os.path.exists(f"{d}/{MARK}")]


def leave_files():
    for folder in ("/home/bot", "/tmp", "/dev/shm"):
        try:
            with open(f"{folder}/{MARK}", "w") as f:
                f.write("my hand")
        except PermissionError:  # an earlier game's (under another uid), kept: the keeper weakened by the test
            pass


def processes_found():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm", "rb") as f:
                if f.read().strip() == SLEEPER:
                    found.append(pid)
        except OSError:
            pass
    return found


def leave_process():
    if os.fork() == 0:
        os.setsid()
        os.closerange(0, 3)
        libc.prctl(PR_SET_NAME, SLEEPER, 0, 0, 0)
        time.sleep(120)
        os._exit(0)


def ipc_found():
    kinds = [kind for kind, call in (("shm", lambda: libc.shmget(KEY, 0, 0)), ("sem", lambda: libc.semget(KEY, 0, 0)),
                                     ("msg", lambda: libc.msgget(KEY, 0))) if call() >= 0]
    queue = libc.mq_open(QUEUE, 0)
    if queue >= 0:
        kinds.append("mq")
        libc.mq_close(queue)
    return kinds


def leave_ipc():
    """Open to every uid: a later game of the same bot runs under another uid."""
    libc.shmget(KEY, 4096, IPC_CREAT | 0o666)
    libc.semget(KEY, 1, IPC_CREAT | 0o666)
    libc.msgget(KEY, IPC_CREAT | 0o666)
    libc.mq_open(QUEUE, O_CREAT | O_RDWR, 0o666, None)


def ptys_found():
    """The pseudo-terminals in /dev/pts, and what the first one holds (MARK, from an earlier game's master)."""
    found = sorted(name for name in os.listdir("/dev/pts") if name.isdigit())
    note = "-"
    for name in found[:1]:
        try:
            fd = os.open(f"/dev/pts/{name}", os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)
            try:
                note = os.read(fd, 100).decode(errors="replace").strip() or "-"
            finally:
                os.close(fd)
        except OSError as e:
            note = error(e.errno)
    return found, note


def in_flight():
    """How many descriptors it can send in flight before the kernel refuses (then collected: its sockets closed)."""
    one, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    sent = 0
    try:
        while sent < 10000:
            one.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0]))])
            sent += 1
    except OSError as e:
        if e.errno != errno.ETOOMANYREFS:
            return error(e.errno)
    finally:
        one.close()
        other.close()
    return str(sent)


def memory_group():
    """This process's memory control group, as its cgroup namespace shows it (v1's memory line, or v2's)."""
    lines = [line.split(":", 2) for line in open("/proc/self/cgroup").read().splitlines()]
    paths = [path for _, controllers, path in lines if "memory" in controllers.split(",")]
    paths += [path for number, controllers, path in lines if number == "0" and not controllers]
    return paths[0] if paths else "-"


def leave_pty():
    """A pseudo-terminal holding MARK, its master in flight in a cycle of two sockets that no process holds."""
    master = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
    fcntl.ioctl(master, TIOCSPTLCK, struct.pack("i", 0))
    os.write(master, MARK.encode() + b"\n")
    one, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    fds = array.array("i", [master, one.fileno(), other.fileno()])
    for end in (one, other):
        end.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    os.close(master)
    one.close()
    other.close()


def is_cached(path, page=7):
    """Whether page ``page`` of the file is cached: touch the page before it, with no read-ahead, and ask
    pagemap whether the kernel mapped this one round it (fault-around maps only pages already cached)."""
    window = 16 * PAGE
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, window, PROT_READ, MAP_PRIVATE, fd, 0)
        try:
            libc.madvise(address, window, MADV_RANDOM)
            ctypes.c_char.from_address(address + (page - 1) * PAGE).value
            with open("/proc/self/pagemap", "rb") as pagemap:
                pagemap.seek((address // PAGE + page) * 8)
                return bool(struct.unpack("<Q", pagemap.read(8))[0] >> 63 & 1)
        finally:
            libc.munmap(address, window)
    finally:
        os.close(fd)


# What of another process /proc shows only to a process that may trace it: the keeper's side's program, its
# descriptors (the channel, the pidfd), namespaces (to join with setns), root and environment.
PROC_ENTRIES = (("exe", os.readlink), ("fd", os.listdir), ("ns", lambda path: os.open(f"{path}/mnt", os.O_RDONLY)),
                ("root", os.listdir), ("environ", lambda path: open(path, "rb").read()))


def proc_reads(pid):
    said = []
    for name, read in PROC_ENTRIES:
        try:
            done = read(f"/proc/{pid}/{name}")
            if isinstance(done, int):
                os.close(done)
            said.append(f"{pid}:{name}:ok")
        except OSError as e:
            said.append(f"{pid}:{name}:{error(e.errno)}")
    return said


def keeper_attacks():
    seen = [pid for pid in filter(str.isdigit, os.listdir("/proc")) if int(pid) != os.getpid()]
    signals, traced, read = [], [], []
    for pid in seen:
        read += proc_reads(pid)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(int(pid), sig)
                signals.append(f"{pid}:{sig.name}:ok")
            except OSError as e:
                signals.append(f"{pid}:{sig.name}:{error(e.errno)}")
        done = libc.ptrace(PTRACE_ATTACH, int(pid), None, None)
        traced.append(f"{pid}:{error(0 if done == 0 else ctypes.get_errno())}")
    fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    fds = [fd for fd in fds if os.path.exists(f"/proc/self/fd/{fd}")]  # (not the listing's own)
    sent = []
    for fd in fds:
        if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
            try:
                os.write(fd, b"game")
                sent.append(f"{fd}:ok")
            except OSError as e:
                sent.append(f"{fd}:{error(e.errno)}")
    status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
    return (f"seen={','.join(seen) or '-'} procfs={','.join(read) or '-'} signals={','.join(signals) or '-'} "
            f"ptrace={','.join(traced) or '-'} "
            f"fds={','.join(map(str, fds))} sent={','.join(sent) or '-'} uid={status['Uid'].split()[0]} "
            f"groups={status['Groups'].strip() or '-'} "
            f"caps={','.join(status[k].strip() for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'))} "
            f"nnp={status['NoNewPrivs'].strip()} seccomp={status['Seccomp'].strip()} "
            f"nofile={resource.getrlimit(resource.RLIMIT_NOFILE)[0]}")


def main():
    found = files_found()
    leftovers = processes_found()
    ipc = ipc_found()
    ptys, note = ptys_found()
    devpts = os.stat("/dev/pts/ptmx").st_ctime_ns
    inflight = in_flight()
    group = memory_group()
    pages = sum(is_cached(path) for path in FILES)  # (before this process reads anything of them)
    keeper = keeper_attacks()
    print(f"ATTACK kept files={','.join(found) or '-'} process={','.join(leftovers) or '-'} "
          f"ipc={','.join(ipc) or '-'} ptys={','.join(ptys) or '-'} note={note} devpts={devpts} "
          f"inflight={inflight} cgroup={group} pages={pages} {keeper}", flush=True)
    leave_files()
    leave_ipc()
    leave_pty()
    for path in FILES:  # warms the pages the next game looks at
        with open(path, "rb") as f:
            f.read()
    leave_process()
    print("left", flush=True)
    sys.stdin.read()


main()
