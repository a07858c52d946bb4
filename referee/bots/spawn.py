"""Starting a bot's process: from one thread that lives as long as the referee.

Part of the transport layer. A jailed bot dies with the referee through
bubblewrap's ``--die-with-parent`` (the kernel's parent-death signal), and
the kernel sends that signal when the *thread* that forked the process
ends, not the whole referee. trio's ``open_process`` forks in a worker
thread of its cache, and those end after 10 s idle, which would kill every
jailed bot still running then. So every bot is forked by one spawner
thread that never ends, and :class:`ChildProcess` gives the referee the
little of ``trio.Process`` it uses: the three pipes as trio streams, the
pid, and waiting for the exit.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import os
import signal
import subprocess
from collections.abc import Callable
from functools import cache

import attrs
import trio

_SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="pinochle-arena-spawner")


@attrs.define(eq=False)
class ChildProcess:
    """A started process: its pipes (trio streams), pid and exit status."""

    popen: subprocess.Popen
    stdin: trio.lowlevel.FdStream
    stdout: trio.lowlevel.FdStream
    stderr: trio.lowlevel.FdStream
    _pidfd: int | None = None  # readable once the process has exited (Linux 5.3 and later)
    _wait_lock: trio.Lock = attrs.Factory(trio.Lock)
    # How to signal the process and its group, where that is not killpg(pid): a game in a kept jail, which is
    # not this process's child (another process reaps it, so its pid may be another process's by then)
    _signal_group: Callable[[int], None] | None = attrs.field(default=None, alias="signal_group")

    @property
    def pid(self) -> int:
        return self.popen.pid

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the process's group (ProcessLookupError if there is none)."""
        if self._signal_group is not None:
            self._signal_group(sig)
        else:
            os.killpg(self.pid, sig)

    @property
    def returncode(self) -> int | None:
        return self.popen.returncode

    def poll(self) -> int | None:
        """The exit status (negative: killed by that signal), reaping the process; None while it runs."""
        code = self.popen.poll()
        if code is not None:
            self._close_pidfd()
        return code

    async def wait(self) -> int:
        """Wait for the process to exit; several tasks may wait at once."""
        async with self._wait_lock:
            if self.poll() is None:
                if self._pidfd is not None:
                    with contextlib.suppress(trio.ClosedResourceError):
                        await trio.lowlevel.wait_readable(self._pidfd)
                else:
                    await trio.to_thread.run_sync(self.popen.wait, abandon_on_cancel=True)
            code = self.popen.wait()
            self._close_pidfd()
            return code

    def close_pidfd(self) -> None:
        """Stop watching for the exit through a pidfd (the exit is then waited for by popen); in trio's thread."""
        self._close_pidfd()

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            fd, self._pidfd = self._pidfd, None
            trio.lowlevel.notify_closing(fd)
            os.close(fd)


async def spawn(argv: list[str], *, cwd: str | None, env: dict[str, str],
                pass_fds: tuple[int, ...] = ()) -> ChildProcess:
    """Start ``argv`` in a session of its own with three pipes, forked by the spawner thread.

    ``pass_fds`` are more descriptors the child gets; the referee's copies are closed once it started.

    Raises OSError if it cannot be started. (No code runs between fork and exec, so subprocess starts it with
    vfork: a fork of the whole referee costs 10-25 ms.)
    """
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    ours = (stdin_write, stdout_read, stderr_read)
    try:
        future = _SPAWNER.submit(subprocess.Popen, argv, stdin=stdin_read, stdout=stdout_write, stderr=stderr_write,
                                 cwd=cwd, env=env, start_new_session=True, pass_fds=pass_fds)
        popen = await trio.to_thread.run_sync(future.result)
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in (stdin_read, stdout_write, stderr_write, *pass_fds):  # the child has its copies
            os.close(fd)
    try:
        pidfd = os.pidfd_open(popen.pid)
    except (AttributeError, OSError):
        pidfd = None
    return ChildProcess(popen, trio.lowlevel.FdStream(stdin_write), trio.lowlevel.FdStream(stdout_read),
                        trio.lowlevel.FdStream(stderr_read), pidfd)


# ------------------------------------------------------------------ adopting orphans
PR_SET_CHILD_SUBREAPER = 36


@cache
def _libc():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl  # noqa: B018 - Linux only
        return libc
    except (OSError, AttributeError):
        return None


PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this process when ``parent`` (its parent) dies, and exit at once if it is gone
    already. For helper processes that could otherwise outlive a killed run: one that gets little CPU (the
    idle class, on a busy machine) may take long to notice its input end."""
    libc = _libc()
    if libc is not None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


@cache
def become_subreaper() -> bool:
    """Make the referee adopt orphaned descendants (so it can reap them); Linux only."""
    libc = _libc()
    return libc is not None and libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def is_running(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (another user's too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
