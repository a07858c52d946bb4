"""Kept jails: one bwrap jail made once and kept for many games, a fresh bot process in fresh namespaces each game.

Part of the transport layer, beside :mod:`referee.bots.sandbox` (which
makes a kept jail and fences it exactly as a fresh one: uid, control group,
rlimits, seccomp) and :mod:`referee.bots.jail` (whose bwrap command it
starts from). The jail runs the keeper (``keeper/keeper.c``), a small
trusted program, in place of the bot; for each game the referee hands it
the game's pipes and the game's images, mounted for that game alone, and
the keeper starts the game's init in new mount, PID, IPC and network
namespaces, with a fresh ``/proc``, fresh home, ``/tmp`` and ``/dev/shm``
and a loopback of its own, which starts the bot (setpriv, then the bot's
command). docs/jail.md says what is kept, what is fresh, and why nothing a
game leaves can reach the next.

Between games a jail waits in a pool of idle jails of the same bot (its
command, sandbox and environment); a game's process that ended as it should
gives its jail back, anything else closes it. :func:`close_idle` closes
every idle jail (the end of a lane; the referee's exit kills them anyway,
with bwrap's ``--die-with-parent``).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import functools
import hashlib
import os
import platform
import re
import shutil
import signal
import socket
import stat
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from . import cgroups, seating_fs, spawn

SOURCE = Path(__file__).resolve().parent / "keeper" / "keeper.c"
# Where the keeper is compiled: a folder only root may write (the keeper runs as root in every kept jail, so
# whoever could write its program could run as root there), not the package's folder (read-only where installed,
# and left behind by an uninstall) nor a user's cache. Named by the source's digest: never a stale build.
KEEPERS = Path("/run/pinochle-arena/keeper")
SEAT = str(seating_fs.SEATINGS / "kept")  # the seating folder the plan's bwrap command is made with
CHANNEL_BYTES = 64  # the keeper's answers: "started", "exit N", "signal N"
WEAKEN: frozenset[str] = frozenset()  # the attack tests only: state kept between games (keeper.c, sandbox.py)

# bwrap's options as jail.command writes them: how many words follow each
ARITY = {"--unshare-pid": 0, "--unshare-ipc": 0, "--unshare-uts": 0, "--unshare-net": 0, "--unshare-cgroup-try": 0,
         "--unshare-user": 0, "--disable-userns": 0, "--die-with-parent": 0, "--new-session": 0, "--hostname": 1,
         "--info-fd": 1, "--seccomp": 1, "--cap-add": 1, "--proc": 1, "--dev": 1, "--size": 1, "--perms": 1,
         "--tmpfs": 1, "--dir": 1, "--remount-ro": 1, "--chdir": 1, "--ro-bind": 2, "--symlink": 2}

OPEN_TREE_CLONE, AT_RECURSIVE = 1, 0x8000
SYS_OPEN_TREE = 428  # the same number on every architecture (new system calls share one table since 5.1)


class KeptJailError(Exception):
    """A kept jail cannot be made here, or for this bot; the message says why."""


# ------------------------------------------------------------------ the keeper's program
def program() -> Path:
    """The keeper, compiled (statically: the jail shows it no library) on first use, like the C sample bots."""
    path = program_path()
    if path.exists():
        _check_trusted(path)
        return path
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise KeptJailError("the keeper is C and needs a C compiler (cc, gcc or clang) on PATH")
    KEEPERS.mkdir(mode=0o700, parents=True, exist_ok=True)
    _check_trusted(KEEPERS)
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    done = subprocess.run([compiler, "-O2", "-static", "-o", str(partial), str(SOURCE)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise KeptJailError(f"cannot compile the keeper ({SOURCE}; a static C library is needed: Debian's "
                            f"libc6-dev): {done.stderr.strip()[-500:]}")
    try:
        os.replace(partial, path)  # atomic: a process that starts a jail meanwhile runs a whole program
    except OSError:
        if not path.exists():  # (another process built it at the same moment, and may have tidied the folder)
            raise
    _check_trusted(path)
    return path


def program_path() -> Path:
    """Where the keeper of this source, for this machine, is compiled to."""
    digest = hashlib.sha256(f"{platform.machine()}\n".encode() + SOURCE.read_bytes()).hexdigest()[:16]
    return KEEPERS / f"keeper-{digest}"


def _check_trusted(path: Path) -> None:
    """Refuse a keeper (or its folder) that someone other than root could have written."""
    for checked in (path.parent, path) if path != KEEPERS else (path,):
        info = checked.lstat()
        if info.st_uid != 0 or info.st_mode & 0o022 or stat.S_ISLNK(info.st_mode):
            raise KeptJailError(f"{checked} is not root's alone (owner {info.st_uid}, mode "
                                f"{stat.filemode(info.st_mode)}): the keeper runs as root, so it is not used")


KERNEL = (5, 12)  # mount_setattr (5.12); open_tree and move_mount (5.2), pidfd_open (5.3), close_range (5.9)


@functools.cache
def problem() -> str:
    """Why no kept jail can be had here ("" when it can): it needs root (the keeper mounts each game's world)
    and a kernel with the new mount API."""
    if os.geteuid() != 0:
        return "a kept jail needs the referee to run as root"
    found = tuple(int(part) for part in re.findall(r"\d+", os.uname().release)[:2])
    if found < KERNEL:
        return f"a kept jail needs Linux {KERNEL[0]}.{KERNEL[1]} or later (this is {os.uname().release})"
    try:
        program()
    except (KeptJailError, OSError) as e:
        return str(e)
    return ""


# ------------------------------------------------------------------ the plan: bwrap's command, the keeper's
@attrs.frozen
class Plan:
    """What a kept jail is made of, from the bwrap command of a fresh jail (jail.command, own files): bwrap's
    options with each image's bind replaced by an empty folder to mount on, the keeper's arguments, which
    folder under a seating's folder each game's image mount is cloned from, and the bot's command (without
    setpriv: the keeper drops the same privileges)."""

    bwrap: tuple[str, ...]
    keeper: tuple[str, ...]
    binds: tuple[str, ...]
    command: tuple[str, ...]


def plan(fresh: list[str]) -> Plan:
    """The kept jail of the fresh jail whose bwrap command is ``fresh`` (made with seat=SEAT). Raises
    KeptJailError for a command it does not know how to keep."""
    end = fresh.index("--")
    options, command = fresh[1:end], fresh[end + 1:]
    bwrap: list[str] = []
    keeper: list[str] = []
    binds: list[str] = []
    tmpfs: dict[str, str] = {}  # the --size and --perms given for the next --tmpfs
    i = 0
    while i < len(options):
        option = options[i]
        if option not in ARITY:
            raise KeptJailError(f"a kept jail does not know bwrap's option {option}")
        words = options[i + 1:i + 1 + ARITY[option]]
        i += 1 + ARITY[option]
        if option == "--ro-bind" and words[0].startswith(SEAT + "/"):
            binds.append(words[0][len(SEAT) + 1:])
            keeper += ["--image", words[1]]
            bwrap += ["--dir", words[1]]
            continue
        bwrap += [option, *words]
        if option in ("--size", "--perms"):
            tmpfs[option] = words[0]
        elif option == "--tmpfs":
            keeper += ["--tmpfs", words[0], tmpfs.pop("--perms", "0755"), tmpfs.pop("--size", "0")]
        elif option == "--ro-bind" and words[1].startswith("/proc/"):
            keeper += ["--carry", words[1]]
        elif option == "--chdir":
            keeper += ["--chdir", words[0]]
    if not binds:
        raise KeptJailError("a kept jail needs the bot's files as images (own files)")
    _, command = _setpriv(command)  # (each game's uid is the keeper's game message's: a uid of its own)
    for what in sorted(WEAKEN & {"spaces", "ipc", "pid", "devpts"}):
        keeper += ["--weaken", what]
    return Plan(tuple(bwrap), tuple(keeper), tuple(binds), tuple(command))


SETPRIV = ("--regid={uid}", "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--")


def _setpriv(command: list[str]) -> tuple[str, list[str]]:
    """The uid and the bot's command of a fresh jail's ``setpriv --reuid=UID ... -- COMMAND``: the keeper drops
    the same privileges itself (keeper.c, drop_privileges), so it must be exactly jail.command's setpriv."""
    if len(command) > 1 and Path(command[0]).name == "setpriv" and command[1].startswith("--reuid="):
        uid = command[1].removeprefix("--reuid=")
        rest = command[2:]
        expected = [word.format(uid=uid) for word in SETPRIV]
        if uid.isdigit() and int(uid) > 0 and rest[:len(expected)] == expected and rest[len(expected):]:
            return uid, rest[len(expected):]
    raise KeptJailError("a kept jail needs a bot run under a uid of its own (the referee as root)")


# ------------------------------------------------------------------ one game's images
@functools.cache
def _libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def clone_mount(path: str) -> int:
    """A detached copy of the mount at ``path`` (open_tree): the keeper mounts it in a game, and it stays
    mounted there after the referee unmounts ``path``."""
    fd = _libc().syscall(SYS_OPEN_TREE, -100, path.encode(), OPEN_TREE_CLONE | AT_RECURSIVE | os.O_CLOEXEC)
    if fd < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"cannot clone the mount at {path}: {os.strerror(code)}")
    return int(fd)


def game_images(layout: seating_fs.Layout, binds: tuple[str, ...], name: str) -> list[int]:
    """One game's images, mounted for it alone (a fresh loop device and superblock each, so a page cache and
    dentries no earlier game warmed), as detached mounts of the folders ``binds`` names. Blocking."""
    if "images" in WEAKEN:
        return _shared_images(layout, binds)
    files = seating_fs.SeatingFs.at(name)
    trees: list[int] = []
    try:
        files.mount(layout)
        for bind in binds:
            trees.append(clone_mount(str(files.root / bind)))
    except BaseException:
        for fd in trees:
            os.close(fd)
        raise
    finally:
        files.close()
    return trees


_SHARED: dict[seating_fs.Layout, seating_fs.SeatingFs] = {}


def _shared_images(layout: seating_fs.Layout, binds: tuple[str, ...]) -> list[int]:
    """The attack tests' weakened images: the same mounts, kept, for every game of a layout."""
    files = _SHARED.get(layout)
    if files is None:
        files = _SHARED[layout] = seating_fs.SeatingFs.at(f"shared-{len(_SHARED)}")
        files.mount(layout)
    return [clone_mount(str(files.root / bind)) for bind in binds]


# ------------------------------------------------------------------ a game's process
@attrs.define(eq=False)
class GamePopen:
    """What :class:`spawn.ChildProcess` asks of a process (its pid, exit status, waiting), for a game's init in a
    kept jail: not the referee's child, so its status comes from the keeper, who reaps it."""

    pid: int  # the game's init on this host (GONE once reaped), for what reads its /proc entry
    channel: socket.socket
    # The game's init, to signal: not its pid, which the keeper reaps (a pid another process may be given by the
    # time the referee stops the game); the init of the game's PID namespace, so its end ends the whole game.
    pidfd: int | None = None
    returncode: int | None = None
    lost: bool = False  # the keeper said something else, or nothing: the jail is not given back

    def signal(self, sig: int) -> None:
        """Send the game's init ``sig`` (ProcessLookupError once it has ended)."""
        if self.pidfd is None:
            raise ProcessLookupError(errno.ESRCH, "the game has ended")
        signal.pidfd_send_signal(self.pidfd, sig)

    def close(self) -> None:
        if self.pidfd is not None:
            fd, self.pidfd = self.pidfd, None
            os.close(fd)

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read(socket.MSG_DONTWAIT)
        return self.returncode

    def wait(self) -> int:
        while self.returncode is None:
            self._read(0)
        return self.returncode

    def _read(self, flags: int) -> None:
        try:
            said = self.channel.recv(CHANNEL_BYTES, flags).decode(errors="replace").split()
        except BlockingIOError:
            return
        except OSError:
            said = []
        if len(said) == 2 and said[0] in ("exit", "signal") and said[1].isdigit():
            self.returncode = int(said[1]) if said[0] == "exit" else -int(said[1])
        else:  # the keeper is gone (or broken): so is the game, whose init dies with the jail
            self.lost = True
            self.returncode = -signal.SIGKILL
        self.close()


GONE = (1 << 22) + 1  # above every pid (PID_MAX_LIMIT): the pid of a game reaped already, whose group is none


def host_pid(pidfd: int) -> int:
    """The pid, in the referee's PID namespace, of the process a pidfd refers to; GONE if it has been reaped (a
    game that ended at once: the keeper reaps it right after saying it started)."""
    with open(f"/proc/self/fdinfo/{pidfd}") as f:
        for line in f:
            if line.startswith("Pid:"):
                pid = int(line.split()[1])
                return pid if pid > 0 else GONE  # (-1 once reaped: killpg(-1) would be an error, not "no such")
    raise OSError(errno.ENOSYS, "this kernel does not say a pidfd's process (Linux 5.3 or later does)")


# ------------------------------------------------------------------ the jail
@attrs.define(eq=False)
class KeptJail:
    """A jail with its keeper, idle or playing one game."""

    bwrap: spawn.ChildProcess  # (its pipes closed: the keeper reads and writes nothing but its channel)
    stderr: int  # bwrap's stderr, for what it says when the jail cannot be made
    channel: socket.socket
    binds: tuple[str, ...]
    close_fences: Callable[[], None]  # blocking: the jail's control group, first process and uid (sandbox._JailEnd)
    group: cgroups.BotCgroup | None
    game: GamePopen | None = None
    closed: bool = False
    last_uid: int | None = None  # its last game's uid (each game has a uid of its own: sandbox._game_uid)

    async def start_game(self, trees: list[int], uid: int) -> spawn.ChildProcess:
        """Hand the keeper one game: its pipes, ``trees`` (its images; closed here) and ``uid``, the bot's uid in
        this game alone. Raises OSError if the keeper does not start it."""
        if self.group is not None:
            self.group.rest()  # the low CPU weight of a process started ahead, until its game begins
        pipes = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr: (read, write)
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        try:
            self.channel.sendmsg([f"game {uid}".encode()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                              b"".join(fd.to_bytes(4, "little") for fd in (*theirs, *trees)))])
        except OSError:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in (*theirs, *trees):
                os.close(fd)
        try:
            pidfd = await self._started()
            try:
                pid = host_pid(pidfd)
            except BaseException:
                os.close(pidfd)
                raise
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        self.game = GamePopen(pid, self.channel, pidfd)
        # trio waits for the game by the channel (readable once the keeper reaped the game's init)
        return spawn.ChildProcess(self.game, trio.lowlevel.FdStream(ours[0]),  # type: ignore[arg-type]
                                  trio.lowlevel.FdStream(ours[1]), trio.lowlevel.FdStream(ours[2]),
                                  os.dup(self.channel.fileno()), signal_group=self.game.signal)

    async def _started(self) -> int:
        """The pidfd of the game's init, from the keeper's "started"."""
        with trio.fail_after(START_SECONDS):
            while True:
                await trio.lowlevel.wait_readable(self.channel)
                try:
                    said, fds, _, _ = socket.recv_fds(self.channel, CHANNEL_BYTES, 1, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                if said == b"started" and len(fds) == 1:
                    return fds[0]
                for fd in fds:
                    os.close(fd)
                raise OSError(errno.EPROTO, "the jail's keeper did not start the game (see the bot's log)")

    def said(self) -> str:
        """The last line bwrap (or the keeper) wrote to its stderr, if any."""
        os.set_blocking(self.stderr, False)
        try:
            text = os.read(self.stderr, 65536).decode(errors="replace").strip()
        except OSError:
            return ""
        return text.splitlines()[-1] if text else ""

    def reusable(self) -> bool:
        """Whether this jail's last game ended as it should: its init reaped by the keeper, who said so."""
        game = self.game
        return not self.closed and game is not None and game.returncode is not None and not game.lost

    def close(self) -> None:
        """End the jail: its keeper, and every process of it; then its fences. Blocking."""
        if self.closed:
            return
        self.closed = True
        if self.game is not None:
            self.game.close()
        self.channel.close()  # the keeper ends at once if it waits for a game
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.bwrap.pid, signal.SIGKILL)  # bwrap, and with it the jail (--die-with-parent)
        with contextlib.suppress(ChildProcessError):
            self.bwrap.popen.wait()
        os.close(self.stderr)
        self.close_fences()


START_SECONDS = 10.0  # the keeper answers within milliseconds


# ------------------------------------------------------------------ the pool of idle jails
_IDLE: dict[Any, list[KeptJail]] = {}
_LOCK = threading.Lock()  # the pool is used by the event loop and by cleanups in worker threads
IDLE_KEPT = 16  # idle jails kept by one process at most (each holds a uid, a control group, two processes)


def take(key: Any) -> KeptJail | None:
    """An idle jail of the bot ``key`` names, if there is one (its key then goes last: most recently used)."""
    with _LOCK:
        idle = _IDLE.pop(key, None)
        if not idle:
            return None
        jail = idle.pop()
        if idle:
            _IDLE[key] = idle
        return jail


def give_back(key: Any, jail: KeptJail) -> None:
    """Keep ``jail`` for the next game of the same bot if its last game ended cleanly, else close it. Blocking."""
    if not jail.reusable():
        jail.close()
        return
    jail.game = None
    with _LOCK:
        _IDLE.setdefault(key, []).append(jail)
        oldest = _oldest() if sum(map(len, _IDLE.values())) > IDLE_KEPT else None
    if oldest is not None:
        oldest.close()


def _oldest() -> KeptJail:
    """Take the idle jail of the bot that has waited longest for a game (the pool's first key; the lock held)."""
    key = next(iter(_IDLE))
    jail = _IDLE[key].pop(0)
    if not _IDLE[key]:
        del _IDLE[key]
    return jail


def close_idle() -> int:
    """Close every idle kept jail of this process (the end of a lane); returns how many. Blocking."""
    with _LOCK:
        jails = [jail for idle in _IDLE.values() for jail in idle]
        _IDLE.clear()
    for jail in jails:
        jail.close()
    while _SHARED:
        _SHARED.popitem()[1].close()
    return len(jails)


def _forget_in_child() -> None:
    """A process forked without an exec does not play in its parent's jails (two referees on one keeper's channel
    would mix their games): it forgets them, closing its copies of their descriptors."""
    global _LOCK
    _LOCK = threading.Lock()  # (a thread of the parent may have held it at the fork)
    for jail in [jail for idle in _IDLE.values() for jail in idle]:
        jail.closed = True
        jail.channel.close()
        with contextlib.suppress(OSError):
            os.close(jail.stderr)
    _IDLE.clear()


atexit.register(close_idle)
os.register_at_fork(after_in_child=_forget_in_child)
