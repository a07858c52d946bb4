"""The starter kits (``sample_bots/starters/KIT/``) as the league's front page offers them: a ``.tar.gz`` of each
kit's sources, made on the first request and kept, named only from the kits found here (a request's text never
becomes a path).

An archive holds one folder named after the kit, which is also what an upload may be (``league.uploads``: the
manifest, the kit's ``starter.toml``, at the top of the archive or of its one folder). Build outputs and caches a
kit folder may hold after a local build are left out.
"""

from __future__ import annotations

import functools
import gzip
import io
import tarfile
import tomllib
from pathlib import Path

import attrs

STARTERS = Path(__file__).resolve().parent.parent / "sample_bots" / "starters"
BUILT = frozenset({"target", "build", "bin", "obj", "__pycache__", "node_modules"})  # folders a build or a run makes
MTIME = 0  # every member's time: the same kit is the same bytes, whenever it is packed


@attrs.frozen
class Kit:
    name: str  # the folder's name, the address's: /kits/NAME.tar.gz
    language: str
    tools: tuple[str, ...]  # commands it needs on PATH

    @property
    def file(self) -> str:
        return f"{self.name}.tar.gz"


@functools.cache
def kits() -> dict[str, Kit]:
    """Every starter kit by name, in name order: a folder of ``STARTERS`` with a ``starter.toml``."""
    found = {}
    for folder in sorted(STARTERS.iterdir()) if STARTERS.is_dir() else ():
        manifest = folder / "starter.toml"
        if manifest.is_file():
            about = tomllib.loads(manifest.read_text())
            found[folder.name] = Kit(folder.name, str(about.get("language", folder.name)),
                                     tuple(map(str, about.get("tools", ()))))
    return found


def sources(folder: Path) -> list[Path]:
    """The files of a kit's folder, in name order, without what a build or a run made."""
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and not p.is_symlink() and not BUILT & set(p.relative_to(folder).parts[:-1]))


def kit_archive(name: str) -> bytes | None:
    """The kit ``name`` as a gzipped tar of one folder ``name/``; None if there is no such kit."""
    return _packed(name) if name in kits() else None


@functools.cache  # (only known names reach it: a kit each at most)
def _packed(name: str) -> bytes:
    folder = STARTERS / name
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=MTIME) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sources(folder):
            info = tarfile.TarInfo(f"{name}/{path.relative_to(folder).as_posix()}")
            info.size, info.mtime = path.stat().st_size, MTIME
            info.mode = 0o755 if path.stat().st_mode & 0o100 else 0o644
            with open(path, "rb") as f:
                tar.addfile(info, f)
    return out.getvalue()


__all__ = ["Kit", "kit_archive", "kits"]
