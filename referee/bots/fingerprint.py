"""A bot's fingerprint: the SHA-256 of the files that make it the program it is.

Which files: its program (unless that is a runtime of the system, such as
``/usr/bin/python3``, or the interpreter pinochle-arena runs under), every
file its command names, and every file in the folders its jail shows for
them: the folder of each named file, each named folder, its working folder
and its read-only folders. The sample bots are pinochle-arena's own, checked
by its version: of them only the named file counts (a C sample's source, as
its binary is built on each machine), and the library folders they are
shown are not walked.

Paths enter the hash relative to the word of the command that led to them,
so a bot shipped to a cluster worker (unpacked elsewhere) has the same
fingerprint there. Past ``MAX_FILES`` files or ``MAX_BYTES`` bytes only the
names and sizes of the rest count.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from .apart import RESULTS_FILES
from .jail import SYSTEM, JailError, is_under, resolve_program
from .samples import LIBRARY, SAMPLE_DIR, SAMPLES
from .transport import BotCommand

MAX_FILES = 20_000
MAX_BYTES = 1 << 30
CHUNK = 1 << 20
RUNTIMES = tuple(sorted({sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}))
OWN = (str(SAMPLE_DIR), *LIBRARY)  # pinochle-arena's own folders: the version vouches for them
KERNEL = ("/proc", "/sys", "/dev")  # never walked: the kernel's, not files
SKIPPED = {"__pycache__", ".git", "dask-scratch-space", "dask-worker-space"}  # written while bots run


def fingerprint(command: BotCommand) -> str:
    """``sha256:HEX`` of the bot's files, or '' when its program cannot be found (its start says why)."""
    try:
        roots = list(_roots(command))
    except (JailError, OSError):
        return ""
    digest = hashlib.sha256()
    budget = [MAX_FILES, MAX_BYTES]
    for label, root in roots:
        for relative, path in _files(root):
            _add(digest, f"{label}/{relative}", path, budget)
    return f"sha256:{digest.hexdigest()}"


def _roots(command: BotCommand) -> Iterator[tuple[str, Path]]:
    """(label, file or folder) of what the fingerprint covers, in the command's order."""
    program = Path(command.cwd or "", resolve_program(command.argv[0]))
    if not _is_runtime(program):
        yield "program", _built_from(program)
        if not _is_own(program):
            yield "program-folder", Path(os.path.realpath(program)).parent
    for i, word in enumerate(command.argv[1:], 1):
        path = Path(word)
        if not path.is_absolute() or not path.exists() or _is_runtime(path):
            continue
        yield f"arg{i}", _built_from(path)
        folder = path if path.is_dir() else path.parent
        if not _is_own(folder) and folder != path:
            yield f"arg{i}-folder", folder
    if command.cwd and not _is_own(Path(command.cwd)):
        yield "cwd", Path(command.cwd)
    for i, shown in enumerate(command.read_only):
        if not _is_own(Path(shown)):
            yield f"read-only{i}", Path(shown)


def _is_runtime(path: Path) -> bool:
    """A runtime's file: the system's, or the interpreter's environment; never pinochle-arena's own (which, in an
    installed package, lies inside that environment: the sample bots' files would otherwise count for nothing)."""
    real = Path(os.path.realpath(path))
    if _is_own(path):
        return False
    return is_under(real, SYSTEM) or is_under(real, RUNTIMES) or is_under(path, RUNTIMES)


def _is_own(path: Path) -> bool:
    return is_under(Path(os.path.realpath(path)), OWN)


def _built_from(path: Path) -> Path:
    """A compiled sample's source (its binary differs from machine to machine), else ``path``."""
    for sample in SAMPLES.values():
        if sample.source is not None and str(path) == sample.argv[0]:
            return sample.source
    return path


def _files(root: Path) -> Iterator[tuple[str, Path]]:
    """(path relative to ``root``, file) of every regular file of ``root``, in a fixed order; a file: itself."""
    if root.is_file():
        yield root.name, root
        return
    if is_under(Path(os.path.realpath(root)), KERNEL):
        return  # the kernel's files: not a bot's, and some of them (/proc/kmsg) never end a read
    for top, dirs, files in os.walk(root):
        if any(name in files for name in RESULTS_FILES):  # a results folder: the run's, not the bot's
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in sorted(files):
            path = Path(top, name)
            with contextlib.suppress(OSError):  # a file that went, or a folder it may not look into
                if path.is_file():
                    yield str(path.relative_to(root)), path


def _add(digest, name: str, path: Path, budget: list[int]) -> None:
    """Hash one file's name and contents (only its size once the budget is spent); a file gone since it was
    listed counts as gone."""
    try:
        size = path.stat().st_size
    except OSError:
        digest.update(f"{name}\0gone\0".encode("utf-8", "surrogateescape"))
        return
    digest.update(f"{name}\0{size}\0".encode("utf-8", "surrogateescape"))
    budget[0] -= 1
    if budget[0] < 0 or budget[1] < size:
        return
    budget[1] -= size
    try:
        with path.open("rb") as f:
            while chunk := f.read(CHUNK):
                digest.update(chunk)
    except OSError:
        digest.update(b"\0unreadable")
