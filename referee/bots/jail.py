"""The jail every bot runs in: bubblewrap (``bwrap``), as Flatpak uses it, and a uid of its own.

Part of the transport layer, beside :mod:`referee.bots.sandbox` (which chooses
it) and :mod:`referee.bots.cgroups` (the limits of all a bot's processes). This
module only turns "run this command for this bot" into a ``bwrap`` command
line; bubblewrap does the namespaces and mounts.

Inside the jail a bot has:

* its own PID, IPC, UTS, mount and network namespaces (no network at all;
  a loopback of its own), and a new session (no terminal to push input to);
* a read-only view of the system (``/usr``, ``/etc``, ``/bin``, ``/lib*``...)
  and of the folders its command names: the program's folder (for a program
  in a ``bin`` folder, the installation above it, so an interpreter finds
  its library), the folder of every file named on its command line, its
  configured ``cwd`` and ``read_only`` folders;
* a private, size-capped, empty ``/home/bot`` (its ``HOME`` and working
  directory, unless a ``cwd`` is configured), ``/tmp`` and ``/dev/shm``,
  all gone when its last process ends;
* nothing else: not the output folder (covered by an empty tmpfs if it lies
  inside a folder the bot may read), not the logs, not other processes;
* when the referee runs as root: its own unprivileged uid (taken from a
  pool for as long as the bot runs), no capabilities, no new privileges;
  otherwise the referee's user in a user namespace of its own, unable to
  make further user namespaces.

Every process of the jail is killed when its ``bwrap`` process is killed or
the referee dies (``--die-with-parent``).
"""

from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import os
import random
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import attrs

from . import counters, runtimes, seating_fs
from . import images as images_
from .spawn import become_subreaper

HOME = "/home/bot"
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
JAIL_PATH = "/usr/local/bin:/usr/bin:/bin"
PRIVATE = ("/tmp", "/dev", "/dev/shm", HOME)  # the jail's own folders, made before the binds
MiB = 1 << 20
COVER_BYTES = 4096  # the size of the empty folder laid over a hidden one: nothing fits in it

# Uids of jailed bots when the referee is root: a range no distribution hands out, taken one per bot
# process for as long as it runs (a lock file per uid, released by the kernel if the referee dies).
UID_BASE = 1_900_000_000
UID_POOL = 4096
UID_LOCKS = Path("/run/pinochle-arena/uids")


class JailError(Exception):
    """No jail can be had here, or this bot's cannot be built; the message says why."""


@attrs.frozen
class JailSpec:
    """What one jailed bot process may see and do."""

    argv: tuple[str, ...]  # the bot's command
    read_only: tuple[str, ...] = ()  # more host folders or files it may read (its data)
    hidden: tuple[str, ...] = ()  # host folders it must never see, even inside one it may read (the output)
    cwd: str | None = None  # a host folder to work in (read-only); default: its private home
    disk_mb: int = 256  # size of each of its writable spaces: home, /tmp, /dev/shm
    uid: int | None = None  # run as this uid (the referee is root); None: in a user namespace
    seccomp_fd: int | None = None  # bwrap reads the syscall filter (seccomp_program) from here
    info_fd: int | None = None  # bwrap writes {"child-pid": N} here: the jail's first process (read_first_process)
    own_files: bool = False  # show images mounted for this process alone (seating_fs), not the host's files
    runtimes: tuple[str, ...] = ()  # with own_files: more host folders for its system image (the organiser's)
    seat: str | None = None  # with own_files: the folder its images are mounted under (SeatingFs.root)


def bwrap() -> str | None:
    return shutil.which("bwrap")


@cache
def problem() -> str:
    """Why no jail can be had on this machine ("" when it can): tried once, with a real bwrap run."""
    program = bwrap()
    if program is None:
        return ("bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
                "bubblewrap; it is what Flatpak uses)")
    try:
        seccomp_program()
    except (ImportError, OSError, RuntimeError, ValueError) as e:
        return f"the syscall filter cannot be built (libseccomp: apt-get install libseccomp2): {e}"
    uid = UID_BASE if os.geteuid() == 0 else None
    become_subreaper()  # so the jail's first process, which outlives bwrap a moment, is ours to reap
    info, info_child = os.pipe()
    seccomp = seccomp_pipe()
    try:
        argv = command(JailSpec(("/bin/true",), uid=uid, info_fd=info_child, seccomp_fd=seccomp))
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, pass_fds=(info_child, seccomp))
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap could not run: {e}"
    finally:
        os.close(info_child)
        os.close(seccomp)
        first = read_first_process(info)
        if first is not None:
            try:
                os.waitpid(first, 0)
            except ChildProcessError:
                pass
    if done.returncode != 0:
        said = (done.stderr.strip() or f"exit status {done.returncode}").splitlines()[-1]
        hint = "" if uid is not None else " (unprivileged user namespaces may be off: sysctl kernel.unprivileged_userns_clone=1)"
        return f"bwrap fails here: {said}{hint}"
    return ""


# Refused inside the jail: the kernel's keyrings belong to a uid, not to a process, and outlive the bot, so a
# bot could leave itself a note (its hand) for its next game, or for the next bot that draws its uid.
BLOCKED_SYSCALLS = ("add_key", "request_key", "keyctl")
# Refused too: a new user namespace. In it the bot's uid is root over its own mounts, so it could mount a tmpfs
# of any size and write past its disk limit (bwrap's --disable-userns does this only when bwrap itself makes the
# user namespace, which it does not when the referee runs as root). clone3 hides its flags in a struct that a
# filter cannot read, so it fails with ENOSYS and the C library falls back to clone, as in Docker and Flatpak.
CLONE_NEWUSER = 0x10000000

# State the kernel shares between every process of the machine, which two jails could use to talk: a bot
# could leave its hand to its own next seating of a deal (a fresh process in a fresh jail), or pass it to a
# copy of itself playing at the same time, through which pages of the system's files are cached, through
# locks on those files, or by watching them. The calls that read or steer that state are refused or made
# no-ops; a runtime still starts (tests/test_starters.py runs eight, the JVM and Go included).
# - Page-cache residency: asked directly (mincore, cachestat), or by a read that must not wait for the disk.
NOT_SUPPORTED = ("io_uring_setup", "io_uring_enter", "io_uring_register",  # I/O the filter could not see into:
                 "io_setup", "io_submit",  # io_uring, and the kernel's AIO (whose reads may say RWF_NOWAIT)
                 "inotify_init", "inotify_init1", "fanotify_init",  # watching files other processes open or read
                 # - The machine's counters: sysinfo answers how many threads run on the whole machine, its free
                 #   memory and load (the figures /proc shows fixed in the jail: counters.py). Without it the C
                 #   library's sysconf(_SC_PHYS_PAGES) says 0, and runtimes size their heaps from /proc/meminfo.
                 "sysinfo")
REFUSED = ("mincore", "cachestat", "inotify_add_watch", "fanotify_mark",
           "process_madvise",  # madvise's advice, on a process's memory: the same pages, unfiltered
           "perf_event_open", "bpf")  # counters and programs that watch the machine, not the bot
# Calls libseccomp may not know by name (an older release on a newer kernel): their numbers, the same on every
# architecture since Linux 5.1. A call the kernel lacks needs no rule.
NUMBERS = {"cachestat": 451, "process_madvise": 440}
LOW_32 = 0xFFFFFFFF  # fcntl's command and madvise's advice are ints: the kernel ignores a register's high bits
RWF_NOWAIT = 0x8  # preadv2/pwritev2's flags (their sixth argument): fail rather than wait for the disk
# - Page-cache steering: advice that loads or evicts pages of a file is advice, so ignoring it is allowed.
IGNORED = ("fadvise64", "readahead")
MADVICE_IGNORED = (3, 20, 21, 22, 23)  # MADV_WILLNEED, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ/WRITE
# - Locks: a lock on a file another jail shows too (the system's files) is seen by that jail. In the jail
#   every lock is granted at once and held by nobody (flock, and fcntl's record and open-file locks): a bot
#   is one program, whose own files no other program shares. Asking who holds a lock, and F_NOTIFY (watching
#   a folder), are refused.
F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW = 6, 7, 37, 38
F_GETLK, F_OFD_GETLK, F_NOTIFY = 5, 36, 1026


@cache
def seccomp_program() -> bytes:
    """The jail's syscall filter as a BPF program for bwrap's --seccomp: everything allowed but the calls
    above, which fail (EPERM, or ENOSYS where a caller should fall back) or succeed doing nothing. Built by
    libseccomp (through pyseccomp, a ctypes binding that works with any Python), which also handles the
    architecture checks."""
    import pyseccomp

    program = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    refuse, unsupported, ignore = (pyseccomp.ERRNO(errno.EPERM), pyseccomp.ERRNO(errno.ENOSYS),
                                   pyseccomp.ERRNO(0))

    def add(action, name: str, *args) -> None:
        try:
            program.add_rule(action, name, *args)
        except (OSError, ValueError, RuntimeError):  # a name this libseccomp does not know
            if name not in NUMBERS:
                raise
            program.add_rule(action, NUMBERS[name], *args)

    for name in (*BLOCKED_SYSCALLS, *REFUSED):
        add(refuse, name)
    for name in NOT_SUPPORTED:
        add(unsupported, name)
    for name in (*IGNORED, "flock"):
        add(ignore, name)
    new_user = pyseccomp.Arg(0, pyseccomp.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)  # flags: clone's and unshare's
    add(refuse, "unshare", new_user)
    add(refuse, "clone", new_user)
    add(unsupported, "clone3")
    no_wait = pyseccomp.Arg(5, pyseccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT)
    for name in ("preadv2", "pwritev2"):
        add(pyseccomp.ERRNO(errno.EOPNOTSUPP), name, no_wait)
    for advice in MADVICE_IGNORED:  # compared on the low 32 bits, as the kernel reads them
        add(ignore, "madvise", pyseccomp.Arg(2, pyseccomp.MASKED_EQ, LOW_32, advice))
    for command in (F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW):
        add(ignore, "fcntl", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, LOW_32, command))
    for command in (F_GETLK, F_OFD_GETLK, F_NOTIFY):
        add(refuse, "fcntl", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, LOW_32, command))
    with tempfile.TemporaryFile() as f:
        program.export_bpf(f)
        f.seek(0)
        return f.read()


def seccomp_pipe() -> int:
    """A pipe's read end holding the filter, for bwrap to read (the referee closes its copy once bwrap runs)."""
    read, write = os.pipe()
    os.write(write, seccomp_program())  # a few hundred bytes: well within a pipe's buffer
    os.close(write)
    return read


def resolve_program(program: str, path: str | None = None) -> str:
    """The file a bare program name runs, looked up like the shell but skipping version managers' shims.

    pyenv, rbenv and asdf put "shims" on PATH: scripts that find the real
    interpreter through their own folder and environment, which a jail does
    not have. The next match on PATH (e.g. /usr/bin/python3) is used
    instead; name an interpreter's full path to use another.
    """
    if os.sep in program:
        return program
    dirs = [d for d in (path if path is not None else os.environ.get("PATH", "")).split(os.pathsep)
            if d and Path(d).name != "shims"]
    found = shutil.which(program, path=os.pathsep.join(dirs))
    if found is None:
        raise JailError(f"bot program {program!r} not found on PATH")
    return found


def _installation(program: Path) -> Path:
    """The folder a program needs: the installation above a ``bin`` folder, else its own folder."""
    folder = program.parent
    return folder.parent if folder.name in ("bin", "sbin") and folder.parent != Path("/") else folder


def is_under(path: Path, roots: Iterable[str | Path]) -> bool:
    """Whether ``path`` is one of ``roots`` or inside one, both absolute: by their parts, as pathlib compares them
    (``/a/b`` is not under ``/a/bc``), on their normal texts (walking a path's parents as Path objects cost a
    league's ``add`` most of a second, for the thousands of folders a bot's jail shows)."""
    text = str(path)
    for root in roots:
        base = str(Path(root))
        if text == base or text.startswith(base if base.endswith("/") else base + "/"):
            return True
    return False


def _shebang(path: Path) -> str | None:
    """The interpreter a script names on its first line (``#!/usr/bin/env X`` gives X)."""
    try:
        with open(path, "rb") as f:
            first = f.readline(256)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode(errors="replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        rest = [w for w in words[1:] if not w.startswith("-")]
        return rest[0] if rest else None
    return words[0]


def program_of(spec: JailSpec) -> Path:
    """The program a jail runs: looked up on PATH, and a relative one in the bot's cwd."""
    return Path(spec.cwd or "", resolve_program(spec.argv[0]))


def visible_paths(spec: JailSpec) -> list[tuple[Path, Path]]:
    """(where the bot sees it, what it really is) of each host folder or file the bot may read, besides the
    system: what its command names, spelled as the command spells it, shallowest first.

    Nothing in a hidden folder (the output) is shown, even when the command
    names it; the program itself may not live in one. Hidden or not is
    decided on real paths, so a symlink or a ``..`` cannot get round it.
    """
    return [(where, real) for where, real, _ in _named_paths(spec)
            if not (is_under(where, SYSTEM) and is_under(real, SYSTEM))]


def system_paths_named(spec: JailSpec) -> tuple[list[str], list[str]]:
    """(programs, other paths) under the system that the command names: what a system image must hold besides
    its runtimes (a program's installation under the system is its runtime's business, not a whole folder)."""
    programs = [str(p) for p in _programs(spec) if is_under(p, SYSTEM)]
    others = [str(real) for where, real, is_program in _named_paths(spec)
              if not is_program and is_under(where, SYSTEM) and is_under(real, SYSTEM)]
    return programs, others


def _programs(spec: JailSpec) -> list[Path]:
    """The bot's program and the interpreter its ``#!`` line names, if any."""
    programs = [program_of(spec)]
    interpreter = _shebang(programs[0])
    if interpreter:
        programs.append(Path(resolve_program(interpreter, JAIL_PATH + os.pathsep + os.environ.get("PATH", ""))))
    return programs


def _named_paths(spec: JailSpec) -> list[tuple[Path, Path, bool]]:
    """(where, real, whether it is a program's installation) of everything the command names, shallowest
    first, the system included, nothing in a hidden folder."""
    hidden = [Path(os.path.realpath(h)) for h in spec.hidden]

    def is_hidden(real: Path) -> bool:
        return any(real == h or h in real.parents for h in hidden)

    wanted: list[tuple[Path, bool]] = []
    for program in _programs(spec):
        for path in (program, Path(os.path.realpath(program))):
            if path.is_absolute():
                wanted.append((_installation(path), True))
    programs_folders = {Path(os.path.realpath(p)) for p, _ in wanted}
    for word in spec.argv[1:]:
        if os.path.isabs(word) and os.path.exists(word):
            for path in (Path(word), Path(os.path.realpath(word))):
                wanted.append((path if path.is_dir() else path.parent, False))
    wanted.extend((Path(p), False) for p in spec.read_only)
    if spec.cwd:
        wanted.append((Path(spec.cwd), False))
    out: list[tuple[Path, Path, bool]] = []
    for path, is_program in wanted:
        where, real = Path(os.path.abspath(path)), Path(os.path.realpath(path))
        if Path("/") in (where, real):
            raise JailError(f"the bot's command makes it read the whole file system ({' '.join(spec.argv)}); "
                            "put the bot in a folder of its own")
        if is_hidden(real):
            if real in programs_folders:
                raise JailError(f"the bot's program is inside the output folder ({path}); keep bots and "
                                "results apart (--out)")
            continue  # nothing in the output folder is ever shown, even when the command names it
        if all((where, real) != (w, r) for w, r, _ in out):
            out.append((where, real, is_program))
    return sorted(out, key=lambda found: len(found[0].parts))


def covers(hidden: tuple[str, ...], shown: list[tuple[Path, Path]]) -> list[Path]:
    """Where, inside the jail, an empty folder must cover a hidden folder that lies in one the bot is shown."""
    out = []
    for h in (Path(os.path.realpath(x)) for x in hidden):
        if not h.is_dir():
            continue
        for where, real in shown:
            if real in h.parents:
                out.append(where / h.relative_to(real))
    return out


def check_readable(path: Path) -> None:
    """Raise JailError if a bot running as a uid of its own could not read ``path`` (the referee is root)."""
    try:
        mode = path.stat().st_mode
    except OSError as e:
        raise JailError(f"cannot show {path} to the bot: {e.strerror}") from None
    need = 0o005 if path.is_dir() else 0o004
    if mode & need != need:
        what = "o+rx" if path.is_dir() else "o+r"
        raise JailError(f"{path} (mode {mode & 0o777:04o}) cannot be read by the bot, which runs as a uid of its "
                        f"own: chmod {what} {path}, or keep the bot's files where other users may read them")


def _parents(path: Path, made: set[Path]) -> list[str]:
    """bwrap arguments that make the (traversable) folders above ``path`` inside the jail."""
    args = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made or is_under(parent, SYSTEM) or str(parent) in PRIVATE:
            continue
        made.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def command(spec: JailSpec) -> list[str]:
    """The bwrap command line that runs ``spec.argv`` in its jail."""
    program = bwrap() or "bwrap"
    args = [program, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--hostname", "bot"]
    if spec.info_fd is not None:
        args += ["--info-fd", str(spec.info_fd)]
    if spec.seccomp_fd is not None:
        args += ["--seccomp", str(spec.seccomp_fd)]
    if spec.uid is None:
        args += ["--unshare-user", "--disable-userns"]
    else:  # bwrap runs as root (it can read every folder it binds); the bot runs as spec.uid, without privileges
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    argv = list(spec.argv)
    argv[0] = resolve_program(argv[0])
    shown = filesystem(spec)
    args += shown.arguments(spec.seat)
    args += ["--chdir", os.path.abspath(spec.cwd) if spec.cwd else HOME, "--"]
    if spec.uid is not None:
        setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        args += [setpriv, f"--reuid={spec.uid}", f"--regid={spec.uid}", "--clear-groups", "--no-new-privs",
                 "--inh-caps=-all", "--bounding-set=-all", "--"]
    return args + argv


SEAT = "\0seat\0"  # in a kept Filesystem's arguments, stands for the folder a process's images are mounted under


@attrs.frozen
class Filesystem:
    """What a jail shows: bwrap's arguments, the host paths they bind, and (with a file system of its own) the
    images to mount for each process, by the name of their mount under its seating's folder."""

    args: tuple[str, ...]
    bound: tuple[str, ...]  # the host paths bound that the bot's command named
    layout: seating_fs.Layout | None = None

    def arguments(self, seat: str | None) -> list[str]:
        if self.layout is None:
            return list(self.args)
        if seat is None:
            raise JailError("a jail with a file system of its own needs its seating's folder")
        return [arg.replace(SEAT, seat) for arg in self.args]


_FILESYSTEMS: dict[tuple[JailSpec, str], Filesystem] = {}
FILESYSTEMS_KEPT = 1024


def filesystem(spec: JailSpec) -> Filesystem:
    """What ``spec``'s jail shows: worked out once for each bot (an entrant starts a process for every game, and
    working it out took 2 ms a start), and again when its program is another file (a link turned elsewhere),
    or when a folder it binds is no longer what it was (a link put in its place could point into a hidden
    folder: bwrap follows it)."""
    spec = attrs.evolve(spec, uid=None if spec.uid is None else 0, info_fd=None, seccomp_fd=None, seat=None)
    key = (spec, os.path.realpath(program_of(spec)))
    kept = _FILESYSTEMS.get(key)
    if kept is not None and all(os.path.realpath(source) == source and os.path.exists(source)
                                for source in kept.bound):
        return kept
    if len(_FILESYSTEMS) >= FILESYSTEMS_KEPT:
        _FILESYSTEMS.clear()
    made = _FILESYSTEMS[key] = _work_out_filesystem(spec)
    return made


def _work_out_filesystem(spec: JailSpec) -> Filesystem:
    size = str(spec.disk_mb * MiB)  # the private spaces first: a bot's own folder may lie in the host's /tmp
    args = ["--proc", "/proc", "--dev", "/dev",
            "--size", size, "--perms", "1777", "--tmpfs", "/tmp",
            "--size", size, "--perms", "1777", "--tmpfs", "/dev/shm",
            "--size", size, "--perms", "0777", "--tmpfs", HOME]
    images: list[tuple[str, images_.Source]] = []
    if spec.own_files:
        selection = _system_selection(spec)
        images.append(("system", images_.Source.system(selection)))
        args += _system_from_image(selection)
    else:
        for root in SYSTEM:
            if os.path.islink(root):
                args += ["--symlink", os.readlink(root), root]
            elif os.path.isdir(root):
                args += ["--ro-bind", root, root]
    made: set[Path] = set()  # folders made inside the jail to hold the binds
    bound: list[tuple[Path, Path]] = []
    installations = {real for _, real, is_program in _named_paths(spec) if is_program}
    for where, real in visible_paths(spec):  # shallowest first: a folder inside one already bound is visible
        if not real.exists():
            continue
        if spec.uid is not None:
            check_readable(real)
        if is_under(where, [str(w) for w, _ in bound]):
            continue
        source = str(real)
        if spec.own_files:  # an image of the folder (or of the one file) mounted for this process alone
            name = str(len(images))
            if real.is_dir():
                images.append((name, images_.Source.folder(str(real), _hidden_real(spec), real in installations)))
                source = f"{SEAT}/{name}"
            else:
                images.append((name, images_.Source(str(real.parent), (str(real),))))
                source = f"{SEAT}/{name}/{real.name}"
        args += _parents(where, made) + ["--ro-bind", source, str(where)]
        bound.append((where, real))
    if not spec.own_files:  # (an image leaves out what is hidden: nothing there to cover)
        system = [(Path(root), Path(os.path.realpath(root))) for root in SYSTEM if os.path.isdir(root)]
        for cover in covers(spec.hidden, bound + system):  # an empty folder over it: the bot may read round it
            args += ["--size", str(COVER_BYTES), "--perms", "0555", "--tmpfs", str(cover), "--remount-ro", str(cover)]
    args += counters.proc_arguments(spec.uid is not None)
    # The jail's own / and /dev are tmpfs that bwrap makes without a size (and, not as root, the bot's own to
    # write): read-only, a bot writes only to its sized home, /tmp and /dev/shm.
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    layout = seating_fs.Layout(tuple(images)) if spec.own_files else None
    return Filesystem(tuple(args), tuple(str(real) for _, real in bound), layout)


def _hidden_real(spec: JailSpec) -> tuple[str, ...]:
    return tuple(os.path.realpath(h) for h in spec.hidden)


def _system_selection(spec: JailSpec) -> runtimes.Selection:
    """The files of ``spec``'s system image: worked out by one referee process for all of them every
    images.RECHECK_SECONDS (reading the runtimes' folders and libraries costs a process a few tenths of a
    second of CPU)."""
    programs, others = system_paths_named(spec)
    extra = (*spec.runtimes, *others)
    name = "selection-" + hashlib.sha256(repr((sorted(programs), extra)).encode()).hexdigest()[:16]
    kept = images_.recent(name)
    if kept is not None:
        return runtimes.Selection(tuple(kept))
    selection = runtimes.system_selection(programs, extra)
    images_.note(name, list(selection.paths))
    return selection


def _system_from_image(selection: runtimes.Selection) -> list[str]:
    """bwrap's arguments that show the system image's folders where the host has them (``/usr``, ``/etc``;
    ``/bin`` and the like as the host's links into ``/usr``, or as folders of the image where they are
    folders)."""
    args = []
    for root in SYSTEM:
        if os.path.islink(root):
            args += ["--symlink", os.readlink(root), root]
        elif any(is_under(Path(path), [root]) for path in selection.paths):
            args += ["--ro-bind", f"{SEAT}/system{root}", root]
    return args


def through_fd(argv: list[str]) -> tuple[list[str], int]:
    """``argv`` as ``bwrap --args FD -- COMMAND``, bwrap's options in a memory file: the jail's first process
    is bwrap, and a bot may read its command line (/proc/1/cmdline), which would name the folders it covers
    (the output folder among them). Returns the short command and the descriptor to pass (closed after the
    start)."""
    end = argv.index("--")  # the bot's own command stays on the command line, where bwrap looks for it
    fd = os.memfd_create("bwrap-args", 0)  # not close-on-exec: bwrap reads it
    os.write(fd, b"".join(os.fsencode(arg) + b"\0" for arg in argv[1:end]))
    os.lseek(fd, 0, os.SEEK_SET)
    return [argv[0], "--args", str(fd), *argv[end:]], fd


def jail_env(env: dict[str, str], memory_mb: int | None = None) -> dict[str, str]:
    """The bot's environment inside the jail: its home, /tmp, the system PATH, and the memory a JVM is to take
    as the machine's (:func:`jvm_options`)."""
    return {**env, "HOME": HOME, "TMPDIR": "/tmp", "PATH": JAIL_PATH, **jvm_options(env, memory_mb)}


def jvm_options(env: dict[str, str], memory_mb: int | None) -> dict[str, str]:
    """``JAVA_TOOL_OPTIONS`` telling every JVM of the jail how much memory the machine has: the bot's memory limit,
    or the machine's memory, the figure the jail's /proc/meminfo shows.

    sysinfo(2) is not supported in the jail (it reports machine-wide counters), and the C library's
    ``sysconf(_SC_PHYS_PAGES)``, which the JVM sizes its heap from, calls it without looking at its answer: it
    returns whatever the stack held (five JVM starts in one jail took 146 MB to 7.7 GB as their largest heap, and
    javac ran out of heap in one build). With ``-XX:MaxRAM`` set, the JVM takes that figure as the machine's
    memory and sizes itself from it as it would from a container's limit; the bot's own options come after, so
    its ``-Xmx`` still wins."""
    mb = min(memory_mb, _machine_mb()) if memory_mb else _machine_mb()
    theirs = env.get("JAVA_TOOL_OPTIONS", "")
    return {"JAVA_TOOL_OPTIONS": f"-XX:MaxRAM={mb}m" + (f" {theirs}" if theirs else "")}


@functools.cache
def _machine_mb() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)


# ------------------------------------------------------------------ uids
@attrs.define(eq=False)
class Uid:
    """An unprivileged uid held by one bot process (root only); :meth:`release` gives it back."""

    uid: int
    _lock: int | None

    @classmethod
    def take(cls) -> Uid:
        UID_LOCKS.mkdir(mode=0o700, parents=True, exist_ok=True)
        start = random.randrange(UID_POOL)
        for i in range(UID_POOL):
            n = (start + i) % UID_POOL
            fd = os.open(UID_LOCKS / str(n), os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return cls(UID_BASE + n, fd)
        raise JailError(f"all {UID_POOL} bot uids are in use")

    def release(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # closing the only descriptor releases the lock
            self._lock = None


def read_first_process(info: int) -> int | None:
    """The pid of a jail's first process (bwrap's own init), from the referee's end of the pipe given to
    bwrap's --info-fd once bwrap is gone; closes that end.

    bwrap exits as soon as it knows how the bot ended, a moment before that
    process does; the referee, its "child subreaper", then adopts it and
    must wait for it too, or it is left a zombie.
    """
    os.set_blocking(info, False)
    try:
        return first_process_in(os.read(info, 4096))
    except OSError:
        return None
    finally:
        os.close(info)


def first_process_in(info: bytes) -> int | None:
    """The pid in what bwrap wrote to its --info-fd so far (None until it is there). bwrap writes it, then each
    namespace, in separate small writes right after making that process: a bwrap killed in between leaves the
    JSON cut short, and the pid is still read (a small write to a pipe arrives whole, so never half a number)."""
    found = re.search(rb'"child-pid"\s*:\s*(\d+)', info)
    return int(found.group(1)) if found else None
