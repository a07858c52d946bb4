"""A bot on another machine: its lines relayed over a network link, its clock kept here.

Two copies of one bot that play partners in one game share whatever their
machine's kernel shares (the page cache's timing, at the least); only two
kernels keep them apart. So a seat can be played by a bot that a *seat
host* on another machine starts in its own jail: the referee here speaks to
a :class:`RemoteSeat`, which offers what a bot's process offers the referee
(queue and send lines, read a line by a deadline, stop), and the host runs
a :class:`~referee.bots.transport.BotProcess` and relays lines both ways
(:func:`serve_seat`). Everything the referee enforces still happens here:
the clock runs from the write of a request to the arrival of the reply
line here (the link's delay, a fraction of a millisecond on a local
network, counts against the bot), legality, faults and records. The host
enforces what a process's transport does (line length, output between two
requests, the jail, the limits) and reports a fault as the fault it is.

The link is a byte stream (TLS where the cluster uses it) of frames: a kind
byte, a 4-byte length and the payload. The referee sends ``h`` (hello: the
run's token, the entrant and the game, JSON), then ``i`` (lines for the
bot's stdin) and at the end ``k`` (stop it). The host answers ``r`` (ready:
the bot's fingerprint and the host's machine, or an error), then ``o`` (one
line from the bot), ``x`` (the bot failed: the kind of fault and why) and,
once the bot is gone, ``l`` (its stderr log). A link that breaks is the
machine's fault, never the bot's: :class:`SeatHostLost` is not a bot error,
so the game is played again rather than charged to anyone.
"""

from __future__ import annotations

import contextlib
import json
import math
import secrets
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs
import trio

from .transport import (
    STDERR_CAP,
    BotCrashed,
    BotError,
    BotProcess,
    BotProtocolError,
    BotStartError,
    BotTimeout,
    Line,
)

HEADER = struct.Struct(">cI")
MAX_FRAME = STDERR_CAP + 4096  # the largest frame: a bot's stderr log
LINES_HELD = 10_000  # lines from the bot held here before the link is left to fill (the host caps their bytes)
FAULTS = {cls.termination: cls for cls in (BotTimeout, BotCrashed, BotProtocolError)}


class SeatHostLost(Exception):
    """The link to a seat host broke, or it answered nonsense: the machines' fault, not the bot's."""


async def send_frame(stream: trio.abc.Stream, kind: bytes, payload: bytes = b"") -> None:
    await stream.send_all(HEADER.pack(kind, len(payload)) + payload)


@attrs.define(eq=False)
class FrameReader:
    stream: trio.abc.Stream
    _buffer: bytearray = attrs.Factory(bytearray)

    async def next(self) -> tuple[bytes, bytes] | None:
        """The next frame as (kind, payload); None at the end of the stream. SeatHostLost if it is malformed."""
        while True:
            if len(self._buffer) >= HEADER.size:
                kind, size = HEADER.unpack_from(self._buffer)
                if size > MAX_FRAME:
                    raise SeatHostLost(f"a frame of {size} bytes on a seat link")
                if len(self._buffer) >= HEADER.size + size:
                    payload = bytes(self._buffer[HEADER.size:HEADER.size + size])
                    del self._buffer[:HEADER.size + size]
                    return kind, payload
            try:
                chunk = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                chunk = b""
            if not chunk:
                if self._buffer:
                    raise SeatHostLost("a seat link ended in the middle of a frame")
                return None
            self._buffer += chunk


# ---------------------------------------------------------------- the referee's end

@attrs.define(eq=False)
class RemoteSeat:
    """The referee's end of a bot on another machine (see the module)."""

    stream: trio.abc.Stream
    stderr_path: Path | None
    program: str  # the bot's fingerprint as the host computed it from its files
    machine: str  # the host's machine (tournaments.cluster_worker.machine_of)
    address_space_mb: int | None = None
    _out: list[str] = attrs.Factory(list)
    _lines: tuple = attrs.Factory(lambda: trio.open_memory_channel(LINES_HELD))
    _failure: BaseException | None = None
    _ended: trio.Event = attrs.Factory(trio.Event)  # the host sent the log, or the link ended
    _stopped: bool = False

    @classmethod
    async def open(cls, nursery: trio.Nursery, stream: trio.abc.Stream, token: str, entrant: str, game: str,
                   stderr_path: Path | None = None, timeout: float = 30.0) -> RemoteSeat:
        """Ask the host at the other end of ``stream`` to start ``entrant`` for ``game``; a bot that cannot start
        fails as it would here (BotStartError), a host that does not answer with SeatHostLost."""
        reader = FrameReader(stream)
        try:
            with trio.fail_after(timeout):
                await send_frame(stream, b"h", json.dumps({"token": token, "entrant": entrant, "game": game}).encode())
                frame = await reader.next()
        except (trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError) as e:
            await stream.aclose()
            raise SeatHostLost(f"the seat host did not start {entrant}: {e!r}") from None
        if frame is None or frame[0] != b"r":
            await stream.aclose()
            raise SeatHostLost(f"the seat host did not start {entrant} (it answered {frame!r:.80})")
        ready = json.loads(frame[1])
        if "error" in ready:
            await stream.aclose()
            raise (BotStartError if ready.get("kind") == "start" else SeatHostLost)(ready["error"])
        seat = cls(stream, stderr_path, str(ready.get("program", "")), str(ready.get("machine", "")))
        nursery.start_soon(seat._pump, reader)
        return seat

    async def _pump(self, reader: FrameReader) -> None:
        """Frames from the host, as they come: lines stamped with their arrival here, a fault, the log."""
        send = self._lines[0]
        try:
            while (frame := await reader.next()) is not None:
                kind, payload = frame
                if kind == b"o" and self._failure is None:
                    await send.send(Line(payload.decode("utf-8", "replace"), trio.current_time()))
                elif kind == b"x":
                    fault = json.loads(payload)
                    self._failure = FAULTS.get(fault.get("kind"), BotCrashed)(str(fault.get("text", "")))
                    send.close()  # a read waiting for a line hears of the fault at once
                elif kind == b"l":
                    self._write_log(payload)
                    return
                else:
                    raise SeatHostLost(f"a frame of kind {kind!r} from the seat host")
            if not self._stopped:
                self._failure = SeatHostLost("the link to the seat host broke in the middle of a game")
        except SeatHostLost as e:
            self._failure = e
        finally:
            self._ended.set()
            send.close()

    def _write_log(self, data: bytes) -> None:
        if self.stderr_path is not None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.stderr_path, "ab") as f:
                f.write(data[:STDERR_CAP])

    # --- what the referee uses (a LineEndpoint, as BotProcess) ----------------------------------------------
    @property
    def pid(self) -> None:
        return None  # the bot's process is on another machine

    def now(self) -> float:
        return trio.current_time()

    def post(self, text: str) -> None:
        self._out.append(text)

    async def flush(self, timeout: float = 10.0) -> None:
        self._raise_failure()
        if not self._out:
            return
        data = ("\n".join(self._out) + "\n").encode("utf-8")
        self._out.clear()
        with trio.move_on_after(timeout) as waited:
            try:
                await send_frame(self.stream, b"i", data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                raise SeatHostLost("the link to the seat host broke") from None
        if waited.cancelled_caught:
            raise BotTimeout("does not read its input")

    async def send_line(self, text: str, timeout: float = 10.0) -> None:
        self.post(text)
        await self.flush(timeout)

    def pending_lines(self) -> list[Line]:
        found = []
        while True:
            try:
                found.append(self._lines[1].receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel):
                break
        if not found:
            self._raise_failure()
        return found

    def leftover_lines(self, count: int) -> list[str]:
        try:
            return [line.text for line in self.pending_lines()][:count]
        except (BotError, SeatHostLost):
            return []

    async def read_line(self, deadline: float) -> Line:
        with trio.move_on_at(deadline):
            try:
                return await self._lines[1].receive()
            except trio.EndOfChannel:
                self._raise_failure()
                raise BotCrashed("its seat host closed the link") from None
        raise BotTimeout("no reply in time")

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    async def stderr_logged(self) -> None:
        await self._ended.wait()  # the host sends the log last, or the link ended

    async def stop(self, grace: float = 1.0) -> int | None:
        return await self.kill()

    async def kill(self) -> int | None:
        """Tell the host to stop the bot, and wait a moment for its stderr log."""
        if not self._stopped:
            self._stopped = True
            with trio.CancelScope(shield=True):
                with trio.move_on_after(5):
                    try:
                        await send_frame(self.stream, b"k")
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        pass
                    await self._ended.wait()
                await self.stream.aclose()
        return None


# ---------------------------------------------------------------- the host's end

@attrs.frozen
class Started:
    """What a seat host's ``start`` gives back: the running bot, its fingerprint, and where its stderr goes."""

    process: BotProcess
    program: str
    stderr_path: Path


async def serve_seat(stream: trio.abc.Stream, token: str, machine: str,
                     start: Callable[[trio.Nursery, str, str], Awaitable[Started]]) -> None:
    """One link from a referee: check its token, start the bot it names with ``start(nursery, entrant, game)``,
    relay lines until the referee says stop or the link ends, then kill the bot and send its stderr log."""
    reader = FrameReader(stream)
    try:
        with trio.fail_after(30):
            hello = await reader.next()
        request = json.loads(hello[1]) if hello is not None and hello[0] == b"h" else {}
    except (trio.TooSlowError, SeatHostLost, ValueError):
        request = {}
    if not secrets.compare_digest(str(request.get("token", "")), token):
        await _answer(stream, {"error": "not a referee of this run"})
        return
    async with trio.open_nursery() as nursery:
        try:
            started = await start(nursery, str(request.get("entrant")), str(request.get("game")))
        except BotError as e:
            await _answer(stream, {"error": str(e), "kind": "start"})
            return
        except KeyError as e:
            await _answer(stream, {"error": f"no entrant {e} in this run"})
            return
        try:
            await _answer(stream, {"program": started.program, "machine": machine})
            await _relay(stream, reader, started.process)
        finally:
            with trio.CancelScope(shield=True):
                await started.process.kill()
                with trio.move_on_after(5):
                    await started.process.stderr_drained.wait()
                await _send_log(stream, started.stderr_path)
            nursery.cancel_scope.cancel()


async def _answer(stream: trio.abc.Stream, ready: dict) -> None:
    try:
        await send_frame(stream, b"r", json.dumps(ready).encode())
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _relay(stream: trio.abc.Stream, reader: FrameReader, process: BotProcess) -> None:
    """Lines both ways until the referee sends ``k`` or goes away; a fault of the bot is sent as ``x``."""
    async with trio.open_nursery() as nursery:

        async def from_bot() -> None:
            try:
                while True:
                    line = await process.read_line(math.inf)
                    await send_frame(stream, b"o", line.text.encode("utf-8"))
            except BotError as e:
                fault = json.dumps({"kind": e.termination, "text": str(e)}).encode()
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await send_frame(stream, b"x", fault)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                nursery.cancel_scope.cancel()  # the referee is gone

        nursery.start_soon(from_bot)
        try:
            while (frame := await reader.next()) is not None and frame[0] == b"i":
                for text in frame[1].decode("utf-8", "replace").splitlines():
                    process.post(text)
                try:
                    await process.flush()
                except BotError:
                    pass  # from_bot reports how the bot failed
        except SeatHostLost:
            pass
        nursery.cancel_scope.cancel()


async def _send_log(stream: trio.abc.Stream, path: Path) -> None:
    try:
        data = (await trio.Path(path).read_bytes())[:STDERR_CAP]  # (the bot's transport caps the log itself)
    except OSError:
        data = b""
    try:
        await send_frame(stream, b"l", data)
        await stream.aclose()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


__all__ = ["FrameReader", "RemoteSeat", "SeatHostLost", "Started", "send_frame", "serve_seat"]
