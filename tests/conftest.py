import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT, ROOT / "tests"):  # the project, and tests/helpers.py for tests in subfolders
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _sigint_left_as_found():
    """Every test leaves SIGINT as it found it: a worker that ignores or blocks SIGINT passes that on to every
    process it starts afterwards, and Ctrl-C tests in that worker then fail."""
    from helpers import sigint_state

    before = sigint_state()
    yield
    after = sigint_state()
    assert after == before, f"SIGINT was {before}, is now {after}"


# A full run once found a worker that ignored SIGINT (the kernel's SigIgn) from before a test began: something
# outside test functions (a module-scoped fixture?) set it, and the worker's Ctrl-C tests, whose children
# inherited it, failed. Those tests now start their child with SIGINT at its default (helpers.as_from_a_terminal);
# the culprit is still to be found.


@pytest.fixture(scope="module")
def cluster():
    """A Dask LocalCluster of the module's own: two single-threaded workers, each a process of its own (with a
    nanny that restarts it if it dies), on loopback."""
    import logging

    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as local:
        yield local


@pytest.fixture
def client(cluster):
    """A client of ``cluster``, once both its workers are there."""
    from distributed import Client

    with Client(cluster.scheduler_address, set_as_default=False) as c:
        c.wait_for_workers(2)
        yield c


def pytest_xdist_auto_num_workers(config):
    """`-n auto` starts one worker more than there are cores: much of the suite waits (on bots' subprocesses, on
    the browser, on bots that sleep on purpose), and a third worker on two cores fills that waiting. Measured on
    2 cores, idle: 3:48 with two workers, 3:26 with three, 3:55 with four."""
    import os

    return len(os.sched_getaffinity(0)) + 1


@pytest.fixture(scope="session")
def postgres():
    """A throwaway PostgreSQL server on a Unix socket of its own (Debian's postgresql package, which make test
    installs where it can), run as the postgres user; yields a URL of an empty database maker: call it with a
    name. Skipped, with one line, where no server can be started."""
    import glob
    import pwd
    import shutil
    import subprocess

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("no PostgreSQL server here (sudo apt-get install postgresql); the league's storage is tested on "
                    "SQLite")
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("no postgres user to run a PostgreSQL server as")
    if os.geteuid() != 0 or not shutil.which("runuser"):
        pytest.skip("starting a PostgreSQL server here needs root (to run it as the postgres user)")
    import tempfile

    bin_dir = os.path.dirname(found[-1])
    root = Path(tempfile.mkdtemp(prefix="pa-postgres-"))  # not under pytest's folder: the postgres user must reach it
    os.chmod(root, 0o755)
    shutil.chown(root, "postgres")
    data, socket_dir, port = root / "data", root, "54329"

    def as_postgres(*argv):
        return subprocess.run(["runuser", "-u", "postgres", "--", *argv], capture_output=True, text=True, timeout=120)

    made = as_postgres(f"{bin_dir}/initdb", "-D", str(data), "-A", "trust", "-U", "postgres")
    if made.returncode != 0:
        pytest.skip(f"PostgreSQL's initdb failed here: {made.stderr.strip().splitlines()[-1:]}")
    started = as_postgres(f"{bin_dir}/pg_ctl", "-D", str(data), "-l", str(root / "log"), "-w", "-o",
                          f"-k {socket_dir} -p {port} -c listen_addresses=''", "start")
    if started.returncode != 0:
        pytest.skip(f"PostgreSQL would not start here: {started.stderr.strip()[-200:]}")

    def database(name: str) -> str:
        created = as_postgres(f"{bin_dir}/createdb", "-h", str(socket_dir), "-p", port, name)
        assert created.returncode == 0, created.stderr
        return f"postgresql://postgres@/{name}?host={socket_dir}&port={port}"

    try:
        yield database
    finally:
        as_postgres(f"{bin_dir}/pg_ctl", "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)
