"""One bot process: spawn it, write lines, read lines against deadlines, kill it.

Knows nothing of the game or the protocol's messages: it moves lines of text
and turns every way a process can misbehave into a :class:`BotError`.

* the bot runs in its own session (so its own process group), and the whole
  group is killed at the end;
* stdout is read by one reader task that splits lines, caps their length and
  stamps each with its arrival time, so the time a bot is charged runs from
  the write of a request to the arrival of the reply line;
* stderr is drained by another task into a size-capped log file, so a bot
  can never block on a full stderr pipe and look slow;
* what a bot may write to stdout between two requests is capped, so a
  flood costs the referee a bounded amount of memory and work;
* resource limits, environment and namespaces come from a
  :class:`~referee.sandbox.Sandbox`; after a kill, anything the bot left
  behind (a grandchild that left its group) is found and killed too.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
from pathlib import Path
from typing import TextIO

import attrs
import trio

from .sandbox import Sandbox, SandboxError, become_subreaper, kill_leftovers, launch

MAX_LINE = 65536  # bytes in one line from a bot
LINE_QUEUE = 64  # lines read ahead of the referee
STDERR_CAP = 1 << 20  # bytes of stderr kept per bot process
EXIT_LINGER = 0.2  # seconds after a bot's exit before its output is taken to be over


class BotError(Exception):
    """A bot did something the referee cannot accept; becomes a Termination."""

    termination = "crash"


class BotTimeout(BotError):
    termination = "timeout"


class BotCrashed(BotError):
    termination = "crash"


class BotProtocolError(BotError):
    termination = "protocol-error"


class BotStartError(BotError):
    """The bot could not be started at all (bad command, missing program)."""

    termination = "crash"


@attrs.frozen
class BotCommand:
    """How to start a bot: argv, working directory, extra environment."""

    argv: tuple[str, ...]
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_text(cls, text: str, cwd: str | None = None, env: dict[str, str] | None = None,
                  base: str | None = None) -> BotCommand:
        """Split a command line as a shell would (quotes respected, no pipes).

        Without ``cwd`` the bot will run in a working directory of its own,
        so words of the command that name existing files or folders relative
        to ``base`` (default: the current directory) are made absolute.
        """
        try:
            argv = tuple(shlex.split(text))
        except ValueError as e:
            raise BotStartError(f"bad bot command {text!r}: {e}") from None
        if not argv:
            raise BotStartError("empty bot command")
        if cwd is None:
            argv = tuple(_absolute(word, base or os.getcwd(), first=(i == 0)) for i, word in enumerate(argv))
        return cls(argv, cwd, tuple(sorted((env or {}).items())))

    def to_text(self) -> str:
        return shlex.join(self.argv)

    def check(self) -> None:
        """Raise BotStartError with a clear message if the program cannot be run."""
        program = self.argv[0]
        if self.cwd is not None and not Path(self.cwd).is_dir():
            raise BotStartError(f"bot working directory {self.cwd!r} does not exist")
        if os.sep in program:
            path = Path(self.cwd or ".", program) if not os.path.isabs(program) else Path(program)
            if not path.exists():
                raise BotStartError(f"bot program {program!r} not found")
            if not os.access(path, os.X_OK):
                raise BotStartError(f"bot program {program!r} is not executable (chmod +x, or name its interpreter first)")
        elif shutil.which(program) is None:
            raise BotStartError(f"bot program {program!r} not found on PATH")


def _absolute(word: str, base: str, first: bool) -> str:
    if os.path.isabs(word) or word.startswith("-") or (first and os.sep not in word):
        return word  # an option, or a program to look up on PATH
    path = Path(base, word)
    return str(path.resolve()) if path.exists() else word


@attrs.frozen
class Line:
    text: str
    arrived: float  # trio.current_time() when the line's last byte was read


_EOF = object()


@attrs.define(eq=False)
class BotProcess:
    command: BotCommand
    process: trio.Process
    lines: trio.MemoryReceiveChannel
    stderr_path: Path | None
    transcript: TextIO | None = None
    marker: str = ""
    output_cap: int | None = None  # bytes of stdout allowed between two requests
    _failure: BotError | None = None
    _unasked_bytes: int = 0
    _outbox: list[str] = attrs.Factory(list)

    @classmethod
    async def start(cls, nursery: trio.Nursery, command: BotCommand, stderr_path: Path | None = None,
                    transcript_path: Path | None = None, sandbox: Sandbox = Sandbox(),
                    workdir: str | None = None) -> BotProcess:
        """Spawn the bot inside ``sandbox``; its reader and stderr tasks run in ``nursery``.

        It runs in ``command.cwd`` if set, else in ``workdir``. With
        ``transcript_path``, every line is appended there: ``> `` sent to the
        bot, ``< `` received from it.
        """
        command.check()
        cwd = command.cwd or workdir
        try:
            how = launch(sandbox, command.argv, cwd, dict(command.env))
        except SandboxError as e:
            raise BotStartError(str(e)) from None
        become_subreaper()
        try:
            process = await trio.lowlevel.open_process(
                how.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=how.env,
                start_new_session=True,
                preexec_fn=how.preexec_fn,
            )
        except OSError as e:
            raise BotStartError(f"cannot start bot {command.to_text()!r}: {e.strerror or e}") from None
        except subprocess.SubprocessError as e:  # the limits could not be set in the child
            raise BotStartError(f"cannot start bot {command.to_text()!r} with its resource limits: {e}") from None
        send, receive = trio.open_memory_channel(LINE_QUEUE)
        transcript = open(transcript_path, "a", encoding="utf-8") if transcript_path else None
        bot = cls(command, process, receive, stderr_path, transcript, how.marker, sandbox.limits.output_bytes)
        nursery.start_soon(bot._watch_exit, send.clone())
        nursery.start_soon(bot._read_stdout, send)
        nursery.start_soon(bot._drain_stderr)
        return bot

    @property
    def pid(self) -> int:
        return self.process.pid

    # ------------------------------------------------------------- reading
    async def _read_stdout(self, send: trio.MemorySendChannel) -> None:
        try:
            async with send:
                await self._split_lines(send)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the referee stopped listening: the bot is being shut down

    async def _watch_exit(self, send: trio.MemorySendChannel) -> None:
        """End of output when the bot exits, even if a process it forked still holds its stdout open."""
        try:
            async with send:
                await self.process.wait()
                await trio.sleep(EXIT_LINGER)  # lines written just before the exit still come first
                await send.send(_EOF)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def _split_lines(self, send: trio.MemorySendChannel) -> None:
        buffer = bytearray()
        while True:
            try:
                chunk = await self.process.stdout.receive_some(65536)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                chunk = b""
            now = trio.current_time()
            if not chunk:
                await send.send(_EOF)
                return
            self._unasked_bytes += len(chunk)
            if self.output_cap is not None and self._unasked_bytes > self.output_cap:
                await send.send(BotProtocolError(f"wrote more than {self.output_cap // 1024} KiB to stdout "
                                                 "since the last request"))
                return
            buffer += chunk
            while True:
                cut = buffer.find(b"\n")
                if cut < 0:
                    break
                raw = bytes(buffer[:cut])
                del buffer[: cut + 1]
                item = self._decode(raw, now)
                if self.transcript is not None and isinstance(item, Line):
                    self.transcript.write("< " + item.text + "\n")
                try:  # every line of one read goes in before the referee runs again: two replies
                    send.send_nowait(item)  # written together are seen together
                except trio.WouldBlock:
                    await send.send(item)
            if len(buffer) > MAX_LINE:
                await send.send(BotProtocolError(f"line longer than {MAX_LINE} bytes without a newline"))
                return

    @staticmethod
    def _decode(raw: bytes, now: float):
        if len(raw) > MAX_LINE:
            return BotProtocolError(f"line longer than {MAX_LINE} bytes")
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            return Line(raw.decode("utf-8"), now)
        except UnicodeDecodeError:
            return BotProtocolError(f"line is not valid UTF-8: {raw[:60]!r}")

    async def _drain_stderr(self) -> None:
        kept = 0
        out = open(self.stderr_path, "ab") if self.stderr_path else None
        try:
            while True:
                try:
                    chunk = await self.process.stderr.receive_some(65536)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    return
                if not chunk:
                    return
                if out is not None and kept < STDERR_CAP:
                    piece = chunk[: STDERR_CAP - kept]
                    out.write(piece)
                    out.flush()
                    kept += len(piece)
                    if kept >= STDERR_CAP:
                        out.write(b"\n[pinochle-arena: stderr capped here]\n")
                        out.flush()
        finally:
            if out is not None:
                out.close()

    def pending_lines(self) -> list[Line]:
        """Lines that arrived unasked and are waiting; raises if the bot failed."""
        found = []
        while True:
            try:
                item = self.lines.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return found
            found.append(self._check(item))

    async def read_line(self, deadline: float) -> Line:
        """Next line from the bot; BotTimeout past ``deadline`` (trio time)."""
        if self._failure is not None:
            raise self._failure
        with trio.move_on_at(deadline):
            try:
                item = await self.lines.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                item = _EOF
            if item is _EOF:
                await self._settle()  # a moment to collect the exit status for the message
            return self._check(item)
        raise BotTimeout("no reply in time")

    def _check(self, item) -> Line:
        if item is _EOF:
            self._failure = BotCrashed(self._exit_text())
            raise self._failure
        if isinstance(item, BotError):
            self._failure = item
            raise item
        return item

    def _exit_text(self) -> str:
        code = self.process.poll()
        if code is None:
            return "closed its output"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"killed by {name}"
        return f"exited with status {code}"

    # ------------------------------------------------------------- writing
    def post(self, text: str) -> None:
        """Queue a line; it goes out with the next :meth:`flush` (before the bot is asked anything).

        Events need no answer, so they are written in one piece with the
        request that follows them: one system call per request instead of
        one per line.
        """
        self._outbox.append(text)
        if self.transcript is not None:
            self.transcript.write("> " + text + "\n")

    async def flush(self, timeout: float = 10.0) -> None:
        """Write every queued line; BotCrashed if the pipe is closed, BotTimeout if the bot stops reading."""
        if self._failure is not None:
            raise self._failure
        if not self._outbox:
            return
        data = ("\n".join(self._outbox) + "\n").encode("utf-8")
        self._outbox.clear()
        self._unasked_bytes = 0
        with trio.move_on_after(timeout):
            try:
                await self.process.stdin.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self._settle()
                self._failure = BotCrashed(self._exit_text() + " (its input pipe is closed)")
                raise self._failure from None
            return
        self._failure = BotTimeout("does not read its input")
        raise self._failure

    async def send_line(self, text: str, timeout: float = 10.0) -> None:
        """Write a line now (with any queued before it)."""
        self.post(text)
        await self.flush(timeout)

    async def _settle(self) -> None:
        with trio.move_on_after(0.5):
            await self.process.wait()

    # ------------------------------------------------------------- stopping
    async def stop(self, grace: float = 1.0) -> int | None:
        """Close stdin, give the bot ``grace`` seconds to exit, then kill its group."""
        try:
            await self.process.stdin.aclose()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        with trio.move_on_after(grace):
            await self.process.wait()
        return await self.kill()

    async def kill(self) -> int | None:
        """SIGTERM then SIGKILL the bot's whole process group; reap the child."""
        with trio.CancelScope(shield=True):
            for sig, patience in ((signal.SIGTERM, 0.2), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(self.process.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
                with trio.move_on_after(patience):
                    await self.process.wait()
                    break
            # The leader is reaped; kill what lingers: members of its group (a forked helper) and
            # descendants that left the group but carry the bot's marker, and reap those we adopted.
            await trio.to_thread.run_sync(kill_leftovers, self.marker, self.process.pid)
            self.lines.close()
            if self.transcript is not None:
                self.transcript.close()
                self.transcript = None
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    await stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
        return self.process.returncode
