"""A bot as the referee sees it: a process that speaks the protocol.

Handshake (with version 3's choice of version, options and wants), events,
requests with timing, ping, quit. Every failure is a
:class:`~referee.bots.transport.BotError`; nothing here knows the rules.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import trio

from protocol import ProtocolError, parse_bot_line
from protocol import messages as m

from ..bots.endpoint import LineEndpoint
from ..bots.start_clock import StartClock
from ..bots.sandbox import Sandbox
from ..bots.transport import (
    BotCommand,
    BotCrashed,
    BotError,
    BotProcess,
    BotProtocolError,
    BotTimeout,
    Line,
    OptionRefused,
)

MAX_INFO_KEPT = 50
# 'info' lines a bot may send for one request (from the request before it), and their bytes: each is read and
# parsed by the referee on its own time, so a flood would steal CPU from every game the referee plays
MAX_INFO_LINES = 100
MAX_INFO_BYTES = 64 * 1024
STARTUP_LINES = 4  # lines quoted of what a bot printed instead of its handshake
STARTUP_LINGER = 3.0  # seconds to collect more of them once the first is there (a runtime that fails exits sooner)
# What runtimes print when they cannot reserve the memory they start with (the JVM, Go, .NET, C and C++
# allocators, Python): the start error then says which limit to raise.
RESERVE_FAILURES = re.compile(
    r"(could not|cannot|unable to|failed to) (reserve|allocate)|reserve enough space|out of memory|"
    r"gc heap initialization failed|bad_alloc|memoryerror|insufficient memory", re.IGNORECASE)
MAX_IDS_KEPT = 20  # id lines kept per bot (the first of each key), each value cut to MAX_ID_TEXT characters
MAX_ID_TEXT = 100
HANDSHAKE_WORDS = ("id", "protocol", "option", "want", "info", "ready")
MAX_OPTIONS = 50  # options one bot may declare
# A bot's start allowance (--startup-timeout): seconds of its own time until 'ready' (the wall's, less its processes'
# waits for a CPU: referee.bots.start_clock), within a wall-clock ceiling of WALL_FACTOR times as many. The sample
# bots start in 0.03 (C) to 0.4 s (montecarlo), jailed, on a quiet machine; beside 40 busy processes they were
# charged at most 0.7 s, where the wall showed up to 42 s (bench/start_under_load.py).
STARTUP_ALLOWANCE = 10.0


@attrs.frozen
class TimedReply:
    """A bot's reply to a request: its action token and the milliseconds it took (from the request written to the
    reply line read)."""

    action: str
    used_ms: float


@attrs.define(eq=False)
class BotClient:
    process: LineEndpoint  # a bot's process here, a bot on another machine, a person's page
    name: str
    author: str = ""
    ids: dict[str, str] = attrs.Factory(dict)  # every 'id KEY TEXT' line, recorded with its games
    info: list[str] = attrs.Factory(list)
    version: int = m.FALLBACK_VERSION  # 3 once the bot said 'protocol 3'
    declared: dict[str, m.OptionDeclared] = attrs.Factory(dict)  # version 3: the options it offers
    wants: set[str] = attrs.Factory(set)  # version 3: 'want state'...
    options: dict[str, str] = attrs.Factory(dict)  # the value each declared option was set to
    notes: list[str] = attrs.Factory(list)  # what of the bot's handshake was cut or left out of the records
    _info_lines: int = 0  # info lines since the last request (or ping, or the greeting), and their bytes
    _info_bytes: int = 0

    @classmethod
    async def start(cls, nursery: trio.Nursery, command: BotCommand, stderr_path: Path | None = None,
                    startup_timeout: float = STARTUP_ALLOWANCE, transcript_path: Path | None = None,
                    sandbox: Sandbox = Sandbox(), workdir: Path | None = None,
                    hidden: tuple[str, ...] = ()) -> BotClient:
        """Start the process (inside ``sandbox``) and complete the handshake (greeting, id lines, ready).

        A bot that dies or prints something else before it is ready fails with
        the first lines it printed and the last line of its stderr in the message
        (a jailed bot that cannot reach a file says so there), and with advice
        when that reads as a runtime that could not reserve its memory.
        """
        process = await BotProcess.start(nursery, command, stderr_path, transcript_path, sandbox, workdir, hidden)
        try:
            return await cls.attach(process, Path(command.argv[-1]).name, startup_timeout, stderr_path)
        except BotError as e:
            advice = memory_advice(str(e), process.address_space_mb)
            if advice:
                raise type(e)(f"{e}; {advice}") from None
            raise

    @classmethod
    async def attach(cls, process: LineEndpoint, name: str, startup_timeout: float = STARTUP_ALLOWANCE,
                     stderr_path: Path | None = None) -> BotClient:
        """Complete the handshake with a player already on the line: a bot's process, a bot on another machine or
        a person's seat in a browser (each a :class:`~referee.bots.endpoint.LineEndpoint`)."""
        client = cls(process, name=name)
        try:
            await client._handshake(startup_timeout)
        except _NotHandshake as e:
            after = await client._more_lines()
            await process.kill()
            said = await _stderr_end(process, stderr_path)
            raise BotProtocolError(
                f"printed {_quoted([e.line])} where the handshake ('id', 'protocol', 'option', 'want', 'info' "
                "lines, then 'ready') was expected" + (f" (the lines after it: {_quoted(after)})" if after else "")
                + (f"; its stderr says: {said}" if said else "")
            ) from None
        except BotError as e:
            printed = process.leftover_lines(STARTUP_LINES) if isinstance(e, BotCrashed) else []
            await process.kill()
            said = await _stderr_end(process, stderr_path)
            if isinstance(e, BotCrashed) and (printed or said):
                raise BotCrashed(f"{e}" + (f"; it printed {_quoted(printed)}" if printed else "")
                                 + (f"; its stderr says: {said}" if said else "")) from None
            raise
        except BaseException:
            await process.kill()
            raise
        return client

    async def _handshake(self, allowance: float) -> None:
        """Greet the bot and read its handshake, within its start allowance: ``allowance`` seconds of its own time
        (the wall's less its processes' waits for a CPU), within a wall-clock ceiling
        (:class:`~referee.bots.start_clock.StartClock`), so that a start slowed by a busy machine is not the bot's
        fault."""
        await self.process.send_line(m.Hello().to_text())
        clock = StartClock(allowance, self.process.pid, trio.current_time())
        while True:
            line = await self._start_line(clock)
            try:
                msg = self._parse(line)
            except BotProtocolError:
                if line.text.split(" ", 1)[0] in HANDSHAKE_WORDS:
                    raise  # a handshake line, but a malformed one: the reason says how
                raise _NotHandshake(line.text) from None
            if isinstance(msg, m.Id):
                self._keep_id(msg)
            elif isinstance(msg, m.ProtocolChoice):
                if msg.version > m.PROTOCOL_VERSION:
                    raise BotProtocolError(f"asked for protocol {msg.version}; this referee speaks up to "
                                           f"{m.PROTOCOL_VERSION}: {line.text[:80]!r}")
                self.version = max(msg.version, m.FALLBACK_VERSION)
            elif isinstance(msg, m.OptionDeclared):
                if msg.name in self.declared or len(self.declared) >= MAX_OPTIONS:
                    raise BotProtocolError(f"option {msg.name} declared twice, or more than {MAX_OPTIONS} options")
                self.declared[msg.name] = msg
            elif isinstance(msg, m.Want):
                self.wants.add(msg.feature)  # a feature this referee does not know is ignored
            elif isinstance(msg, m.Ready):
                if (self.declared or self.wants) and self.version < 3:
                    raise BotProtocolError("'option' and 'want' lines belong to protocol 3: send 'protocol 3' "
                                           "before 'ready'")
                return
            elif not isinstance(msg, m.Info):
                raise _NotHandshake(line.text)

    async def _start_line(self, clock: StartClock) -> Line:
        """The bot's next line of its start; BotTimeout once its start allowance is spent."""
        while True:
            try:
                return await self.process.read_line(clock.next_look(trio.current_time()))
            except BotTimeout:
                why = clock.spent(trio.current_time())
                if why is not None:
                    raise BotTimeout(why) from None

    async def _more_lines(self) -> list[str]:
        """Up to STARTUP_LINES - 1 more lines the bot prints within STARTUP_LINGER (a runtime's error message
        often names its cause on the second line)."""
        lines: list[str] = []
        deadline = trio.current_time() + STARTUP_LINGER
        while len(lines) < STARTUP_LINES - 1:
            try:
                lines.append((await self.process.read_line(deadline)).text)
            except BotError:
                break
        return lines

    def _keep_id(self, msg: m.Id) -> None:
        """Keep an id line for the records: the first of each key, at most MAX_IDS_KEPT keys, each text cut to
        MAX_ID_TEXT characters; what is cut or left out is noted, for the run to say."""
        text = msg.value[:MAX_ID_TEXT]
        if len(msg.value) > MAX_ID_TEXT:
            self.notes.append(f"its 'id {msg.field}' was cut to {MAX_ID_TEXT} characters")
        if msg.field not in self.ids:
            if len(self.ids) < MAX_IDS_KEPT:
                self.ids[msg.field] = text
            else:
                self.notes.append(f"its 'id {msg.field}' was not kept: {MAX_IDS_KEPT} id keys at most")
        if msg.field == "name" and text:
            self.name = text
        elif msg.field == "author":
            self.author = text

    def set_options(self, chosen: dict[str, str]) -> None:
        """Queue a ``setoption`` for every option the bot declared: the organiser's value, else its default.

        An option the bot does not declare, or a value it does not take, is
        refused with the options the bot does offer (the organiser's mistake
        or the bot's: either way no game is played on a guess).
        """
        for name, value in chosen.items():
            if name not in self.declared:
                offered = ", ".join(self.declared) or ("none" if self.version >= 3 else "none: it speaks protocol "
                                                       f"{self.version}, which has no options")
                raise OptionRefused(f"option {name}={value} was set, but {self.name} declares no option {name} "
                                       f"(its options: {offered})")
            why = self.declared[name].check(value)
            if why:
                raise OptionRefused(f"option {name}={value} refused: {why}")
        self.options = {name: chosen.get(name, o.default) for name, o in self.declared.items()}
        for name, value in self.options.items():
            self.post(m.SetOption(name, value))

    def _parse(self, line: Line):
        try:
            msg = parse_bot_line(line.text)
        except ProtocolError as e:
            raise BotProtocolError(f"{e}: {line.text[:80]!r}") from None
        if isinstance(msg, m.Info):
            self._info_lines += 1
            self._info_bytes += len(line.text)
            if self._info_lines > MAX_INFO_LINES or self._info_bytes > MAX_INFO_BYTES:
                raise BotProtocolError(f"sent more than {MAX_INFO_LINES} 'info' lines, or {MAX_INFO_BYTES // 1024} "
                                       "KiB of them, for one request")
            if len(self.info) < MAX_INFO_KEPT:
                self.info.append(msg.text[:200])
        return msg

    def _new_exchange(self) -> None:
        """A request (or ping) is about to go out: the bot's allowance of info lines starts again."""
        self._info_lines = self._info_bytes = 0

    def _refuse_unasked(self) -> None:
        for line in self.process.pending_lines():
            try:
                asked = isinstance(self._parse(line), m.Info)
            except BotProtocolError:  # not an action out of turn: text where none was due (after 'ready', say)
                asked = False
            if not asked:
                raise BotProtocolError(f"sent a line nobody asked for: {line.text[:80]!r}")

    def post(self, message) -> None:
        """Queue a message (or its text); it is written before the next request, ping or :meth:`send`."""
        self.process.post(message if isinstance(message, str) else message.to_text())

    async def send(self, message) -> None:
        """Write a message (and everything queued) now."""
        await self.process.send_line(message.to_text())

    async def request(self, message: m.Request, wait_ms: float) -> TimedReply:
        """Send a request and wait up to ``wait_ms`` for the one reply.

        Returns the action token and the milliseconds used, the time running
        from the moment the request was written to the arrival of the reply line.
        """
        self._refuse_unasked()
        self._new_exchange()
        await self.process.send_line(message.to_text())
        sent = self.process.now()
        deadline = sent + wait_ms / 1000
        while True:
            try:
                line = await self.process.read_line(deadline)
            except BotTimeout:
                raise BotTimeout(f"no reply to '{message.decision}' within {wait_ms:.0f} ms") from None
            if line.text in message.legal:  # one of the tokens offered: a well-formed reply, no need to parse
                return TimedReply(line.text, (line.arrived - sent) * 1000)
            msg = self._parse(line)
            if isinstance(msg, m.Reply):
                return TimedReply(msg.action, (line.arrived - sent) * 1000)
            if not isinstance(msg, m.Info):
                raise BotProtocolError(f"expected an action, got {line.text[:80]!r}")

    async def ping(self, timeout: float = 5.0, token: str = "1") -> float:
        """Ask for a pong; returns the round trip in ms. Detects a wedged bot."""
        self._refuse_unasked()
        self._new_exchange()
        await self.process.send_line(m.Ping(token).to_text())
        sent = trio.current_time()
        while True:
            try:
                line = await self.process.read_line(sent + timeout)
            except BotTimeout:
                raise BotTimeout(f"no pong within {timeout:g} s") from None
            msg = self._parse(line)
            if isinstance(msg, m.Pong) and msg.token == token:
                return (line.arrived - sent) * 1000
            if not isinstance(msg, m.Info):
                raise BotProtocolError(f"expected 'pong {token}', got {line.text[:80]!r}")

    async def quit(self, grace: float = 1.0) -> int | None:
        """Say quit (if the pipe is still open) and make sure the process is gone."""
        with trio.move_on_after(grace):
            try:
                await self.process.send_line(m.Quit().to_text(), timeout=grace)
            except BotError:
                pass
        return await self.process.stop(grace)


def _quoted(lines: list[str]) -> str:
    return " | ".join(repr(printable(text[:200])) for text in lines)


class _NotHandshake(Exception):
    """A line during the handshake that is no handshake line (often a runtime's start-up error)."""

    def __init__(self, line: str):
        super().__init__(line)
        self.line = line


def memory_advice(said: str, address_space_mb: int | None) -> str:
    """What to do when a bot could not start because it could not reserve memory ("" when ``said``, its start
    error, does not look like that)."""
    if not RESERVE_FAILURES.search(said):
        return ""
    where = (f"each of its processes may reserve at most {address_space_mb} MiB of address space (limits.memory "
             "is an address-space cap, RLIMIT_AS, for a bot without a control group of its own: unjailed, or "
             "jailed where the referee is not root or has no usable control groups); " if address_space_mb else "")
    return (f"the program could not reserve memory: {where}raise limits.memory (--limit memory=N) or pass the "
            "runtime's own heap flags (java -Xmx512m -XX:CompressedClassSpaceSize=64m; Go: GOMEMLIMIT=512MiB)")


async def _stderr_end(process: LineEndpoint, path: Path | None) -> str:
    """The last line of a stopped bot's stderr log, once all it wrote is there (or a second has passed: a
    process it left behind may hold the pipe open)."""
    with trio.move_on_after(1):
        await process.stderr_logged()
    return last_stderr_line(path)


# A line that says a program failed, as runtimes print it: an exception's name and message (Python, JavaScript,
# Java), a panic (Go, Rust). After it may come stack frames, an error's fields, a runtime's version banner (node).
FAILURE_LINE = re.compile(r"([\w.$]*(Error|Exception)\b|panic:|thread '.*' panicked|fatal error|error:)", re.IGNORECASE)


def last_stderr_line(path: Path | None) -> str:
    """What a bot's stderr log (its last 2 KiB) says last of why it stopped: its last line that says a failure, else
    its last non-empty line; never the referee's own notes."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as f:
            f.seek(max(f.seek(0, 2) - 2048, 0))
            tail = f.read().decode(errors="replace")
    except OSError:
        return ""
    lines = [x.strip() for x in tail.splitlines() if x.strip() and not x.startswith("=== pinochle-arena")]
    failures = [x for x in lines if FAILURE_LINE.match(x)]
    chosen = failures[-1] if failures else lines[-1] if lines else ""
    return printable(chosen[:200])


def printable(text: str) -> str:
    """A bot's text made safe to print on the organiser's terminal: control characters (an escape sequence could
    clear the screen or fake output) written as escapes, ``\\x1b`` for ESC."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
