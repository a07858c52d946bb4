"""What a Dask worker runs for a tournament: one batch of games, played by a referee of its own.

:mod:`tournaments.cluster` (on the machine that runs ``tournament``) submits
:func:`play_batch` as a task; the worker runs it in one of its threads. The
task plays its games one after another in one slot (:func:`tournaments.slot.play_slot`,
the same code as a slot on one machine: fresh processes, the jail, boards'
one seating per process), and returns the records as JSON, with the bots'
logs, to the client, which alone seals and writes them. A worker never sees
the results' secret key. With partners apart, a batch's partner seats are
played by a seat host on another machine (:func:`remote_partners`,
:mod:`tournaments.cluster_seats`).

Paths differ between machines, so the client sends its paths with a note of
what each is (:class:`PathMap`): its pinochle-arena installation (the sample
bots and the rules library), its Python interpreter, and each folder it
ships. Here they are replaced by this worker's installation, interpreter and
unpacked folders; any other path (a bot "at the same path on every worker")
is used as it is.

Before its first batch of a run, a worker checks that it can start every
bot (the program is there, the jail works, the same version of
pinochle-arena). If not, the task fails with :class:`CannotPlayHere`, which
the client reports once and answers by sending the batch elsewhere: a
program missing on one machine is that machine's problem, not a fault of
the bot. A bot that is there and fails to start is a fault of the bot, as
on one machine.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import shutil
import sys
import tarfile
import threading
from pathlib import Path

import attrs
import trio

from referee import installed_version
from referee.bots.remote import RemoteSeat, SeatHostLost
from referee.bots.samples import SAMPLES, core_library
from referee.bots.sandbox import SandboxError
from referee.bots.transport import STDERR_CAP, BotStartError
from referee.match import Entrant
from referee.records.record import GameRecord

from .cluster_security import peer_role, roles_checked
from .config import TournamentConfig
from .schedule import GameSpec
from .slot import play_slot

ROOT = Path(__file__).resolve().parent.parent  # the installation: sample_bots/, protocol/, referee/ are in it
STOP_POLL = 1.0  # seconds between looks at the run's stop event


class CannotPlayHere(Exception):
    """This worker cannot start the bots (a program missing, no jail, another version); not a bot's fault."""

    def __init__(self, worker: str, reason: str):
        super().__init__(worker, reason)
        self.worker = worker
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.worker}: {self.reason}"


@attrs.frozen
class PathMap:
    """The client's paths that mean something else on a worker: ``(client path, kind, detail)``, where kind is
    ``installation`` (pinochle-arena's folder), ``python`` (``sys.executable``), ``python-base`` (its real
    path), ``core`` (the folder of a sample bot's compiled core, which an installed package builds in the user's
    cache; detail: the sample's name) or ``shipped`` (detail: the folder's sha256)."""

    paths: tuple[tuple[str, str, str], ...]

    @classmethod
    def of_client(cls, shipped: dict[str, str]) -> PathMap:
        """This machine's paths; ``shipped`` maps folder -> sha256 of its archive."""
        # (where the two interpreter paths are one, the later, sys.executable, wins: it has the package's libraries)
        paths = [(str(ROOT), "installation", ""), (os.path.realpath(sys.executable), "python-base", ""),
                 (sys.executable, "python", "")]
        paths += [(str(_core_folder(name)), "core", name) for name in _with_core()]
        paths += [(folder, "shipped", digest) for folder, digest in shipped.items()]
        return cls(tuple(sorted(paths, key=lambda p: -len(p[0]))))  # the longest prefix wins

    def here(self, unpacked: dict[str, Path]) -> dict[str, str]:
        """Client path -> this machine's path (``unpacked``: sha256 -> where that archive is unpacked)."""
        local = {"installation": str(ROOT), "python": sys.executable, "python-base": os.path.realpath(sys.executable)}
        return {path: str(unpacked[detail]) if kind == "shipped" else str(_core_folder(detail)) if kind == "core"
                else local[kind] for path, kind, detail in self.paths}


def _with_core() -> list[str]:
    return [name for name, sample in SAMPLES.items() if sample.core is not None]


def _core_folder(sample: str) -> Path:
    core = SAMPLES[sample].core
    if core is None:
        raise ValueError(f"the sample {sample} has no compiled core")
    return core_library(core).parent


def translate(entrant: Entrant, mapping: dict[str, str]) -> Entrant:
    """``entrant`` with every path of its command, working folder, environment and read-only folders moved by
    ``mapping`` (client prefix -> path here)."""
    def move(text: str) -> str:
        for prefix, here in mapping.items():  # longest first
            if text == prefix or text.startswith(prefix + os.sep):
                return here + text[len(prefix):]
        return text

    command = entrant.command
    command = attrs.evolve(command, argv=tuple(move(w) for w in command.argv),
                           cwd=move(command.cwd) if command.cwd else None,
                           env=tuple((k, move(v)) for k, v in command.env),
                           read_only=tuple(move(p) for p in command.read_only))
    sandbox = attrs.evolve(entrant.sandbox, read_only=tuple(move(p) for p in entrant.sandbox.read_only))
    return attrs.evolve(entrant, command=command, sandbox=sandbox)


class ShipError(ValueError):
    """A folder that cannot be shipped; the message says which file and why."""


def pack(folder: str) -> bytes:
    """A folder as a gzipped tar, for shipping to the workers (symbolic links kept as links).

    Checked here with the filter :func:`unpack` uses, so a folder the
    workers would refuse (a link out of it, a device) is refused at once.
    """
    buffer = io.BytesIO()
    try:
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            tar.add(folder, arcname=".", filter=functools.partial(_refused_by_workers, folder=folder))
    except tarfile.FilterError as e:
        raise ShipError(f"cannot ship {folder}: {e}") from None
    except OSError as e:
        raise ShipError(f"cannot ship {folder}: {e}") from None
    return buffer.getvalue()


def _refused_by_workers(member: tarfile.TarInfo, folder: str) -> tarfile.TarInfo:
    tarfile.data_filter(member, folder)  # raises what unpack() would; its changed copy is not what is packed
    return member


_unpack_lock = threading.Lock()


def unpack(archive: bytes, cache: Path) -> Path:
    """Unpack a shipped folder under ``cache`` (once per cache and content); returns its folder.

    tarfile's ``data`` filter refuses what a folder of a bot has no business
    holding: absolute names, links out of the folder, devices.
    """
    digest = hashlib.sha256(archive).hexdigest()
    target = cache / digest
    with _unpack_lock:
        if not target.is_dir():
            cache.mkdir(parents=True, exist_ok=True)
            partial = cache / f".{digest}.{os.getpid()}.{threading.get_ident()}"
            shutil.rmtree(partial, ignore_errors=True)
            with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
                tar.extractall(partial, filter="data")
            try:
                os.rename(partial, target)  # atomic; another worker process of this machine may have won
            except OSError:
                shutil.rmtree(partial, ignore_errors=True)
                if not target.is_dir():
                    raise
    return target


@attrs.frozen
class BatchResult:
    """What one task sends back: who played it, the records (JSON lines) and the logs (file name -> text)."""

    worker: str
    records: tuple[str, ...]
    logs: tuple[tuple[str, str], ...] = ()


BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def machine_of() -> str:
    """Which machine this worker runs on, as seatings apart must tell them: its running kernel (what shares a
    page cache), named by a hash of the kernel's boot id; containers on one kernel are one machine."""
    try:
        boot = BOOT_ID.read_text().strip()
    except OSError:
        import socket

        boot = socket.gethostname()
    return hashlib.sha256(boot.encode()).hexdigest()[:12]


# Per worker process and run: None when this worker can play, else why not (checked once, before the first batch).
_checked: dict[str, str | None] = {}


def play_batch(run: str, config: TournamentConfig, specs: list[GameSpec], retired: frozenset[str],
               transcripts: bool, paths: PathMap, archives: dict[str, bytes], version: str,
               partner: dict | None = None) -> BatchResult:
    """The task: play ``specs`` here, in order, and return their records. Runs in a Dask worker's thread.
    With ``partner`` (partners apart), every team's second member is played by that seat host on another
    machine (:mod:`tournaments.cluster_seats`)."""
    from distributed import get_worker

    worker = get_worker()
    home = Path(worker.local_directory) / "pinochle-arena"
    unpacked = {digest: unpack(archive, home / "shipped") for digest, archive in archives.items()}
    mapping = paths.here(unpacked)
    entrants = {name: translate(e, mapping) for name, e in config.seat_entrants().items()}
    if run not in _checked:
        _checked[run] = _problem(entrants, version)
    problem = _checked[run]
    if problem is not None:
        raise CannotPlayHere(worker.address, problem)
    if partner is not None:
        entrants = remote_partners(entrants, config, partner, worker)
    folder = home / "runs" / run / f"{threading.get_ident()}"
    shutil.rmtree(folder, ignore_errors=True)
    logs = folder / "logs"
    logs.mkdir(parents=True)
    stop = functools.partial(_stopped, worker, f"pinochle-arena-stop-{run}")
    records: list[str] = []

    async def batch() -> None:
        send, receive = trio.open_memory_channel(len(specs) or 1)
        for spec in specs:
            send.send_nowait(spec)
        send.close()

        async def finished(record: GameRecord) -> None:
            records.append(record.to_json())

        async with trio.open_nursery() as nursery:
            nursery.start_soon(_watch, stop, nursery.cancel_scope)
            await play_slot(0, receive, entrants, config, logs, finished, transcripts, set(retired))
            nursery.cancel_scope.cancel()

    try:
        trio.run(batch)
        return BatchResult(worker.address, tuple(records), _read_logs(logs))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def remote_partners(entrants: dict[str, Entrant], config: TournamentConfig, partner: dict,
                    dask_worker) -> dict[str, Entrant]:
    """``entrants`` with every team's second member played by the seat host ``partner`` names
    (``{"address": "HOST:PORT", "token": ...}``) over a link with this worker's TLS settings."""
    ssl_context = dask_worker.security.get_connection_args("worker").get("ssl_context")
    checked = roles_checked(dask_worker.security)
    host, port = partner["address"].rsplit(":", 1)
    out = dict(entrants)
    for team in config.teams:
        member = team.members()[1]
        out[member] = attrs.evolve(entrants[member], connect=functools.partial(
            _connect, host.strip("[]"), int(port), ssl_context, checked, partner["token"], member))
    return out


async def _connect(host: str, port: int, ssl_context, checked: bool, token: str, member: str, nursery: trio.Nursery,
                   stderr_path: Path | None) -> RemoteSeat:
    """A link to the seat host at ``host:port`` (TLS with ``ssl_context``; with ``checked``, the host must show a
    worker's certificate)."""
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as e:
        raise SeatHostLost(f"cannot reach the seat host at {host}:{port}: {e}") from None
    link: trio.abc.Stream = stream
    if ssl_context is not None:
        link = secure = trio.SSLStream(stream, ssl_context, server_hostname=host)
        if checked:
            try:
                await secure.do_handshake()
            except trio.BrokenResourceError as e:
                raise SeatHostLost(f"no TLS link to the seat host at {host}:{port}: {e.__cause__ or e}") from None
            found = peer_role(secure.getpeercert())
            if found != "worker":
                await trio.aclose_forcefully(secure)
                shown = "a certificate that names no role" if found is None else f"the {found}'s certificate"
                raise SeatHostLost(f"the seat host at {host}:{port} showed {shown}, not a worker's")
    return await RemoteSeat.open(nursery, link, token, member, member, stderr_path)




async def _watch(stop, cancel: trio.CancelScope) -> None:
    """Stop the batch (its bots are closed) once the client says the tournament is stopped."""
    while not await trio.to_thread.run_sync(stop, STOP_POLL, abandon_on_cancel=True):
        pass
    cancel.cancel()


def _stopped(worker, name: str, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for the client's stop event ``name``: whether it was set. Asked through the
    worker's own link to the scheduler, not a Client in the worker (``distributed.Event``'s way), which would need
    a client's certificate (:mod:`tournaments.cluster_roles`)."""
    from distributed.utils import sync

    return sync(worker.loop, worker.scheduler.event_wait, name=name, timeout=timeout)


def _problem(entrants: dict[str, Entrant], version: str) -> str | None:
    """Why this worker cannot start the bots, or None."""
    mine = installed_version()
    if mine != version:
        return f"it has pinochle-arena {mine}, the tournament runs {version}; install the same version on every worker"
    for entrant in entrants.values():
        try:
            for sample in SAMPLES.values():
                built = sample.source is not None or sample.core is not None
                if built and entrant.command.argv[:len(sample.argv)] == sample.argv:
                    sample.command()  # a C sample, montecarlo's core: built on this machine before its first game
            entrant.command.check()
            entrant.sandbox.check()
        except (BotStartError, SandboxError) as e:
            return f"cannot start bot {entrant.name!r}: {e}"
    return None


def _read_logs(folder: Path) -> tuple[tuple[str, str], ...]:
    """The batch's logs, each cut to the size one bot process may write (the referee's own cap on stderr)."""
    logs = []
    for path in sorted(folder.glob("*.log")):
        with path.open("rb") as f:
            data = f.read(STDERR_CAP + 1)
        text = data[:STDERR_CAP].decode("utf-8", "replace")
        if len(data) > STDERR_CAP:
            text += f"\n[pinochle-arena: the rest of this batch's log was cut at {STDERR_CAP} bytes]\n"
        logs.append((path.name, text))
    return tuple(logs)
