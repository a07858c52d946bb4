"""How far a bot process is fenced in: the jail, resource limits, environment.

Part of the transport layer: it turns a :class:`Sandbox` (plain data, from
a configuration) into what :mod:`subprocess` needs to start the bot, and
finds and kills whatever a bot left behind.

Two isolation modes (docs/competition.md, "Running a competition", has the full table):

* ``jail`` (the default): the bot runs in bubblewrap (:mod:`referee.bots.jail`):
  its own PID, IPC, UTS, mount and network namespaces, a read-only view of
  the system and of its own program's folder, a private size-capped home,
  ``/tmp`` and ``/dev/shm``, no view of the output folder or of any other
  process. As root it also gets a uid of its own and a control group of its
  own (:mod:`referee.bots.cgroups`): processes, memory and CPU limited per bot.
  As root, with its own files, the jail is kept from game to game by default
  and each game's process starts in fresh namespaces in it
  (:mod:`referee.bots.kept`, docs/jail.md; ``kept_jail``).
  Where no jail can be had, :meth:`Sandbox.check` says why.
* ``none``: no jail; only the resource limits, a clean environment and a
  fresh working folder, removed when the process ends. Not safe against
  hostile bots.

In both, per process: rlimits set before any of the bot's code runs
(unjailed by ``prlimit``, which then runs the bot; jailed on the jail's
first process, which bwrap holds until the referee has also moved it into
the bot's control groups: :meth:`_JailEnd.admit`); its own session and
process group, killed as a whole; a marker in its environment that every
descendant inherits, so that an unjailed grandchild that leaves the group
is still found and killed (the referee is the "child subreaper" of such
orphans, so they are reaped, not left as zombies).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import os
import resource
import shutil
import signal
import socket
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs
import trio

from . import cgroups, images, jail, kept, seating_fs, spawn

MARKER = "PINOCHLE_ARENA_BOT"  # environment variable every process of a bot inherits

MiB = 1 << 20


class SandboxError(Exception):
    """The sandbox asked for cannot be provided on this system."""


class Isolation(enum.Enum):
    JAIL = "jail"
    NONE = "none"

    @classmethod
    def _missing_(cls, value):
        return cls.JAIL if value == "namespaces" else None  # the old name of the mode the jail replaced


@attrs.frozen
class Limits:
    """Resource limits of one bot; ``None`` leaves the referee's own limit in place.

    ``memory`` is, in the jail as root with control groups, the memory of
    all of the bot's processes together (its control group), as are
    ``processes`` and ``cpus``; the address space is then not capped, since
    runtimes such as the JVM, .NET and Go reserve far more of it than they
    ever use. Elsewhere ``memory`` caps each process's address space
    (RLIMIT_AS), and a runtime that reserves more cannot start. ``processes``
    is RLIMIT_NPROC when the bot has a uid of its own and is not enforced
    otherwise (RLIMIT_NPROC counts every process of the *user*), and
    ``cpus`` is not enforced. ``output_kb`` is the most a bot may write to
    stdout between two requests (checked by the referee), ``file_mb`` the
    largest file it may write, ``disk_mb`` the size of each of its writable
    spaces in the jail (home, /tmp, /dev/shm).
    """

    memory_mb: int | None = 2048
    cpu_seconds: int | None = 3600  # CPU time over the life of one process (RLIMIT_CPU)
    processes: int | None = 256
    open_files: int | None = 256  # RLIMIT_NOFILE
    file_mb: int | None = 64  # RLIMIT_FSIZE
    output_kb: int | None = 1024  # stdout between two requests
    disk_mb: int | None = 256  # each writable space in the jail
    cpus: int | None = 1  # cores at once, for all its processes (jail, as root)

    FIELDS = {"memory": "memory_mb", "cpu": "cpu_seconds", "processes": "processes", "open_files": "open_files",
              "file_size": "file_mb", "output": "output_kb", "disk": "disk_mb", "cpus": "cpus"}

    @classmethod
    def from_dict(cls, data: dict, base: Limits | None = None) -> Limits:
        """From config keys (``memory``, ``cpu``, ``processes``, ``open_files``, ``file_size``, ``output``,
        ``disk``, ``cpus``). 0 means no limit.

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

    def rlimits(self, nproc: bool = False, address_space: bool = True) -> list[tuple[int, int]]:
        """The rlimits to set; ``address_space=False`` when a control group already limits the memory."""
        chosen = [
            (resource.RLIMIT_AS, self.memory_mb * MiB if self.memory_mb and address_space else None),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NPROC, self.processes if nproc else None),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_FSIZE, self.file_mb and self.file_mb * MiB),
            (resource.RLIMIT_CORE, 0),  # no core files: a bot cannot raise it to fill its space with one
        ]
        return [(which, value) for which, value in chosen if value is not None]

    def cgroup(self) -> cgroups.CgroupLimits:
        return cgroups.CgroupLimits(self.processes, self.memory_mb and self.memory_mb * MiB, self.cpus)

    @property
    def output_bytes(self) -> int | None:
        return self.output_kb and self.output_kb * 1024


@attrs.frozen
class Sandbox:
    limits: Limits = Limits()
    isolation: Isolation = Isolation.JAIL
    clean_env: bool = True  # False: the bot inherits the referee's environment (never in the jail)
    read_only: tuple[str, ...] = ()  # more host paths a jailed bot may read (its data files)
    own_files: bool = True  # jailed: its files through mounts of its own process's alone, where that can be had
    runtimes: tuple[str, ...] = ()  # jailed with own_files: more host folders for its system image
    kept_jail: bool = True  # jailed with own_files, as root: a kept jail, a fresh process in it each game (kept.py)

    def with_read_only(self, paths: tuple[str, ...]) -> Sandbox:
        """This sandbox showing ``paths`` too (a bot command's own read_only folders)."""
        return attrs.evolve(self, read_only=self.read_only + tuple(paths)) if paths else self

    def check(self) -> None:
        """Raise SandboxError if this system cannot provide the isolation asked for."""
        if self.isolation is Isolation.JAIL:
            problem = jail.problem()
            if problem:
                raise SandboxError(f"no jail for the bots on this machine: {problem}. Install it, or run with "
                                   "--isolation none (isolation = \"none\"), which is NOT safe against hostile bots")


def isolation_summary(sandbox: Sandbox) -> str:
    """One line on what this sandbox protects, for the start of a run (and what it cannot, where that is so)."""
    if sandbox.isolation is Isolation.NONE:
        return ("WARNING: isolation none: bots run unjailed and are NOT kept from each other, the referee "
                "or the results; use this only with bots you trust")
    return f"{_fences(sandbox)}; {_files_line(sandbox)}{_kept_line(sandbox)}"


def _kept_line(sandbox: Sandbox) -> str:
    if not sandbox.kept_jail:
        return ""
    if is_kept(sandbox):
        return "; jails are kept, with a fresh process in fresh namespaces every game (docs/jail.md)"
    why = kept.problem() or own_files_problem() or "it needs the bots' own file systems (own_files)"
    return f"; NO kept jails ({why}): a fresh jail every game"


def _fences(sandbox: Sandbox) -> str:
    hierarchy, why = cgroups.usable_hierarchy()
    if os.geteuid() != 0:
        return ("bots are jailed (bubblewrap); not root, so processes, memory and CPU are limited per process, "
                "not per bot")
    if hierarchy is None:
        return f"bots are jailed (bubblewrap), each under a uid of its own; no per-bot control groups: {why}"
    return (f"bots are jailed (bubblewrap), each under a uid of its own and in a control group of its own "
            f"(cgroup v{hierarchy.version})")


def _files_line(sandbox: Sandbox) -> str:
    if not sandbox.own_files:
        return ("bots read the host's files (own_files = false): a later seating of a deal, or a partner, can "
                "learn what another read from the page cache")
    problem = own_files_problem()
    if problem:
        return (f"NO file system of their own: {problem}; bots share the host's page cache, so a later seating "
                "of a deal, or a partner, can learn what another read (docs/competition.md)")
    return "each bot process reads its files through a file system of its own and sees no machine-wide counter"


def _never() -> bool:
    return False


def _nothing() -> None:
    pass


@attrs.frozen
class Launch:
    """What to hand to subprocess for one bot process, and what to undo once it is gone."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None
    marker: str
    cleanup: Callable[[], None]  # blocking: kills what is left in its control group, frees its uid and folders
    pass_fds: tuple[int, ...] = ()  # more descriptors for the child (bwrap's info pipe), closed after the start
    address_space_mb: int | None = None  # each process's address space cap (RLIMIT_AS), if there is one
    out_of_memory: Callable[[], bool] = _never  # whether its control group's memory limit killed a process
    play: Callable[[], None] = _nothing  # its first game begins: its control group gets the full CPU weight
    admit: Callable[[], Awaitable[None]] | None = None  # jailed: fence the held jail, then let it go on (start())
    prepare: Callable[[], None] | None = None  # blocking, before the start: mount its own file system (start())
    kept: _KeptStart | None = None  # in a kept jail: the game's start there (start())


def launch(sandbox: Sandbox, argv: tuple[str, ...], cwd: str | None, extra_env: dict[str, str],
           workdir: Path | None = None, hidden: tuple[str, ...] = ()) -> Launch:
    """The argv, environment and pre-exec hook that start ``argv`` inside ``sandbox``.

    ``cwd`` is the folder the configuration names, if any. Without one, an
    unjailed bot works in a fresh folder made under ``workdir`` (removed by
    ``cleanup``) and a jailed one in its private home. ``hidden`` are host
    folders a jailed bot must not see (the output folder).
    """
    sandbox.check()
    if sandbox.isolation is not Isolation.JAIL:
        _prlimit()  # (before anything is set up that would have to be undone)
    marker = uuid.uuid4().hex
    env = _environment(sandbox, extra_env, marker)
    if is_kept(sandbox):
        try:
            return _kept_launch(sandbox, argv, cwd, env, extra_env, hidden, marker)
        except (jail.JailError, images.ImageError, kept.KeptJailError, OSError) as e:
            raise SandboxError(str(e)) from None
    undo: list[Callable[[], None]] = []  # what cleanup does, in this order
    child_fds: list[int] = []  # descriptors the child gets, closed here once it has them (or the set-up failed)

    def cleanup() -> None:
        for step in undo:
            step()

    try:
        if sandbox.isolation is Isolation.JAIL:
            made = _jailed(sandbox, argv, cwd, env, extra_env, hidden, marker, undo, child_fds)
        else:
            made = _unjailed(sandbox, argv, cwd, env, workdir, undo)
    except (jail.JailError, images.ImageError, OSError) as e:
        for fd in child_fds:
            os.close(fd)
        cleanup()
        raise SandboxError(str(e)) from None

    # (No PR_SET_PDEATHSIG here: bwrap's --die-with-parent does that for jailed bots.)
    limits = [(which, min(value, _hard(which))) for which, value in made.limits]
    capped = dict(limits).get(resource.RLIMIT_AS)
    if made.end is not None:  # jailed: bwrap itself is started bare; its jail is fenced before it goes on
        entry, admit = [], functools.partial(made.end.admit, limits)
    else:
        entry, admit = _entry(limits, _prlimit()), None
    group = made.group
    return Launch(entry + made.command, made.env, made.cwd, marker, cleanup, tuple(child_fds),
                  capped // MiB if capped else None, group.oom_killed if group is not None else _never,
                  group.play if group is not None else _nothing, admit, made.prepare)


@attrs.frozen
class _Made:
    """What :func:`launch` sets up for one way of running a bot: the command, its environment and folder, its
    rlimits, and (jailed) the mount of its own files, its control group and what its jail leaves behind."""

    command: list[str]
    env: dict[str, str]
    cwd: str | None
    limits: list[tuple[int, int]]
    prepare: Callable[[], None] | None = None
    group: cgroups.BotCgroup | None = None
    end: _JailEnd | None = None


def _environment(sandbox: Sandbox, extra_env: dict[str, str], marker: str) -> dict[str, str]:
    """A bot's environment: a clean one (always in the jail) or the referee's, with its own variables and the
    marker that finds its processes."""
    if sandbox.clean_env or sandbox.isolation is Isolation.JAIL:
        env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    else:
        env = dict(os.environ)
    env.update(extra_env)
    env["PYTHONUNBUFFERED"] = "1"
    env[MARKER] = marker
    return env


def _jailed(sandbox: Sandbox, argv: tuple[str, ...], cwd: str | None, env: dict[str, str],
            extra_env: dict[str, str], hidden: tuple[str, ...], marker: str, undo: list[Callable[[], None]],
            child_fds: list[int]) -> _Made:
    """The bwrap command that jails ``argv``: its pipes (``child_fds`` gets the child's ends as they are made),
    as root a uid and a control group of its own, and its own file system where the machine allows."""
    info, info_child = os.pipe()
    # The gate: bwrap reads the jail's syscall filter from ``seccomp`` once the jail is made, before any
    # of the bot's code; admit() writes it to ``gate`` only once the jail is fenced. It fails closed: a
    # pipe that ends without a filter (the referee died, or closed it first) makes bwrap refuse to go on.
    seccomp, gate = os.pipe()
    end = _JailEnd(info, marker, gate=gate)
    undo.append(end.close)
    child_fds += (info_child, seccomp)
    group = None
    if os.geteuid() == 0:
        end.uid = jail.Uid.take()
        hierarchy, _ = cgroups.usable_hierarchy()
        if hierarchy is not None:
            group = end.group = cgroups.BotCgroup.create(hierarchy, sandbox.limits.cgroup())
    uid = end.uid.uid if end.uid is not None else None
    spec = jail.JailSpec(tuple(argv), read_only=sandbox.read_only, hidden=hidden, cwd=cwd,
                         disk_mb=sandbox.limits.disk_mb or 1 << 20, uid=uid, info_fd=info_child,
                         seccomp_fd=seccomp)
    prepare = None
    if sandbox.own_files and own_files_problem() == "":
        files = seating_fs.SeatingFs.at(marker)
        spec = attrs.evolve(spec, own_files=True, runtimes=sandbox.runtimes, seat=str(files.root))
        layout = jail.filesystem(spec).layout
        if layout is None:
            raise SandboxError("the jail's file system has no layout for the bot's own files")
        prepare = functools.partial(files.mount, layout)
        undo.append(files.close)  # after the jail's end (first in undo): its processes are gone by then
    command, args_fd = jail.through_fd(jail.command(spec))
    child_fds.append(args_fd)
    return _Made(command, {**jail.jail_env(env, sandbox.limits.memory_mb), **extra_env}, None,
                 sandbox.limits.rlimits(nproc=group is None and uid is not None, address_space=group is None),
                 prepare, group, end)


def _unjailed(sandbox: Sandbox, argv: tuple[str, ...], cwd: str | None, env: dict[str, str],
              workdir: Path | None, undo: list[Callable[[], None]]) -> _Made:
    """``argv`` as it is, in the configuration's folder or a fresh one under ``workdir`` (its home too, with a
    clean environment)."""
    if cwd is None and workdir is not None:
        cwd = _fresh_folder(workdir)
        undo.append(functools.partial(_remove_folder, Path(cwd)))
    if cwd is not None and sandbox.clean_env:
        env["HOME"] = env["TMPDIR"] = cwd
    return _Made(list(argv), env, cwd, sandbox.limits.rlimits(nproc=False))


# ------------------------------------------------------------------ kept jails
def is_kept(sandbox: Sandbox) -> bool:
    """Whether this sandbox's bots play in kept jails: asked for, and a kept jail and own files can be had."""
    return (sandbox.kept_jail and sandbox.isolation is Isolation.JAIL and sandbox.own_files
            and own_files_problem() == "" and kept.problem() == "")


@attrs.define(eq=False)
class _KeptStart:
    """One game's start in a kept jail of its bot: taken from the idle ones, or made, at the start."""

    key: tuple  # the bot (sandbox, command, folders, environment): its idle jails are kept under it
    sandbox: Sandbox
    spec: jail.JailSpec  # its fresh jail's, with its own files under kept.SEAT
    env: dict[str, str]
    layout: seating_fs.Layout
    marker: str
    uid: jail.Uid | None = None  # the bot's uid in this game alone (_game_uid)
    jail: kept.KeptJail | None = None
    # The game's control group, its own (_game_group): None without control groups, where the jail's counts
    group: cgroups.BotCgroup | None = None
    oom_before: int = 0  # the jail's group's count of processes killed for memory, when the game began
    oom_kills: int = 0  # the game's group's, when it was removed

    def cleanup(self) -> None:
        if self.jail is not None:
            jail_, self.jail = self.jail, None
            kept.give_back(self.key, jail_)  # (its game's processes are gone: reaped, or killed with the jail)
        if self.group is not None:
            group, self.group = self.group, None
            self.oom_kills = group.oom_kills()
            group.close()
        if self.uid is not None:
            uid, self.uid = self.uid, None
            uid.release()

    def out_of_memory(self) -> bool:
        if self.group is not None:
            return self.group.oom_kills() > 0
        group = self.jail.group if self.jail is not None else None
        return self.oom_kills > 0 or (group is not None and group.oom_kills() > self.oom_before)

    def play(self) -> None:
        group = self.group or (self.jail.group if self.jail is not None else None)
        if group is not None:
            group.play()


def _kept_launch(sandbox: Sandbox, argv: tuple[str, ...], cwd: str | None, env: dict[str, str],
                 extra_env: dict[str, str], hidden: tuple[str, ...], marker: str) -> Launch:
    """The Launch of a game's process in a kept jail (made at its start, :func:`_start_kept`)."""
    spec = jail.JailSpec(tuple(argv), read_only=sandbox.read_only, hidden=hidden, cwd=cwd,
                         disk_mb=sandbox.limits.disk_mb or 1 << 20, uid=0, own_files=True, runtimes=sandbox.runtimes,
                         seat=kept.SEAT)
    layout = jail.filesystem(spec).layout
    if layout is None:
        raise SandboxError("the jail's file system has no layout for the bot's own files")
    key = (sandbox, tuple(argv), cwd, hidden, tuple(sorted(extra_env.items())))
    start = _KeptStart(key, sandbox, spec, {**jail.jail_env(env, sandbox.limits.memory_mb), **extra_env}, layout,
                       marker)
    group_limits = os.geteuid() == 0 and cgroups.usable_hierarchy()[0] is not None
    capped = None if group_limits or not sandbox.limits.memory_mb else sandbox.limits.memory_mb
    return Launch([], start.env, None, marker, start.cleanup, address_space_mb=capped,
                  out_of_memory=start.out_of_memory, play=start.play, kept=start)


async def _start_kept(start: _KeptStart) -> spawn.ChildProcess:
    """Start a game's process in an idle kept jail of its bot, or in a new one."""
    start.jail = kept.take(start.key)
    if start.jail is None:
        start.jail = await _open_kept(start)
    jail_ = start.jail
    start.oom_before = jail_.group.oom_kills() if jail_.group is not None else 0
    try:
        start.uid = _game_uid(jail_)  # (given back by cleanup, as the jail and the group are)
        start.group = _game_group(start.sandbox)
        procs = _opened(start.group.procs if start.group is not None else ())
    except (jail.JailError, cgroups.CgroupError, OSError) as e:
        raise SandboxError(f"cannot set the bot's game up: {e}") from None
    try:
        trees = await trio.to_thread.run_sync(kept.game_images, start.layout, jail_.binds, start.marker)
    except (images.ImageError, OSError) as e:
        for fd in procs:
            os.close(fd)
        raise SandboxError(f"cannot mount the bot's own file system: {e}") from None
    try:
        return await jail_.start_game(trees + procs, start.uid.uid)
    except (OSError, trio.TooSlowError) as e:
        said = jail_.said()
        raise SandboxError(f"the bot's kept jail did not start its game: {said or e}") from None


def _game_group(sandbox: Sandbox) -> cgroups.BotCgroup | None:
    """A control group for one game in a kept jail, with the bot's limits, which the game's init joins before it
    starts the bot. Not the jail's: what a game leaves charged to its group after its processes are gone (memory
    held by descriptors left in flight in a cycle of Unix sockets, until the kernel collects them) would count
    against the next game's memory limit, which that game could probe."""
    hierarchy = _game_hierarchy()
    return None if hierarchy is None else cgroups.BotCgroup.create(hierarchy, sandbox.limits.cgroup())


def _game_hierarchy() -> cgroups.Hierarchy | None:
    """Where games' own control groups are made: None without control groups, or when the attack tests weaken
    the jail to keep the jail's group for every game (kept.WEAKEN)."""
    return None if "groups" in kept.WEAKEN else cgroups.usable_hierarchy()[0]


def _opened(paths: tuple[str, ...]) -> list[int]:
    """Descriptors of ``paths``, opened for writing (all of them, or none)."""
    fds: list[int] = []
    try:
        for path in paths:
            fds.append(os.open(path, os.O_WRONLY | os.O_CLOEXEC))
    except OSError:
        for fd in fds:
            os.close(fd)
        raise
    return fds


def _game_uid(kept_jail: kept.KeptJail) -> jail.Uid:
    """A uid for a game in ``kept_jail``, not its last game's. The kernel counts some things per uid that a
    game's objects hold after its processes are gone, while the kernel has not yet collected them (descriptors
    left in flight in Unix sockets, with the message-queue bytes, pipe pages and terminals they hold): under
    one uid, the next game could read that count (e.g. how many descriptors it may still send in flight)."""
    uid = jail.Uid.take()
    if uid.uid == kept_jail.last_uid:
        other = jail.Uid.take()
        uid.release()
        uid = other
    kept_jail.last_uid = uid.uid
    return uid


async def _open_kept(start: _KeptStart) -> kept.KeptJail:
    """A new kept jail for ``start``'s bot: fenced as a fresh jail is (uid, control group, rlimits, seccomp:
    :class:`_JailEnd`), running the keeper in place of the bot."""
    sandbox = start.sandbox
    info, info_child = os.pipe()
    seccomp, gate = os.pipe()
    end = _JailEnd(info, start.marker, gate=gate)
    child_fds = [info_child, seccomp]  # closed here until spawn has them (it closes them, started or not)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        end.uid = jail.Uid.take()
        hierarchy, _ = cgroups.usable_hierarchy()
        if hierarchy is not None:
            end.group = cgroups.BotCgroup.create(hierarchy, sandbox.limits.cgroup())
        spec = attrs.evolve(start.spec, uid=end.uid.uid, info_fd=info_child, seccomp_fd=seccomp)
        plan = kept.plan(jail.command(spec))
        child_fds.append(theirs.detach())
        child_fds.append(os.open(kept.program(), os.O_RDONLY | os.O_CLOEXEC))
        channel, program = child_fds[-2:]
        games = _game_hierarchy()
        groups = len(games.folders) if games is not None else 0  # each game's (_game_group)
        argv = [jail.bwrap() or "bwrap", *plan.bwrap, "--cap-add", "CAP_SYS_ADMIN", "--",
                f"/proc/self/fd/{program}", "--channel", str(channel), "--groups", str(groups), *plan.keeper, "--",
                *plan.command]
        command, args_fd = jail.through_fd(argv)
        child_fds.append(args_fd)
        passed, child_fds = tuple(child_fds), []
        process = await spawn.spawn(command, cwd=None, env=start.env, pass_fds=passed)
    except BaseException as e:
        for fd in child_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        ours.close()
        end.close()
        if isinstance(e, (jail.JailError, kept.KeptJailError, cgroups.CgroupError, OSError)):
            raise SandboxError(f"cannot make the bot's kept jail: {e}") from None
        raise
    stderr = os.dup(process.stderr.fileno())
    for stream in (process.stdin, process.stdout, process.stderr):
        await stream.aclose()
    process.close_pidfd()  # (the jail's close waits for bwrap in a thread, outside trio)
    made = kept.KeptJail(process, stderr, ours, plan.binds, end.close, end.group)
    limits = [(which, min(value, _hard(which))) for which, value in
              sandbox.limits.rlimits(nproc=end.group is None, address_space=end.group is None)]
    try:
        await end.admit(limits)
    except BaseException:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(made.close)
        raise
    return made


def images_to_make(sandbox: Sandbox, argv: tuple[str, ...], cwd: str | None, hidden: tuple[str, ...] = ()) -> bool:
    """Whether the first start of this bot will make file system images first (seconds, once per machine and
    content): for a run to say so before it seems to hang."""
    if sandbox.isolation is not Isolation.JAIL or not sandbox.own_files or own_files_problem():
        return False
    spec = jail.JailSpec(tuple(argv), read_only=sandbox.read_only, hidden=hidden, cwd=cwd, own_files=True,
                         runtimes=sandbox.runtimes, uid=0)
    try:
        layout = jail.filesystem(spec).layout
    except (jail.JailError, images.ImageError, OSError):
        return False  # the start will say why
    return layout is not None and not all(images.is_made(source) for _, source in layout.images)


@functools.cache
def own_files_problem() -> str:
    """Why jailed bots cannot have a file system of their own here ("" when they can); the first time it is
    asked, also unmounts what a referee killed earlier left (seating_fs.remove_stale)."""
    found = images.problem()
    if not found:
        seating_fs.remove_stale()
    return found


def _hard(which: int) -> int:
    """The referee's hard limit, which its children inherit: a limit is set no higher."""
    hard = resource.getrlimit(which)[1]
    return hard if hard != resource.RLIM_INFINITY else 1 << 62


RLIMIT_FLAGS = {resource.RLIMIT_AS: "--as", resource.RLIMIT_CPU: "--cpu", resource.RLIMIT_NPROC: "--nproc",
                resource.RLIMIT_NOFILE: "--nofile", resource.RLIMIT_FSIZE: "--fsize", resource.RLIMIT_CORE: "--core"}


def _entry(limits: list[tuple[int, int]], prlimit: str) -> list[str]:
    """What an unjailed bot's process runs before its program: prlimit, setting its rlimits.

    One small exec instead of Python code between fork and exec (subprocess's ``preexec_fn``): that forces a
    fork of the whole referee, 10-25 ms a start with the memory a tournament holds, where without it the
    process is started with vfork in well under a millisecond."""
    if not limits:
        return []
    words = [f"{RLIMIT_FLAGS[which]}={soft}:{'unlimited' if hard == resource.RLIM_INFINITY else hard}"
             for which, soft, hard in _soft_and_hard(limits)]
    return [prlimit, *words, "--"]


def _soft_and_hard(limits: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) of each limit: the hard limit the same, but CPU time's stays the referee's, so that
    SIGXCPU comes first."""
    return [(which, value, resource.getrlimit(which)[1] if which == resource.RLIMIT_CPU else value)
            for which, value in limits]


def _prlimit() -> str:
    found = shutil.which("prlimit") or ("/usr/bin/prlimit" if os.access("/usr/bin/prlimit", os.X_OK) else None)
    if found is None:
        raise SandboxError("prlimit is needed to set the bots' resource limits and is not installed "
                           "(it comes with util-linux: sudo apt-get install util-linux)")
    return found


# ------------------------------------------------------------------ leftovers
LEADERS: set[int] = set()  # pids of bot processes started and not yet reaped by trio (never reaped here)
HELPERS: set[int] = set()  # pids of children that are no bots, waited for elsewhere (referee workers started ahead)


def _leftovers(marker: str, group: int | None) -> list[tuple[int, bool]]:
    """(pid, is our child) of every process that carries ``marker`` or is in process group ``group`` (if any),
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
        if state == b"Z" and parent == me and pid not in LEADERS and pid not in HELPERS:
            found.append((pid, True))
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            environ = b""
        if (group is not None and pgid == group) or needle in environ.split(b"\0"):
            found.append((pid, parent == me))
    return found


def kill_leftovers(marker: str, group: int | None) -> int:
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


@attrs.define(eq=False)
class _JailEnd:
    """What a jailed bot leaves behind for the referee to undo once its bwrap process is gone."""

    info: int  # the referee's end of bwrap's info pipe: the jail's first process (jail.read_first_process)
    marker: str
    group: cgroups.BotCgroup | None = None
    uid: jail.Uid | None = None
    gate: int | None = None  # the referee's end of bwrap's --seccomp pipe: the jail waits for its filter there
    first: int | None = None  # the jail's first process, once admit() read it

    async def admit(self, limits: list[tuple[int, int]]) -> None:
        """Fence the jail bwrap has made: its first process, which runs nothing of the bot's yet (bwrap waits,
        the jail made, for its syscall filter on the ``gate`` pipe), is moved into the bot's control groups and
        under its rlimits, which every process of the bot inherits; only then is the filter written, and bwrap
        goes on. Were the gate closed first (an error, or the referee killed), bwrap finds no filter and
        refuses to run the bot: the gate fails closed. A bwrap that ended before making the jail, or while
        making it, is left to end (its stderr says why).

        Raises SandboxError if the jail cannot be fenced; the caller then kills it (start())."""
        gate = self.gate
        if gate is None:
            raise SandboxError("the bot's jail has no gate to fence it by (admitted twice?)")
        with trio.move_on_after(ADMIT_SECONDS):
            first = await _first_process(self.info)
            if first is None:
                return
            self.first = first
            try:
                for procs in self.group.procs if self.group is not None else ():
                    with open(procs, "w") as f:
                        f.write(str(first))
                for which, soft, hard in _soft_and_hard(limits):
                    resource.prlimit(first, which, (soft, hard))
                os.write(gate, jail.seccomp_program())  # under PIPE_BUF bytes: one write, all or nothing
            except (ProcessLookupError, BrokenPipeError):
                return  # bwrap's first process ended in its set-up: nothing of the bot ran (its stderr says why)
            except OSError as e:
                raise SandboxError(f"cannot fence the bot's jail: {e.strerror or e}") from None
            finally:
                os.close(gate)  # (not written: the jail ends at bwrap's seccomp, without running the bot)
                self.gate = None
            return
        raise SandboxError(f"bwrap did not make the bot's jail within {ADMIT_SECONDS:.0f} s")

    def close(self) -> None:
        """Kill what is left in the bot's control group, reap the jail's first process (the referee adopts
        it as the child subreaper), and only then give the uid back."""
        if self.gate is not None:  # never admitted: a jail still held ends at bwrap's seccomp, running nothing
            os.close(self.gate)
            self.gate = None
        first = self.first if self.first is not None else jail.read_first_process(self.info)
        if self.first is not None:
            os.close(self.info)
        if self.group is not None:
            self.group.close()
        if first is not None and _is_ours(first, self.marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(first, signal.SIGKILL)  # (dying already, by bwrap's --die-with-parent and the group's kill;
            try:                                # without a control group, its end is what empties the namespace)
                os.waitpid(first, 0)
            except ChildProcessError:
                pass  # reaped meanwhile
        if self.uid is not None:
            self.uid.release()


ADMIT_SECONDS = 10.0  # bwrap names its first process within milliseconds of its start


async def _first_process(info: int) -> int | None:
    """The pid bwrap writes to its --info-fd (``info``, the referee's end) once it has made the jail's first
    process; None if bwrap ends first."""
    os.set_blocking(info, False)
    written = b""
    while (first := jail.first_process_in(written)) is None:
        await trio.lowlevel.wait_readable(info)
        try:
            chunk = os.read(info, 4096)
        except BlockingIOError:
            continue
        if not chunk:
            return None
        written += chunk
    return first


async def start(how: Launch) -> spawn.ChildProcess:
    """Start the process ``how`` describes; a jailed one is held until it is fenced (``how.admit``).

    Raises OSError if it cannot be started, SandboxError if its jail cannot be fenced (it is killed first) or
    its file system cannot be mounted."""
    if how.kept is not None:
        return await _start_kept(how.kept)
    if how.prepare is not None:
        try:
            await trio.to_thread.run_sync(how.prepare)  # seconds when an image is made: never in the event loop
        except (images.ImageError, OSError) as e:
            raise SandboxError(f"cannot mount the bot's own file system: {e}") from None
    process = await spawn.spawn(how.argv, cwd=how.cwd, env=how.env, pass_fds=how.pass_fds)
    if how.admit is None:
        return process
    try:
        await how.admit()
    except BaseException:
        with trio.CancelScope(shield=True):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # bwrap and the held jail (still in bwrap's group)
            await process.wait()  # (which closes its pidfd)
            await trio.to_thread.run_sync(_reap_group, process.pid)
            for stream in (process.stdin, process.stdout, process.stderr):
                with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError, OSError):
                    await stream.aclose()
        raise
    return process


def _reap_group(group: int) -> None:
    """Reap what the referee adopted of process group ``group`` (bwrap's, just killed): a held jail's first
    process has not left it yet (--new-session comes after the hold), and its pid may not be known."""
    while True:
        try:
            os.waitpid(-group, 0)
        except ChildProcessError:
            return


def _is_ours(pid: int, marker: str) -> bool:
    """Whether ``pid`` is still this bot's process and our child (its number may have been reused)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        if int(fields[1]) != os.getpid():
            return False
        if pid in LEADERS:
            return False  # a bot process trio waits for
        if fields[0] == b"Z":
            return True  # a zombie child of ours: reap it
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except ProcessLookupError:  # our child, exiting: its memory is gone already
            environ = b""
    except (OSError, IndexError, ValueError):
        return False
    # its marker, or no environment left to read: a process of ours on its way out
    return not environ or f"{MARKER}={marker}".encode() in environ.split(b"\0")


def _fresh_folder(workdir: Path) -> str:
    """A new, empty working folder under ``workdir`` (made if missing). The clean-up of another of the bot's
    processes, running at the same time in another thread, may remove ``workdir`` once it finds it empty
    (:func:`_remove_folder`): then it is made again. (Path.mkdir with exist_ok raises FileExistsError when the
    folder it found there is gone by the time it looks again: that race too.)"""
    for _ in range(8):
        try:
            workdir.mkdir(parents=True, exist_ok=True)
            return tempfile.mkdtemp(prefix="run-", dir=workdir)
        except (FileNotFoundError, FileExistsError):
            continue
    raise FileNotFoundError(f"cannot make a working folder in {workdir}: it keeps disappearing")


def _remove_folder(path: Path) -> None:
    """Remove a bot's working folder, and the folders above it that it leaves empty (work/NAME, work)."""
    shutil.rmtree(path, ignore_errors=True)
    for parent in (path.parent, path.parent.parent):
        try:
            parent.rmdir()
        except OSError:
            return
