"""Partners apart: seat hosts, which play partner seats on another worker's machine.

With seatings apart in a partnership variant, a game's referee (a batch on
one machine) plays seats 0 and 1 and a *seat host* on another machine plays
seats 2 and 3, so the two partners of each team never share a kernel
(:mod:`referee.bots.remote` relays their lines; the clock stays with the
referee). :mod:`tournaments.cluster_placement` chooses both machines so that
no machine holds two hands of one deal for a bot.

The client opens a seat host in every worker process (:func:`open_seat_host`,
through ``client.run``, outside the worker's task threads, so a host never
waits for a thread a batch holds). A host is a thread with a trio loop of
its own, listening on the worker's own address (with the worker's TLS
settings on a TLS cluster, where a link must show a worker's certificate,
and the referee's end checks that the host does too) for links that present
the run's secret token;
it starts the bots of the run's configuration, with the same path
translation, shipped folders, jail and checks as a batch
(:mod:`tournaments.cluster_worker`), and says its bots' fingerprints, which
the client compares with its own before using it. (The referee's end, in a
batch, is :func:`tournaments.cluster_worker.remote_partners`.) It closes when the client
closes it (:func:`close_seat_host`) or when no link has come for
``IDLE_CLOSE`` seconds (a client that was killed).
"""

from __future__ import annotations

import functools
import secrets
import shutil
import threading
from pathlib import Path

import attrs
import trio

from referee import installed_version
from referee.bots.fingerprint import fingerprint
from referee.bots.remote import Started, serve_seat
from referee.bots.transport import BotProcess
from referee.match import Entrant, file_safe

from . import cluster_worker
from .cluster_security import peer_role, roles_checked
from .cluster_worker import PathMap, _problem, translate, unpack
from .config import TournamentConfig

IDLE_CLOSE = 900.0  # seconds without a link before a seat host closes by itself


@attrs.define(eq=False)
class _Host:
    run: str
    token: str
    entrants: dict[str, Entrant]
    programs: dict[str, str]
    folder: Path
    machine: str
    checked: bool = False  # a link must show a worker's certificate (the cluster's certificates name roles)
    address: str = ""
    trio_token: trio.lowlevel.TrioToken | None = None
    cancel: trio.CancelScope | None = None
    thread: threading.Thread | None = None
    links: int = 0  # open links
    games: int = 0  # links served so far (names each game's folder)

    def info(self) -> dict:
        return {"address": self.address, "machine": self.machine, "programs": self.programs}


_hosts: dict[str, _Host] = {}  # run -> this worker process's seat host for it
_hosts_lock = threading.Lock()


def open_seat_host(run: str, token: str, config: TournamentConfig, paths: PathMap, archives: dict[str, bytes],
                   version: str, dask_worker=None) -> dict:
    """Run by ``client.run`` in a worker process: start its seat host for ``run`` (once); returns
    ``{"address": "HOST:PORT", "machine": ..., "programs": {seat entrant: fingerprint}}``, or ``{"problem": why}``
    when this worker cannot start the bots."""
    with _hosts_lock:
        if run in _hosts:
            return _hosts[run].info()
        home = Path(dask_worker.local_directory) / "pinochle-arena"
        unpacked = {digest: unpack(archive, home / "shipped") for digest, archive in archives.items()}
        mapping = paths.here(unpacked)
        entrants = {name: translate(e, mapping) for name, e in config.seat_entrants().items()}
        problem = _problem(entrants, version)
        if problem is not None:
            return {"problem": problem}
        folder = home / "seats" / run
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        host = _Host(run, token, entrants, {n: fingerprint(e.command) for n, e in entrants.items()}, folder,
                     cluster_worker.machine_of(),  # (looked up here: a test's worker pretends)
                     roles_checked(dask_worker.security))
        bind = dask_worker.address.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]")
        ssl_context = dask_worker.security.get_listen_args("worker").get("ssl_context")
        listening = threading.Event()
        host.thread = threading.Thread(target=trio.run, args=(_serve, host, bind, ssl_context, listening),
                                       name=f"pinochle-arena seat host {run}", daemon=True)
        host.thread.start()
        if not listening.wait(30) or not host.address:
            return {"problem": f"its seat host could not listen on {bind}"}
        _hosts[run] = host
        return host.info()


def close_seat_host(run: str) -> None:
    """Run by ``client.run`` at the end of a run: close this worker process's seat host for ``run``."""
    with _hosts_lock:
        host = _hosts.pop(run, None)
    if host is None or host.trio_token is None or host.cancel is None or host.thread is None:
        return  # (none, or it never listened: it set these before it did)
    try:
        trio.from_thread.run_sync(host.cancel.cancel, trio_token=host.trio_token)
    except trio.RunFinishedError:
        pass
    host.thread.join(10)
    shutil.rmtree(host.folder, ignore_errors=True)


async def _serve(host: _Host, bind: str, ssl_context, listening: threading.Event) -> None:
    try:
        listeners = await trio.open_tcp_listeners(0, host=bind)
    except OSError:
        listening.set()
        return
    port = listeners[0].socket.getsockname()[1]
    served: list[trio.abc.Listener[trio.abc.Stream]] = list(listeners)
    if ssl_context is not None:
        served = [trio.SSLListener(listener, ssl_context, https_compatible=False) for listener in listeners]
    host.address = f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}"
    host.trio_token = trio.lowlevel.current_trio_token()
    async with trio.open_nursery() as nursery:
        host.cancel = nursery.cancel_scope
        listening.set()
        nursery.start_soon(_close_when_idle, host, nursery.cancel_scope)
        await trio.serve_listeners(functools.partial(_link, host), served)


async def _close_when_idle(host: _Host, cancel: trio.CancelScope) -> None:
    idle_since = trio.current_time()
    while True:
        await trio.sleep(min(IDLE_CLOSE / 10, 60))
        if host.links:
            idle_since = trio.current_time()
        elif trio.current_time() - idle_since > IDLE_CLOSE:
            with _hosts_lock:
                _hosts.pop(host.run, None)
            cancel.cancel()
            return


async def _link(host: _Host, stream: trio.abc.Stream) -> None:
    if host.checked and not (isinstance(stream, trio.SSLStream) and await _from_a_worker(stream)):
        return  # (a checked host listens with TLS only)
    host.links += 1
    host.games += 1
    folder = host.folder / str(host.games)
    try:
        await serve_seat(stream, host.token, host.machine, functools.partial(_start, host, folder))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the referee went away: the bot was stopped all the same
    finally:
        host.links -= 1
        shutil.rmtree(folder, ignore_errors=True)


async def _from_a_worker(stream: trio.SSLStream) -> bool:
    """Whether the link's TLS handshake went through and its peer showed a worker's certificate (a referee runs in a
    worker); if not, it is closed."""
    try:
        await stream.do_handshake()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return False
    if peer_role(stream.getpeercert()) == "worker":
        return True
    await trio.aclose_forcefully(stream)
    return False


async def _start(host: _Host, folder: Path, nursery: trio.Nursery, entrant: str, game: str) -> Started:
    """Start ``entrant`` (KeyError if the run has none of that name) as a batch would: its jail, a fresh process,
    the host's folder hidden from it."""
    bot = host.entrants[entrant]
    stderr = folder / f"{file_safe(entrant)}.stderr.log"
    folder.mkdir(parents=True, exist_ok=True)
    process = await BotProcess.start(nursery, bot.command, stderr, None, bot.sandbox, folder / "work",
                                     (str(host.folder),))
    return Started(process, host.programs[entrant], stderr)


@attrs.define(eq=False)
class SeatHosts:
    """The client's side: a seat host in every worker process, opened as workers join, and which to use for a
    machine."""

    run: str
    config: TournamentConfig  # the configuration the tasks carry
    paths: PathMap
    archives: dict[str, bytes]
    expected: dict[str, str]  # seat entrant -> the fingerprint of its program on the client's machine
    token: str = attrs.Factory(lambda: secrets.token_hex(32))
    hosts: dict[str, dict] = attrs.Factory(dict)  # worker -> its host's address, machine and programs

    def update(self, client, workers) -> list[tuple[str, str]]:
        """Open hosts in the workers that have none; forget those gone. Returns (worker, why) for every new
        worker whose host cannot serve: it cannot start the bots, or its programs are not the client's."""
        for gone in set(self.hosts) - set(workers):
            del self.hosts[gone]
        new = [w for w in workers if w not in self.hosts]
        if not new:
            return []
        try:
            answers = client.run(open_seat_host, self.run, self.token, self.config, self.paths, self.archives,
                                 installed_version(), workers=new, on_error="return")
        except Exception:  # noqa: BLE001 - a worker gone again at once: asked next time
            return []
        refused = []
        for worker, info in answers.items():
            if not isinstance(info, dict):
                continue  # it failed to answer: asked again when the members change
            if "problem" in info:
                refused.append((worker, info["problem"]))
                continue
            other = sorted(n for n, p in info["programs"].items() if self.expected.get(n) and p != self.expected[n])
            if other:
                why = f"has another program for {', '.join(other)} (its seat host's fingerprint differs from ours)"
                refused.append((worker, why))
                continue
            self.hosts[worker] = info
        return refused

    def on_machines(self) -> dict[str, str]:
        """Machine -> the address of a seat host on it."""
        return {info["machine"]: info["address"] for info in self.hosts.values()}

    def close(self, client) -> None:
        try:
            client.run(close_seat_host, self.run, on_error="ignore")
        except Exception:  # noqa: BLE001 - the scheduler is gone: hosts close when idle
            pass


__all__ = ["SeatHosts", "close_seat_host", "open_seat_host"]
