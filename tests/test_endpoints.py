"""The line endpoint (referee.bots.endpoint): a bot's process, a bot on another machine and a person's page each
offer everything the referee's BotClient uses, so the referee never asks which one it holds."""

from __future__ import annotations

import sys

import trio
import trio.testing

from referee.bots.endpoint import LineEndpoint
from referee.bots.remote import FrameReader, RemoteSeat, send_frame
from referee.bots.transport import BotCommand, BotProcess
from viewer.seat import SeatLink

PRINTS_AND_WAITS = "import sys; print('hello', flush=True); sys.stdin.read()"


def test_a_bot_process_is_a_line_endpoint() -> None:
    async def main() -> None:
        async with trio.open_nursery() as nursery:
            bot = await BotProcess.start(nursery, BotCommand((sys.executable, "-c", PRINTS_AND_WAITS)), None)
            try:
                assert isinstance(bot, LineEndpoint)
                assert bot.pid == bot.process.pid and bot.program is None  # the referee fingerprints it itself
                assert (await bot.read_line(trio.current_time() + 30)).text == "hello"
            finally:
                await bot.kill()
            with trio.fail_after(30):
                await bot.stderr_logged()  # its stderr pipe ended with the process

    trio.run(main)


def test_a_remote_seat_is_a_line_endpoint(tmp_path) -> None:
    log = tmp_path / "bot.stderr.log"

    async def main() -> None:
        referee_end, host_end = trio.testing.memory_stream_pair()
        seat = RemoteSeat(referee_end, log, "sha256:as-the-host-found-it", "machine-b")
        assert isinstance(seat, LineEndpoint)
        assert seat.pid is None and seat.program == "sha256:as-the-host-found-it"
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat._pump, FrameReader(referee_end))
            await send_frame(host_end, b"o", b"hello")
            assert (await seat.read_line(trio.current_time() + 30)).text == "hello"
            await send_frame(host_end, b"l", b"its last words\n")  # the host sends the bot's stderr log last
            with trio.fail_after(30):
                await seat.stderr_logged()
            assert log.read_text() == "its last words\n"
            assert seat.leftover_lines(4) == []

    trio.run(main)


def test_a_persons_seat_is_a_line_endpoint() -> None:
    async def main() -> None:
        link = SeatLink(0)
        assert isinstance(link, LineEndpoint)
        assert link.pid is None and link.program == ""  # a person: no process, no program
        link.reply("pass")
        link.reply("AS")
        assert link.leftover_lines(1) == ["pass"]  # what the page sent unread, for a message
        with trio.fail_after(5):
            await link.stderr_logged()  # nothing to wait for

    trio.run(main)
