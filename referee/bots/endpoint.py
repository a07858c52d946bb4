"""The line endpoint: what the referee needs of a player on the line, whatever is at the other end.

:class:`~referee.match.client.BotClient` speaks the protocol to a
:class:`LineEndpoint` and to nothing else. Three classes are one:

* :class:`~referee.bots.transport.BotProcess`, a bot's process here (its pipes);
* :class:`~referee.bots.remote.RemoteSeat`, a bot started on another machine by
  a seat host (``tournament --cluster --seats-on-workers``), its lines in frames;
* :class:`~viewer.seat.SeatLink`, a person's seat in a browser (``play``).

Each offers every member below, so the referee never asks which one it holds.
Where a member means nothing for one of them, its answer says so: ``pid`` is
None away from a local process (the start clock then reads the wall alone),
``program`` is None where the referee fingerprints the bot's files itself (a
local process), and ``stderr_logged`` returns at once where there is no stderr
to wait for (a person).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .transport import Line


@runtime_checkable
class LineEndpoint(Protocol):
    """One player on the line: lines out (queued, then sent), lines in (by a deadline), and stopping it."""

    @property
    def pid(self) -> int | None:
        """The local process whose waits for a CPU the start allowance leaves out; None: not a process here."""
        ...

    @property
    def program(self) -> str | None:
        """The bot's fingerprint as found where it runs; None where the referee computes it from the command."""
        ...

    def now(self) -> float:
        """The clock its lines are stamped by (trio time)."""
        ...

    def post(self, text: str) -> None:
        """Queue a line: it is written before the next :meth:`send_line` or :meth:`flush`."""
        ...

    async def flush(self, timeout: float = 10.0) -> None:
        """Write every queued line; BotTimeout when the player does not read them within ``timeout`` seconds."""
        ...

    async def send_line(self, text: str, timeout: float = 10.0) -> None:
        """Write the queued lines and ``text`` now."""
        ...

    def pending_lines(self) -> list[Line]:
        """The complete lines that came unasked, without waiting; raises the player's fault if it has one."""
        ...

    def leftover_lines(self, count: int) -> list[str]:
        """Up to ``count`` unread lines, for a message (what a runtime printed before it failed): never raises."""
        ...

    async def read_line(self, deadline: float) -> Line:
        """The next line; BotTimeout past ``deadline`` (trio time), BotCrashed once the player is gone."""
        ...

    async def stderr_logged(self) -> None:
        """Wait until everything the player wrote to stderr is in its log (the caller bounds the wait)."""
        ...

    async def stop(self, grace: float = 1.0) -> int | None:
        """Stop the player, giving it ``grace`` seconds to exit by itself; its exit status if it has one."""
        ...

    async def kill(self) -> int | None:
        """Stop the player now; its exit status if it has one."""
        ...
