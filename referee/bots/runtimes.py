"""Which of the host's system files a jailed bot is given: its runtime, and the libraries that runtime needs.

Part of the transport layer, beside :mod:`referee.bots.images` (which turns
a selection into a file system image) and :mod:`referee.bots.jail`. A jail
with a file system of its own does not show the host's ``/usr`` and
``/etc``: it shows an image of the files chosen here, so that what one bot
reads leaves no trace in what the next one can see. The selection is:

* the **base**: ``/etc`` (small, and what the C library reads), the
  program loader, the shells and ``env`` that scripts name on their ``#!``
  line, and ``setpriv``, which drops the bot's privileges inside the jail;
* the **runtimes** (:data:`RUNTIMES`, data rather than code): Python, node, the
  default JVM and mono, the interpreters of every starter kit, where they are
  installed; C, C++, Rust and Go programs need only libraries;
* what the organiser names (``runtimes = ["/opt/ruby"]``), and the system
  programs a bot's command names (``/usr/bin/ruby bot.rb``) with their
  runtime folders when :data:`RUNTIMES` knows them;
* every shared library in the loader's cache (``ldconfig -p``): what a
  runtime opens by name while it runs (``dlopen``), and what a bot's own
  compiled program links to, so that bots of every kind share one image
  instead of one each;
* the libraries all of these need besides, found by reading each ELF file's
  ``DT_NEEDED`` entries (pyelftools) and resolving them as the loader does
  (``ldconfig``'s cache, then the ``RUNPATH``): a library in a runtime's own
  folder. A bot's own compiled program finds its libraries among the
  loader's; one that links to a library the loader's cache does not list
  fails to start with the loader's message, and the organiser adds it with
  ``runtimes``.

Nothing here runs a program that is inspected: ELF files are read, not loaded.
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import attrs

SYSTEM_ROOTS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
BASE = ("/etc", "/usr/bin/env", "/usr/bin/sh", "/bin/sh", "/usr/bin/dash", "/usr/bin/bash", "/bin/bash",
        "/usr/bin/setpriv", "/usr/bin/true", "/usr/bin/cat", "/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8",
        "/usr/share/zoneinfo/UTC", "/usr/share/zoneinfo/Etc/UTC")


@attrs.frozen
class Runtime:
    """An interpreter or virtual machine: the programs that run it, and the folders it reads besides them."""

    name: str
    programs: tuple[str, ...]  # globs of its programs (a bot's command naming one of these gets the folders)
    folders: tuple[str, ...]  # globs of what it reads while it runs (its library, its modules)


RUNTIMES = (
    Runtime("python", ("/usr/bin/python3*", "/usr/local/bin/python3*"),
            ("/usr/lib/python3", "/usr/lib/python3.*", "/usr/local/lib/python3.*")),
    Runtime("node", ("/usr/bin/node", "/usr/bin/nodejs", "/usr/local/bin/node"),
            ("/usr/lib/node_modules", "/usr/share/nodejs", "/usr/lib/nodejs", "/usr/local/lib/node_modules")),
    Runtime("java", ("/usr/bin/java",), ("/usr/lib/jvm/default-java",)),  # and the JVM the program links to
    Runtime("mono", ("/usr/bin/mono", "/usr/bin/mono-sgen", "/usr/bin/cli"),
            ("/usr/lib/mono", "/etc/mono", "/usr/lib/cli", "/usr/share/.mono")),
)
DEFAULT_RUNTIMES = tuple(r.name for r in RUNTIMES)


@attrs.frozen
class Selection:
    """Host paths to put in a bot's system image: files and folders (taken whole), each at its own path."""

    paths: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.paths)


def system_selection(programs: Iterable[str] = (), extra: Iterable[str] = ()) -> Selection:
    """The system files of a jail: the base (every library the loader knows among them), the default runtimes,
    ``extra`` (the organiser's), the system ``programs`` a bot's command names (with their runtimes' folders),
    and every library all of that needs besides."""
    chosen: set[str] = set(_base())
    for name in DEFAULT_RUNTIMES:
        chosen |= _runtime_paths(name)
    for path in extra:
        chosen |= set(_existing(path))
    for program in programs:
        chosen |= _program_paths(program)
    chosen |= needed_libraries(_elf_files(chosen))
    _save_cache()
    return Selection(tuple(sorted(_with_link_targets(chosen))))


@cache
def _base() -> frozenset[str]:
    paths = set()
    for path in BASE:
        paths |= set(_existing(path))
    paths |= set(_library_cache().values())  # every library the loader knows: bots need the same image, not one each
    return frozenset(paths)


@cache
def _runtime_paths(name: str) -> frozenset[str]:
    runtime = next(r for r in RUNTIMES if r.name == name)
    paths = set()
    for pattern in (*runtime.programs, *runtime.folders):
        for path in glob.glob(pattern):
            paths |= set(_existing(path))
    for program in list(paths):
        if _is_program_of(runtime, program):
            paths |= _installation_of(program)
    return frozenset(paths)


def _program_paths(program: str) -> set[str]:
    """A system program a bot's command names, with what its runtime reads, if it is a known runtime's."""
    paths = set(_existing(program))
    for runtime in RUNTIMES:
        if _is_program_of(runtime, program) or _is_program_of(runtime, os.path.realpath(program)):
            paths |= _runtime_paths(runtime.name)
    return paths | _installation_of(program)


def _is_program_of(runtime: Runtime, program: str) -> bool:
    return any(fnmatch.fnmatch(program, pattern) for pattern in runtime.programs)


def _installation_of(program: str) -> set[str]:
    """The installation a program's real file lies in, when that is a folder of its own under the system (a
    JVM's ``/usr/lib/jvm/X`` for ``/usr/bin/java``), not ``/usr`` itself."""
    real = Path(os.path.realpath(program))
    folder = real.parent
    if folder.name in ("bin", "sbin"):
        folder = folder.parent
    if str(folder) in ("/", "/usr", "/usr/local") or len(folder.parts) < 4:
        return set()
    return set(_existing(str(folder)))


def _existing(path: str) -> list[str]:
    return [path] if os.path.lexists(path) else []


def _with_link_targets(paths: set[str]) -> set[str]:
    """``paths``, each spelled through real folders (``/lib/x86_64-linux-gnu/libc.so.6`` is
    ``/usr/lib/x86_64-linux-gnu/libc.so.6`` where ``/lib`` links to ``usr/lib``), and, for each symbolic
    link among them, what it points to, so that a link in the image leads somewhere (``/usr/bin/java`` to
    the JVM's own ``bin/java``)."""
    out: set[str] = set()
    todo = [canonical(p) for p in paths]
    while todo:
        path = todo.pop()
        if path in out:
            continue
        out.add(path)
        if os.path.islink(path):
            target = os.path.join(os.path.dirname(path), os.readlink(path))
            if os.path.lexists(target):
                todo.append(canonical(target))
    return out


def canonical(path: str) -> str:
    """``path`` with its folders resolved (links among them followed), its last part kept as it is."""
    path = os.path.normpath(path)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


# ------------------------------------------------------------------ libraries
ELF_MAGIC = b"\x7fELF"


def _elf_files(paths: Iterable[str]) -> set[str]:
    """The ELF files among ``paths`` and in the folders among them (real paths)."""
    found = set()
    for path in paths:
        if os.path.isdir(path) and not os.path.islink(path):
            for folder, _dirs, files in os.walk(path):
                found |= {p for p in (os.path.join(folder, f) for f in files) if _is_elf(p)}
        elif _is_elf(path):
            found.add(os.path.realpath(path))
    return found


def _is_elf(path: str) -> bool:
    """Whether ``path`` is an ELF file: a program (executable) or a library (``.so`` in its name); other files
    are not opened (a runtime's folders hold thousands of them)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or not (st.st_mode & 0o111 or ".so" in os.path.basename(path)):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False


def needed_libraries(elves: Iterable[str]) -> set[str]:
    """Every shared library (and program loader) the ELF files ``elves`` need, directly or through another
    library: their paths as the loader would find them."""
    found: set[str] = set()
    todo = list(elves)
    seen: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for library in _needs(path):
            if library not in found:
                found.add(library)
                todo.append(os.path.realpath(library))
    return found


NEEDS_CACHE = Path("/run/pinochle-arena/elf-needs.json")  # what _read_needs found, for every referee process
_cache: dict[str, list[str]] | None = None
_cache_grew = False


def _needs(path: str) -> list[str]:
    """The libraries one ELF file needs, from the cache shared by the referee's processes (reading them costs
    some 3 ms a file, and a system image's selection reads hundreds), or read now."""
    global _cache_grew
    cache = _loaded_cache()
    try:
        st = os.stat(path)
    except OSError:
        return []
    key = f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}"
    if key not in cache:
        cache[key] = _read_needs(path)
        _cache_grew = True
    return cache[key]


def _loaded_cache() -> dict[str, list[str]]:
    """The cache of libraries needed, as it was written for this machine's loader cache (empty if that
    changed: a library installed since may now resolve a name another way)."""
    global _cache
    if _cache is None:
        _cache = {}
        try:
            kept = json.loads(NEEDS_CACHE.read_text())
            if kept.get("loader") == _loader_version():
                _cache = kept["needs"]
        except (OSError, ValueError, KeyError, AttributeError):
            pass
    return _cache


def _save_cache() -> None:
    global _cache_grew
    if not _cache_grew or os.geteuid() != 0:
        return
    _cache_grew = False
    try:
        NEEDS_CACHE.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        partial = NEEDS_CACHE.with_name(f"{NEEDS_CACHE.name}.{os.getpid()}")
        partial.write_text(json.dumps({"loader": _loader_version(), "needs": _cache}))
        os.replace(partial, NEEDS_CACHE)
    except OSError:
        pass  # a cache: the next process reads the files again


@cache
def _loader_version() -> str:
    try:
        st = os.stat("/etc/ld.so.cache")
        return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    except OSError:
        return ""


def _read_needs(path: str) -> list[str]:
    """The libraries one ELF file names (DT_NEEDED, resolved) and its program loader (PT_INTERP)."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.dynamic import DynamicSegment
    from elftools.elf.elffile import ELFFile
    from elftools.elf.segments import InterpSegment

    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            names, runpaths, loader = [], [], None
            for segment in elf.iter_segments():
                if isinstance(segment, InterpSegment):  # (what pyelftools makes of PT_INTERP)
                    loader = segment.get_interp_name()
                elif isinstance(segment, DynamicSegment):  # (and of PT_DYNAMIC)
                    # (pyelftools sets a string tag's value as an attribute named after it, which its own
                    # annotations do not declare: the type checker cannot see needed, runpath and rpath)
                    for tag in segment.iter_tags():
                        if tag.entry.d_tag == "DT_NEEDED":
                            names.append(tag.needed)  # type: ignore[attr-defined]
                        elif tag.entry.d_tag in ("DT_RUNPATH", "DT_RPATH"):
                            runpath = tag.runpath if tag.entry.d_tag == "DT_RUNPATH" else tag.rpath  # type: ignore[attr-defined]
                            runpaths += runpath.split(":")
    except (OSError, ELFError, ValueError, KeyError, AttributeError):
        return []  # not an ELF file pyelftools can read: it will fail in the jail as it would anywhere
    origin = os.path.dirname(os.path.realpath(path))
    out = [loader] if loader and os.path.exists(loader) else []
    for name in names:
        found = _resolve(name, [p.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for p in runpaths])
        if found:
            out.append(found)
    return out


def _resolve(name: str, runpaths: list[str]) -> str | None:
    if "/" in name:
        return name if os.path.exists(name) else None
    for folder in runpaths:
        candidate = os.path.join(folder, name)
        if os.path.exists(candidate):
            return None if not _is_system(candidate) else candidate  # a bot's own library is in its own folder
    return _library_cache().get(name)


def _is_system(path: str) -> bool:
    return any(path == root or path.startswith(root + "/") for root in SYSTEM_ROOTS)


@cache
def _library_cache() -> dict[str, str]:
    """The loader's cache (``ldconfig -p``): a library's name to its path, for this machine's own word size."""
    ldconfig = shutil.which("ldconfig") or shutil.which("ldconfig", path="/usr/sbin:/sbin")
    if ldconfig is None:
        return {}
    try:
        listed = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    own = _own_abi(listed)
    out: dict[str, str] = {}
    for match in re.finditer(r"^\s+(\S+) \(([^)]*)\)(?: OS ABI: [^=]*)? => (\S+)$", listed, re.M):
        name, abi, path = match.groups()
        if own is None or abi == own:
            out.setdefault(name, path)
    return out


def _own_abi(listed: str) -> str | None:
    """The cache's word for the referee's own kind of library ("libc6,x86-64"): that of the C library this
    process runs on."""
    try:
        with open("/proc/self/maps") as f:
            mapped = {line.split()[-1] for line in f if len(line.split()) >= 6}
    except OSError:
        return None
    own = {os.path.realpath(path) for path in mapped if re.match(r"libc[.-]", os.path.basename(path))}
    for match in re.finditer(r"^\s+libc\.so\.6 \(([^)]*)\) => (\S+)$", listed, re.M):
        if os.path.realpath(match.group(2)) in own:
            return match.group(1)
    return None
