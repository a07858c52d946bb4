"""Each cluster certificate is good for its own role only (tournaments.cluster_roles), over real TLS on loopback.

A Dask scheduler, worker and nanny run in the test's process (the nanny's
worker in a process of its own) with the role comms loaded as the cluster's
commands load them, and each certificate is presented in every place: as the
peer a server lets in, and as the server a connection reaches. The right
pairs are let in; every other is cut off before a message of Dask's is
decoded.
"""

import asyncio
import contextlib
import datetime
import functools
import socket
import ssl
import threading
from pathlib import Path

import pytest
from distributed import Nanny, Scheduler, Worker
from distributed.comm import connect
from distributed.comm.core import CommClosedError, FatalCommClosedError
from distributed.protocol import ToPickle
from distributed.security import Security
from helpers import arena

from tournaments.cluster_roles import RoleTLSBackend, client_security
from tournaments.cluster_security import (CA, NAME, ROLE_URI, SCHEDULER_KEY, CertificateError, certificate_role,
                                          make_certificates, roles_checked)

ROLES = ["tournaments.cluster_roles"]  # as 'cluster scheduler' and 'cluster worker' load it


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("certs")
    make_certificates(folder)
    return folder


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """An authority with certificates that name their roles and one, 'old', made as before roles were."""
    folder = tmp_path_factory.mktemp("mixed")
    authority(folder, {"scheduler": "scheduler", "worker": "worker", "client": "client", "old": None})
    return folder


def authority(folder: Path, certificates: dict[str, str | None], common_name: str = NAME) -> Path:
    """An authority of the test's own (``ca.pem``) and, signed by it, ``NAME.pem`` and ``NAME-key.pem`` for each
    name: naming its role (with the purposes of ``cluster certs``) or, for None, as certificates were made before
    they named roles (no role, good for any purpose); their common names start with ``common_name``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    now = datetime.datetime.now(datetime.UTC)

    def builder(name: str, key, issuer=None):
        subject = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, name)])
        return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer or subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(1)))

    def pem(cert) -> bytes:
        return cert.public_bytes(serialization.Encoding.PEM)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = builder(f"{common_name} authority", ca_key) \
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True).sign(ca_key, hashes.SHA256())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CA).write_bytes(pem(ca))
    usage = x509.oid.ExtendedKeyUsageOID
    for name, role in certificates.items():
        key = ec.generate_private_key(ec.SECP256R1())
        purposes = [usage.CLIENT_AUTH] if role == "client" else [usage.SERVER_AUTH, usage.CLIENT_AUTH]
        cert = builder(f"{common_name} {name}", key, ca.subject) \
            .add_extension(x509.ExtendedKeyUsage(purposes), critical=False)
        if role is not None:
            cert = cert.add_extension(x509.SubjectAlternativeName([x509.UniformResourceIdentifier(ROLE_URI + role)]),
                                      critical=False)
        (folder / f"{name}.pem").write_bytes(pem(cert.sign(ca_key, hashes.SHA256())))
        (folder / f"{name}-key.pem").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return folder


def security(folder: Path, name: str, place: str, scheduler: str | None = None) -> Security:
    """Dask's settings that present ``folder``'s certificate ``name`` in the place of ``place`` (a role); with
    ``scheduler`` (host:port), its connections expect the scheduler's certificate there and a worker's elsewhere."""
    return Security(tls_ca_file=str(folder / CA), require_encryption=True,
                    extra_conn_args={SCHEDULER_KEY: scheduler} if scheduler else {},
                    **{f"tls_{place}_cert": str(folder / f"{name}.pem"),
                       f"tls_{place}_key": str(folder / f"{name}-key.pem")})


async def ask(address: str, folder: Path, name: str, message: dict):
    """Connect to ``address`` presenting ``name``'s certificate (this end checks nobody), send ``message`` and return
    the answer; CommClosedError when the server cuts the connection off."""
    comm = await connect(address, timeout=5, **security(folder, name, "client").get_connection_args("client"))
    try:
        await comm.write({"reply": True, **message})
        return await comm.read()
    finally:
        comm.abort()


def refused(address: str, folder: Path, name: str, message: dict) -> bool:
    """Whether the server at ``address`` cuts off ``name``'s connection (before or after the Dask handshake)."""
    async def attempt() -> bool:
        try:
            await ask(address, folder, name, message)
        except (CommClosedError, OSError):
            return True
        return False

    return asyncio.run(attempt())


@contextlib.contextmanager
def servers(folder: Path, *kinds: str):
    """A scheduler and, of ``kinds``, a worker and a nanny (with its worker in a process of its own) joined to it, each
    with its own certificate of ``folder`` and the role comms; they run in a thread of their own, and the block gets
    their addresses by kind."""
    addresses: dict[str, str] = {}
    ready, done = threading.Event(), threading.Event()
    failure: list[BaseException] = []

    async def serve() -> None:
        async with contextlib.AsyncExitStack() as stack:
            s = await stack.enter_async_context(Scheduler(
                protocol="tls", host="127.0.0.1", port=0, security=security(folder, "scheduler", "scheduler"),
                dashboard=False, dashboard_address="127.0.0.1:0", preload=ROLES))
            addresses["scheduler"] = s.address
            for kind in kinds:
                server = Worker if kind == "worker" else functools.partial(Nanny, preload_nanny=ROLES)
                started = await stack.enter_async_context(server(
                    s.address, security=security(folder, "worker", "worker"), host="127.0.0.1", nthreads=1,
                    dashboard=False, preload=ROLES))
                addresses[kind] = started.address
            ready.set()
            while not done.is_set():
                await asyncio.sleep(0.05)

    def main() -> None:
        try:
            asyncio.run(serve())
        except BaseException as e:  # noqa: BLE001 - the test's to report
            failure.append(e)
            ready.set()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    assert ready.wait(120), "the servers did not start"
    if failure:
        raise failure[0]
    try:
        yield addresses
    finally:
        done.set()
        thread.join(60)


class Touch:
    """Unpickled, it makes a file: what any certificate of the cluster's ran on the scheduler before roles."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return Path.touch, (self.path,)


# ------------------------------------------------------------------ the certificates

def test_each_certificate_names_its_role_and_only_the_scheduler_and_workers_may_serve(certs):
    from cryptography import x509

    usage = x509.oid.ExtendedKeyUsageOID
    for role in ("scheduler", "worker", "client"):
        assert certificate_role(certs / f"{role}.pem") == role
        cert = x509.load_pem_x509_certificate((certs / f"{role}.pem").read_bytes())
        purposes = set(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)
        assert purposes == ({usage.CLIENT_AUTH} if role == "client" else {usage.SERVER_AUTH, usage.CLIENT_AUTH})


# ------------------------------------------------------------------ who may connect, and what a worker may say

def cut_off(caplog) -> str:
    """The servers' lines about connections they cut off, since the last call."""
    lines = "\n".join(r.getMessage() for r in caplog.records if r.name == "tournaments.cluster_roles")
    caplog.clear()
    return lines


def test_the_scheduler_lets_in_the_client_and_workers_and_a_worker_says_only_what_workers_say(certs, tmp_path,
                                                                                            caplog):
    with servers(certs) as at:
        address = at["scheduler"]
        assert not refused(address, certs, "client", {"op": "identity"})  # the client: anything
        assert not cut_off(caplog)
        assert refused(address, certs, "scheduler", {"op": "identity"})  # a scheduler is not let in
        assert "a scheduler's certificate is not let in by a scheduler" in cut_off(caplog)
        for op in ("identity", "register-client", "run_function", "connection_stream"):  # a worker: only what
            assert refused(address, certs, "worker", {"op": op}), op  # workers say
            assert "cut off the worker at tls://127.0.0.1:" in (lines := cut_off(caplog)), op
            assert f"it asked for {op!r}" in lines
        touched = tmp_path / "unpickled"
        assert refused(address, certs, "worker", {"op": "heartbeat_worker", "x": ToPickle(Touch(touched))})
        assert "it sent a Python object" in cut_off(caplog)
        assert not touched.exists()  # cut off before Dask unpickled it...
        refused(address, certs, "client", {"op": "heartbeat_worker", "x": ToPickle(Touch(touched))})
        assert touched.exists()  # ...as it unpickles the client's


def test_a_worker_and_a_nanny_let_in_the_scheduler_and_a_worker_only_to_fetch_data(certs, caplog):
    with servers(certs, "worker", "nanny") as at:
        for kind in ("worker", "nanny"):
            address = at[kind]
            assert not refused(address, certs, "scheduler", {"op": "identity"}), kind  # the scheduler: anything
            assert refused(address, certs, "client", {"op": "identity"}), kind  # a client never talks to workers
            assert f"a client's certificate is not let in by a {kind}" in cut_off(caplog)
            for op in ("run", "connection_stream", "identity"):
                assert refused(address, certs, "worker", {"op": op}), (kind, op)
                assert f"the {kind} cut off the worker" in (lines := cut_off(caplog)) and f"asked for {op!r}" in lines

        async def fetch() -> dict:  # what workers ask each other
            comm = await connect(at["worker"], timeout=5,
                                 **security(certs, "worker", "client").get_connection_args("client"))
            await comm.write({"op": "get_data", "keys": [], "who": "test", "reply": True})
            answer = await comm.read()
            await comm.write("OK")
            comm.abort()
            return answer

        assert asyncio.run(fetch())["status"] == "OK"


def test_a_certificate_that_names_no_role_is_cut_off_with_the_command_that_makes_new_ones(mixed, caplog):
    with servers(mixed) as at:
        assert refused(at["scheduler"], mixed, "old", {"op": "identity"})
        assert not refused(at["scheduler"], mixed, "client", {"op": "identity"})
    lines = [r.getMessage() for r in caplog.records if "names no role" in r.getMessage()]
    assert lines and "pinochle-arena cluster certs NEWDIR" in lines[0]


# ------------------------------------------------------------------ whom a connection reaches

@contextlib.contextmanager
def bare_server(folder: Path, name: str):
    """A TLS server on loopback that shows ``name``'s certificate and wants one of ``folder``'s authority; it says
    nothing. Yields its host:port."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(folder / CA))
    context.load_cert_chain(folder / f"{name}.pem", folder / f"{name}-key.pem")
    context.verify_mode = ssl.CERT_REQUIRED
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(10)
            with contextlib.suppress(OSError), context.wrap_socket(conn, server_side=True) as tls:
                tls.recv(1)  # until the other end goes

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join(30)
        listener.close()


def reaches(folder: Path, name: str, scheduler_here: bool, connecting: str = "worker") -> str:
    """Connect, as ``connecting`` would, to a server showing ``name``'s certificate, at the scheduler's address or
    (``scheduler_here`` False) at another: 'ok', or why not."""
    with bare_server(folder, name) as address:
        expected = address if scheduler_here else "127.0.0.1:1"
        args = security(folder, connecting, connecting, scheduler=expected).get_connection_args(connecting)

        async def attempt() -> str:
            try:
                comm = await RoleTLSBackend().get_connector().connect(address, **args)
            except FatalCommClosedError as e:
                return str(e) or repr(e.__cause__)
            comm.abort()
            return "ok"

        return asyncio.run(attempt())


def test_the_scheduler_address_must_show_the_schedulers_certificate_and_every_other_a_workers(certs, mixed):
    for connecting in ("client", "worker"):
        assert reaches(certs, "scheduler", True, connecting) == "ok"
        assert "the worker's certificate where the scheduler's was expected" in reaches(certs, "worker", True,
                                                                                         connecting)
        assert reaches(certs, "client", True, connecting) != "ok"  # its purposes: it cannot serve at all
    for connecting in ("scheduler", "worker"):
        assert reaches(certs, "worker", False, connecting) == "ok"
        assert "the scheduler's certificate where the worker's was expected" in reaches(certs, "scheduler", False,
                                                                                         connecting)
        assert reaches(certs, "client", False, connecting) != "ok"
    assert "pinochle-arena cluster certs NEWDIR" in reaches(mixed, "old", True, "client")


# ------------------------------------------------------------------ certificates made before roles

def test_a_set_made_before_roles_is_refused_in_one_line_with_the_command_that_makes_a_new_one(tmp_path):
    old = authority(tmp_path / "old", {"scheduler": None, "worker": None, "client": None})
    for argv in (["cluster", "scheduler", "--certs", str(old)],
                 ["cluster", "worker", "tls://127.0.0.1:1", "--certs", str(old)],
                 ["tournament", "--bot", "random", "--bot", "greedy", "--cluster", "tls://127.0.0.1:1",
                  "--cluster-certs", str(old), "--out", str(tmp_path / "out")]):
        done = arena(*argv)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert "names no role" in lines[0] and "pinochle-arena cluster certs NEWDIR" in lines[0], done.stderr
        assert len(lines) == (2 if argv[0] == "tournament" else 1), done.stderr  # (+ how to resume, as for any
        # trouble with the cluster)


def test_a_client_certificate_of_another_set_up_is_used_as_it_is_and_another_roles_is_refused(tmp_path, certs):
    foreign = authority(tmp_path / "foreign", {"client": None}, common_name="dask-kubernetes")
    assert not roles_checked(client_security(foreign, "tls://127.0.0.1:1"))  # its own TLS set-up: used as it is
    assert roles_checked(client_security(certs, "tls://127.0.0.1:1"))
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    for name in (CA, "client-key.pem"):
        (swapped / name).write_bytes((certs / name).read_bytes())
    (swapped / "client.pem").write_bytes((certs / "worker.pem").read_bytes())
    with pytest.raises(CertificateError, match="is the worker's certificate, not the client's"):
        client_security(swapped, "tls://127.0.0.1:1")


# ------------------------------------------------------------------ the seat hosts' links (partners apart)

def test_a_seat_host_serves_only_a_workers_link_and_a_referee_links_only_to_a_workers_host(certs, tmp_path):
    import trio
    from test_referee import sample

    from referee.bots.remote import SeatHostLost, Started, serve_seat
    from referee.bots.transport import BotProcess
    from tournaments.cluster_seats import _from_a_worker
    from tournaments.cluster_worker import _connect

    def context(name: str, listening: bool) -> ssl.SSLContext:
        settings = security(certs, name, name)
        return (settings.get_listen_args(name) if listening else settings.get_connection_args(name))["ssl_context"]

    async def start(nursery, entrant, game):
        bot = sample("random")
        stderr = tmp_path / "host.log"
        return Started(await BotProcess.start(nursery, bot.command, stderr, None, bot.sandbox, tmp_path / "w"),
                       "sha256:x", stderr)

    async def host(name: str, nursery) -> int:
        """A seat host showing ``name``'s certificate, serving links that show a worker's; returns its port."""
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        tls = [trio.SSLListener(listener, context(name, True), https_compatible=False) for listener in listeners]

        async def link(stream) -> None:
            if await _from_a_worker(stream):
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await serve_seat(stream, "token", "machine-b", start)

        nursery.start_soon(trio.serve_listeners, link, tls)
        return listeners[0].socket.getsockname()[1]

    async def link_as(name: str, port: int, nursery):
        """A referee's link showing ``name``'s certificate (its end checks the host's)."""
        return await _connect("127.0.0.1", port, context(name, False), True, "token", "random", nursery, None)

    async def both() -> None:
        async with trio.open_nursery() as nursery:
            port = await host("worker", nursery)
            seat = await link_as("worker", port, nursery)  # the right pair
            assert seat.machine == "machine-b"
            await seat.kill()
            for name in ("scheduler", "client"):  # the host hangs up on anyone else
                with pytest.raises(SeatHostLost):
                    await link_as(name, port, nursery)
            impostor = await host("scheduler", nursery)  # a host with the scheduler's certificate: not linked to
            with pytest.raises(SeatHostLost, match="showed the scheduler's certificate, not a worker's"):
                await link_as("worker", impostor, nursery)
            nursery.cancel_scope.cancel()

    trio.run(both)
