"""A cluster an attacker cannot join, workers that learn no more than their games, and programs checked.

Each test runs on a Dask cluster of its own on loopback (a LocalCluster, or
workers started by the test); failures are made at chosen moments through
the runner's ``on_batch`` seam, never by timing.
"""

import collections
import contextlib
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from cluster_helpers import GREEDY, RANDOM, ROOT, extra_worker, outcome, play, tournament_data
from distributed import Client, LocalCluster
from distributed.security import Security
from helpers import arena

import tournaments.cluster
from tournaments.cluster_placement import Placement, hands_held, plan_apart
from tournaments.cluster_roles import client_security
from tournaments.cluster_security import CA, cert_files, make_certificates
from tournaments.config import TournamentConfig, parse_config
from tournaments.runner import WorkerHooks
from tournaments.schedule import schedule


# ------------------------------------------------------------------ certificates and TLS

@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("certs")
    make_certificates(folder)
    return folder


def role_security(folder: Path) -> Security:
    """The scheduler's, workers' and client's certificates of ``folder``, as a LocalCluster takes them."""
    files = {role: [str(folder / name) for name in cert_files(role)] for role in ("scheduler", "worker", "client")}
    return Security(tls_ca_file=str(folder / CA), tls_scheduler_cert=files["scheduler"][0],
                    tls_scheduler_key=files["scheduler"][1], tls_worker_cert=files["worker"][0],
                    tls_worker_key=files["worker"][1], tls_client_cert=files["client"][0],
                    tls_client_key=files["client"][1], require_encryption=True)


ROLES = ["tournaments.cluster_roles"]  # loaded as 'cluster scheduler' and 'cluster worker' load it


@pytest.fixture(scope="module")
def tls_cluster(certs):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", protocol="tls",
                      security=role_security(certs), dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR,
                      scheduler_kwargs={"preload": ROLES},
                      preload=ROLES, preload_nanny=ROLES) as local:  # (the workers' and their nannies')
        yield local


def test_certs_makes_an_authority_and_a_key_per_role_readable_by_its_owner_only(tmp_path):
    done = arena("cluster", "certs", str(tmp_path / "certs"))
    assert done.returncode == 0, done.stderr
    files = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "certs").iterdir()}
    assert files == {"ca.pem": 0o644, "scheduler.pem": 0o644, "scheduler-key.pem": 0o600,
                     "worker.pem": 0o644, "worker-key.pem": 0o600, "client.pem": 0o644, "client-key.pem": 0o600}
    assert "the authority's key is not kept" in done.stdout  # so no one can sign a certificate of their own
    again = arena("cluster", "certs", str(tmp_path / "certs"))  # never over certificates that may be in use
    assert again.returncode == 2 and "already holds certificates" in again.stderr
    assert "Traceback" not in again.stderr


def test_a_tournament_over_tls_plays_the_same_games_and_strangers_cannot_connect(tmp_path, certs, tls_cluster):
    address = tls_cluster.scheduler_address
    assert address.startswith("tls://")
    data = tournament_data(address)
    data["cluster"]["certs"] = str(certs)
    games, there = play(data, tmp_path / "there")
    _, here = play(tournament_data(None), tmp_path / "here")
    assert {r.game_id: outcome(r) for r in there} == {r.game_id: outcome(r) for r in here}
    with pytest.raises(TypeError, match="TLS expects"):  # no certificate: Dask will not even try
        connect_to(address, None)
    other = tmp_path / "other-authority"
    make_certificates(other)
    with pytest.raises(OSError):  # a certificate the cluster's authority did not sign: refused in the handshake
        connect_to(address, client_security(other, address))
    connect_to(address, client_security(certs, address))  # the client's own: let in


def connect_to(address: str, security) -> None:
    """Open and close one connection to the scheduler as a client would. (Dask's comm layer, not a whole Client:
    a Client that failed to connect, collected while another starts, can deadlock Dask's event-loop runner.)"""
    import asyncio

    from distributed.comm import connect

    async def attempt() -> None:
        args = security.get_connection_args("client") if security is not None else {}
        comm = await connect(address, timeout=10, **args)
        await comm.close()

    asyncio.run(attempt())


def test_a_plain_tcp_scheduler_elsewhere_is_refused_on_the_command_line_unless_told_insecure(tmp_path):
    refused = arena("tournament", "--bot", "random", "--bot", "greedy", "--cluster", "tcp://10.0.0.5:8786",
                    "--out", str(tmp_path / "out"))
    assert refused.returncode == 2
    assert "plain tcp:// is neither encrypted nor authenticated" in refused.stderr
    assert "--insecure" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "out").exists()


def test_a_plain_tcp_worker_from_another_machine_is_found_among_the_workers():
    from tournaments.cluster import plain_from_elsewhere

    workers = ["tcp://127.0.0.1:4000", "tcp://[::1]:4001", "tls://10.0.0.7:4002", "tcp://10.0.0.8:4003"]
    assert plain_from_elsewhere(workers) == ["tcp://10.0.0.8:4003"]


def test_a_run_with_nothing_left_to_play_on_the_cluster_returns_at_once(tmp_path):
    import trio

    from tournaments.cluster import run_on_cluster

    config = parse_config(tournament_data("tcp://127.0.0.1:9"), tmp_path / "t.toml")
    trio.run(run_on_cluster, config, [], tmp_path, None, False, set(), None)  # no scheduler is even asked


# ------------------------------------------------------------------ what the workers are given, and checked for

def spy_on_submits(monkeypatch) -> list:
    """Every task's arguments as the client sends them."""
    sent = []
    connect = tournaments.cluster._connect

    def spying(cluster):
        client = connect(cluster)
        submit = client.submit

        def spy(function, *args, **kwargs):
            sent.append(args)
            return submit(function, *args, **kwargs)

        client.submit = spy
        return client

    monkeypatch.setattr(tournaments.cluster, "_connect", spying)
    return sent


def test_the_workers_get_each_games_own_seed_never_the_tournaments(tmp_path, cluster, client, monkeypatch):
    sent = spy_on_submits(monkeypatch)
    games, records = play(tournament_data(cluster.scheduler_address), tmp_path / "out")
    configs = [a for args in sent for a in args if isinstance(a, TournamentConfig)]
    assert configs and all(c.seed is None and c.deals is None for c in configs)
    specs = [spec for args in sent for a in args if isinstance(a, list) for spec in a]
    assert sorted(s.game_id for s in specs) == sorted(g.game_id for g in games)
    assert {s.game_id: s.seed for s in specs} == {g.game_id: g.seed for g in games}  # each its own, and no more
    assert len(records) == len(games)


@pytest.fixture
def two_programs(tmp_path):
    """Three folders on PATH, each with a 'pa-cluster-bot': this machine's, a copy of it, and another program."""
    folders = {}
    for name, target in (("here", GREEDY), ("copy", GREEDY), ("other", ROOT / "sample_bots" / "random_bot.py")):
        folder = tmp_path / name / "bin"
        folder.mkdir(parents=True)
        (folder / "pa-cluster-bot").write_text(f"#!/bin/sh\nexec {sys.executable} {target} \"$@\"\n")
        (folder / "pa-cluster-bot").chmod(0o755)
        folders[name] = f"{folder}{os.pathsep}{os.environ['PATH']}"
    return folders


def test_a_worker_with_another_program_under_the_bots_name_has_none_of_its_games_counted(
        tmp_path, cluster, client, capfd, monkeypatch, two_programs):
    monkeypatch.setenv("PATH", two_programs["here"])
    bots = [{"name": "rnd", "command": RANDOM}, {"name": "mine", "command": "pa-cluster-bot"}]
    with extra_worker(client, cluster.scheduler_address, "same", path=two_programs["copy"]) as same, \
            extra_worker(client, cluster.scheduler_address, "different", path=two_programs["other"]) as different:
        games, records = play(tournament_data(cluster.scheduler_address, games=12, bots=bots), tmp_path / "out")
    assert collections.Counter(r.game_id for r in records) == collections.Counter(g.game_id for g in games)
    assert {r.extra["worker"] for r in records} == {same}  # the fixture's two lack the bot; 'different' is refused
    assert len({seat.program for r in records for seat in r.seats if seat.entrant == "mine"}) == 1
    err = capfd.readouterr().err
    refusals = [line for line in err.splitlines() if different in line and "runs another program" in line]
    assert len(refusals) == 1, err
    assert "for bot 'mine'" in refusals[0] and "its games are not counted" in refusals[0]


def test_every_look_at_the_cluster_finds_all_its_workers_while_dask_refreshes_its_own_view():
    """Dask's client refreshes its cached view of the cluster every couple of seconds with one that lists no
    workers; a tournament that read that cache once stopped with 'no worker of the cluster can play the games'
    while two workers that had the bot were there. Refreshed every 5 ms here, so that a look at the cache would
    soon come back short."""
    import dask

    with dask.config.set({"distributed.client.scheduler-info-interval": "5ms"}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address="127.0.0.1:0",
                         silence_logs=logging.ERROR) as local, \
            Client(local.scheduler_address, set_as_default=False) as dask_client:
        dask_client.wait_for_workers(2)
        looks = [sorted(tournaments.cluster.cluster_workers(dask_client)) for _ in range(1000)]
    assert len(looks[0]) == 2 and all(look == looks[0] for look in looks)


def test_workers_joining_and_leaving_are_printed(tmp_path, cluster, client, capfd, monkeypatch):
    monkeypatch.setattr(tournaments.cluster, "MEMBERS_EVERY", 0)  # look at every turn of the loop
    events = {}
    stack = []

    def on_batch(dask_client, result) -> None:
        if "joined" not in events:  # the first batch back: a worker joins, and is there before the loop goes on
            worker = extra_worker(client, cluster.scheduler_address, "late")
            events["joined"] = worker.__enter__()
            stack.append(worker)
        elif "left" not in events:  # the next: it leaves
            events["left"] = events["joined"]
            stack.pop().__exit__(None, None, None)
            while events["left"] in tournaments.cluster.cluster_workers(dask_client):
                time.sleep(0.05)

    games, records = play(tournament_data(cluster.scheduler_address, games=24), tmp_path / "out",
                          WorkerHooks(on_batch=on_batch))
    assert collections.Counter(r.game_id for r in records) == collections.Counter(g.game_id for g in games)
    err = capfd.readouterr().err
    assert f"cluster worker {events['joined']} joined (3 workers)" in err, err
    assert f"cluster worker {events['left']} left (2 workers)" in err, err


# ------------------------------------------------------------------ seatings apart

def scheduled(games: int = 4, bots="abc", variant: str | None = None) -> list:
    data = tournament_data(None, games=games, bots=[{"name": b, "sample": "random"} for b in bots])
    if variant:
        data["tournament"]["variant"] = variant
    if variant == "four-handed":  # teams of copies of one bot, and of two bots
        data["team"] = [{"name": "aa", "bots": ["a", "a"]}, {"name": "bc", "bots": ["b", "c"]},
                        {"name": "cd", "bots": ["c", "d"]}]
    return schedule(parse_config(data, Path("t.toml")))


def assert_apart(batches, machine_of_batch) -> None:
    """No machine had one bot in two different seats of a deal."""
    seen: dict = {}
    for batch, machine in zip(batches, machine_of_batch, strict=True):
        for key, seats in hands_held(batch).items():
            assert seen.setdefault((key, machine), seats) == seats, (key, machine)


@pytest.mark.parametrize("bots, variant, games", [("abc", None, 4), ("abcdef", None, 4), ("abcd", "three-handed", 6),
                                                  ("abcd", "four-handed", 4)])
def test_each_colour_of_a_deal_goes_to_one_machine_and_no_machine_gets_two_colours(bots, variant, games):
    games = scheduled(games, bots, variant)
    plan = plan_apart([[g] for g in games], 8)
    assert sorted(g.game_id for b in plan.batches for g in b) == sorted(g.game_id for g in games)
    machines = {f"m{i}": 0 for i in range(plan.machines)}  # exactly as many as the plan needs: never stuck
    placement = Placement()
    where = [placement.choose(key, machines) for key in plan.colours]
    assert None not in where
    assert_apart(plan.batches, where)
    assert len(set(where)) == plan.machines


def test_a_lost_machines_colour_goes_to_a_machine_that_took_no_other_colour_of_the_deal():
    plan = plan_apart([[g] for g in scheduled(bots="ab")], 8)
    assert plan.machines == 2
    placement = Placement()
    first = plan.colours[0]
    second = next(k for k in plan.colours if k[0] == first[0] and k != first)
    assert placement.choose(first, {"m1": 0, "m2": 0}) == "m1"
    assert placement.choose(second, {"m1": 0, "m2": 0}) == "m2"
    assert placement.choose(first, {"m2": 0}) is None  # m1 is gone, and m2 holds the deal's other colour
    assert placement.choose(first, {"m2": 0, "m3": 5}) == "m3"  # a new machine takes it


PRETEND_MACHINE = textwrap.dedent("""
    # Loaded by a test's worker (dask worker --preload): it reports the machine it is told to, so that one
    # computer can stand in for several in the seatings-apart test.
    import os
    import tournaments.cluster_worker

    def machine_of() -> str:
        return os.environ["PA_TEST_MACHINE"]

    tournaments.cluster_worker.machine_of = machine_of
""")


def test_seatings_apart_plays_each_bots_hands_of_a_deal_on_different_machines(tmp_path, cluster, client,
                                                                               monkeypatch):
    preload = tmp_path / "pretend_machine.py"
    preload.write_text(PRETEND_MACHINE)
    bots = [{"name": "greedy", "sample": "greedy"}, {"name": "rnd", "command": RANDOM}, {"name": "r2", "sample": "random"}]
    data = tournament_data(cluster.scheduler_address, games=4, bots=bots)
    data["cluster"]["seatings_apart"] = True
    with monkeypatch.context() as m:
        m.setenv("PA_TEST_MACHINE", "machine-1")
        first = extra_worker(client, cluster.scheduler_address, "m1", preload=preload)
        first.__enter__()
        m.setenv("PA_TEST_MACHINE", "machine-2")
        with extra_worker(client, cluster.scheduler_address, "m2", preload=preload):
            games, records = play(data, tmp_path / "out")
        first.__exit__(None, None, None)
    assert collections.Counter(r.game_id for r in records) == collections.Counter(g.game_id for g in games)
    specs = {g.game_id: g for g in games}
    assert_apart([[specs[r.game_id]] for r in records], [r.extra["machine"] for r in records])
    assert len({r.extra["machine"] for r in records}) >= 2


def test_partners_apart_sit_on_different_machines_and_no_machine_holds_two_hands_of_a_deal_for_a_bot(
        tmp_path, cluster, client, monkeypatch):
    preload = tmp_path / "pretend_machine.py"
    preload.write_text(PRETEND_MACHINE)
    bots = [{"name": "greedy", "sample": "greedy"}, {"name": "rnd", "command": RANDOM}]
    data = tournament_data(cluster.scheduler_address, games=4, bots=bots)
    data["tournament"]["variant"] = "four-handed"  # each bot partnered with a copy of itself
    data["cluster"]["seatings_apart"] = True
    config = parse_config(data, tmp_path / "t.toml")
    assert tournaments.cluster.apart(config, schedule(config)).machines == 4
    with contextlib.ExitStack() as workers, monkeypatch.context() as m:
        for n in range(1, 5):
            m.setenv("PA_TEST_MACHINE", f"machine-{n}")
            workers.enter_context(extra_worker(client, cluster.scheduler_address, f"m{n}", preload=preload))
        games, records = play(data, tmp_path / "out")
    assert collections.Counter(r.game_id for r in records) == collections.Counter(g.game_id for g in games)
    assert all(r.termination.value == "completed" for r in records), [r.detail for r in records]
    specs = {g.game_id: g for g in games}
    for r in records:
        assert r.extra["machine"] != r.extra["partner_machine"]  # the partners of each team, on two kernels
        assert r.seats[2].program == r.seats[0].program  # the partner's program, as its seat host found it
    halves = [(specs[r.game_id], r.extra[key], seats) for r in records
              for key, seats in (("machine", (0, 1)), ("partner_machine", (2, 3)))]
    seen: dict = {}
    for spec, machine, seats in halves:
        for key, held in hands_held([spec], seats).items():
            assert seen.setdefault((key, machine), held) == held, (key, machine)
    logs = list((tmp_path / "out" / "logs" / "cluster").rglob("*.2*stderr.log"))
    assert logs  # the partners' logs came back from their seat hosts


def test_seatings_apart_gives_each_pairing_deals_of_its_own_so_two_machines_serve_any_number_of_bots():
    data = tournament_data("tcp://127.0.0.1:1", games=4, bots=[{"name": b, "sample": "random"} for b in "abcdef"])
    shared = parse_config(data, Path("t.toml"))
    data["cluster"]["seatings_apart"] = True
    own = parse_config(data, Path("t.toml"))
    assert own.own_deals and not shared.own_deals
    for config, pairings_of_a_deal in ((shared, 15), (own, 1)):
        pairings = collections.defaultdict(set)
        for g in schedule(config):
            pairings[g.seed].add(g.pairing)
        assert {len(p) for p in pairings.values()} == {pairings_of_a_deal}  # no bot meets a deal again elsewhere
    assert tournaments.cluster.apart(own, schedule(own)).machines == 2
    assert tournaments.cluster.apart(shared, schedule(shared)).machines == 4
    data["cluster"] = {"address": "none"}  # a resume on this machine deals the games the run started with
    data["tournament"]["own_deals"] = True
    assert [g.seed for g in schedule(parse_config(data, Path("t.toml")))] == [g.seed for g in schedule(own)]


def test_a_resumed_run_keeps_each_deals_seatings_on_the_machines_it_started_them_on(tmp_path, cluster, client,
                                                                                   monkeypatch):
    import functools

    import trio

    from referee.records.record import read_records
    from tournaments.runner import run_games
    from tournaments.store import ResultStore, tournament_schedule

    preload = tmp_path / "pretend_machine.py"
    preload.write_text(PRETEND_MACHINE)
    bots = [{"name": "rnd", "command": RANDOM}, {"name": "r2", "sample": "random"}, {"name": "r3", "sample": "random"}]
    data = tournament_data(cluster.scheduler_address, games=8, bots=bots, batch=1)
    data["cluster"]["seatings_apart"] = True
    config = parse_config(data, tmp_path / "t.toml", output=tmp_path / "out")
    games = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, games))

    def run(todo, played=()):
        trio.run(functools.partial(run_games, config, todo, store, planned=games, played=played))
        return list(read_records(store.games_path, store.key))

    with monkeypatch.context() as m:
        workers = []
        for machine in ("machine-1", "machine-2"):
            m.setenv("PA_TEST_MACHINE", machine)
            workers.append(extra_worker(client, cluster.scheduler_address, machine, preload=preload))
            workers[-1].__enter__()
        first = run([g for g in games if g.game_id.endswith("a")])  # a run stopped after each deal's first game
        records = run([g for g in games if g.game_id.endswith("b")], first)  # and resumed
        for worker in workers:
            worker.__exit__(None, None, None)
    assert collections.Counter(r.game_id for r in records) == collections.Counter(g.game_id for g in games)
    specs = {g.game_id: g for g in games}
    assert_apart([[specs[r.game_id]] for r in records], [r.extra["machine"] for r in records])


# ------------------------------------------------------------------ the scheduler and workers it starts

def test_cluster_commands_say_what_is_missing_in_one_line(tmp_path):
    no_certs = arena("cluster", "scheduler", "--certs", str(tmp_path / "none"))
    assert no_certs.returncode == 2 and "ca.pem is missing" in no_certs.stderr
    plain = arena("cluster", "worker", "tcp://10.0.0.5:8786", "--certs", str(tmp_path))
    assert plain.returncode == 2 and "give the scheduler's TLS address, tls://HOST:PORT" in plain.stderr
    assert "Traceback" not in no_certs.stderr + plain.stderr


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_line(path: Path, text: str, deadline: float = 180) -> None:
    """Wait until ``path`` holds ``text`` (a deadline against a hang, not a measure of speed)."""
    end = time.monotonic() + deadline
    while text not in path.read_text():
        assert time.monotonic() < end, f"{path} never said {text!r}:\n{path.read_text()[-2000:]}"
        time.sleep(0.2)


def test_workers_started_by_cluster_worker_come_back_after_the_scheduler_restarts(tmp_path, certs):
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    scheduler_argv = [sys.executable, "-m", "arena", "cluster", "scheduler", "--certs", str(certs), "--host",
                      "127.0.0.1", "--port", str(port)]
    started = []

    def start(argv, log):
        process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / log, "w"),
                                   start_new_session=True)  # a group of its own: its Dask children go with it
        started.append(process)
        return process

    try:
        scheduler = start(scheduler_argv, "scheduler.log")
        worker = start([sys.executable, "-m", "arena", "cluster", "worker", address, "--certs", str(certs),
                        "--nworkers", "1"], "worker.log")
        with Client(address, timeout=60, set_as_default=False, security=client_security(certs, address)) as c:
            c.wait_for_workers(1, timeout=60)
        (dask_scheduler,) = psutil.Process(scheduler.pid).children()
        listening = {(c.laddr.ip, c.laddr.port) for c in dask_scheduler.net_connections(kind="tcp")
                     if c.status == psutil.CONN_LISTEN}
        assert ("127.0.0.1", port) in listening
        assert {ip for ip, _ in listening} == {"127.0.0.1"}  # its HTTP pages too (Dask's default: every interface)
        scheduler.send_signal(signal.SIGTERM)
        scheduler.wait(timeout=60)
        wait_for_line(tmp_path / "worker.log", "starting them again")  # Dask's workers gave up; ours did not
        start(scheduler_argv, "scheduler-again.log")
        with Client(address, timeout=60, set_as_default=False, security=client_security(certs, address)) as c:
            c.wait_for_workers(1, timeout=120)  # the same 'cluster worker', its workers started again
        assert worker.poll() is None
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 0
    finally:
        for process in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
