"""A file system of its own for every jailed bot process: its images, mounted for it alone.

Part of the transport layer: :mod:`referee.bots.jail` says which images a
jail shows and where; this module mounts them, each through a fresh loop
device (:mod:`referee.bots.mounts`), under a folder of the process's own
(``/run/pinochle-arena/seatings/ID/N``), from which bwrap binds them into the
jail; :meth:`SeatingFs.close` unmounts them once the process is gone, and the
kernel then clears their loop devices.

Why: a page cache belongs to a file system instance. Two jails that read the
host's ``/usr`` share its page cache, and a bot can tell which pages another
read (a duplicate deal's earlier seating, or its partner): by timing a read,
or by mapping a file and asking which pages the kernel mapped around the one
it touched. Through mounts of its own a bot reads pages nobody else has read,
and what it leaves in them goes when its mounts go.

Mounts outlive a referee killed with SIGKILL; :func:`remove_stale` unmounts
what a dead referee process left, at the next start.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import attrs

from . import images, mounts, spawn

SEATINGS = Path("/run/pinochle-arena/seatings")


@attrs.frozen
class Layout:
    """The images one jail mounts: (name of its mount under the seating's folder, what the image holds)."""

    images: tuple[tuple[str, images.Source], ...]

    def prepare(self) -> dict[str, str]:
        """Each mount's image file, made where missing (blocking: run it in a thread)."""
        return {name: images.image_for(source) for name, source in self.images}


@attrs.define(eq=False)
class SeatingFs:
    """The mounts of one bot process; ``root`` is what bwrap's arguments name."""

    root: Path
    mounted: list[str] = attrs.Factory(list)

    @classmethod
    def at(cls, marker: str) -> SeatingFs:
        """The (not yet mounted) file system of the bot process with this ``marker``; the folder is named after
        the referee's pid too, so that a later start can tell a dead referee's leftovers."""
        return cls(SEATINGS / f"{os.getpid()}-{marker}")

    def mount(self, layout: Layout) -> None:
        """Mount every image of ``layout`` (made first where missing). Blocking: run it in a thread. Raises
        images.ImageError or mounts.MountError; what was mounted is unmounted by :meth:`close`."""
        files = layout.prepare()
        if self.root.parent == SEATINGS:
            open_seatings()
        self.root.mkdir(mode=0o700, parents=True)
        for name, image in files.items():
            target = self.root / name
            target.mkdir()
            try:
                mounts.mount_image(image, str(target))
            except FileNotFoundError:  # removed from the store to make room since it was checked: made again
                images.forget(image)
                mounts.mount_image(layout.prepare()[name], str(target))
            self.mounted.append(str(target))

    def close(self) -> None:
        """Unmount what this process mounted (the jail is gone by now) and remove its folder."""
        for target in reversed(self.mounted):
            mounts.unmount(target)
        self.mounted.clear()
        shutil.rmtree(self.root, ignore_errors=True)


def open_seatings() -> None:
    """The seatings' folder: a small tmpfs of its own, mounted if it is not there yet. (Removing a folder of the
    disk's file system cost 3.5 ms on the test machine: three of them a bot process, on the path of every game.)"""
    global _seatings_open
    if not _seatings_open:
        mounts.ensure_tmpfs(SEATINGS, 1 << 20, "pinochle-arena-seatings")
        _seatings_open = True


_seatings_open = False


def remove_stale() -> int:
    """Unmount and remove the seatings' folders of referee processes that no longer run (killed with SIGKILL);
    returns how many were removed."""
    if not SEATINGS.is_dir():
        return 0
    removed = 0
    for folder in SEATINGS.iterdir():
        pid = folder.name.split("-", 1)[0]
        if pid.isdigit() and spawn.is_running(int(pid)):
            continue
        for target in sorted(_mount_points_under(folder), reverse=True):
            with contextlib.suppress(OSError):
                mounts.unmount(target)
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    return removed


def _mount_points_under(folder: Path) -> list[str]:
    prefix = str(folder) + "/"
    return [point for point, _ in mounts.mount_table() if point.startswith(prefix)]
