"""One bot process: spawn it, write lines, read lines against deadlines, kill it.

Knows nothing of the game or the protocol's messages: it moves lines of text
and turns every way a process can misbehave into a :class:`BotError`.

* the bot runs in its own session (so its own process group), and the whole
  group is killed at the end;
* stdout is read only when the referee wants a line (no reader task): lines
  are split, capped in length and stamped with the time their bytes were
  read, so the time a bot is charged runs from the write of a request to the
  arrival of the reply line; a bot writing unasked fills its own pipe;
* the pipe is read before waiting on it (a fast bot's reply is usually there
  already), and a read that did not wait lets the other tasks run only if
  none of this process's reads has for ``YIELD_EVERY``; a read that would
  wait, while no other bot's read waits in this referee process, first waits
  up to ``ALONE_WAIT`` in the kernel (a pass through trio's scheduler costs
  the referee more than the rest of its work for a decision);
* a read's deadline is kept by one clock watcher task per bot process, which
  wakes the reader when it passes (cheaper than a cancel scope per read);
* lines to the bot are queued and written in one piece before it is asked
  anything;
* stderr is drained by another task into a size-capped log file, so a bot
  can never block on a full stderr pipe and look slow;
* what a bot may write to stdout between two requests is capped, so a
  flood costs the referee a bounded amount of memory and work;
* the jail, resource limits and environment come from a
  :class:`~referee.bots.sandbox.Sandbox`; after a kill, anything the bot left
  behind (a grandchild that left its group, what is left in its control
  group, its working folder) is found and removed too.
"""

from __future__ import annotations

import math
import os
import select
import shlex
import shutil
import signal
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, TextIO

import attrs
import trio

from .sandbox import (
    LEADERS,
    Isolation,
    Sandbox,
    SandboxError,
    kill_leftovers,
    launch,
)
from .sandbox import start as start_process
from .spawn import ChildProcess, become_subreaper

MAX_LINE = 65536  # bytes in one line from a bot
STDERR_CAP = 1 << 20  # bytes of stderr kept per bot process
EXIT_LINGER = 0.2  # seconds after a bot's exit before its output is taken to be over
# A read that finds bytes at once lets the other tasks run (a trio checkpoint) only if no read of that bot
# process has for this long (seconds): a pass through trio's scheduler costs more than the rules' work for a
# decision, so not after every reply.
YIELD_EVERY = 0.001
# A read that finds no bytes yet, when no other bot's read waits in this process, first waits this long (seconds)
# in the kernel for them (see BotProcess._wait_alone) before it waits through trio's scheduler.
ALONE_WAIT = 0.001


class BotError(Exception):
    """A bot did something the referee cannot accept; becomes a Termination."""

    termination = "crash"


class BotTimeout(BotError):
    termination = "timeout"


class BotCrashed(BotError):
    termination = "crash"


class BotProtocolError(BotError):
    termination = "protocol-error"


class OptionRefused(BotProtocolError):
    """An option set for the bot that it does not declare, or a value it does not take: the organiser's mistake as
    often as the bot's, said before any game (a check of the bot stops on it rather than judging the bot)."""


class BotStartError(BotError):
    """The bot could not be started at all (bad command, missing program)."""

    termination = "crash"


@attrs.frozen
class BotCommand:
    """How to start a bot: argv, working directory, extra environment."""

    argv: tuple[str, ...]
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    read_only: tuple[str, ...] = ()  # host folders the program needs besides those its command names (a jail shows them)

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
            if path.is_dir():
                raise BotStartError(_folder_given(program, path))
            if not os.access(path, os.X_OK):
                raise BotStartError(f"bot program {program!r} is not executable (chmod +x, or name its interpreter first)")
        elif shutil.which(program) is None:
            raise BotStartError(f"bot program {program!r} not found on PATH")
        script = script_of(self.argv)
        if script is not None and not Path(self.cwd or ".", script).exists():
            raise BotStartError(f"bot file {script!r} not found (given to {program} to run)")


# Interpreters whose first word that is no flag is the program they run: a missing one is said before the start,
# not by the interpreter inside the jail (whose message names the file as the jail shows it, /home/bot/...)
INTERPRETERS = ("python", "python3", "pypy3", "node", "nodejs", "ruby", "perl", "php", "lua", "sh", "bash", "Rscript")
INLINE = ("-c", "-e", "-E", "-m", "-p", "--eval", "--print", "-")  # code or a module follows, not a file (php: -r too)
VALUED = ("-W", "-X", "-r", "--require", "--loader", "--import", "--env-file", "-I", "-M", "-d")  # each takes a value


def script_of(argv: tuple[str, ...]) -> str | None:
    """The file an interpreter is told to run (``python3 -u bot.py`` -> ``bot.py``; ``java -jar bot.jar`` ->
    ``bot.jar``), or None where that is not plain: not an interpreter, code given inline (``-c``, also in a group
    such as ``sh -ec``), or a module. A flag that takes a value (``node -r dotenv/config``, ``python3 -X dev``) is
    skipped with it; a first word that is no file's name (a number after a flag not known to take one) is not
    taken for one. Where unsure, None: the start then says what the interpreter says."""
    name = os.path.basename(argv[0])
    if name == "java":
        return argv[argv.index("-jar") + 1] if "-jar" in argv[1:-1] else None
    if name not in INTERPRETERS and name.rstrip("0123456789.") not in INTERPRETERS:
        return None
    words = iter(argv[1:])
    for word in words:
        if word in INLINE or (name == "php" and word == "-r") or \
                (name in ("sh", "bash") and word[:2] != "--" and word[:1] == "-" and "c" in word):
            return None
        if word in VALUED:
            next(words, None)
        elif not word.startswith("-"):
            return word if _looks_like_a_file(word) else None
    return None


def _looks_like_a_file(word: str) -> bool:
    """A file's name or path (``bot.py``, ``./first/bot.pyy``, ``bots/run``), not a setting or an address."""
    return ("/" in word or "." in word.lstrip(".")) and "=" not in word and "://" not in word


def _folder_given(program: str, path: Path) -> str:
    """What to say of a bot given as its folder: the command that starts it, as its starter kit says."""
    said = f"bot program {program!r} is a folder, not a program: give the command that starts the bot in it"
    try:
        run = tomllib.loads((path / "starter.toml").read_text(encoding="utf-8")).get("run")
    except (OSError, ValueError):
        run = None
    if not isinstance(run, str) or not run.split():
        return f"{said}, e.g. \"{program.rstrip('/')}/bot\""
    base = program.rstrip("/")
    words = [f"{base}/{word}" if (path / word).exists() else word for word in run.split()]
    return f"{said}; as its starter.toml says, \"{' '.join(words)}\""


def _absolute(word: str, base: str, first: bool) -> str:
    if os.path.isabs(word) or word.startswith("-") or (first and os.sep not in word):
        return word  # an option, or a program to look up on PATH
    path = Path(base, word)
    return str(path.resolve()) if path.exists() else word


@attrs.frozen
class Line:
    text: str
    arrived: float  # trio.current_time() when the line's last byte was read


@attrs.define(eq=False)
class BotProcess:
    command: BotCommand
    process: ChildProcess
    stderr_path: Path | None
    transcript: TextIO | None = None
    marker: str = ""
    cleanup: Callable[[], None] | None = None  # undoes the sandbox's set-up (blocking), once the process is gone
    jailed: bool = False  # its process is bwrap, which exits with 128 + N when the bot dies by signal N
    output_cap: int | None = None  # bytes of stdout allowed between two lines from the referee
    address_space_mb: int | None = None  # each of its processes' address space cap (RLIMIT_AS), if any
    out_of_memory: Callable[[], bool] | None = None  # whether its control group's memory limit killed a process
    play: Callable[[], None] | None = None  # (set by start) its first game begins: the full CPU weight (cgroups)
    stderr_drained: trio.Event = attrs.Factory(trio.Event)  # all its stderr is in the log (the pipe ended)
    _failure: BotError | None = None
    _unasked_bytes: int = 0
    _outbox: list[str] = attrs.Factory(list)
    _buffer: bytearray = attrs.Factory(bytearray)
    _arrived: float = 0.0  # when the bytes in the buffer were read
    _yielded: float = -math.inf  # when a read of this process last let the other tasks run
    # trio.current_time, bound to the run's clock once the process starts: the same reading, without the
    # two calls trio.current_time makes to find the clock each time (a reply is stamped twice per request).
    now: Callable[[], float] = attrs.field(default=trio.current_time, init=False)
    _exited: bool = False  # the process has exited (its output may still be held open by a child)
    _stopped: trio.Event = attrs.Factory(trio.Event)  # kill() is done: nothing more is read, so no linger
    # A read's deadline is kept by one watcher task per process (_watch_clock), not by a cancel scope per
    # read: entering and leaving a cancel scope with a deadline cost a fifth of the referee's work per request.
    _reading: bool = False  # a read_line is waiting for the bot
    _deadline: float = 0.0  # of that read (trio time)
    _span: float = 1.0  # seconds the last read had left when its reply came: a lower bound, usually, for the next
    _expired: float = -math.inf  # the latest deadline the watcher saw pass during a read
    _clock: trio.CancelScope | None = None  # the watcher's sleep
    _clock_wake: float = 0.0  # when that sleep ends
    # Asks whether stdout has bytes without reading: an empty pipe answers a read with an exception, which
    # costs more than the system call, and the referee asks before every request (for lines nobody asked for).
    _poll: select.poll = attrs.field(factory=select.poll, init=False)
    # reads of any bot process of this referee that are waiting for their bytes (see _wait_alone)
    reads_waiting: ClassVar[int] = 0

    def __attrs_post_init__(self) -> None:
        self._poll.register(self.process.stdout.fileno(), select.POLLIN)

    @classmethod
    async def start(cls, nursery: trio.Nursery, command: BotCommand, stderr_path: Path | None = None,
                    transcript_path: Path | None = None, sandbox: Sandbox = Sandbox(),
                    workdir: Path | None = None, hidden: tuple[str, ...] = ()) -> BotProcess:
        """Spawn the bot inside ``sandbox``; its stderr and exit watchers run in ``nursery``.

        It runs in ``command.cwd`` if set; else, unjailed, in a fresh folder
        under ``workdir``, and jailed in its private home. ``hidden`` are
        folders a jailed bot must not see. With ``transcript_path``, every
        line is appended there: ``> `` sent to the bot, ``< `` received from it.
        """
        command.check()
        try:
            sandbox = sandbox.with_read_only(command.read_only)
            # In a thread: the first start of a bot with a file system of its own works out its system image
            # (a second or two, reading the runtimes' libraries), which must not hold up the games being played.
            how = await trio.to_thread.run_sync(launch, sandbox, command.argv, command.cwd, dict(command.env),
                                                workdir, hidden)
        except SandboxError as e:
            raise BotStartError(str(e)) from None
        become_subreaper()
        transcript = None
        try:
            if transcript_path is not None:
                transcript = open(transcript_path, "a", encoding="utf-8")
            process = await start_process(how)
        except BaseException as e:  # nothing started: give back what the sandbox set up (its uid, group...)
            if transcript is not None:
                transcript.close()
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(how.cleanup)
            if isinstance(e, OSError):
                raise BotStartError(f"cannot start bot {command.to_text()!r}: {e.strerror or e}") from None
            if isinstance(e, SandboxError):
                raise BotStartError(f"cannot start bot {command.to_text()!r}: {e}") from None
            raise
        LEADERS.add(process.pid)
        bot = cls(command, process, stderr_path, transcript, how.marker, how.cleanup,
                  sandbox.isolation is Isolation.JAIL, sandbox.limits.output_bytes, how.address_space_mb,
                  how.out_of_memory, how.play)
        bot.now = trio.lowlevel.current_clock().current_time
        nursery.start_soon(bot._watch_exit)
        nursery.start_soon(bot._watch_clock)
        nursery.start_soon(bot._drain_stderr)
        return bot

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def program(self) -> None:
        """None: the referee fingerprints a local bot's files itself (see :class:`~.endpoint.LineEndpoint`)."""
        return None

    async def stderr_logged(self) -> None:
        await self.stderr_drained.wait()

    # ------------------------------------------------------------- reading
    # stdout is read only when the referee wants a line: a bot that writes unasked fills its pipe and
    # blocks, costing the referee nothing. Lines are stamped with the time their bytes were read.
    async def _watch_exit(self) -> None:
        """End of output when the bot exits, even if a process it forked still holds its stdout open."""
        await self.process.wait()
        with trio.move_on_after(EXIT_LINGER):  # lines written just before the exit are read first...
            await self._stopped.wait()  # ...unless the bot was stopped, after which nothing more is read
        self._exited = True
        self._wake_reader()
        if self._clock is not None:
            self._clock.cancel()  # the clock watcher's work is over

    async def _watch_clock(self) -> None:
        """End each read at its deadline: wake the reader, which raises BotTimeout.

        Sleeps until the current read's deadline, or, between reads, until
        the next deadline is likely to fall (the last read's span from now);
        a read whose deadline comes sooner than that moves the wake-up
        earlier. So a reply costs no timer work at all; the watcher wakes
        about once per span.
        """
        while not self._exited:
            now = trio.current_time()
            if self._reading and now >= self._deadline:
                self._expired = self._deadline
                self._wake_reader()
            wake = self._deadline if self._reading and self._deadline > now else now + self._span
            self._clock_wake = wake
            with trio.CancelScope(deadline=wake) as self._clock:
                await trio.sleep_forever()
            self._clock = None

    def _wake_reader(self) -> None:
        """Make a waiting read return (as if the output had ended); it then looks at why."""
        if self._reading:
            trio.lowlevel.notify_closing(self.process.stdout.fileno())

    def _fail(self, error: BotError) -> BotError:
        self._failure = error
        return error

    def _buffered_line(self) -> Line | None:
        """The next complete line in the buffer, if any; raises BotProtocolError for a bad one."""
        cut = self._buffer.find(b"\n")
        if cut < 0:
            if len(self._buffer) > MAX_LINE:
                raise self._fail(BotProtocolError(f"line longer than {MAX_LINE} bytes without a newline"))
            return None
        raw = bytes(self._buffer[:cut])
        del self._buffer[: cut + 1]
        if len(raw) > MAX_LINE:
            raise self._fail(BotProtocolError(f"line longer than {MAX_LINE} bytes"))
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self._fail(BotProtocolError(f"line is not valid UTF-8: {raw[:60]!r}")) from None
        if self.transcript is not None:
            self.transcript.write("< " + text + "\n")
        return Line(text, self._arrived)

    def _take(self, chunk: bytes, arrived: float | None = None) -> None:
        self._arrived = self.now() if arrived is None else arrived
        self._unasked_bytes += len(chunk)
        if self.output_cap is not None and self._unasked_bytes > self.output_cap:
            raise self._fail(BotProtocolError(f"wrote more than {self.output_cap // 1024} KiB to stdout "
                                              "since the referee's last line"))
        self._buffer += chunk

    def pending_lines(self) -> list[Line]:
        """Complete lines that arrived unasked (read without waiting); raises if the bot failed."""
        if self._failure is not None:
            raise self._failure
        for _ in range(16):  # at most 1 MiB at a time, even with no output cap: a flood cannot hold the referee
            chunk = self._read_now()
            if not chunk:
                break  # nothing more now, or the end of its output (which the next read_line reports)
            self._take(chunk)
        found = []
        while self._buffer and (line := self._buffered_line()) is not None:
            found.append(line)
        return found

    def leftover_lines(self, count: int) -> list[str]:
        """Up to ``count`` lines the bot wrote and nobody read, without waiting (what a runtime printed before it
        failed to start, say); a last line without its line feed counts too. For messages only: never raises."""
        for _ in range(4):
            chunk = self._read_now()
            if not chunk:
                break
            self._buffer += chunk[: 4 * MAX_LINE]
        text = bytes(self._buffer[: 4 * MAX_LINE]).decode("utf-8", errors="replace")
        return [line.rstrip("\r") for line in text.split("\n") if line.strip()][:count]

    async def read_line(self, deadline: float) -> Line:
        """Next line from the bot; BotTimeout past ``deadline`` (trio time), BotCrashed at its end."""
        if self._failure is not None:
            raise self._failure
        while True:
            line = self._buffered_line() if self._buffer else None
            if line is not None:
                return line
            if deadline <= self._expired and not self._exited:
                raise BotTimeout("no reply in time")  # the watcher saw it pass (a flood of lines never waits)
            chunk = b""
            if not self._exited:
                # woken by the reply, or by the clock watcher (deadline) or the exit watcher (end of output)
                self._reading, self._deadline = True, deadline
                if deadline < self._clock_wake and self._clock is not None:
                    self._clock.deadline = self._clock_wake = deadline
                BotProcess.reads_waiting += 1
                try:
                    chunk, arrived = await self._receive()
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    chunk, arrived = b"", None
                finally:
                    self._reading = False
                    BotProcess.reads_waiting -= 1
                if not chunk and deadline <= self._expired and not self._exited:
                    raise BotTimeout("no reply in time")
            if self._exited and not chunk:
                chunk, arrived = self._read_now() or b"", None  # what it wrote before exiting, if a child holds the pipe
            if not chunk:
                await self._settle()  # a moment to collect the exit status for the message
                raise self._fail(BotCrashed(self._exit_text()))
            self._take(chunk, arrived)
            self._span = max(deadline - self._arrived, 0.01)  # where the watcher looks for the next deadline

    async def _receive(self) -> tuple[bytes, float | None]:
        """The next bytes of stdout, waiting for them, and when they were read; b"" at its end.

        trio's FdStream.receive_some yields to the scheduler before it even
        tries to read. The referee reads just after writing a request, and
        with a fast bot the reply is usually there already: so read, and
        only if that would block, wait. Bytes found at once are followed by a
        yield only if this process's reads have not let the other tasks run
        for YIELD_EVERY: a pass through the scheduler costs more than the
        rules' whole work for a decision, and a bot that floods lines still
        cannot hold up the other games or the clock watcher for longer. Bytes
        not there yet are first waited for in the kernel (:meth:`_wait_alone`).
        """
        fd = self.process.stdout.fileno()
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                if self._wait_alone():
                    continue  # they are there now
                await trio.lowlevel.wait_readable(fd)
                self._yielded = now = self.now()
                try:
                    return os.read(fd, 65536), now
                except BlockingIOError:
                    continue
                except OSError:
                    return b"", None
            except OSError:
                return b"", None
            now = self.now()
            if now - self._yielded >= YIELD_EVERY:
                await trio.lowlevel.checkpoint()
                self._yielded = self.now()
            return data, now

    def _wait_alone(self) -> bool:
        """Wait up to ALONE_WAIT (and never past this read's deadline) for stdout's bytes in the kernel, blocking
        the event loop; whether they came (or the pipe ended). Only when no other bot's read waits in this
        referee process (False at once otherwise).

        A fast bot replies within a fraction of a millisecond, and waiting
        for that through trio (park the task, a pass of the run loop, epoll,
        wake it) costs the referee more than the rules' work for a decision.
        No other bot waits meanwhile, so no other reply is read late and no
        other bot is charged for this wait; this bot's reply is stamped as
        it comes. The other tasks (stderr logs, the clock watchers, the next
        game's start) wait at most ALONE_WAIT, as for a read that does not
        wait (YIELD_EVERY); a bot that takes longer is then waited for
        through trio as before.
        """
        if BotProcess.reads_waiting > 1:
            return False
        wait = self._deadline - self.now()
        if wait <= 0:
            return False
        return bool(self._poll.poll(1000 * (wait if wait < ALONE_WAIT else ALONE_WAIT)))

    def _read_now(self) -> bytes | None:
        """What the pipe holds now, without waiting: None if nothing yet, b"" at its end."""
        if not self._poll.poll(0):  # (at its end, or once closed, poll reports an event too)
            return None
        try:
            return os.read(self.process.stdout.fileno(), 65536)
        except (BlockingIOError, InterruptedError):
            return None
        except (OSError, trio.ClosedResourceError):
            return b""

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
            self.stderr_drained.set()

    def _exit_text(self) -> str:
        code = self.process.poll()
        if code is None:
            return "closed its output"
        if self.jailed and code > 128:
            code = 128 - code  # bwrap's way of saying its bot died by signal code - 128
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            if code == -signal.SIGKILL and self.out_of_memory is not None and self.out_of_memory():
                return f"killed by {name}: out of memory (the memory limit of all its processes, limits.memory)"
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
        """Write every queued line; BotCrashed if the pipe is closed, BotTimeout if the bot stops reading.

        Usually the pipe has room and this is a single write with no waiting.
        """
        if self._failure is not None:
            raise self._failure
        if not self._outbox:
            return
        data = ("\n".join(self._outbox) + "\n").encode("utf-8")
        self._outbox.clear()
        self._unasked_bytes = 0
        try:
            try:
                written = os.write(self.process.stdin.fileno(), data)
            except (BlockingIOError, InterruptedError):
                written = 0
            if written < len(data):
                with trio.move_on_after(timeout):
                    await self.process.stdin.send_all(data[written:])
                    return
                raise self._fail(BotTimeout("does not read its input"))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self._settle()
            raise self._fail(BotCrashed(self._exit_text() + " (its input pipe is closed)")) from None

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
                    self.process.signal_group(sig)
                except (ProcessLookupError, PermissionError):
                    pass
                with trio.move_on_after(patience):
                    await self.process.wait()
                    break
            # The leader is reaped; kill what lingers: members of its group (a forked helper) and
            # descendants that left the group but carry the bot's marker, and reap those we adopted.
            if self.process.returncode is not None:
                LEADERS.discard(self.process.pid)  # reaped by trio
            # First what is left in the bot's control group, its jail and uid: but a leader that even SIGKILL
            # did not end keeps them (a uid never goes to a new bot while an old one may still run under it).
            if self.cleanup is not None and self.process.returncode is not None:
                cleanup, self.cleanup = self.cleanup, None
                await trio.to_thread.run_sync(cleanup)
            # A jailed bot's processes are all in its PID namespace, which the kernel empties when the jail's
            # first process dies (and in its control group, emptied above): nothing of it can be left, so the
            # look through every process of the machine is for unjailed bots only (6% of a tournament's CPU
            # with instant jailed bots, and more on a machine running many processes).
            if not self.jailed:
                await trio.to_thread.run_sync(kill_leftovers, self.marker, self.process.pid)
            if self.transcript is not None:
                self.transcript.close()
                self.transcript = None
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    await stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
            if self.process.returncode is not None:
                self._stopped.set()  # (its watchers end now, not EXIT_LINGER later: a run's nursery waits for them)
        return self.process.returncode
