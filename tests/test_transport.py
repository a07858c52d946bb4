"""The transport's deadlines: one clock watcher per bot process ends each read on time.

The watcher sleeps until the deadline it expects; these tests check the
cases where that expectation is wrong: a read given much less time than the
one before, a reply just inside its deadline, and many reads in a row. A
reader that finds its bytes at once yields to the other tasks only now and
then (``YIELD_EVERY``); the flood tests check that the watcher and the other
tasks still get their turns.
"""

from __future__ import annotations

import sys

import pytest
import trio
import trio.testing

from referee.bots.transport import ALONE_WAIT, BotCommand, BotProcess, BotProtocolError, BotTimeout

# Answers "fast" at once, "late N" after N seconds, "again" twice (the second line once told "more"), never
# answers "hang", and answers "flood" with endless other lines.
ECHO = r"""
import os, sys, time
for line in sys.stdin:
    word = line.split()
    if word[0] == "fast":
        print("ok", flush=True)
    elif word[0] == "late":
        time.sleep(float(word[1]))
        print("ok", flush=True)
    elif word[0] == "again":  # the answer, then a line nobody asked for
        print("ok", flush=True)
        sys.stdin.readline()
        os.write(1, b"extra\n")  # in one write (print writes the newline apart when unbuffered)
    elif word[0] == "flood":  # lines, never the answer: there is always something to read
        while True:
            sys.stdout.write("info z\n" * 300)
            sys.stdout.flush()
"""


async def _with_bot(body):
    async with trio.open_nursery() as nursery:
        bot = await BotProcess.start(nursery, BotCommand((sys.executable, "-c", ECHO)), None)
        try:
            await body(bot)
        finally:
            await bot.kill()


async def _ask(bot: BotProcess, text: str, seconds: float) -> str:
    await bot.send_line(text)
    return (await bot.read_line(trio.current_time() + seconds)).text


async def _times_out_on_time(bot: BotProcess, text: str, seconds: float) -> None:
    """Asking ``text`` with ``seconds`` to answer ends in BotTimeout, at the deadline and not long after."""
    start = trio.current_time()
    with pytest.raises(BotTimeout):
        await _ask(bot, text, seconds)
    assert seconds <= trio.current_time() - start < 3.0


def test_a_short_deadline_after_a_long_one_ends_on_its_own_time():
    async def body(bot):
        for _ in range(3):
            assert await _ask(bot, "fast", 30.0) == "ok"  # the watcher now expects a 30 s read
        await _times_out_on_time(bot, "hang", 0.3)

    trio.run(_with_bot, body)


def test_a_reply_inside_its_deadline_is_taken_and_the_next_read_still_times_out():
    async def body(bot):
        assert await _ask(bot, "fast", 30.0) == "ok"  # started (the deadlines below are not for the start)
        assert await _ask(bot, "late 0.2", 10.0) == "ok"
        assert await _ask(bot, "fast", 5.0) == "ok"
        await _times_out_on_time(bot, "hang", 0.5)

    trio.run(_with_bot, body)


def test_many_reads_in_a_row_then_a_timeout_on_time():
    async def body(bot):
        assert await _ask(bot, "fast", 30.0) == "ok"  # started
        for i in range(300):
            assert await _ask(bot, "fast", 5 + (i % 7)) == "ok"
        await _times_out_on_time(bot, "late 5", 0.4)

    trio.run(_with_bot, body)


def test_a_flood_of_lines_past_the_deadline_ends_on_time():
    """The reader never has to wait, so only the clock watcher can end it; it must still get its turn."""
    async def body(bot):
        assert await _ask(bot, "fast", 5.0) == "ok"
        bot.output_cap = None  # as with 'output = 0': nothing but the clock stops it
        await bot.send_line("flood")
        assert (await bot.read_line(trio.current_time() + 30)).text.startswith("info")  # the flood has begun
        start = trio.current_time()
        deadline = start + 0.5
        lines = 0
        with trio.fail_after(10), pytest.raises(BotTimeout):  # fail_after: a regression fails, not hangs
            while True:
                assert (await bot.read_line(deadline)).text.startswith("info")
                lines += 1
        assert lines > 100
        assert 0.5 <= trio.current_time() - start < 3.0

    trio.run(_with_bot, body)


def test_output_past_the_cap_since_the_referee_s_last_line_is_a_protocol_error():
    async def body(bot):
        bot.output_cap = 64 * 1024
        await bot.send_line("flood")
        with trio.fail_after(10), pytest.raises(BotProtocolError, match="more than 64 KiB to stdout"):
            while True:
                await bot.read_line(trio.current_time() + 5)

    trio.run(_with_bot, body)


def test_a_reader_that_never_waits_still_lets_the_other_tasks_run():
    """Reading a flood of lines, which are always there at once, another task still gets its turns."""
    async def body(bot):
        bot.output_cap = None
        await bot.send_line("flood")
        await trio.sleep(0.2)  # the pipe fills: from now on the reader finds bytes at every read
        turns = 0

        async def other_task():
            nonlocal turns
            while True:
                await trio.sleep(0)
                turns += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other_task)
            deadline = trio.current_time() + 60
            for _ in range(100_000):  # a fixed count, so a reader that never yields fails, not hangs
                assert (await bot.read_line(deadline)).text.startswith("info")
            nursery.cancel_scope.cancel()
        # a yield at each read of the pipe that comes YIELD_EVERY (1 ms) or more after the last one; a read
        # brings up to 64 KiB (over 9,000 of these lines, milliseconds of work), so about one per read: ~10
        assert turns >= 5

    trio.run(_with_bot, body)


def test_a_line_nobody_asked_for_is_found_without_waiting_once_it_has_arrived():
    async def body(bot):
        assert await _ask(bot, "again", 5.0) == "ok"
        assert bot.pending_lines() == []  # nothing more yet: found out without waiting
        await bot.send_line("more")
        with trio.fail_after(30):
            await trio.lowlevel.wait_readable(bot.process.stdout.fileno())  # "extra" has arrived, in one write
        assert [line.text for line in bot.pending_lines()] == ["extra"]
        assert bot.pending_lines() == []
        assert await _ask(bot, "fast", 5.0) == "ok"  # and the next reply is the next reply

    trio.run(_with_bot, body)


def test_a_read_waits_in_the_kernel_only_while_no_other_bot_s_read_waits():
    """A read that finds no reply yet may wait for it outside trio's scheduler (blocking the event loop, at most
    ALONE_WAIT), but never while another bot's read waits: that bot's reply must be read, and stamped, as it
    comes. Every read's end (a reply, a timeout, a cancel) takes it off the count of reads waiting."""
    async def body(bot):
        other = await BotProcess.start(nursery_of[0], BotCommand((sys.executable, "-c", ECHO)), None)
        try:
            assert await _ask(bot, "fast", 30.0) == "ok" and await _ask(other, "fast", 30.0) == "ok"  # started
            waits = _KernelWaits(bot)
            assert await _ask(bot, "late 0.2", 10.0) == "ok"  # alone: its first look finds nothing, then it waits
            assert waits.taken and all(0 < ms <= 1000 * ALONE_WAIT for ms in waits.taken)
            assert BotProcess.reads_waiting == 0
            waits.taken.clear()
            async with trio.open_nursery() as nursery:
                await other.send_line("hang")
                nursery.start_soon(other.read_line, trio.current_time() + 60)  # waits until cancelled
                await trio.sleep(0.05)
                assert BotProcess.reads_waiting == 1
                assert await _ask(bot, "late 0.2", 10.0) == "ok"
                nursery.cancel_scope.cancel()
            assert waits.taken == []  # another read was waiting: only trio's wait, which lets it read its reply
            assert BotProcess.reads_waiting == 0  # the cancelled read too
            await _times_out_on_time(bot, "hang", 0.3)
            assert BotProcess.reads_waiting == 0
        finally:
            await other.kill()

    nursery_of: list = []

    async def run():
        async with trio.open_nursery() as nursery:
            nursery_of.append(nursery)
            await _with_bot(body)

    trio.run(run)


class _KernelWaits:
    """Stands in for a bot process's poll object and keeps the timeout of every look that may wait (ms > 0)."""

    def __init__(self, bot: BotProcess):
        self.real, self.taken = bot._poll, []
        bot._poll = self

    def poll(self, ms=None):
        if ms:
            self.taken.append(ms)
        return self.real.poll(ms)


def test_a_stopped_bot_leaves_no_task_waiting_out_the_exit_linger():
    """After a bot's exit its output is read for EXIT_LINGER more (lines written just before it): but once the
    referee has stopped it (``kill``) nothing more is read, so its watchers end at once and the nursery that holds
    them (a check of the bots, a run's lanes) does not wait. On a clock that moves only when every task waits for
    it: had the linger run, the clock would have had to jump."""
    clock = trio.testing.MockClock(autojump_threshold=5.0)  # (real seconds of every task asleep before it jumps:
    # far more than a bot's exit takes on a loaded machine; a task sleeping out the linger makes it jump in 5 s)

    async def run() -> float:
        async with trio.open_nursery() as nursery:
            bot = await BotProcess.start(nursery, BotCommand((sys.executable, "-c", ECHO)), None)
            assert await _ask(bot, "fast", 60) == "ok"
            await bot.stop()
        return trio.current_time()

    assert trio.run(run, clock=clock) == 0.0
