"""A bot on another machine (referee.bots.remote): the referee's clock, checks, faults and records are the same as
for a bot here; a broken link is the machines' fault, never the bot's."""

from __future__ import annotations

import contextlib
import functools

import attrs
import pytest
import trio
from test_referee import FAST, ROOMY, V, faulty, sample

from referee.bots.remote import RemoteSeat, SeatHostLost, Started, serve_seat
from referee.bots.transport import BotProcess
from referee.match import Player, play_game
from referee.records.record import Termination
from referee.records.replay import replay_record

TOKEN = "the-runs-secret"


class BreaksAfter(trio.abc.Stream):
    """A host's end of a link that breaks (as a machine that dies) after ``frames`` frames sent."""

    def __init__(self, inner: trio.abc.Stream, frames: int):
        self.inner, self.frames = inner, frames

    async def send_all(self, data) -> None:
        self.frames -= 1
        if self.frames < 0:
            await self.inner.aclose()
            raise trio.BrokenResourceError("the machine is gone")
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes=None):
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


@contextlib.asynccontextmanager
async def seat_host(entrants, folder, break_after: int | None = None):
    """A seat host on 127.0.0.1 for ``entrants``; yields its port."""
    started: list[str] = []

    async def start(nursery, name, game):
        bot = {e.name: e for e in entrants}[name]
        started.append(name)
        stderr = folder / f"host-{name}.stderr.log"
        process = await BotProcess.start(nursery, bot.command, stderr, None, bot.sandbox, folder / "work")
        return Started(process, "sha256:as-the-host-found-it", stderr)

    async def link(stream):
        if break_after is not None:
            stream = BreaksAfter(stream, break_after)
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await serve_seat(stream, TOKEN, "machine-b", start)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, link, listeners)
        yield listeners[0].socket.getsockname()[1], started
        nursery.cancel_scope.cancel()


def remote(entrant, port, token=TOKEN):
    async def connect(nursery, log_path):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        return await RemoteSeat.open(nursery, stream, token, entrant.name, "g1", log_path)

    return attrs.evolve(entrant, connect=connect)


async def game(here, there, folder, break_after=None):
    async with seat_host([there], folder, break_after) as (port, _), trio.open_nursery() as nursery:
        players = [Player(here, folder / "here.log", startup_timeout=10),
                   Player(remote(there, port), folder / "there.log", startup_timeout=10)]
        with trio.fail_after(60):  # the referee must never hang
            record = await play_game(nursery, players, V, 5, "g1")
        for p in players:
            await p.close()
        nursery.cancel_scope.cancel()
    return record, players


def test_a_game_with_a_bot_on_another_machine_is_played_and_recorded_as_any_other(tmp_path):
    record, players = trio.run(game, sample("greedy"), sample("random"), tmp_path)
    assert record.termination is Termination.COMPLETED
    assert replay_record(record).ok
    assert record.seats[1].program == "sha256:as-the-host-found-it"  # what the host ran, not what is here
    assert record.seats[1].bot_name and record.actions
    assert any(a.seat == 1 and a.ms >= 0 for a in record.actions)  # its clock is kept here
    assert (tmp_path / "there.log").exists()  # its stderr log came back with it


@pytest.mark.parametrize("mode, termination", [("illegal", Termination.ILLEGAL_ACTION), ("sleep", Termination.TIMEOUT),
                                               ("exit", Termination.CRASH), ("garbage", Termination.PROTOCOL_ERROR),
                                               ("infoflood", Termination.PROTOCOL_ERROR)])
def test_a_remote_bots_fault_is_charged_to_it_as_here(mode, termination, tmp_path):
    record, _ = trio.run(game, sample("greedy"), faulty(mode, 2, FAST if mode == "sleep" else ROOMY), tmp_path)
    assert record.termination is termination and record.culprit == 1, (record.termination, record.detail)


def test_a_link_that_breaks_is_not_the_bots_fault(tmp_path):
    with pytest.raises(BaseException) as raised:  # out of the game: it is played again, not recorded
        trio.run(game, sample("greedy"), sample("random"), tmp_path, 12)
    found = raised.value
    while isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    assert isinstance(found, SeatHostLost), repr(found)


def test_a_link_without_the_runs_token_starts_nothing(tmp_path):
    async def attempt():
        async with seat_host([sample("random")], tmp_path) as (port, started), trio.open_nursery() as nursery:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            with pytest.raises(SeatHostLost, match="not a referee of this run"):
                await RemoteSeat.open(nursery, stream, "a-guess", "random", "g1", None)
            assert started == []
            nursery.cancel_scope.cancel()

    trio.run(attempt)


def test_a_bot_that_cannot_start_there_fails_to_start_as_here(tmp_path):
    from referee.bots.transport import BotCommand, BotStartError
    from referee.match import Entrant

    ghost = Entrant("ghost", BotCommand((str(tmp_path / "no-such-bot"),)), ROOMY)

    async def attempt():
        async with seat_host([ghost], tmp_path) as (port, _), trio.open_nursery() as nursery:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            with pytest.raises(BotStartError):
                await RemoteSeat.open(nursery, stream, TOKEN, "ghost", "g1", None)
            nursery.cancel_scope.cancel()

    trio.run(functools.partial(attempt))


def test_on_a_tls_cluster_the_link_is_tls_with_the_workers_certificates(tmp_path):
    """The seat host listens with the worker's own TLS settings (as Dask makes them from the cluster's
    certificates) and a referee connects with its worker's: a link without a certificate of the cluster's
    authority is refused before a word of the protocol."""
    import ssl

    from distributed.security import Security

    from tournaments.cluster_security import CA, cert_files, make_certificates

    make_certificates(tmp_path / "certs")
    cert, key = (str(tmp_path / "certs" / f) for f in cert_files("worker"))
    worker = Security(tls_ca_file=str(tmp_path / "certs" / CA), tls_worker_cert=cert, tls_worker_key=key,
                      require_encryption=True)
    serving = worker.get_listen_args("worker")["ssl_context"]
    connecting = worker.get_connection_args("worker")["ssl_context"]

    async def both():
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        tls = [trio.SSLListener(listener, serving, https_compatible=False) for listener in listeners]

        async def start(nursery, name, game):
            bot = sample("random")
            stderr = tmp_path / "host.log"
            return Started(await BotProcess.start(nursery, bot.command, stderr, None, bot.sandbox, tmp_path / "w"),
                           "sha256:x", stderr)

        async def link(stream):
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await serve_seat(stream, TOKEN, "machine-b", start)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, link, tls)
            stream = trio.SSLStream(await trio.open_tcp_stream("127.0.0.1", port), connecting,
                                    server_hostname="127.0.0.1")
            seat = await RemoteSeat.open(nursery, stream, TOKEN, "random", "g1", None)
            assert seat.machine == "machine-b"
            await seat.kill()
            stranger = ssl.create_default_context(cafile=str(tmp_path / "certs" / CA))
            stranger.check_hostname = False
            plain = trio.SSLStream(await trio.open_tcp_stream("127.0.0.1", port), stranger,
                                   server_hostname="127.0.0.1")
            with pytest.raises(SeatHostLost):
                await RemoteSeat.open(nursery, plain, TOKEN, "random", "g1", None)
            nursery.cancel_scope.cancel()

    trio.run(both)
