"""How far a bot process is fenced in: resource limits, environment, namespaces.

Part of the transport layer: it turns a :class:`Sandbox` (plain data, from
a configuration) into what :mod:`subprocess` needs to start the bot, and
finds and kills whatever a bot left behind.

What is isolated, and how (Linux):

* resource limits (``setrlimit`` in the child before ``exec``): address
  space, CPU seconds, processes, open files, size of a file it writes;
* a clean environment (``PATH``, ``LANG``, ``HOME`` and ``TMPDIR`` pointing
  into its own working directory, plus what the configuration adds);
* its own session and process group, killed as a whole;
* a marker in its environment that every descendant inherits, so a
  grandchild that leaves the group (``setsid``, a double fork) is still
  found and killed; the referee becomes the "child subreaper" of such
  orphans so they are reaped, not left as zombies;
* with ``isolation = "namespaces"`` (no root needed where the kernel allows
  unprivileged user namespaces): new user, network, PID, IPC and mount
  namespaces via ``unshare(1)``: no network at all (not even loopback),
  it sees and can signal only its own processes, and all of them die with
  it.

Not isolated: the file system. A bot can read whatever its user can read,
other bots' working directories included; run bots as separate users (or in
containers) for that.
"""

from __future__ import annotations

import ctypes
import enum
import os
import resource
import shutil
import signal
import subprocess
import uuid
from functools import cache
from pathlib import Path

import attrs

MARKER = "PINOCHLE_ARENA_BOT"  # environment variable every process of a bot inherits

MiB = 1 << 20


class SandboxError(Exception):
    """The sandbox asked for cannot be provided on this system."""


class Isolation(enum.Enum):
    NONE = "none"
    NAMESPACES = "namespaces"


@attrs.frozen
class Limits:
    """Per-process resource limits; ``None`` leaves the referee's own limit in place.

    ``processes`` is Linux's RLIMIT_NPROC, which counts every process and
    thread of the bot's *user*, not of the bot, and does not bind root; run
    bots under their own user, or use ``isolation = "namespaces"``, to make
    it a per-bot limit. ``output_kb`` is the most a bot may write to stdout
    between two requests (info lines included; checked by the referee),
    ``file_mb`` the largest file it may write.
    """

    memory_mb: int | None = 2048  # address space (RLIMIT_AS)
    cpu_seconds: int | None = 3600  # CPU time over the life of one process (RLIMIT_CPU)
    processes: int | None = None  # RLIMIT_NPROC (see above)
    open_files: int | None = 256  # RLIMIT_NOFILE
    file_mb: int | None = 64  # RLIMIT_FSIZE
    output_kb: int | None = 1024  # stdout between two requests

    FIELDS = {"memory": "memory_mb", "cpu": "cpu_seconds", "processes": "processes", "open_files": "open_files",
              "file_size": "file_mb", "output": "output_kb"}

    @classmethod
    def from_dict(cls, data: dict, base: Limits | None = None) -> Limits:
        """From config keys (``memory``, ``cpu``, ``processes``, ``open_files``, ``file_size``, ``output``).

        0 means no limit.

        Raises ValueError naming the key for an unknown key or a bad value.
        """
        values = attrs.asdict(base or cls())
        for key, value in data.items():
            if key not in cls.FIELDS:
                raise ValueError(f"unknown limit {key!r}; limits: {', '.join(cls.FIELDS)}")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{key} should be a whole number (0 for no limit), got {value!r}")
            values[cls.FIELDS[key]] = value or None
        return cls(**values)

    def to_dict(self) -> dict:
        return {key: getattr(self, field) for key, field in self.FIELDS.items()}

    def rlimits(self) -> list[tuple[int, int]]:
        chosen = [
            (resource.RLIMIT_AS, self.memory_mb and self.memory_mb * MiB),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_FSIZE, self.file_mb and self.file_mb * MiB),
        ]
        return [(which, value) for which, value in chosen if value is not None]

    @property
    def output_bytes(self) -> int | None:
        return self.output_kb and self.output_kb * 1024


@attrs.frozen
class Sandbox:
    limits: Limits = Limits()
    isolation: Isolation = Isolation.NONE
    clean_env: bool = True  # False: the bot inherits the referee's environment

    def check(self) -> None:
        """Raise SandboxError if this system cannot provide the isolation asked for."""
        if self.isolation is Isolation.NAMESPACES:
            problem = _namespaces_problem()
            if problem:
                raise SandboxError(f"isolation = \"namespaces\" is not available here: {problem}. "
                                   "Use isolation = \"none\", or allow unprivileged user namespaces "
                                   "(sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces)")


@attrs.frozen
class Launch:
    """What to hand to subprocess for one bot process."""

    argv: list[str]
    env: dict[str, str]
    marker: str
    preexec_fn: object


UNSHARE = ("--user", "--map-root-user", "--net", "--ipc", "--pid", "--fork", "--kill-child", "--mount",
           "--mount-proc")


def launch(sandbox: Sandbox, argv: tuple[str, ...], workdir: str | None, extra_env: dict[str, str]) -> Launch:
    """The argv, environment and pre-exec hook that start ``argv`` inside ``sandbox``."""
    sandbox.check()
    marker = uuid.uuid4().hex
    if sandbox.clean_env:
        env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        if workdir is not None:
            env["HOME"] = workdir
            env["TMPDIR"] = workdir
    else:
        env = dict(os.environ)
    env.update(extra_env)
    env["PYTHONUNBUFFERED"] = "1"
    env[MARKER] = marker
    command = list(argv)
    if sandbox.isolation is Isolation.NAMESPACES:
        command = [shutil.which("unshare") or "unshare", *UNSHARE, "--", *command]
    limits = sandbox.limits.rlimits()

    # (No PR_SET_PDEATHSIG: it fires when the forking *thread* ends, and trio forks from a thread of its cache.)
    def in_child() -> None:  # runs in the child between fork and exec: no allocation-heavy work
        for which, value in limits:
            _soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value if which != resource.RLIMIT_CPU else hard))

    return Launch(command, env, marker, in_child if limits else None)


@cache
def _namespaces_problem() -> str:
    program = shutil.which("unshare")
    if program is None:
        return "the unshare program (util-linux) is not installed"
    try:
        done = subprocess.run([program, *UNSHARE, "true"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unshare failed: {e}"
    if done.returncode != 0:
        return (done.stderr.strip() or f"unshare exited with status {done.returncode}").splitlines()[-1]
    return ""


# ------------------------------------------------------------------ leftovers
PR_SET_CHILD_SUBREAPER = 36


@cache
def _libc():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl  # noqa: B018 - Linux only
        return libc
    except (OSError, AttributeError):
        return None


@cache
def become_subreaper() -> bool:
    """Make the referee adopt orphaned descendants (so it can reap them); Linux only."""
    libc = _libc()
    return libc is not None and libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


LEADERS: set[int] = set()  # pids of bot processes started and not yet reaped by trio (never reaped here)


def _leftovers(marker: str, group: int) -> list[tuple[int, bool]]:
    """(pid, is our child) of every process that carries ``marker`` or is in process group ``group``,
    and of every zombie child of ours that is no bot (an orphan we adopted that died on its own)."""
    needle = f"{MARKER}={marker}".encode()
    me = os.getpid()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        state, parent, pgid = fields[0], int(fields[1]), int(fields[2])
        if state == b"Z" and parent == me and pid not in LEADERS:
            found.append((pid, True))
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            environ = b""
        if pgid == group or needle in environ.split(b"\0"):
            found.append((pid, parent == me))
    return found


def kill_leftovers(marker: str, group: int) -> int:
    """SIGKILL what is left of a bot (its group, and anything carrying its marker); reap what we adopted.

    Blocking (reads /proc, waits for killed children): run it in a thread.
    Returns how many processes were found.
    """
    found = _leftovers(marker, group)
    for pid, _ours in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for pid, ours in found:
        if ours and pid not in LEADERS:
            try:
                os.waitpid(pid, 0)  # just killed (or already a zombie): returns at once
            except ChildProcessError:
                pass
    return len(found)


def ensure_workdir(path: Path) -> str:
    path.mkdir(parents=True, exist_ok=True)
    return str(path)
