"""Each cluster certificate is good for its own role only: Dask's ``tls://`` comms, checking the role at both ends.

Dask checks that a peer's certificate was signed by the cluster's authority,
and nothing more: the workers' certificate (on every worker machine, and
readable by an unjailed bot) opened a client's connection to the scheduler as
well as a worker's, and a client runs code on every worker; it opened a
scheduler's connection to a worker too. Every certificate names its role
(:mod:`tournaments.cluster_security`), and the comms of this module, which
replace Dask's ``tls://`` ones in a process that imports it, check that role
as soon as the TLS handshake is done, before a byte of Dask's protocol is
read:

* **who may connect** (:data:`ACCEPTS`): the client and workers to the
  scheduler, the scheduler and workers to a worker or its nanny. Any other
  certificate, and one that names no role, is cut off at once, with a line
  in the server's log.
* **what a worker may say**: a worker's connection may name only the
  operations workers use (:data:`WORKER_TO_SCHEDULER`: joining, heartbeats,
  its tasks' results; to another worker only ``get_data``; to a nanny only
  ``close_gracefully``), and may not carry a pickled object (Dask unpickles
  those as it reads a message, whatever the operation). Each message is looked
  at before Dask decodes it; one that breaks these rules ends the connection.
  The client and the scheduler are not limited.
* **whom a connection reaches**: the scheduler's address must answer with the
  scheduler's certificate, any other with a worker's (the client's never
  serves: it may not even be used for a server, by its purposes).

Dask's commands load it with ``--preload tournaments.cluster_roles`` (and
``--preload-nanny``: ``cluster scheduler`` and ``cluster worker`` pass both):
importing it installs the comms, before the server listens, and
:func:`dask_setup` then tells the process where its scheduler is. The client
installs it through :func:`client_security`.

Two things a worker did with its certificate now fail: a ``Client`` inside a
task (``get_client``, ``worker_client``, a ``distributed.Event`` in a task),
which Dask opens with the worker's certificate as a client's; a batch asks the
scheduler for its stop event through the worker's own link instead. And
Dask's P2P shuffle, which we do not use, talks worker to worker.

What a worker's key still does: join the cluster as a worker. A worker is
trusted with what it plays (docs/cluster.md), and Dask unpickles the results a
worker hands back (on the client) and the data it serves (on the workers that
fetch it), so keep the key on the organiser's machines.
"""

from __future__ import annotations

import functools
import logging
import struct
from pathlib import Path
from ssl import SSLError

import attrs
import msgpack
from distributed.comm import registry
from distributed.comm.core import CommClosedError, FatalCommClosedError
from distributed.comm.tcp import TLS, TLSBackend, TLSConnector, TLSListener, convert_stream_closed_error, read_bytes_rw
from distributed.comm.utils import from_frames
from distributed.protocol.utils import unpack_frames
from tornado.iostream import StreamClosedError

from .cluster_security import CA, REMAKE, SCHEDULER_KEY, certificate_role, peer_role, role_files

logger = logging.getLogger(__name__)

# What a worker sends the scheduler: its requests (a nanny's too) and the messages of its stream
# (distributed.scheduler.Scheduler's worker_handlers).
WORKER_TO_SCHEDULER = frozenset({
    "register-worker", "register_nanny", "heartbeat_worker", "unregister", "who_has", "retire_workers", "log_event",
    "event_wait", "close",
    "task-finished", "task-erred", "release-worker-data", "add-keys", "long-running", "reschedule", "keep-alive",
    "log-event", "worker-status-change", "request-refresh-who-has", "close-stream",
})


@attrs.frozen
class Limit:
    """What a peer may say: the operations it may name, and whether Dask's serialized objects (``__Serialized__``,
    which the scheduler keeps as bytes and hands on) may travel; a pickled one (``__Pickled__``) never may."""

    ops: frozenset[str]
    serialized: bool = False

    def problem(self, header: bytes) -> str | None:
        """Why the message whose first frame is ``header`` is refused, or None."""
        try:
            message = msgpack.loads(header, use_list=False, strict_map_key=False, raw=False)
        except Exception:  # noqa: BLE001 - anything msgpack raises: a message Dask could not read either
            return "a message that is not Dask's"
        items = message if isinstance(message, tuple) else (message,)
        for op in (item.get("op") for item in items if isinstance(item, dict)):
            if op is not None and (not isinstance(op, str) or op not in self.ops):
                return f"it asked for {op!r}"
        markers = {"__Pickled__"} if self.serialized else {"__Pickled__", "__Serialized__"}
        if _holds_key(message, markers):
            return "it sent a Python object"
        return None


# server -> role of the peer -> what it may say there (None: anything). A role missing is not let in.
ACCEPTS: dict[str, dict[str, Limit | None]] = {
    "scheduler": {"client": None, "worker": Limit(WORKER_TO_SCHEDULER, serialized=True)},
    "worker": {"scheduler": None, "worker": Limit(frozenset({"get_data", "close"}))},
    "nanny": {"scheduler": None, "worker": Limit(frozenset({"close_gracefully", "close"}))},
}


def refusal(server: str, role: str | None) -> str | None:
    """Why a peer whose certificate names ``role`` may not connect to ``server``, or None."""
    if role is None:
        return f"its certificate names no role (made before each was good for its own role only): {REMAKE}"
    if role not in ACCEPTS[server]:
        return f"a {role}'s certificate is not let in by a {server}"
    return None


def server_kind(server) -> str:
    """'scheduler', 'worker' or 'nanny': the kind of Dask server ``server`` is."""
    from distributed import Nanny, Scheduler, Worker

    for kind, cls in (("scheduler", Scheduler), ("nanny", Nanny), ("worker", Worker)):
        if isinstance(server, cls):
            return kind
    raise ValueError(f"{server!r} is not a Dask scheduler, worker or nanny: nothing says whom it lets in")


class RoleTLS(TLS):
    """An accepted TLS comm whose reads are checked against its peer's :class:`Limit` before Dask decodes them."""

    def __init__(self, stream, local_addr: str, peer_addr: str, deserialize: bool = True, *, server: str):
        super().__init__(stream, local_addr, peer_addr, deserialize)
        self.peer_role = peer_role(self._extra.get("peercert"))
        self.limit = ACCEPTS[server][self.peer_role or ""]  # (no role: refused by the listener; else a KeyError)
        self.server = server

    async def read(self, deserializers=None):
        if self.limit is None:
            return await super().read(deserializers)
        frames = await self._read_frames()
        problem = self.limit.problem(frames[0])
        if problem is not None:
            logger.warning("pinochle-arena: the %s cut off the %s at %s: %s", self.server, self.peer_role,
                           self.peer_address, problem)
            self.abort()
            raise CommClosedError(f"the {self.server} refused the {self.peer_role}'s message: {problem}")
        try:
            return await from_frames(frames, deserialize=self.deserialize, deserializers=deserializers,
                                     allow_offload=self.allow_offload)
        except EOFError:
            self.abort()
            raise CommClosedError("aborted stream on truncated data") from None

    async def _read_frames(self) -> list:
        """One message's frames, not yet decoded (as Dask's TCP.read reads them)."""
        stream = self.stream
        if stream is None:
            raise CommClosedError()
        try:
            (size,) = struct.unpack("Q", await stream.read_bytes(struct.calcsize("Q")))
            frames, buffer_sizes = unpack_frames(await read_bytes_rw(stream, size), partial=True)
            for buffer_size in buffer_sizes:
                frames.append(await read_bytes_rw(stream, buffer_size))
        except (StreamClosedError, SSLError) as e:
            self.stream = None
            self._closed = True
            convert_stream_closed_error(self, e)
        except BaseException:
            self.abort()  # what was read is unknown: the stream cannot be read on
            raise
        return frames


class RoleTLSListener(TLSListener):
    """Dask's TLS listener, letting in only the roles its server accepts (:data:`ACCEPTS`)."""

    def __init__(self, address, comm_handler, deserialize=True, allow_offload=True, default_host=None,
                 default_port=0, **connection_args):
        super().__init__(address, comm_handler, deserialize, allow_offload, default_host, default_port,
                         **connection_args)
        self.server = server_kind(getattr(comm_handler, "__self__", None))
        self.comm_class = functools.partial(RoleTLS, server=self.server)

    async def _prepare_stream(self, stream, address):
        stream = await super()._prepare_stream(stream, address)  # the TLS handshake (None if it failed)
        if stream is None:
            return None
        problem = refusal(self.server, peer_role(stream.socket.getpeercert()))
        if problem is not None:
            logger.warning("pinochle-arena: the %s at %s refused %s: %s", self.server, self.contact_address, address,
                           problem)
            stream.close()
            return None
        return stream


class RoleTLSConnector(TLSConnector):
    """Dask's TLS connector, requiring the scheduler's certificate at the scheduler's address and a worker's
    elsewhere, where the connection's ``extra_conn_args`` say where the scheduler is (else as Dask's)."""

    async def connect(self, address, deserialize=True, **connection_args):
        comm = await super().connect(address, deserialize, **connection_args)
        scheduler = (connection_args.get("extra_conn_args") or {}).get(SCHEDULER_KEY)
        if scheduler is None:
            return comm
        expected = "scheduler" if address == scheduler else "worker"
        found = peer_role(comm.extra_info.get("peercert"))
        if found != expected:
            comm.abort()
            named = "a certificate that names no role" if found is None else f"the {found}'s certificate"
            raise FatalCommClosedError(f"tls://{address} answered with {named} where the {expected}'s was expected"
                                       + (f": {REMAKE}" if found is None else ""))
        return comm


class RoleTLSBackend(TLSBackend):
    _connector_class = RoleTLSConnector
    _listener_class = RoleTLSListener


def client_security(folder: str | Path, address: str):
    """Dask's Security for the client of the scheduler at ``address``, with the certificates of ``folder``: its
    certificate, the authority, encryption required, and (the certificates naming their roles) the scheduler's
    certificate required at that address, these comms installed. A set from another TLS set-up (dask-kubernetes,
    dask-jobqueue), whose certificates name no role, is used as it is; one of ours from before roles is refused
    (CertificateError)."""
    from distributed.security import Security

    cert, key = role_files(Path(folder), "client", others=True)
    extra = {}
    if certificate_role(Path(cert)) is not None:
        install()
        extra[SCHEDULER_KEY] = address.split("://", 1)[-1]
    return Security(tls_ca_file=str(Path(folder) / CA), tls_client_cert=cert, tls_client_key=key,
                    require_encryption=True, extra_conn_args=extra)


def install() -> None:
    """Make ``tls://`` mean this module's comms in this process (for listeners and connections made from now on)."""
    if not isinstance(registry.backends.get("tls"), RoleTLSBackend):
        registry.backends["tls"] = RoleTLSBackend()


def dask_setup(server) -> None:
    """Dask's preload hook, run once the server listens and before it opens a connection: its connections expect the
    scheduler's certificate at the scheduler's address, and a worker's everywhere else."""
    kind = server_kind(server)
    if kind == "scheduler":
        address = server.address
    elif kind == "nanny":
        address = server.scheduler_addr
    else:
        address = server.scheduler.address
    server.security.extra_conn_args[SCHEDULER_KEY] = address.split("://", 1)[-1]


def _holds_key(message, keys: set[str]) -> bool:
    """Whether a dict anywhere in ``message`` (dicts, lists and tuples inside each other) has one of ``keys``."""
    stack = [message]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any(isinstance(k, str) and k in keys for k in item):
                return True
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


install()  # on import: Dask imports a --preload module before its server listens
