"""A person's seat: a browser page that speaks the protocol, through a local web server.

The human seat is just another player. The referee talks to it through a
:class:`SeatLink`, which offers what a bot's process offers the referee
(queue and send lines, read a line by a deadline, stop), so the same
clock, legality checks, faults and records apply. On the other side of the
link is a WebSocket to the page (``static/play.js``), which answers the
greeting as a version 3 bot that wants ``state`` lines, draws what it is
told and offers the legal actions of each request to be clicked.

The server is hypercorn, on trio, serving a small ASGI app on 127.0.0.1
only: the page and its script, and one WebSocket per human seat. A page
that is reloaded connects again and is sent the lines of the game in play
(without the requests already answered), so it can redraw and go on.
"""

from __future__ import annotations

import json
import secrets
from functools import partial
from pathlib import Path

import attrs
import trio

from referee.bots.transport import BotCrashed, BotTimeout, Line

STATIC = Path(__file__).resolve().parent / "static"
FILES = {"/": ("play.html", "text/html; charset=utf-8"), "/play.js": ("play.js", "text/javascript"),
         "/cards.js": ("cards.js", "text/javascript"),
         "/report.css": ("report.css", "text/css"), "/play.css": ("play.css", "text/css")}


@attrs.define(eq=False)
class SeatLink:
    """The referee's end of one human seat: lines out to the page, lines in from it, as a bot's pipes."""

    seat: int
    _out: list[str] = attrs.Factory(list)  # posted, not yet sent
    _history: list[str] = attrs.Factory(list)  # lines of the game in play, for a page that connects again
    _to_page: trio.MemorySendChannel | None = None  # the connected page's queue, if one is connected
    _replies: tuple = attrs.Factory(lambda: trio.open_memory_channel(64))
    _closed: bool = False
    connected: trio.Event = attrs.Factory(trio.Event)

    # --- what the referee uses (a LineEndpoint, as BotProcess) ----------------------------------------------
    @property
    def pid(self) -> None:
        return None  # a person, not a process

    @property
    def program(self) -> str:
        return ""  # a person has no program to fingerprint

    def post(self, text: str) -> None:
        self._out.append(text)

    async def flush(self, timeout: float = 10.0) -> None:
        if self._closed:
            raise BotCrashed("the page was closed")
        lines, self._out = self._out, []
        for text in lines:
            if text.startswith("game "):
                self._history = []
            self._history.append(text)
            if self._to_page is not None:
                try:
                    self._to_page.send_nowait(text)
                except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                    self._to_page = None  # gone: a page that connects again gets the history

    async def send_line(self, text: str, timeout: float = 10.0) -> None:
        self.post(text)
        await self.flush(timeout)

    def now(self) -> float:
        return trio.current_time()

    def pending_lines(self) -> list[Line]:
        found = []
        while True:
            try:
                found.append(self._replies[1].receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel):
                return found

    def leftover_lines(self, count: int) -> list[str]:
        """Replies the page sent that nobody read (at most ``count``): for a message, never raises."""
        return [line.text for line in self.pending_lines()][:count]

    async def stderr_logged(self) -> None:
        return  # a page writes no stderr

    async def read_line(self, deadline: float) -> Line:
        if self._closed:
            raise BotCrashed("the page was closed")
        with trio.move_on_at(deadline):
            try:
                line = await self._replies[1].receive()
            except trio.EndOfChannel:
                raise BotCrashed("the page was closed") from None
            self._history = [h for h in self._history if not h.startswith("go ")]  # answered
            return line
        raise BotTimeout("no reply in time")

    async def stop(self, grace: float = 1.0) -> int | None:
        return await self.kill()

    async def kill(self) -> int | None:
        self._closed = True  # the page stays connected: the next game reopens the link and greets it again
        return 0

    async def open(self, nursery: trio.Nursery | None = None, log_path: Path | None = None) -> SeatLink:
        """The link for the next game (after a fault, the same page starts afresh): waits for a page."""
        if self._closed:
            self._closed, self._out, self._history = False, [], []
            self._replies = trio.open_memory_channel(64)
        await self.connected.wait()
        return self

    # --- what the page's WebSocket uses ---------------------------------------------------------------------
    def attach(self) -> trio.MemoryReceiveChannel:
        """A page connected: the lines it must be sent, starting with the game in play."""
        send, receive = trio.open_memory_channel(10_000)
        for text in self._history:
            send.send_nowait(text)
        self._to_page = send
        self.connected.set()
        return receive

    def reply(self, text: str) -> None:
        """A line from the page."""
        self._replies[0].send_nowait(Line(text.strip(), trio.current_time()))


@attrs.define(eq=False)
class SeatServer:
    """The local web server of the human seats: the page, its files, and a WebSocket per seat."""

    links: dict[int, SeatLink]
    names: list[str] = attrs.Factory(list)  # who sits in each seat (the page shows them: the protocol does not)
    # A secret per seat, in that seat's address: no other page can take a seat, and the person at one seat
    # cannot open another's (and see its hand) by changing the seat number in the address.
    tokens: dict[int, str] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.tokens = {seat: secrets.token_urlsafe(16) for seat in self.links}

    def address(self, port: int, seat: int) -> str:
        return f"http://127.0.0.1:{port}/?seat={seat}&token={self.tokens[seat]}"

    async def __call__(self, scope, receive, send) -> None:  # the ASGI application
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        elif scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})

    async def _http(self, scope, receive, send) -> None:
        found = FILES.get(scope["path"])
        status, body, kind = (200, (STATIC / found[0]).read_bytes(), found[1]) if found else \
            (404, b"not found", "text/plain")
        if scope["path"] == "/names":
            seat = self._seat_of(scope)
            status, body, kind = (200, json.dumps(self.names).encode(), "application/json") if seat is not None \
                else (403, b"not a seat's address", "text/plain")
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", kind.encode()), (b"cache-control", b"no-store")]})
        await send({"type": "http.response.body", "body": body})

    def _seat_of(self, scope) -> int | None:
        """The seat whose address (its number and its token) ``scope`` asks with, or None."""
        query = dict(pair.split("=", 1) for pair in scope.get("query_string", b"").decode().split("&") if "=" in pair)
        seat = int(query["seat"]) if query.get("seat", "").isdigit() else None
        if seat not in self.links or not secrets.compare_digest(query.get("token", ""), self.tokens[seat]):
            return None
        return seat

    async def _websocket(self, scope, receive, send) -> None:
        seat = self._seat_of(scope)
        event = await receive()
        if event["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        if scope["path"] != "/seat" or seat is None:  # closed after the handshake, so the page gets the code
            await send({"type": "websocket.close", "code": 4403})  # play.js says what this code means
            return
        link = self.links[seat]
        lines = link.attach()
        async with trio.open_nursery() as nursery:
            async def forward() -> None:
                async for text in lines:
                    await send({"type": "websocket.send", "text": text})
                await send({"type": "websocket.close", "code": 1000})
            nursery.start_soon(forward)
            while True:
                event = await receive()
                if event["type"] != "websocket.receive":
                    break
                for text in (event.get("text") or "").splitlines():
                    link.reply(text)
            nursery.cancel_scope.cancel()


async def serve(server: SeatServer, port: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Serve the seats on 127.0.0.1:``port`` (0: a free port); ``task_status`` is given the port."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = config.errorlog = None
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(hypercorn_serve, server, config, shutdown_trigger=trio.sleep_forever))
        task_status.started(int(binds[0].rsplit(":", 1)[1]))
