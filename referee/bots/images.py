"""Read-only file system images of what a jailed bot may read, kept in memory and cached by content.

Part of the transport layer, beside :mod:`referee.bots.runtimes` (what goes
in the system image) and :mod:`referee.bots.seating_fs` (which mounts images
for one bot process). An image is an erofs file system, made by Debian's
``mkfs.erofs`` (erofs-utils), the format Android and container runtimes use
for read-only system images. Two kinds:

* the **system image**: the files :func:`runtimes.system_selection` chooses,
  each at its own path (``usr/...``, ``etc/...``);
* a **folder image**: one folder a bot is shown (its program's folder, its
  interpreter's installation, its data), less what it must never see.

Images live in the **store**, a tmpfs of their own (``/run/pinochle-arena/images``),
so every page of every image is always in memory: reading one through a
seating's own mount is equally fast whatever another seating read, and the
image file's own pages say nothing. An image is named by a digest of what it
holds: every file's path, type, mode, owner, size, modification time and inode
(or a link's target). It is built once per machine and content, by whichever
referee process needs it first (the others wait on its lock), and built again
when a file in it changes. The store may hold half the machine's memory
(:data:`STORE_SHARE`); an image about to be made that would take it past three
quarters of that first removes the images used longest ago, and those no
start used for a day go then too (a jail using one keeps it: its loop device
holds the file).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import attrs

from . import mounts
from .runtimes import Selection

STORE = Path("/run/pinochle-arena/images")
TMPFS_MAGIC = 0x01021994
STORE_SHARE = 2  # the store may hold up to 1/STORE_SHARE of the machine's memory; the images used longest ago
# go first once an image about to be made would take it past three quarters of that
UNUSED_SECONDS = 24 * 3600  # an image no start used for a day is removed when another is made
RECHECK_SECONDS = 30.0  # an image's files are compared with the host's again after this long
STAMP_DEPTH = 3  # a shared source's stamp: what lies down to this depth below each of its paths (site-packages, ...)
STAMP_ENTRIES = 5000  # and at most this many entries
BUILD_SECONDS = 600


class ImageError(Exception):
    """An image cannot be made here; the message says why."""


def problem() -> str:
    """Why no images can be made here ("" when they can)."""
    found = mounts.problem()
    if found:
        return found
    if shutil.which("mkfs.erofs") is None:
        return "erofs-utils is not installed (Debian/Ubuntu: apt-get install erofs-utils)"
    return ""


# ------------------------------------------------------------------ what an image holds
@attrs.frozen
class Source:
    """What one image holds: host ``paths`` (files or folders, taken whole), each put at its path relative to
    ``root``, less the folders in ``excluded``."""

    root: str
    paths: tuple[str, ...]
    excluded: tuple[str, ...] = ()
    # Compared with the host's files by one referee process for all of them, every RECHECK_SECONDS, and at once
    # when its stamp changes (software installed or removed, a program rebuilt): the system's files and a
    # program's or interpreter's installation (a compiled bot's folder, a venv). A script's folder is compared by
    # each process at its first start. Either way an entrant's fix is played at once.
    shared_check: bool = False

    @classmethod
    def folder(cls, folder: str, excluded: Iterable[str] = (), shared_check: bool = False) -> Source:
        inside = tuple(sorted(e for e in excluded if e != folder and e.startswith(folder.rstrip("/") + "/")))
        return cls(folder, (folder,), inside, shared_check)

    @classmethod
    def system(cls, selection: Selection) -> Source:
        return cls("/", selection.paths, shared_check=True)

    def entries(self) -> Iterable[tuple[str, os.stat_result]]:
        """(host path, its lstat) of everything in the image, folders before what they hold."""
        excluded = set(self.excluded)
        for path in self.paths:
            try:
                yield path, os.lstat(path)
            except FileNotFoundError:
                continue
            if os.path.isdir(path) and not os.path.islink(path):
                yield from _walk(path, excluded)

    def stamp(self) -> str:
        """A cheap sign of a change since the last comparison: the modification time and size of each path and of
        what lies down to :data:`STAMP_DEPTH` below it, the first :data:`STAMP_ENTRIES` of them. A small folder (a
        compiled bot's, rebuilt in place) is so looked at whole; in a large installation, pip, apt and npm add,
        remove and replace files by name, which marks the folder that holds them (a package in a
        ``lib/python3.X/site-packages`` marks that folder). A change deeper in a large one waits for the
        comparison every RECHECK_SECONDS."""
        h = hashlib.sha256()
        count = 0
        for path in self.paths:
            for entry, mtime, size in _entry_times(path, set(self.excluded)):
                h.update(f"{entry}\0{mtime}\0{size}\n".encode())
                count += 1
                if count >= STAMP_ENTRIES:
                    return h.hexdigest()[:32]
        return h.hexdigest()[:32]

    def name(self) -> str:
        """A digest of what the image is asked to hold (not of its files): its earlier versions share it."""
        return hashlib.sha256(repr((self.root, self.paths, self.excluded)).encode()).hexdigest()[:16]

    def digest(self) -> str:
        """A digest of everything the image would hold (each file's path, type, mode, owner, size, modification
        time, inode, and a link's target): what its name is made from. GNU find lists them where it is there
        (a 60,000-file Python installation in 0.2 s of CPU, against 0.56 s walked in Python)."""
        h = hashlib.sha256(f"{self.root}\0{self.excluded}\n".encode())
        listed = _find_listing(self)
        if listed is not None:
            h.update(listed)
            return h.hexdigest()[:32]
        for path, st in self.entries():
            link = os.readlink(path) if os.path.islink(path) else ""
            h.update(f"{path}\0{st.st_mode}\0{st.st_uid}\0{st.st_gid}\0{st.st_size}\0{st.st_mtime_ns}\0"
                     f"{st.st_ino}\0{link}\n".encode())
        return h.hexdigest()[:32]


FIND_FORMAT = "%p\\0%y%m\\0%U:%G\\0%s\\0%T@\\0%i\\0%l\\n"


def _find_listing(source: Source) -> bytes | None:
    """What GNU find prints of every entry of ``source`` (None where there is no GNU find)."""
    find = _gnu_find()
    if find is None:
        return None
    paths = [p for p in source.paths if os.path.lexists(p)]
    if not paths:
        return b""
    prune: list[str] = []
    for path in source.excluded:
        prune += ["-path", path, "-prune", "-o"]
    argv = [find, "-P", *paths, *prune, "-printf", FIND_FORMAT]
    done = subprocess.run(argv, capture_output=True)
    if done.returncode != 0 and not done.stdout:
        return None
    return done.stdout


@functools.cache
def _gnu_find() -> str | None:
    find = shutil.which("find")
    if find is None:
        return None
    try:
        probe = subprocess.run([find, "/", "-maxdepth", "0", "-printf", "%i"], capture_output=True, text=True)
    except OSError:
        return None
    return find if probe.returncode == 0 and probe.stdout.isdigit() else None


def _walk(folder: str, excluded: set[str]) -> Iterable[tuple[str, os.stat_result]]:
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.path in excluded:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield entry.path, st
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)


def _entry_times(path: str, excluded: set[str]) -> Iterable[tuple[str, int, int]]:
    """(path, modification time, size) of ``path`` and of what lies down to STAMP_DEPTH below it, shallowest
    first."""
    try:
        st = os.lstat(path)
    except OSError:
        return
    yield path, st.st_mtime_ns, st.st_size
    level = [path] if os.path.isdir(path) and not os.path.islink(path) else []
    for _ in range(STAMP_DEPTH):
        below = []
        for folder in level:
            try:
                with os.scandir(folder) as found:
                    for entry in found:
                        if entry.path in excluded:
                            continue
                        st = entry.stat(follow_symlinks=False)
                        yield entry.path, st.st_mtime_ns, st.st_size
                        if entry.is_dir(follow_symlinks=False):
                            below.append(entry.path)
            except OSError:
                continue
        level = below


# ------------------------------------------------------------------ the store
_checked: dict[Source, tuple[str, float]] = {}  # source -> (its image's path, when its files were last compared)
_lock = threading.Lock()  # images are made in worker threads (never in the event loop)


def image_for(source: Source) -> str:
    """The path of ``source``'s image in the store, made if it is missing or its files changed. Blocking:
    seconds when an image is made, a walk of its files every :data:`RECHECK_SECONDS` otherwise."""
    with _lock:
        known = _checked.get(source)
        if known is not None and time.monotonic() - known[1] < RECHECK_SECONDS and os.path.exists(known[0]):
            return known[0]
        store = open_store()
        stamp = source.stamp() if source.shared_check else ""  # (before the comparison: a change during it is seen)
        digest = _noted_digest(source, stamp) if source.shared_check else None
        path = str(store / f"{source.name()}-{digest}.erofs")
        if digest is None or not os.path.exists(path):
            digest = source.digest()
            path = str(store / f"{source.name()}-{digest}.erofs")
            if not os.path.exists(path):
                _build(source, path)
                _remove_older(store, source, path)
            if source.shared_check:
                note(f"{source.name()}.checked", [digest, stamp])
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: the last to be removed when the store is full
        _checked[source] = (path, time.monotonic())
        return path


def _noted_digest(source: Source, stamp: str) -> str | None:
    """The digest of a shared source's files that a referee process noted within RECHECK_SECONDS, unless its stamp
    has changed since (then None: compare again)."""
    kept = recent(f"{source.name()}.checked")
    if isinstance(kept, list) and len(kept) == 2 and kept[1] == stamp:
        return kept[0]
    return None


def is_made(source: Source) -> bool:
    """Whether an image of ``source`` is in the store (of its files as they are now, or as they were)."""
    prefix = source.name() + "-"  # (once: a system image's name hashes its thousand paths; the store holds hundreds)
    try:
        return any(entry.name.startswith(prefix) and entry.name.endswith(".erofs")
                   for entry in os.scandir(open_store()))
    except OSError:
        return False


def recent(name: str):
    """What a referee process noted as ``name`` in the store within the last RECHECK_SECONDS, or None."""
    try:
        with open(open_store() / f"{name}.json") as f:
            kept = json.load(f)
        return kept["value"] if 0 <= time.time() - kept["at"] < RECHECK_SECONDS else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def note(name: str, value) -> None:
    """Note ``value`` as ``name`` in the store, for every referee process for RECHECK_SECONDS (:func:`recent`)."""
    path = open_store() / f"{name}.json"
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    with contextlib.suppress(OSError):
        partial.write_text(json.dumps({"at": time.time(), "value": value}))
        os.replace(partial, path)


def _remove_older(store: Path, source: Source, kept: str) -> None:
    """Remove the images of ``source`` made before its files changed (a jail still using one keeps it: its
    loop device holds the file)."""
    prefix = source.name() + "-"
    for entry in os.scandir(store):
        if entry.name.startswith(prefix) and entry.name.endswith(".erofs") and entry.path != kept:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def forget(path: str) -> None:
    """An image found missing (removed to make room): made again at its next use."""
    with _lock:
        for source, (known, _) in list(_checked.items()):
            if known == path:
                del _checked[source]


def open_store() -> Path:
    """The store, a tmpfs of its own, mounted if it is not there yet (by one process at a time)."""
    global _store_open
    if not _store_open:
        mounts.ensure_tmpfs(STORE, store_bytes(), "pinochle-arena-images")
        _store_open = True
    return STORE


_store_open = False


def store_bytes() -> int:
    """The store's size: a share of the machine's memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // STORE_SHARE


def _build(source: Source, path: str) -> None:
    """Make ``source``'s image at ``path`` (under a lock: another process may be making the same one)."""
    try:
        with mounts.locked(Path(path + ".lock")):
            if not os.path.exists(path):
                _make_room(_size_of(source))
                _build_locked(source, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path + ".lock")


def _build_locked(source: Source, path: str) -> None:
    partial = path + f".{os.getpid()}.partial"
    try:
        try:
            _make(source, partial)
        except ImageError as e:
            if "[Error 28]" not in str(e) and "No space" not in str(e):
                raise
            _make_room(_size_of(source), everything=True)  # images made at once by other processes
            _make(source, partial)
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)


def _make(source: Source, image: str) -> None:
    if source.paths != (source.root,):  # a selection of files: staged first
        with _staged(source) as tree:
            _mkfs(image, tree, ())
    else:
        _mkfs(image, source.root, [os.path.relpath(e, source.root) for e in source.excluded])


def _size_of(source: Source) -> int:
    """About what ``source``'s image will take: the sizes of its files."""
    import stat as kinds
    return sum(st.st_size for _, st in source.entries() if kinds.S_ISREG(st.st_mode))


def _mkfs(image: str, tree: str, excluded: Iterable[str]) -> None:
    mkfs = shutil.which("mkfs.erofs")
    if mkfs is None:
        raise ImageError(problem())
    argv = [mkfs, "--quiet", "--preserve-mtime", *(f"--exclude-path={e}" for e in excluded), image, tree]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ImageError(f"mkfs.erofs failed for {tree}: {e}") from None
    if done.returncode != 0:
        said = (done.stderr.strip() or f"exit status {done.returncode}").splitlines()[-1]
        raise ImageError(f"mkfs.erofs failed for {tree}: {said}")


@contextlib.contextmanager
def _staged(source: Source):
    """A folder holding ``source``'s files at their paths: hard links where it lies on the same file system
    as a file (no copying), copies elsewhere. Removed afterwards."""
    base = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else Path(tempfile.gettempdir())
    tree = tempfile.mkdtemp(prefix="pinochle-arena-image-", dir=base)
    try:
        for path, st in source.entries():
            _stage(tree, source.root, path, st)
        yield tree
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def _stage(tree: str, root: str, path: str, st: os.stat_result) -> None:
    import stat as kinds

    where = os.path.join(tree, os.path.relpath(path, root))
    _stage_parents(tree, root, os.path.dirname(path))
    if kinds.S_ISDIR(st.st_mode):
        if not os.path.isdir(where):
            os.mkdir(where)
        _copy_owner_and_mode(where, st)
    elif kinds.S_ISLNK(st.st_mode):
        if not os.path.lexists(where):
            os.symlink(os.readlink(path), where)
    elif kinds.S_ISREG(st.st_mode):
        if os.path.lexists(where):
            return
        try:
            os.link(path, where)
        except OSError:
            shutil.copy2(path, where)
            _copy_owner_and_mode(where, st)
    # (sockets, pipes and device files are left out: a bot has its own /dev)


def _stage_parents(tree: str, root: str, folder: str) -> None:
    """Make the folders between ``root`` and ``folder`` in ``tree``, with their owners and modes."""
    missing = []
    current = folder
    while current != root and current not in ("/", "") and not os.path.isdir(_inside(tree, root, current)):
        missing.append(current)
        current = os.path.dirname(current)
    for each in reversed(missing):
        os.mkdir(_inside(tree, root, each))
        _copy_owner_and_mode(_inside(tree, root, each), os.stat(each))


def _inside(tree: str, root: str, path: str) -> str:
    return os.path.join(tree, os.path.relpath(path, root))


def _copy_owner_and_mode(where: str, st: os.stat_result) -> None:
    os.chown(where, st.st_uid, st.st_gid, follow_symlinks=False)
    os.chmod(where, st.st_mode & 0o7777)
    os.utime(where, ns=(st.st_atime_ns, st.st_mtime_ns))


def _make_room(needed: int, everything: bool = False) -> None:
    """Remove the images used longest ago until ``needed`` more bytes leave the store at most three quarters full
    (``everything``: until they fit at all, the store's free space counted, not its files). An image a jail still
    uses keeps its memory until that jail ends (its loop device holds the file)."""
    images = []
    for entry in os.scandir(STORE):
        if entry.name.endswith(".erofs"):
            with contextlib.suppress(OSError):
                st = entry.stat()
                images.append((st.st_mtime, st.st_blocks * 512, entry.path))
    limit = mounts.size_of(STORE) * 3 // 4
    total = sum(size for _, size, _ in images)
    for used, size, path in sorted(images):
        unused_long = time.time() - used > UNUSED_SECONDS
        if (_store_used() if everything else total) + needed <= limit and not unused_long:
            return
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size


def _store_used() -> int:
    st = os.statvfs(STORE)
    return (st.f_blocks - st.f_bfree) * st.f_frsize
