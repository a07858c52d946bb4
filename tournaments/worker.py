"""A referee worker process: plays the games the tournament runner sends it.

Started by :mod:`tournaments.runner` as ``python -m tournaments.worker``
when a tournament uses more than one referee process, so the referee's own
work spreads over the cores. It speaks a private line protocol with its
parent on stdin/stdout (:mod:`tournaments.worker_wire`):

* in: one ``setup`` line (the configuration, and the function given each
  game's record and notices, if any: the report's films; pickled and base64-encoded),
  then one (game spec, entrants retired so far) per line (the same), then ``end`` when there are no
  more games; end of input without ``end`` means the parent died (before
  the ``setup`` line: a worker started ahead that the run did not need);
* out: one game record per line (its JSON), as each game ends.

It runs ``slots`` games at once, each slot with its own bot processes, just
like a worker task of the in-process runner. It stops (killing its bots) on
SIGTERM or SIGINT, or when its parent dies (its input ends without ``end``).
"""

from __future__ import annotations

import os
import signal

import trio

from .slot import play_slot
from .worker_wire import END, decode, read_lines


async def serve() -> None:
    stdin = trio.lowlevel.FdStream(os.dup(0))
    stdout = trio.lowlevel.FdStream(os.dup(1))
    lines = read_lines(stdin)
    first = await anext(lines, None)
    if first is None:  # started ahead by a run that did not need it (runner.WorkersAhead): nothing to play
        return
    setup = decode(first)
    config, first_slot, slots, logs, transcripts, seen = (
        setup[k] for k in ("config", "first_slot", "slots", "logs", "transcripts", "seen"))
    entrants = config.seat_entrants()
    send, receive = trio.open_memory_channel(slots)
    write_lock = trio.Lock()

    async def publish(record) -> None:
        async with write_lock:
            await stdout.send_all(record.to_json().encode() + b"\n")

    retired: set[str] = set()

    async def feed(cancel: trio.CancelScope) -> None:
        async with send:
            async for line in lines:
                if line == END:
                    return
                spec, retired_elsewhere = decode(line)
                retired.update(retired_elsewhere)
                await send.send(spec)
            cancel.cancel()  # no 'end': the parent is gone; stop and take the bots down

    async def on_signal(cancel: trio.CancelScope) -> None:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for _ in signals:
                cancel.cancel()
                return

    with trio.CancelScope() as everything:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(on_signal, everything)
            async with trio.open_nursery() as games:
                games.start_soon(feed, everything)
                for slot in range(first_slot, first_slot + slots):
                    games.start_soon(play_slot, slot, receive.clone(), entrants, config, logs, publish,
                                     transcripts, retired, seen)
                receive.close()
            nursery.cancel_scope.cancel()


def main() -> None:
    try:
        trio.run(serve)
    except KeyboardInterrupt:  # Ctrl-C before its setup (started ahead, during the run's check): nothing to stop
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
