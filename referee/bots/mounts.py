"""Mounting a read-only file system image for one jail: a loop device of its own, and mount(2).

Part of the transport layer, below :mod:`referee.bots.seating_fs`. Why a
loop device for every mount: a file system mounted from a block device has
one page cache for that device, so the same image mounted twice from the same
device would share what either jail read. A fresh loop device gives each
mount a superblock, and so a page cache, of its own. The device is attached
read-only and set to clear itself (``LO_FLAGS_AUTOCLEAR``) once its file
system is unmounted everywhere, so nothing is left to detach by hand.

The kernel's interfaces are used directly (``ioctl`` on ``/dev/loop-control``
and the device, ``mount``/``umount2`` through the C library): an attach and
mount cost about half a millisecond, where running ``losetup`` and ``mount``
cost several.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import struct
from functools import cache
from pathlib import Path

LOOP_CONTROL = "/dev/loop-control"
LOOP_CTL_GET_FREE = 0x4C82
LOOP_CONFIGURE = 0x4C0A  # attach a file and set its flags in one call (Linux 5.8)
LO_FLAGS_READ_ONLY, LO_FLAGS_AUTOCLEAR = 1, 4
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MNT_DETACH = 2
# struct loop_config: __u32 fd, __u32 block_size, struct loop_info64 info, __u64 __reserved[8]; loop_info64 is
# five __u64 (device, inode, rdevice, offset, size limit), four __u32 (number, encryption type and key size,
# flags), two 64-byte names, a 32-byte key and two __u64.
LOOP_INFO64 = struct.Struct("=5Q4I64s64s32s2Q")
ATTACH_TRIES = 32  # another process may take the free device first
BLKRASET = 0x1262  # a block device's read-ahead, in 512-byte sectors
READ_AHEAD = 2048  # 1 MiB: a fresh mount reads a runtime in few, large reads


class MountError(OSError):
    """An image cannot be attached or mounted; the message says why."""


@cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    return libc


def mount(source: str, target: str, fstype: str, flags: int, data: str | None = None) -> None:
    """mount(2); raises MountError."""
    if _libc().mount(source.encode(), target.encode(), fstype.encode(), flags,
                     data.encode() if data is not None else None) != 0:
        code = ctypes.get_errno()
        raise MountError(code, f"cannot mount {source} ({fstype}) on {target}: {os.strerror(code)}")


def unmount(target: str) -> None:
    """Detach the mount at ``target`` (lazily: jails that still use it keep it until they end)."""
    if _libc().umount2(target.encode(), MNT_DETACH) != 0:
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOENT):  # not mounted (any more)
            raise MountError(code, f"cannot unmount {target}: {os.strerror(code)}")


def attach(image: str) -> tuple[str, int]:
    """A fresh loop device reading ``image`` read-only, cleared by the kernel once unmounted: (its path, an
    open descriptor the caller closes once the device is mounted)."""
    backing = os.open(image, os.O_RDONLY | os.O_CLOEXEC)
    try:
        control = os.open(LOOP_CONTROL, os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        os.close(backing)
        raise MountError(e.errno, f"no loop devices here ({LOOP_CONTROL}: {e.strerror})") from None
    try:
        for _ in range(ATTACH_TRIES):
            number = fcntl.ioctl(control, LOOP_CTL_GET_FREE)
            device = f"/dev/loop{number}"
            fd = os.open(device, os.O_RDONLY | os.O_CLOEXEC)
            info = LOOP_INFO64.pack(0, 0, 0, 0, 0, 0, 0, 0, LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR, b"", b"", b"",
                                    0, 0)
            try:
                fcntl.ioctl(fd, LOOP_CONFIGURE, struct.pack("=II", backing, 0) + info + bytes(64))
                if READ_AHEAD:
                    fcntl.ioctl(fd, BLKRASET, READ_AHEAD)
            except OSError as e:
                os.close(fd)
                if e.errno == errno.EBUSY:  # taken by another process between the two calls
                    continue
                raise MountError(e.errno, f"cannot attach {image} to {device}: {e.strerror}") from None
            return device, fd
        raise MountError(errno.EBUSY, f"no free loop device for {image} after {ATTACH_TRIES} tries")
    finally:
        os.close(control)
        os.close(backing)


def mount_image(image: str, target: str) -> None:
    """Mount the erofs image ``image`` at ``target`` through a loop device of its own: read-only, no
    set-uid programs, no device files."""
    device, fd = attach(image)
    try:
        mount(device, target, "erofs", MS_RDONLY | MS_NOSUID | MS_NODEV)
    finally:
        os.close(fd)  # the mount holds the device now; once it is unmounted the device clears itself


def problem() -> str:
    """Why images cannot be mounted here ("" when they can): loop devices and mounts need root."""
    if os.geteuid() != 0:
        return "the referee is not root, so it cannot mount a file system for each bot"
    if not os.path.exists(LOOP_CONTROL):
        return f"this machine has no loop devices ({LOOP_CONTROL} is missing: modprobe loop)"
    if not _has_erofs():
        return "this kernel has no erofs (modprobe erofs, or a kernel with CONFIG_EROFS_FS)"
    return ""


def _has_erofs() -> bool:
    try:
        with open("/proc/filesystems") as f:
            return any(line.split()[-1:] == ["erofs"] for line in f)
    except OSError:
        return False


def mount_table() -> list[tuple[str, str]]:
    """(mount point, file system type) of every mount this process sees, in mount order."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            with contextlib.suppress(ValueError, IndexError):
                found.append((fields[4], fields[fields.index("-") + 1]))
    return found


def is_tmpfs(path: Path) -> bool:
    """Whether the last file system mounted at ``path`` is a tmpfs (os.statvfs does not tell the kind)."""
    try:
        kinds = [kind for point, kind in mount_table() if point == str(path)]
    except OSError:
        return False
    return bool(kinds) and kinds[-1] == "tmpfs"


def size_of(path: Path) -> int:
    """The size of the file system at ``path``, in bytes."""
    st = os.statvfs(path)
    return st.f_blocks * st.f_frsize


@contextlib.contextmanager
def locked(path: Path):
    """An exclusive lock on the file ``path`` (made if missing) for the block: one process at a time."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def ensure_tmpfs(path: Path, size: int, name: str) -> None:
    """A tmpfs of at least ``size`` bytes at ``path`` (a folder made if missing, mode 0711), mounted by whichever
    process gets there first, or made larger where an earlier one mounted it smaller."""
    path.mkdir(mode=0o711, parents=True, exist_ok=True)
    if is_tmpfs(path) and size_of(path) >= size:
        return
    with locked(path.parent / f"{path.name}.lock"):
        options = f"mode=0711,size={size}"
        if not is_tmpfs(path):
            mount(name, str(path), "tmpfs", MS_NOSUID | MS_NODEV, options)
        elif size_of(path) < size:
            mount(name, str(path), "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, options)
