"""A cluster nobody else can join: TLS certificates for Dask's own security settings.

``pinochle-arena cluster certs DIR`` makes a certificate authority of the
organiser's own and, signed by it, one certificate for each role: the
scheduler, the workers and the client (the machine that runs
``tournament``). Dask checks both ends of every connection against that
authority, so only a holder of one of these keys can talk to the
scheduler; and everything on the wire is encrypted. Dask does not check
host names, so one worker certificate serves every worker machine.

Each certificate names its role (a URI ``pinochle-arena:role=worker``
among its subject's alternative names) and the purposes it serves: the
scheduler's and the workers' both accept connections and open them, the
client's only opens them. Dask itself checks neither, so
:mod:`tournaments.cluster_roles` does, at both ends of every connection: a
worker's certificate does not open a client's connection to the scheduler,
nor a scheduler's to a worker, and so on for every pair. A certificate that
names no role (made before they did) is refused, with the command that makes
a new set. (The client's Dask settings, which check the scheduler's role,
are :func:`tournaments.cluster_roles.client_security`.)

What each machine needs: the scheduler ``ca.pem``, ``scheduler.pem`` and
``scheduler-key.pem``; a worker ``ca.pem``, ``worker.pem`` and
``worker-key.pem``; the client ``ca.pem``, ``client.pem`` and
``client-key.pem``. The authority's own key is not kept: nothing can sign
another certificate for this cluster (make a new set to add a role).
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

ROLES = ("scheduler", "worker", "client")
CA = "ca.pem"
NAME = "pinochle-arena cluster"
ROLE_URI = "pinochle-arena:role="  # + the role: a URI among each certificate's subject alternative names
# The scheduler and workers listen and connect (the scheduler to workers, workers to the scheduler and each other);
# the client only connects, so its certificate cannot pass for a server's.
PURPOSES = {"scheduler": ("server", "client"), "worker": ("server", "client"), "client": ("client",)}
REMAKE = "make a new set with 'pinochle-arena cluster certs NEWDIR' and copy it to every machine"
# In a Security's extra_conn_args: the scheduler's address (host:port), where a connection must find the scheduler's
# certificate (everywhere else a worker's). Present only where roles are checked.
SCHEDULER_KEY = "pinochle_arena_scheduler"


class CertificateError(ValueError):
    """Certificates that cannot be made or used; the message says which file and why."""


def cert_files(role: str) -> tuple[str, str]:
    """The certificate and key file names of ``role``."""
    return f"{role}.pem", f"{role}-key.pem"


def make_certificates(folder: Path, days: int = 365) -> list[Path]:
    """Write a new authority and a certificate per role into ``folder`` (made if missing); returns the files.
    A folder that already holds any of them is refused: new certificates would lock out the machines that
    use the old ones."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    names = [CA, *(f for role in ROLES for f in cert_files(role))]
    taken = [n for n in names if (folder / n).exists()]
    if taken:
        raise CertificateError(f"{folder} already holds certificates ({taken[0]}); give a new folder (these may be "
                               "in use by the cluster)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CertificateError(f"cannot make {folder}: {e.strerror}") from None
    now = datetime.datetime.now(datetime.UTC)
    until = now + datetime.timedelta(days=days)
    ca_key = _new_key()
    ca = _builder(f"{NAME} authority", ca_key, now, until) \
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True) \
        .add_extension(_key_usage(sign_certificates=True), critical=True) \
        .sign(ca_key, hashes.SHA256())
    written = [_write(folder / CA, _pem(ca))]  # its key is dropped: no one can sign another certificate
    purposes = {"server": x509.oid.ExtendedKeyUsageOID.SERVER_AUTH, "client": x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH}
    for role in ROLES:
        key = _new_key()
        cert = _builder(f"{NAME} {role}", key, now, until, issuer=ca.subject) \
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True) \
            .add_extension(_key_usage(sign_certificates=False), critical=True) \
            .add_extension(x509.ExtendedKeyUsage([purposes[p] for p in PURPOSES[role]]), critical=True) \
            .add_extension(x509.SubjectAlternativeName([x509.UniformResourceIdentifier(ROLE_URI + role)]),
                           critical=False) \
            .sign(ca_key, hashes.SHA256())
        cert_name, key_name = cert_files(role)
        written += [_write(folder / cert_name, _pem(cert)), _write(folder / key_name, _key_pem(key), secret=True)]
    return written


def role_flags(folder: str | Path, role: str) -> list[str]:
    """``dask scheduler`` / ``dask worker`` flags that make ``role`` use the certificates of ``folder``, with
    :mod:`tournaments.cluster_roles` loaded to check the role of every peer (in a worker's nanny too)."""
    cert, key = role_files(Path(folder), role)
    preload = ["--preload", "tournaments.cluster_roles"]
    if role == "worker":
        preload += ["--preload-nanny", "tournaments.cluster_roles"]
    return ["--tls-ca-file", str(Path(folder) / CA), "--tls-cert", cert, "--tls-key", key, *preload]


def certificate_role(path: Path) -> str | None:
    """The role ``path``'s certificate names, or None (a certificate from before roles, or from another set-up);
    CertificateError if it is not a PEM certificate."""
    from cryptography import x509

    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError) as e:
        raise CertificateError(f"{path} is not a PEM certificate ({e})") from None
    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return None
    roles = [uri.removeprefix(ROLE_URI) for uri in names.get_values_for_type(x509.UniformResourceIdentifier)
             if uri.startswith(ROLE_URI)]
    return roles[0] if roles else None


def peer_role(peercert: dict | None) -> str | None:
    """The role named by a peer's certificate, as Python's ``getpeercert()`` gives it; None if it names none."""
    for kind, value in (peercert or {}).get("subjectAltName", ()):
        if kind == "URI" and value.startswith(ROLE_URI):
            return value.removeprefix(ROLE_URI)
    return None


def roles_checked(security) -> bool:
    """Whether the connections made with Dask's ``security`` check their peers' roles."""
    return security is not None and SCHEDULER_KEY in (security.extra_conn_args or {})


def role_files(folder: Path, role: str, others: bool = False) -> tuple[str, str]:
    """(certificate, key) of ``role`` in ``folder``, with the authority beside them; CertificateError if missing, if
    the certificate is another role's, or if it names no role (with ``others``, one from another set-up may not)."""
    cert_name, key_name = cert_files(role)
    for name in (CA, cert_name, key_name):
        if not (folder / name).is_file():
            raise CertificateError(f"{folder / name} is missing: the {role} needs {CA}, {cert_name} and {key_name} "
                                   "(made by: pinochle-arena cluster certs DIR)")
    found = certificate_role(folder / cert_name)
    if found is None and (not others or _is_ours(folder / cert_name)):
        raise CertificateError(f"{folder / cert_name} names no role (a set made before each certificate was good for "
                               f"its own role only): {REMAKE}")
    if found is not None and found != role:
        raise CertificateError(f"{folder / cert_name} is the {found}'s certificate, not the {role}'s: give the folder "
                               f"as 'pinochle-arena cluster certs' made it")
    return str(folder / cert_name), str(folder / key_name)


def _is_ours(path: Path) -> bool:
    from cryptography import x509

    cert = x509.load_pem_x509_certificate(path.read_bytes())
    names = cert.subject.get_attributes_for_oid(x509.oid.NameOID.COMMON_NAME)
    return any(isinstance(a.value, str) and a.value.startswith(NAME) for a in names)


def _new_key():
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _builder(common_name: str, key, now, until, issuer=None):
    from cryptography import x509

    subject = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, common_name)])
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer or subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(until))


def _key_usage(sign_certificates: bool):
    from cryptography import x509

    return x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=not sign_certificates,
                         key_cert_sign=sign_certificates, crl_sign=sign_certificates, encipher_only=False,
                         decipher_only=False)


def _pem(cert) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write(path: Path, data: bytes, secret: bool = False) -> Path:
    """Write a new file; a key is readable by its owner only, from the moment it exists."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if secret else 0o644)
    with os.fdopen(descriptor, "wb") as f:
        f.write(data)
    return path
