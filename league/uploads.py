"""An entrant's upload: an archive of sources (zip, tar, tar.gz) with a manifest, checked before it is unpacked.

Every archive comes from a stranger, and so does what a build writes (it
comes back from the jail as a tar): both are unpacked by :func:`unpack`,
which refuses, before writing anything:

* a member whose path is absolute, holds ``..``, or is not plain text;
* links (symbolic or hard) and device files, fifos and sockets: only
  regular files and folders are unpacked (a build's links may be skipped
  instead, with ``links="skip"``);
* more than ``MAX_FILES`` members, or more than ``max_bytes`` unpacked
  (counted as the bytes are written, not as the archive claims: a zip bomb
  stops at the limit).

Files are written 0644 (0755 if executable in the archive) and folders
0755, so the jailed bot's own uid may read them and nobody may write them.

The manifest, ``bot.toml`` at the top of the archive (a starter kit's
``starter.toml`` is read the same way), names the ``run`` command and
optionally a ``build`` command, both run in the archive's top folder::

    build = "make"
    run = "./build/bot"
"""

from __future__ import annotations

import contextlib
import lzma
import os
import shutil
import stat
import tarfile
import tomllib
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO

import attrs

from referee.bots.jail import SYSTEM, is_under

MANIFESTS = ("bot.toml", "starter.toml")  # the upload's manifest, by the names it may have
MAX_UPLOAD = 16 << 20  # bytes of an archive as sent
MAX_UNPACKED = 128 << 20  # bytes of its files once unpacked
MAX_FILES = 5_000
CHUNK = 1 << 16


class UploadError(Exception):
    """An archive or manifest refused; the message is one line for the entrant."""


@attrs.frozen
class Manifest:
    run: str
    build: str = ""


@attrs.frozen
class _Member:
    name: str
    kind: str  # "file", "folder", "link" or "special"
    executable: bool
    open: Callable[[], IO[bytes] | None]  # its contents (files only: None for others), while the archive is open


# What a damaged or hostile archive raises while it is read: each becomes an UploadError (one line), never a crash.
BROKEN = (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, EOFError, zlib.error, lzma.LZMAError,
          NotImplementedError, RuntimeError, ValueError, RecursionError, UnicodeError)
MAX_DEPTH = 32  # folders deep
MAX_NAME = 1024  # characters of a member's path


def unpack(archive: Path, into: Path, max_bytes: int = MAX_UNPACKED, links: str = "refuse", tar_only: bool = False
           ) -> list[str]:
    """Unpack ``archive`` (zip, tar, tar.gz, tar.bz2, tar.xz; with ``tar_only`` a tar, as a build sends it, whatever
    its last bytes look like) into the new folder ``into``, all checked first; returns notes (the links skipped).
    UploadError, and nothing left in ``into``, if it is refused."""
    try:
        return _unpack(archive, into, max_bytes, links, tar_only)
    except BROKEN as e:
        shutil.rmtree(into, ignore_errors=True)
        raise UploadError(f"a damaged or unreadable archive ({type(e).__name__}: {' '.join(str(e).split())[:200]})"
                          ) from None


def _unpack(archive: Path, into: Path, max_bytes: int, links: str, tar_only: bool) -> list[str]:
    with _opened(archive, tar_only) as members:
        notes = _check(members, links)
        into.mkdir(mode=0o755)
        try:
            written = 0
            for member in members:
                target = into.joinpath(*PurePosixPath(member.name).parts)
                if member.kind == "folder":
                    target.mkdir(parents=True, exist_ok=True)
                elif member.kind == "file":
                    target.parent.mkdir(parents=True, exist_ok=True)
                    written = _write(member, target, written, max_bytes)
            for folder, _, _ in os.walk(into):
                os.chmod(folder, 0o755)  # whatever the umask: the jailed bot's uid reads it, nobody writes it
        except OSError as e:  # a file where the archive puts a folder, and the like
            shutil.rmtree(into, ignore_errors=True)
            raise UploadError(f"cannot unpack the archive: {e.strerror or e}") from None
        except BaseException:
            shutil.rmtree(into, ignore_errors=True)
            raise
    return notes


@contextlib.contextmanager
def _opened(archive: Path, tar_only: bool) -> Iterator[list[_Member]]:
    """The archive's members, each readable while the archive is open; past MAX_FILES members it stops reading
    (a tar of a million empty headers is refused after 5,000, not held in memory)."""
    if not tar_only and zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            infos = z.infolist()
            if len(infos) > MAX_FILES:
                raise UploadError(f"more than {MAX_FILES} files in the archive")
            if any(info.flag_bits & 0x1 for info in infos):
                raise UploadError("an encrypted zip: send the files unencrypted")
            yield [_zip_member(z, info) for info in infos]
        return
    try:
        tar = tarfile.open(archive)  # noqa: SIM115 (closed below, after the members are read)
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError):
        raise UploadError("not a zip or tar archive (.zip, .tar, .tar.gz), or a damaged one") from None
    with tar:
        members: list[_Member] = []
        for info in tar:
            if len(members) == MAX_FILES:
                raise UploadError(f"more than {MAX_FILES} files in the archive")
            members.append(_tar_member(tar, info))
        yield members


def _zip_member(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> _Member:
    mode = info.external_attr >> 16
    if info.is_dir():
        kind = "folder"
    elif stat.S_ISLNK(mode):
        kind = "link"
    elif stat.S_IFMT(mode) and not stat.S_ISREG(mode):
        kind = "special"
    else:
        kind = "file"
    return _Member(info.filename, kind, bool(mode & 0o111), lambda: z.open(info))


def _tar_member(tar: tarfile.TarFile, info: tarfile.TarInfo) -> _Member:
    if info.isdir():
        kind = "folder"
    elif info.isreg():
        kind = "file"
    elif info.issym() or info.islnk():
        kind = "link"
    else:
        kind = "special"
    return _Member(info.name, kind, bool(info.mode & 0o111), lambda: tar.extractfile(info))


def _check(members: list[_Member], links: str) -> list[str]:
    if len(members) > MAX_FILES:
        raise UploadError(f"more than {MAX_FILES} files in the archive")
    notes = []
    for member in members:
        name = member.name
        if not _plain(name):
            raise UploadError(f"{name!r}: a path that leaves the archive's folder (absolute, '..' or not plain "
                              "text); use relative paths inside one folder")
        if member.kind == "link":
            if links != "skip":
                raise UploadError(f"{name!r} is a link: send the files themselves (links are refused)")
            notes.append(f"skipped the link {name}")
        elif member.kind == "special":
            raise UploadError(f"{name!r} is a device file, fifo or socket: only files and folders are accepted")
    members[:] = [m for m in members if m.kind != "link"]
    return notes


def _plain(name: str) -> bool:
    path = PurePosixPath(name)
    return (bool(name) and not path.is_absolute() and ".." not in path.parts and "\\" not in name
            and name.isprintable() and len(name) <= MAX_NAME and len(path.parts) <= MAX_DEPTH)


def _write(member: _Member, target: Path, written: int, max_bytes: int) -> int:
    """Copy one member to ``target`` counting what is really written (not the size the archive claims)."""
    if target.exists() or target.is_symlink():
        raise UploadError(f"{member.name!r} is in the archive twice")
    contents = member.open()
    if contents is None:  # (only a file is copied, and a file has contents)
        raise UploadError(f"{member.name!r} is not a file")
    with contents as source, open(target, "xb") as out:
        while chunk := source.read(CHUNK):
            written += len(chunk)
            if written > max_bytes:
                raise UploadError(f"more than {max_bytes >> 20} MiB once unpacked")
            out.write(chunk)
    os.chmod(target, 0o755 if member.executable else 0o644)
    return written


def read_manifest(folder: Path) -> tuple[Path, Manifest]:
    """The folder the manifest is in (the archive's top, or its one folder) and what it says."""
    top = folder
    entries = [p for p in folder.iterdir()]
    if not any((folder / m).is_file() for m in MANIFESTS) and len(entries) == 1 and entries[0].is_dir():
        top = entries[0]  # an archive of one folder (as `zip -r bot.zip mybot/` makes)
    found = next((top / m for m in MANIFESTS if (top / m).is_file()), None)
    if found is None:
        raise UploadError(f"no {MANIFESTS[0]} at the top of the archive (it names the run command and, if any, "
                          "the build command: see docs/league.md)")
    try:
        data = tomllib.loads(found.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UploadError(f"{found.name}: not valid TOML ({e})") from None
    run, build = data.get("run"), data.get("build", "")
    if not isinstance(run, str) or not run.strip():
        raise UploadError(f"{found.name}: no run command (run = \"./build/bot\", relative to its folder)")
    if not isinstance(build, str):
        raise UploadError(f"{found.name}: build should be a text (a shell command), got {build!r}")
    outside = [word for word in run.split() if _leaves_folder(word)]
    if outside:
        raise UploadError(f"{found.name}: the run command names {outside[0]!r}, outside the bot's folder: name the "
                          "bot's files relative to its folder (./build/bot, bot.py) and its runtime by name (python3)")
    return top, Manifest(run.strip(), build.strip())


def _leaves_folder(word: str) -> bool:
    """Whether a word of the run command names a path outside the bot's folder: the jail shows a bot every folder
    its command names, so an upload may name only its own files and the system's (which every jail shows)."""
    for part in word.replace("=", " ").replace(":", " ").replace(",", " ").split():
        path = PurePosixPath(part.strip("'\""))
        if ".." in path.parts or part.startswith(("~", "$")):
            return True
        if path.is_absolute() and not is_under(Path(os.path.normpath(path)), SYSTEM):
            return True
    return False


__all__ = ["MANIFESTS", "MAX_UPLOAD", "Manifest", "UploadError", "read_manifest", "unpack"]
