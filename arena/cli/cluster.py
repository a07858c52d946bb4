"""``pinochle-arena cluster``: certificates, a scheduler and workers for a Dask cluster nobody else can join.

``cluster certs DIR`` makes the TLS certificates; ``cluster scheduler`` and
``cluster worker`` start Dask's own scheduler and workers with them, with
the dashboard off (or on this machine's loopback only), one thread per
worker process (one referee each). A worker started this way outlives its
scheduler: when the scheduler goes away, the workers are started again and
wait for it to come back.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .args import UsageError, positive_int

RESTART_PAUSE = 5.0  # seconds between a worker stopping and its next start


def add_parser(sub) -> None:
    p = sub.add_parser("cluster", help="TLS certificates, scheduler and workers for tournaments on a Dask cluster")
    commands = p.add_subparsers(title="cluster commands", metavar="WHAT", required=True)
    certs = commands.add_parser("certs", help="make the certificates (a new authority, one per role) in DIR")
    certs.add_argument("folder", type=Path, metavar="DIR")
    certs.add_argument("--days", type=positive_int, default=365, help="days they stay valid (default 365)")
    certs.set_defaults(handler=run_certs)
    scheduler = commands.add_parser("scheduler", help="run the Dask scheduler, TLS only, dashboard off")
    scheduler.add_argument("--certs", type=Path, required=True, metavar="DIR", help="the certificates' folder")
    scheduler.add_argument("--host", default="", help="the address to listen on (default: every interface)")
    scheduler.add_argument("--port", type=positive_int, default=8786, help="default 8786")
    add_dashboard_argument(scheduler)
    scheduler.set_defaults(handler=run_scheduler)
    worker = commands.add_parser("worker", help="run Dask workers for the scheduler at ADDRESS (tls://HOST:PORT), "
                                                "started again whenever they stop")
    worker.add_argument("address", metavar="ADDRESS")
    worker.add_argument("--certs", type=Path, required=True, metavar="DIR", help="the certificates' folder")
    worker.add_argument("--nworkers", type=positive_int, default=os.cpu_count() or 1,
                        help="worker processes, each one referee (default: cores)")
    add_dashboard_argument(worker)
    worker.set_defaults(handler=run_worker)


def add_dashboard_argument(p) -> None:
    p.add_argument("--dashboard", type=positive_int, default=None, metavar="PORT",
                   help="serve Dask's dashboard on 127.0.0.1:PORT (default: none; reach it through ssh -L)")


def run_certs(args) -> int:
    from tournaments.cluster_security import CertificateError, make_certificates

    try:
        written = make_certificates(args.folder, args.days)
    except CertificateError as e:
        raise UsageError(str(e)) from None
    print(f"made {len(written)} files in {args.folder}, valid for {args.days} days:")
    for role, files in (("the scheduler's machine", "ca.pem scheduler.pem scheduler-key.pem"),
                        ("every worker machine", "ca.pem worker.pem worker-key.pem"),
                        ("the machine that runs tournament", "ca.pem client.pem client-key.pem")):
        print(f"  {role}: {files}")
    print("  the authority's key is not kept: no one can add a certificate to this cluster (make a new set)")
    print(f"\nthen:\n  pinochle-arena cluster scheduler --certs {args.folder}\n"
          f"  pinochle-arena cluster worker tls://SCHEDULER:8786 --certs {args.folder}\n"
          f"  pinochle-arena tournament mine.toml --cluster tls://SCHEDULER:8786 --cluster-certs {args.folder}")
    return 0


def run_scheduler(args) -> int:
    argv = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls", "--port", str(args.port),
            *security_flags(args.certs, "scheduler"), *dashboard_flags(args.dashboard)]
    if args.host:
        argv += ["--host", args.host]
    _stop_on_signals()
    return _run(argv)


def run_worker(args) -> int:
    if not args.address.startswith("tls://"):
        raise UsageError(f"{args.address}: give the scheduler's TLS address, tls://HOST:PORT")
    argv = [sys.executable, "-m", "distributed.cli.dask_worker", args.address, "--nworkers", str(args.nworkers),
            "--nthreads", "1", *security_flags(args.certs, "worker"), *dashboard_flags(args.dashboard)]
    stopping = _stop_on_signals()
    while True:
        code = _run(argv)
        if stopping:
            return 0
        print(f"pinochle-arena: the workers stopped (exit status {code}), the scheduler at {args.address} is gone "
              f"or restarting; starting them again in {RESTART_PAUSE:.0f} s (Ctrl-C to stop)", file=sys.stderr,
              flush=True)
        try:
            time.sleep(RESTART_PAUSE)
        except KeyboardInterrupt:
            return 0


def security_flags(folder: Path, role: str) -> list[str]:
    from tournaments.cluster_security import CertificateError, role_flags

    try:
        return role_flags(folder.absolute(), role)
    except CertificateError as e:
        raise UsageError(str(e)) from None


def dashboard_flags(port: int | None) -> list[str]:
    """Dask serves its HTTP pages (the dashboard, and without it still the cluster's state as JSON and metrics) on
    every interface unless told otherwise: here on loopback only, the dashboard off unless asked for."""
    if port is None:
        return ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    return ["--dashboard", "--dashboard-address", f"127.0.0.1:{port}"]


def _run(argv: list[str]) -> int:
    """Run Dask's command; Ctrl-C or SIGTERM (with :func:`_stop_on_signals`) reach it as SIGINT, on which it
    closes cleanly; its exit status is returned."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError("the cluster needs Dask's distributed: pip install 'pinochle-arena[cluster]'") from None
    process = subprocess.Popen(argv)
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            process.send_signal(signal.SIGINT)


def _stop_on_signals() -> list[bool]:
    """A list that becomes non-empty on Ctrl-C or SIGTERM (passed on to the running workers)."""
    stopping: list[bool] = []

    def stop(number, frame) -> None:
        stopping.append(True)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return stopping
