"""Tournaments on a Dask cluster: the same games as on one machine, and nothing lost when the cluster fails.

The cluster is a ``LocalCluster`` of this test's own (separate worker
processes, loopback only). Every run is reproducible (greedy is
deterministic per game, random is given a seed, the deal seed is fixed), so
a game played on the cluster, or again after a worker or the client died,
must come out exactly as it does on one machine. Failures are made at
chosen moments through the runner's ``on_batch`` seam, never by timing.
"""

import collections
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest
from cluster_helpers import GREEDY, RANDOM, outcome, play, tournament_data
from helpers import arena

from referee.bots import jail
from referee.bots.samples import SAMPLES
from referee.bots.transport import BotCommand
from referee.match import Entrant
from referee.records.audit import audit_results
from referee.records.replay import replay_record
from tournaments.cluster import ClusterError, apart, cluster_workers
from tournaments.cluster_placement import hands_held
from tournaments.cluster_worker import PathMap, ShipError, pack, translate, unpack
from tournaments.config import ConfigError, parse_config
from tournaments.runner import WorkerHooks
from tournaments.schedule import schedule

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ without a cluster

def test_a_task_is_a_batch_of_one_colour_of_a_block_of_deals_or_one_run_of_one_seating_of_boards(tmp_path):
    config = parse_config(tournament_data("tcp://127.0.0.1:1", games=10, batch=4), tmp_path / "t.toml")
    plan = apart(config, schedule(config))
    assert sorted(g.game_id for b in plan.batches for g in b) == sorted(g.game_id for g in schedule(config))
    assert all(len(b) <= 4 for b in plan.batches)
    for batch in plan.batches:
        hands_held(batch)  # raises if a batch gave a bot two hands of one deal
    blocks = collections.defaultdict(set)
    for batch, (block, colour) in zip(plan.batches, plan.colours, strict=True):
        assert {g.seed for g in batch} <= block
        blocks[block].add(colour)
    assert all(len(colours) == 2 for colours in blocks.values())  # two-handed: both seatings, apart

    data = tournament_data("tcp://127.0.0.1:1")
    data["tournament"] = {**data["tournament"], "boards": 45}
    del data["tournament"]["games_per_pairing"]
    config = parse_config(data, tmp_path / "t.toml")
    from referee.match import board_runs

    ordered = board_runs(schedule(config), lambda s: (s.pair - 1, (s.pairing, s.turn)))
    work = apart(config, ordered).batches
    assert sorted(len(b) for b in work) == [5, 5, 20, 20, 20, 20]  # boards 1-20, 21-40, 41-45, each in two seatings
    for b in work:
        assert len({(g.pairing, g.turn) for g in b}) == 1  # one seating: one set of processes plays the run
        assert len({g.pair for g in b}) == len(b)  # and never meets a board twice


def test_the_clients_paths_become_the_workers_own(tmp_path):
    paths = PathMap((("/client/arena", "installation", ""), ("/client/venv/bin/python", "python", ""),
                     ("/client/bots/mine", "shipped", "abc")))
    here = paths.here({"abc": tmp_path / "unpacked"})
    entrant = Entrant("mine", BotCommand(("/client/venv/bin/python", "/client/bots/mine/bot.py", "--data",
                                          "/client/bots/mine-data/x", "/client/arena/sample_bots/greedy_bot.py"),
                                         cwd="/client/bots/mine", env=(("MODEL", "/client/bots/mine/model.bin"),),
                                         read_only=("/client/arena/protocol",)))
    moved = translate(entrant, here)
    assert moved.command.argv == (sys.executable, f"{tmp_path}/unpacked/bot.py", "--data",
                                  "/client/bots/mine-data/x",  # not under the folder: the same path there
                                  f"{ROOT}/sample_bots/greedy_bot.py")
    assert moved.command.cwd == f"{tmp_path}/unpacked"
    assert moved.command.env == (("MODEL", f"{tmp_path}/unpacked/model.bin"),)
    assert moved.command.read_only == (f"{ROOT}/protocol",)


def test_a_worker_builds_montecarlos_core_itself_and_its_bot_is_told_the_workers_library(tmp_path, monkeypatch):
    """An installed package builds the core in the user's cache, which is another folder on a worker (another
    user, another home): the worker builds its own before the first game, and the bot's command names it."""
    from referee.bots import samples
    from tournaments import cluster_worker

    client_cache, worker_cache = tmp_path / "client-cache", tmp_path / "worker-cache"
    monkeypatch.setattr(samples, "is_installed", lambda crate: True)
    monkeypatch.setattr(samples, "cache_folder", lambda: client_cache)
    paths = PathMap.of_client({})
    client_folder = samples.core_library(SAMPLES["montecarlo"].core).parent
    assert (str(client_folder), "core", "montecarlo") in paths.paths
    monkeypatch.setattr(samples, "cache_folder", lambda: worker_cache)  # now on the worker
    built = []
    monkeypatch.setattr(samples, "build_core", lambda crate: built.append(crate) or samples.core_library(crate))
    client_command = BotCommand(SAMPLES["montecarlo"].argv,
                                env=(("MONTECARLO_CORE_LIBRARY", str(client_folder / "libmontecarlo_core.so")),),
                                read_only=(str(client_folder),))
    entrant = translate(Entrant("mc", client_command), paths.here({}))
    worker_folder = samples.core_library(SAMPLES["montecarlo"].core).parent
    assert entrant.command.env == (("MONTECARLO_CORE_LIBRARY", str(worker_folder / "libmontecarlo_core.so")),)
    assert entrant.command.read_only == (str(worker_folder),)
    assert cluster_worker._problem({"mc": entrant}, cluster_worker.installed_version()) is None
    assert built == [SAMPLES["montecarlo"].core]  # built here, once, and only for the bot that needs it
    assert cluster_worker._problem({"g": Entrant("g", SAMPLES["greedy"].command())},
                                   cluster_worker.installed_version()) is None
    assert built == [SAMPLES["montecarlo"].core]


def test_a_shipped_folder_unpacks_once_and_one_with_a_link_out_of_it_is_refused(tmp_path):
    folder = tmp_path / "bot"
    (folder / "data").mkdir(parents=True)
    (folder / "bot.sh").write_text("#!/bin/sh\necho hi\n")
    (folder / "bot.sh").chmod(0o755)
    (folder / "data" / "book.txt").write_text("openings\n")
    (folder / "data" / "same").symlink_to("book.txt")
    archive = pack(str(folder))
    where = unpack(archive, tmp_path / "cache")
    assert (where / "data" / "book.txt").read_text() == "openings\n"
    assert (where / "data" / "same").resolve() == (where / "data" / "book.txt").resolve()
    assert os.stat(where / "bot.sh").st_mode & stat.S_IXUSR
    assert unpack(archive, tmp_path / "cache") == where  # the same content: the same folder, not unpacked again

    (folder / "data" / "secrets").symlink_to("/etc")
    with pytest.raises(ShipError, match="cannot ship"):
        pack(str(folder))
    evil = tmp_path / "evil.tar.gz"  # made by hand: the workers refuse it too
    with tarfile.open(evil, "w:gz") as tar:
        tar.add(folder / "bot.sh", arcname="../outside.sh")
    with pytest.raises(tarfile.FilterError):
        unpack(evil.read_bytes(), tmp_path / "cache2")
    assert not (tmp_path / "outside.sh").exists()


@pytest.mark.parametrize("address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://sched.example:8786",
                                     "tcp://[::1]:8786", "none"])
def test_a_scheduler_address_is_read_as_dask_writes_it(tmp_path, address):
    data = tournament_data(address)
    if address.startswith("tls"):
        data["cluster"]["certs"] = "certs"
    elif address != "none" and "::1" not in address:
        data["cluster"]["insecure"] = True  # off this machine over plain tcp: only when the organiser says so
    cluster = parse_config(data, tmp_path / "t.toml").cluster
    assert cluster is None if address == "none" else cluster.address == address


@pytest.mark.parametrize("table, problem", [
    ({"address": "tcp://10.0.0.5:8786"}, "is on another machine and plain tcp:// is neither encrypted nor "
                                          "authenticated"),
    ({"address": "sched.example:8786"}, "give tls://HOST:PORT with --cluster-certs DIR; or, on a network only you "
                                         "reach, say --insecure"),
    ({"address": "tls://10.0.0.5:8786"}, "is TLS: give the certificates' folder"),
    ({"address": "tcp://10.0.0.5:8786", "certs": "certs"}, "cluster.certs is for a tls:// scheduler"),
    ({"address": "tcp://127.0.0.1:8786"}, None),
    ({"address": "localhost:8786"}, None),
    ({"address": "tcp://[::1]:8786"}, None),
    ({"address": "tcp://10.0.0.5:8786", "insecure": True}, None),
    ({"address": "tls://10.0.0.5:8786", "certs": "certs"}, None),
])
def test_a_scheduler_off_this_machine_needs_tls_or_the_organisers_word(tmp_path, table, problem):
    data = tournament_data(None)
    data["cluster"] = table
    if problem is None:
        cluster = parse_config(data, tmp_path / "t.toml").cluster
        assert cluster.certs in (None, str(tmp_path / "certs"))  # relative to the configuration
    else:
        with pytest.raises(ConfigError, match=re.escape(problem)):
            parse_config(data, tmp_path / "t.toml")


@pytest.mark.parametrize("cluster_table, message", [
    ({"batch": 4}, "cluster.address is missing"),
    ({"address": "tcp://127.0.0.1:8786", "batch": 0}, "cluster.batch must be at least 1"),
    ({"address": "somewhere"}, "give the Dask scheduler as tcp://HOST:PORT"),
    ({"address": "http://10.0.0.5:8786"}, "give the Dask scheduler as tcp://HOST:PORT"),
    ({"address": "tcp:/10.0.0.5:8786"}, "give the Dask scheduler as tcp://HOST:PORT"),
    ({"address": "tcp://10.0.0.5:8786/"}, "give the Dask scheduler as tcp://HOST:PORT"),
    ({"address": "tcp://10.0.0.5:8786", "workers": 3}, "unknown key cluster.workers"),
])
def test_a_bad_cluster_table_is_named(tmp_path, cluster_table, message):
    data = tournament_data(None)
    data["cluster"] = cluster_table
    with pytest.raises(ConfigError, match=message):
        parse_config(data, tmp_path / "t.toml")


def test_a_ship_that_is_not_a_folder_is_named(tmp_path):
    data = tournament_data(None, bots=[{"name": "greedy", "sample": "greedy"},
                                       {"name": "mine", "command": RANDOM, "ship": "nowhere"}])
    with pytest.raises(ConfigError, match=r"bot\[2\].ship: .*nowhere is not a folder"):
        parse_config(data, tmp_path / "t.toml")


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path, monkeypatch):
    import tournaments.cluster

    monkeypatch.setattr(tournaments.cluster, "CONNECT_TIMEOUT", 1)
    with pytest.raises(BaseExceptionGroup) as caught:  # from the runner's nursery
        play(tournament_data("tcp://127.0.0.1:9"), tmp_path / "out")  # port 9 (discard): nobody listens
    error, = caught.value.exceptions
    assert isinstance(error, ClusterError)
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in str(error)


# ------------------------------------------------------------------ on a LocalCluster

def test_a_tournament_on_the_cluster_plays_the_same_games_as_on_one_machine(tmp_path, client, cluster):
    isolation = "none" if jail.problem() else "jail"  # the jail, as on one machine, where this machine has one
    here_games, here = play(tournament_data(None, isolation=isolation), tmp_path / "here")
    there_games, there = play(tournament_data(cluster.scheduler_address, isolation=isolation), tmp_path / "there")
    assert [g.game_id for g in here_games] == [g.game_id for g in there_games]
    assert {r.game_id: outcome(r) for r in there} == {r.game_id: outcome(r) for r in here}
    workers = set(cluster_workers(client))  # (the scheduler's answer: the client's own copy can read empty)
    assert {r.extra["worker"] for r in there} <= workers  # each record says which worker played it
    assert {r.game_id: problems for r in there if (problems := replay_record(r).problems)} == {}
    logs = list((tmp_path / "there" / "logs" / "cluster").glob("*/greedy.*.stderr.log"))
    assert logs and "start 1 of" in logs[0].read_text()  # the bots' logs come back to this machine


def test_a_worker_killed_mid_run_loses_no_game_and_counts_none_twice(tmp_path, client, cluster):
    killed = {}

    def on_batch(dask_client, result) -> None:
        if killed:
            return
        busy = {w: keys for w, keys in dask_client.processing().items() if keys}
        if not busy:  # every other batch is already back; nothing in flight to lose
            return
        worker = next(iter(busy))
        pids = dask_client.run(os.getpid, workers=[worker])
        killed.update(worker=worker, batches=len(busy[worker]), first=result.records[0])
        os.kill(pids[worker], signal.SIGKILL)  # a worker process of this test's own cluster

    games, records = play(tournament_data(cluster.scheduler_address, games=16), tmp_path / "out",
                          WorkerHooks(on_batch=on_batch))
    assert killed and killed["batches"] >= 1, "a worker should have been killed with a batch in flight"
    played = collections.Counter(r.game_id for r in records)
    assert played == collections.Counter(g.game_id for g in games)  # every game once: none lost, none twice
    reference_games, reference = play(tournament_data(None, games=16), tmp_path / "reference")
    assert {r.game_id: outcome(r) for r in records} == {r.game_id: outcome(r) for r in reference}
    client.wait_for_workers(2)  # the nanny started a new worker: the next test has two again


KILL_CLIENT = textwrap.dedent("""
    # The client of a cluster tournament, killed (SIGKILL) as its second batch comes back, once the first is on disk:
    # the second batch's records arrived and were never written.
    import os, signal, sys, time
    from pathlib import Path
    import tournaments.runner
    from arena.cli import main

    out = Path(sys.argv[1])
    run_games, seen = tournaments.runner.run_games, []

    def on_batch(client, result):
        seen.append(result)
        if len(seen) == 2:
            lines = out / "games.jsonl"
            while len(lines.read_text().splitlines()) < len(seen[0].records):  # the writer has the first
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGKILL)

    async def hooked(*args, **kwargs):
        await run_games(*args, **kwargs, hooks=tournaments.runner.WorkerHooks(on_batch=on_batch))

    tournaments.runner.run_games = hooked
    sys.exit(main(sys.argv[2:]))
""")


def test_a_killed_client_resumes_from_its_folder_on_the_cluster(tmp_path, cluster):
    out = tmp_path / "t"
    script = tmp_path / "kill_client.py"
    script.write_text(KILL_CLIENT)
    config = tmp_path / "t.toml"
    config.write_text(textwrap.dedent(f"""
        [tournament]
        games_per_pairing = 24
        seed = 11
        isolation = "none"
        options = {{ target = 300 }}
        [cluster]
        address = "{cluster.scheduler_address}"
        batch = 4
        [[bot]]
        name = "greedy"
        sample = "greedy"
        [[bot]]
        name = "rnd"
        command = "{RANDOM}"
    """))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed = subprocess.run([sys.executable, str(script), str(out), "tournament", str(config), "--out", str(out),
                             "--no-report", "--bootstrap", "0"], capture_output=True, text=True, env=env, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    saved = len((out / "games.jsonl").read_text().splitlines())
    assert saved == 2  # the first batch only: a block of two deals (4 games), one seating of them

    resumed = arena("tournament", "--resume", str(out), "--no-report", "--bootstrap", "0")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {saved} of 24 games already played" in resumed.stdout
    assert f"on the Dask cluster at {cluster.scheduler_address}" in resumed.stdout  # kept in the folder
    audit = audit_results(out / "games.jsonl")
    assert audit.findings == []
    assert collections.Counter(r.game_id for r in audit.records) == collections.Counter(
        g.game_id for g in schedule(parse_config(json.loads((out / "config.json").read_text())["data"], config)))
    assert "games this run played on each cluster worker" in resumed.stdout


@pytest.fixture
def bot_on_one_worker(tmp_path, cluster, client, monkeypatch):
    """A bot found on PATH as 'pa-cluster-bot': on this machine and on a third worker, not on the fixture's two."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "pa-cluster-bot"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {GREEDY} \"$@\"\n")
    program.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
                               "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", "with-the-bot",
                               "--host", "127.0.0.1"], env={**os.environ, "PATH": path},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client.wait_for_workers(3, timeout=60)
        monkeypatch.setenv("PATH", path)  # the client checks the bots too
        yield next(a for a, w in cluster_workers(client).items() if w["name"] == "with-the-bot")
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)


def test_a_worker_that_cannot_start_a_bot_says_so_once_and_its_games_go_elsewhere(tmp_path, cluster, capfd,
                                                                                    bot_on_one_worker):
    bots = [{"name": "rnd", "command": RANDOM}, {"name": "mine", "command": "pa-cluster-bot"}]
    games, records = play(tournament_data(cluster.scheduler_address, games=12, bots=bots), tmp_path / "out")
    assert collections.Counter(r.game_id for r in records) == collections.Counter(g.game_id for g in games)
    assert {r.extra["worker"] for r in records} == {bot_on_one_worker}
    assert all(r.culprit is None for r in records)  # no bot was charged with the machines' problem
    err = capfd.readouterr().err
    refusals = [line for line in err.splitlines() if "cannot start bot 'mine'" in line]
    assert len(refusals) == 2, err  # each of the two workers without it, once
    assert all("not found on PATH; its games go to the other workers" in line for line in refusals)


def test_no_worker_able_to_start_a_bot_stops_the_tournament_with_the_reasons(tmp_path, cluster, client, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pa-cluster-bot").write_text(f"#!/bin/sh\nexec {sys.executable} {GREEDY}\n")
    (bin_dir / "pa-cluster-bot").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")  # here only
    bots = [{"name": "rnd", "command": RANDOM}, {"name": "mine", "command": "pa-cluster-bot"}]
    with pytest.raises(BaseExceptionGroup) as caught:
        play(tournament_data(cluster.scheduler_address, bots=bots), tmp_path / "out")
    error, = caught.value.exceptions
    assert isinstance(error, ClusterError)
    assert "no worker of the cluster can play the games" in str(error)
    assert str(error).count("cannot start bot 'mine'") == 2


def test_a_shipped_bot_is_played_from_the_copy_the_workers_unpacked(tmp_path, cluster, client):
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "greedy.py").write_text(GREEDY.read_text())
    (folder / "bot.py").write_text(textwrap.dedent("""
        import os, runpy, sys
        print("running from", os.path.dirname(os.path.abspath(__file__)), file=sys.stderr, flush=True)
        runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "greedy.py"), run_name="__main__")
    """))
    bots = [{"name": "rnd", "command": RANDOM},
            {"name": "mine", "command": f"python3 {folder / 'bot.py'}", "ship": str(folder)}]
    isolation = "none" if jail.problem() else "jail"  # jailed where it can be: the unpacked copy must show there
    games, records = play(tournament_data(cluster.scheduler_address, bots=bots, isolation=isolation),
                          tmp_path / "out")
    assert collections.Counter(r.game_id for r in records) == collections.Counter(g.game_id for g in games)
    assert all(r.culprit is None for r in records), [r.detail for r in records if r.culprit is not None]
    logs = "".join(p.read_text() for p in (tmp_path / "out" / "logs" / "cluster").glob("*/mine.*.stderr.log"))
    places = re.findall(r"running from (\S+)", logs)
    assert len(places) == len(games), logs  # every game's process, from ...
    assert all("/pinochle-arena/shipped/" in p and p != str(folder) for p in places)  # ... the unpacked copy
    reference_games, reference = play(tournament_data(None, bots=[
        {"name": "rnd", "command": RANDOM}, {"name": "mine", "command": f"python3 {GREEDY}"}]), tmp_path / "ref")
    assert {r.game_id: outcome(r) for r in records} == {r.game_id: outcome(r) for r in reference}


def test_a_batch_that_comes_back_with_games_it_was_not_given_is_refused():
    from referee.records.record import GameRecord, SeatInfo
    from tournaments.cluster import _other_games
    from tournaments.schedule import GameSpec

    batch = [GameSpec("a-b-1a", ("a", "b"), 1, ("a", "b"), 1), GameSpec("a-b-1b", ("b", "a"), 1, ("a", "b"), 1)]

    def record(game_id, *seats):
        return GameRecord(game_id, "two-handed", {}, 1, [SeatInfo(s, s, s) for s in seats], {})

    assert _other_games([record("a-b-1a", "a", "b"), record("a-b-1b", "b", "a")], batch) is None
    assert _other_games([record("a-b-1a", "a", "b")], batch) is None  # fewer: a batch stopped with the run
    assert _other_games([record("a-b-1a", "b", "a")], batch)  # seated otherwise
    assert _other_games([record("a-b-2a", "a", "b")], batch)  # another game
    assert _other_games([record("a-b-1a", "a", "b"), record("a-b-1a", "a", "b")], batch)  # one game twice


def test_a_league_plays_its_games_on_the_cluster(tmp_path, cluster):
    folder = tmp_path / "league"
    assert arena("league", "init", folder, "--boards", "--isolation", "none").returncode == 0
    for name in ("greedy", "random"):
        added = arena("league", "add", name, name, "--league", folder)
        assert added.returncode == 0, added.stderr
    run = arena("league", "run", folder, "--games", "6", "--cluster", cluster.scheduler_address)
    assert run.returncode == 0, run.stderr
    import sqlite3

    with sqlite3.connect(folder / "league.db") as c:
        records = [json.loads(line) for (line,) in c.execute("select record from games")]
    assert len(records) >= 6 and all("worker" in r["extra"] for r in records)  # played by the cluster's workers
    out = tmp_path / "export"
    assert arena("league", "export", folder, out).returncode == 0
    assert arena("replay", out).returncode == 0
