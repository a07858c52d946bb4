"""Each attack of tests/attacks/bots fails under the default jail (the table is in __init__.py).

Every run goes through the real command line (``python -m arena match``
or ``tournament``) with its defaults: jailed bots, a secret seed, a fresh
process per game. A test asserts what the attacker learnt or changed (from
its ``ATTACK`` line and from the files and records), never how long
anything took.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

import pytest

from referee.bots import cgroups
from referee.bots.jail import UID_BASE, UID_POOL

from .jailrun import (
    RANDOM_BOT,
    SECRET,
    apart,
    assert_no_leftovers,
    command,
    completed,
    copy_engine,
    match,
    records,
    referee,
    reports,
    stderr_text,
    tournament,
    tournament_config,
)

pytestmark = pytest.mark.usefixtures("needs_jail")

MiB = 1 << 20
DENIED = {"EROFS", "EACCES", "EPERM"}  # a read-only mount, or files of another uid


def hands_of(record) -> list[list[str]]:
    return record.deals[0]["hands"]


# ----------------------------------------------------------------- 1. seed from the clock
@pytest.mark.parametrize("seed", ["secret", "clock"])
def test_clock_seed(seed, tmp_path, bots, mark):
    """With a secret seed no second of the last ten minutes deals the attacker's hand, so it cannot claim
    the opponent's. The control run with the old default (the clock) shows the attack is real."""
    lib = copy_engine(tmp_path / "lib")
    out = tmp_path / "out"
    extra = ["--read-only", str(lib), "--time-per-move", "30000", "--time-bank", "120000"]
    clock = int(time.time())
    if seed == "clock":
        extra += ["--seed", str(clock)]
    attacker = command(bots / "clock_seed.py", f"lib={lib}", f"mark={mark}")
    match(out, attacker, "random", extra=tuple(extra), cwd=tmp_path)
    recs = records(out)
    completed(recs)
    found = reports(out, "clock")
    assert len(found) == len(recs) == 2  # a fresh attacker in every game
    for record, said in zip(recs, found, strict=True):
        seat = int(said["seat"])
        assert said["engine"].startswith(str(lib))  # it dealt with its own copy of the rules
        assert sorted(said["hand"].split(",")) == sorted(hands_of(record)[seat])  # it knew its hand
        other = hands_of(record)[1 - seat]
        if seed == "secret":
            assert said["match"] == "none"
            assert said["claim"] == "none"
        else:
            assert said["match"] == str(clock)
            assert said["claim"].split(",") == other  # the old default gave the opponent's hand away


# ----------------------------------------------------------------- 2. reading OUT
def test_reading_out_in_a_match(tmp_path, bots, mark):
    """OUT's parent folder is readable (--read-only), OUT's path is known: still nothing in it is seen."""
    tmp_path.chmod(0o755)  # pytest makes it 0700: a bot under a uid of its own could not read its program in it
    shared = tmp_path / "shared"  # shown to every bot: it must not hold a bot's program
    shared.mkdir(mode=0o755)
    out = shared / "out"
    attacker = command(bots / "read_out.py", f"out={out}", f"mark={mark}")
    match(out, attacker, "random", extra=("--read-only", str(shared)), cwd=tmp_path)
    completed(records(out))
    found = reports(out, "readout")
    assert len(found) == 2
    assert all(said == {"read": "-", "listed": "-", "cmdline": "-"} for said in found), found


def test_reading_out_in_a_tournament(tmp_path, bots, mark):
    tmp_path.chmod(0o755)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    out = shared / "out"
    attacker = command(bots / "read_out.py", f"out={out}", f"mark={mark}")
    config = tournament_config(tmp_path / "t.toml", {"reader": attacker, "random": command(RANDOM_BOT)}, out,
                               read_only=(shared,))
    tournament(config, out, cwd=tmp_path)
    assert (out / "tournament.json").exists() and (out / "secret.key").exists()
    completed(records(out))
    found = reports(out, "readout")
    assert len(found) == 2
    assert all(said == {"read": "-", "listed": "-", "cmdline": "-"} for said in found), found


# ----------------------------------------------------------------- 3. memory across the seatings of a deal
@pytest.mark.parametrize("runner", ["match", "tournament"])
def test_no_memory_across_seatings(runner, tmp_path, bots, mark):
    """What a game leaves in $HOME, /tmp and /dev/shm is gone in the next seating of the same deal, and the
    game ids the bots are told are random: unique, and naming neither the bots nor the schedule."""
    out = tmp_path / "out"
    attacker = command(bots / "memory.py", f"mark={mark}")
    if runner == "match":
        match(out, attacker, "random", games=4, cwd=tmp_path)
    else:
        config = tournament_config(tmp_path / "t.toml", {"memory": attacker, "random": command(RANDOM_BOT)}, out,
                                   games=4)
        tournament(config, out, cwd=tmp_path)
    recs = records(out)
    completed(recs)
    found = reports(out, "memory")
    assert len(found) == len(recs) == 4
    assert [said["found"] for said in found] == ["none"] * 4
    for said in found:  # it could write (so it would have found a memory had one survived), except beside itself
        wrote = dict(w.rsplit(":", 1) for w in said["wrote"].split(","))
        assert wrote == {"/home/bot": "ok", "/tmp": "ok", "/dev/shm": "ok", str(bots): "EROFS"}
    told = [said["id"] for said in found]
    assert sorted(told) == sorted(r.extra["wire_id"] for r in recs)
    assert len(set(told)) == 4
    names = {s.entrant for r in recs for s in r.seats} | {s.bot_name for r in recs for s in r.seats}
    for wire_id in told:
        assert re.fullmatch(r"[0-9a-f]{12}", wire_id)
        for r in recs:
            assert r.game_id not in wire_id and wire_id not in r.game_id
        assert not any(name in wire_id for name in names)
    assert_no_leftovers(mark, tmp_path)


@pytest.mark.parametrize("runner", ["match", "tournament", "sprt"])
def test_on_boards_a_process_plays_on_but_never_sees_a_deal_twice(runner, tmp_path, bots, mark):
    """On boards one process plays one seating of successive boards (starting one per one-hand game would
    cost more than the hand): the attacker's processes are reused, yet none of them is ever given two
    seatings of one board, and none is dealt a hand it held before."""
    out = tmp_path / "out"
    attacker = command(bots / "seatings.py", f"mark={mark}")
    opponent = command(RANDOM_BOT)
    if runner == "match":
        done = referee("match", attacker, opponent, "--boards", "6", "--out", out, cwd=tmp_path)
    elif runner == "tournament":
        done = referee("tournament", "--bot", f"seatings={attacker}", "--bot", f"random={opponent}", "--boards", "6",
                       "--concurrency", "2", "--processes", "2", "--bootstrap", "0", "--out", out, cwd=tmp_path)
    else:
        done = referee("sprt", attacker, opponent, "--boards", "6", "--elo0", "0", "--elo1", "1",
                       "--concurrency", "2", "--out", out, cwd=tmp_path)
    assert done.returncode == (3 if runner == "sprt" else 0), done.stdout + done.stderr  # the sprt runs out undecided
    recs = records(out)
    completed(recs)
    by_wire_id = {r.extra["wire_id"]: r for r in recs}
    found = reports(out, "seatings")
    assert len(found) == len(recs) >= 8
    played: dict[str, list] = {}
    for said in found:
        record = by_wire_id[said["id"]]
        seat = next(i for i, s in enumerate(record.seats) if s.entrant.startswith("seatings"))
        played.setdefault(said["proc"], []).append((record.extra["board"], seat))
        assert said["seen"] == "no"
    assert len(played) < len(found), "a process should play on from board to board"
    for proc, games in played.items():
        boards = [board for board, _ in games]
        assert len(set(boards)) == len(boards), f"process {proc} played a board twice: {games}"
        assert len({seat for _, seat in games}) == 1, f"process {proc} changed seats: {games}"
    assert_no_leftovers(mark, tmp_path)


# ----------------------------------------------------------------- 4. other processes
@pytest.mark.parametrize("runner", ["match", "tournament"])
def test_other_processes(runner, tmp_path, bots, mark):
    """The attacker sees only its own jail: no environment, memory or pipe of another process, no signal
    delivered to the referee, its workers or the opponent, which plays every game to its end."""
    out = tmp_path / "out"
    attacker = command(bots / "processes.py", "referee=@REFEREE_PID@", f"mark={mark}")
    env = {"PINOCHLE_TEST_SECRET": SECRET}
    if runner == "match":
        done = match(out, attacker, "random", games=2, cwd=tmp_path, env=env, with_pid=True)
    else:
        config = tournament_config(tmp_path / "t.toml", {"processes": attacker, "random": command(RANDOM_BOT)}, out)
        done = tournament(config, out, cwd=tmp_path, env=env, with_pid=True)
    assert done.returncode == 0  # the referee lived to print its table
    recs = records(out)
    completed(recs)
    assert len(recs) == 2
    found = reports(out, "processes")
    assert len(found) == 2
    for said in found:
        assert said["jailed"] == "yes"
        assert int(said["seen"]) > 200  # the pids near the referee's, and what /proc lists
        assert said["secret"] == "none"
        for step in ("mem", "fd0", "fd1", "stop", "kill"):
            assert said[step] == "-", (step, said)
    assert SECRET not in stderr_text(out)
    assert_no_leftovers(mark, tmp_path)


# ----------------------------------------------------------------- 5. forged results
def test_forged_results(tmp_path, bots, mark):
    """The attacker cannot write to the records file; a line forged there by someone who can (the test) is
    rejected by replay and ratings."""
    out = tmp_path / "out"
    attacker = command(bots / "forge.py", f"out={out}", f"mark={mark}")
    match(out, attacker, "random", cwd=tmp_path)
    found = reports(out, "forge")
    assert [said["wrote"] for said in found] == ["-", "-"]
    text = (out / "games.jsonl").read_text()
    assert "FORGED" not in text
    recs = records(out)  # every line's seal checked
    assert [r.game_id for r in recs] == ["g1", "g2"]
    completed(recs)
    assert referee("replay", out / "games.jsonl", cwd=tmp_path).returncode == 0
    assert referee("ratings", out, "--bootstrap", "0", cwd=tmp_path).returncode == 0
    lines = text.splitlines()
    forged = json.loads(lines[0])
    forged["result"] = forged["result"][::-1]  # the loser of g1 made the winner; the seal kept
    forged = json.dumps(forged, separators=(",", ":"))
    for how, content in (("appended", lines + [forged]), ("in place", [forged] + lines[1:])):
        (out / "games.jsonl").write_text("\n".join(content) + "\n")
        replayed = referee("replay", out / "games.jsonl", cwd=tmp_path)
        assert replayed.returncode != 0 and "rejected" in replayed.stdout, (how, replayed.stdout, replayed.stderr)
        rated = referee("ratings", out, "--bootstrap", "0", cwd=tmp_path)
        assert rated.returncode != 0 and "rejected" in rated.stderr, (how, rated.stdout, rated.stderr)


# ----------------------------------------------------------------- 6. overwriting the opponent's program
def test_overwriting_the_opponent(tmp_path, bots, mark):
    victim_folder = tmp_path / "victim"
    victim_folder.mkdir()
    victim = victim_folder / "random_bot.py"
    victim.write_bytes(RANDOM_BOT.read_bytes())
    before = (hashlib.sha256(victim.read_bytes()).hexdigest(), victim.stat().st_mode, victim.stat().st_ino,
              sorted(os.listdir(victim_folder)))
    out = tmp_path / "out"
    attacker = command(bots / "overwrite.py", str(victim), f"mark={mark}")
    match(out, attacker, command(victim), cwd=tmp_path)
    after = (hashlib.sha256(victim.read_bytes()).hexdigest(), victim.stat().st_mode, victim.stat().st_ino,
             sorted(os.listdir(victim_folder)))
    assert after == before
    found = reports(out, "overwrite")
    assert len(found) == 2
    for said in found:
        assert set(said) == {"append", "chmod", "beside", "delete"}
        assert set(said.values()) <= DENIED, said
    completed(records(out))


# ----------------------------------------------------------------- 7. the process limit
def test_fork_loop_does_not_starve_the_opponent_of_processes(tmp_path, bots, mark):
    """The attacker's forks stop at its own limit (256 processes); the innocent bot still starts its 20
    threads at every request, and nothing of either is left after the match."""
    if os.geteuid() != 0:
        pytest.skip("per-bot process limits need the referee to run as root (a uid and a control group per bot)")
    out = tmp_path / "out"
    match(out, command(bots / "forkloop.py", f"mark={mark}"), command(apart(bots, "threads.py"), f"mark={mark}"),
          cwd=tmp_path)
    completed(records(out))
    found = reports(out, "fork")
    assert len(found) == 2
    for said in found:
        assert 0 < int(said["made"]) < 256 and said["error"] == "EAGAIN", said
    assert_no_leftovers(mark, tmp_path)


# ----------------------------------------------------------------- 8. leftovers
def _host_shm_of_bots() -> set[str]:
    """Entries of the host's /dev/shm owned by a bot uid."""
    found = set()
    for entry in os.scandir("/dev/shm"):
        try:
            if UID_BASE <= entry.stat(follow_symlinks=False).st_uid < UID_BASE + UID_POOL:
                found.add(entry.name)
        except OSError:
            pass
    return found


def test_leftovers(tmp_path, bots, mark):
    """Files in /dev/shm, /tmp and the home, a disk filled to its limit, a daemon that left the process
    group: none of it survives the match, and the disk write stops at the limit."""
    shm_before = _host_shm_of_bots()
    out = tmp_path / "out"
    match(out, command(bots / "leftovers.py", f"mark={mark}"), "random", extra=("--limit", "disk=32"), cwd=tmp_path)
    completed(records(out))
    found = reports(out, "leftovers")
    assert len(found) == 2
    for said in found:
        assert said["shm"] == said["tmp"] == said["home"] == said["daemon"] == "ok", said
        written, error = said["big"].split(":")
        assert error == "ENOSPC" and int(written) <= 32 * MiB, said
    assert_no_leftovers(mark, tmp_path)
    assert _host_shm_of_bots() <= shm_before
    work = out / "work"
    assert not work.exists() or [p for p in work.rglob("*") if p.is_file()] == []
    big = [p for p in tmp_path.rglob("*") if p.is_file() and p.stat().st_size >= MiB]
    assert big == []


# ----------------------------------------------------------------- 9. starving the opponent on time
def test_spinning_does_not_starve_the_opponent(tmp_path, bots, mark):
    """100 processes spinning while the opponent thinks share the attacker's own CPU quota: the innocent
    bot, which needs 150 ms of CPU per reply, never runs out of its (generous) time."""
    if os.geteuid() != 0:
        pytest.skip("per-bot CPU shares need the referee to run as root (control groups)")
    hierarchy, why = cgroups.usable_hierarchy()
    if hierarchy is None:
        pytest.skip(f"no control groups for the bots: {why}")
    out = tmp_path / "out"
    match(out, command(bots / "starve.py", f"mark={mark}"), command(apart(bots, "burner.py"), f"mark={mark}"),
          extra=("--time-per-move", "4000", "--time-bank", "200000"), cwd=tmp_path)
    completed(records(out))
    assert [said["spinners"] for said in reports(out, "starve")] == ["100", "100"]
    assert_no_leftovers(mark, tmp_path)


# ----------------------------------------------------------------- a long game
def test_a_slow_thinker_is_not_killed(tmp_path, bots, mark):
    """A bot may think 12 s on a move when the time control allows it (attack 9 makes games long too):
    the jail must not end its process while it is within its time."""
    out = tmp_path / "out"
    match(out, command(bots / "slow.py", f"mark={mark}"), "random", games=1,
          extra=("--no-duplicate", "--time-per-move", "30000", "--time-bank", "60000"), cwd=tmp_path)
    completed(records(out))
    assert_no_leftovers(mark, tmp_path)


# ----------------------------------------------------------------- 11. memory through the page cache
def test_no_memory_across_seatings_through_the_page_cache(tmp_path, bots, mark):
    """The second seating of a deal cannot tell which system files the first one read: residency is not to be
    asked (mincore, a read that may not wait), and the first seating cannot evict what it did not read."""
    out = tmp_path / "out"
    match(out, command(bots / "page_cache.py", f"mark={mark}"), "random", cwd=tmp_path)
    completed(records(out))
    found = reports(out, "pagecache")
    assert len(found) == 2
    for said in found:
        assert said["files"] == "24"
        assert said["mincore"] == "EPERM" and said["nowait"] == "ENOTSUP"
        assert said["aio"] == "ENOSYS" and said["pmadvise"] == "EPERM"
        assert said["found"] == "unknown"


# ----------------------------------------------------------------- 11b. the page cache, asking nothing refusable
def test_no_memory_across_seatings_through_fault_around_or_timed_reads(tmp_path, bots, mark, needs_own_files):
    """Each seating reads its files through a file system of its own: the second seating of a deal finds none of
    the pages the first one read cached, neither by fault-around and pagemap (exact) nor by timing its reads (the
    unjailed control, tests/attacks/test_unjailed.py, finds the first seating's hand exactly)."""
    out = tmp_path / "out"
    match(out, command(bots / "fault_around.py", f"mark={mark}"), "random", cwd=tmp_path)
    completed(records(out))
    found = reports(out, "faultaround")
    assert len(found) == 2
    for said in found:
        assert said["files"] == "24"
        assert said["found"] == "-"  # not one page cached: its mount is new, whatever the other seating read


def test_no_memory_between_seatings_played_at_once(tmp_path, bots, mark, needs_own_files):
    """Two seatings of a deal side by side (two copies of the bot in a tournament at concurrency 2, each in its
    own processes) see each other's reads no more than the one after the other do."""
    out = tmp_path / "out"
    config = tournament_config(tmp_path / "t.toml", {"a": command(apart(bots, "fault_around.py"), f"mark={mark}"),
                                                     "b": command(bots / "fault_around.py", f"mark={mark}")},
                               out, games=2)
    tournament(config, out, cwd=tmp_path)
    completed(records(out))
    found = reports(out, "faultaround")
    assert len(found) == 4
    assert all(said["found"] == "-" for said in found)


def test_no_pages_read_by_a_partner(tmp_path, bots, mark, needs_own_files):
    """Partners of a four-handed game run at once, in jails side by side: neither finds cached a page the other
    read (each reads through mounts of its own)."""
    out = tmp_path / "out"
    attacker = command(bots / "fault_around.py", f"mark={mark}")
    match(out, attacker, "random", attacker, "random", games=1, cwd=tmp_path,
          extra=("--variant", "four-handed", "--no-duplicate"))
    completed(records(out))
    found = reports(out, "faultaround")
    assert len(found) == 2
    assert all(said["found"] == "-" for said in found)


def test_a_runtime_the_organiser_names_is_in_the_system_image(tmp_path, bots, mark, needs_own_files):
    """The system image holds the runtimes it knows, not the host's whole /usr: a file of another runtime is there
    only once the organiser names its folder (--runtime, or runtimes = [...] in a configuration)."""
    folder = "/usr/share/common-licenses"
    path = f"{folder}/GPL-3"
    if not Path(path).is_file():
        pytest.skip(f"no {path} here")
    bot = command(bots / "reads_file.py", f"mark={mark}", f"path={path}")
    for extra, found in (((), "ENOENT"), (("--runtime", folder), "yes")):
        out = tmp_path / f"out{len(extra)}"
        match(out, bot, "random", games=1, extra=("--no-duplicate", *extra), cwd=tmp_path)
        completed(records(out))
        assert [said["found"] for said in reports(out, "readsfile")] == [found]


# ----------------------------------------------------------------- 11c. the machine's counters
def test_no_machine_wide_counter_moves_in_the_jail(tmp_path, bots, mark):
    """Every file of the jail's /proc that is not a process's own stays the same while the bot forks, starts
    threads, opens files and takes memory (unjailed, /proc/stat, the load, memory, pressure and file figures all
    move), and sysinfo, which answers the same figures without a file, is not there."""
    out = tmp_path / "out"
    match(out, command(bots / "counters.py", f"mark={mark}"), "random", games=1, extra=("--no-duplicate",),
          cwd=tmp_path)
    completed(records(out))
    (said,) = reports(out, "counters")
    assert int(said["read"]) > 100
    assert said["moved"] == "-"
    assert said["sysinfo"] == "ENOSYS"


# ----------------------------------------------------------------- 12. a channel between running copies
def test_no_channel_between_copies_through_locks_watches_or_io_uring(tmp_path, bots, mark):
    """Two processes that share only what every jail shares (a parent and its child stand for two copies of a
    bot playing at once) cannot see each other's locks on a system file, watch files, or use io_uring."""
    out = tmp_path / "out"
    match(out, command(bots / "locks.py", f"mark={mark}"), "random", cwd=tmp_path)
    completed(records(out))
    found = reports(out, "locks")
    assert len(found) == 2
    for said in found:
        assert said == {"flock": "unseen", "fcntl": "EPERM", "ofd": "EPERM", "highbits": "EPERM", "inotify": "ENOSYS",
                        "fanotify": "ENOSYS", "io_uring": "ENOSYS"}


# ----------------------------------------------------------------- 13. spaces without a size
def test_no_writing_to_the_jail_s_own_root_or_dev_and_no_core_files(tmp_path, bots, mark):
    """bwrap makes the jail's / and /dev as tmpfs without a size: they are read-only to the bot, and its
    core files are off for good (a hard limit of 0, which it cannot raise)."""
    out = tmp_path / "out"
    match(out, command(bots / "spaces.py", f"mark={mark}"), "random", cwd=tmp_path)
    completed(records(out))
    found = reports(out, "spaces")
    assert len(found) == 2
    for said in found:
        assert said == {"root": "EROFS", "dev": "EROFS", "core": "0:0", "raise": "refused"}


# ----------------------------------------------------------------- 14. entrants never see each other
def _script_bot(path):
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    path.write_text("#!/usr/bin/env python3\n" + RANDOM_BOT.read_text())
    path.chmod(0o755)


def test_entrants_side_by_side_or_beside_results_are_refused(tmp_path, mark):
    """README's old quick start put ./mybot beside ./otherbot and results/: each bot's jail would show it the
    other's program (the program's folder is shown) and earlier events' keys and seeds. Refused, with how
    to lay the folders out; a folder per bot plays."""
    tmp_path.chmod(0o755)
    event = tmp_path / "event"
    _script_bot(event / "mybot")
    _script_bot(event / "otherbot")
    side_by_side = referee("match", "./mybot", "./otherbot", "--games", "2", "--out", tmp_path / "r1", cwd=event)
    assert side_by_side.returncode == 2
    assert "bot mybot would be shown otherbot's program" in side_by_side.stderr
    assert "give each bot a folder of its own" in side_by_side.stderr and "Traceback" not in side_by_side.stderr

    apart_ = tmp_path / "apart"
    _script_bot(apart_ / "mine" / "mybot")
    _script_bot(apart_ / "theirs" / "otherbot")
    earlier = apart_ / "mine" / "results" / "last-week"
    earlier.mkdir(parents=True)
    (earlier / "secret.key").write_text("0" * 64)
    beside_results = referee("match", "mine/mybot", "theirs/otherbot", "--games", "2", "--out", tmp_path / "r2",
                             cwd=apart_)
    assert beside_results.returncode == 2
    assert f"bot mybot would be shown the results folder {earlier}" in beside_results.stderr

    (earlier / "secret.key").unlink()
    certs = apart_ / "mine" / "certs"  # pinochle-arena cluster certs, made in the bot's folder
    certs.mkdir()
    for name in ("ca.pem", "worker.pem", "worker-key.pem"):
        (certs / name).write_text("-----BEGIN-----\n")
    beside_certs = referee("match", "mine/mybot", "theirs/otherbot", "--games", "2", "--out", tmp_path / "r4",
                           cwd=apart_)
    assert beside_certs.returncode == 2
    assert f"bot mybot would be shown the cluster's certificates in {certs}" in beside_certs.stderr
    for name in ("ca.pem", "worker.pem", "worker-key.pem"):
        (certs / name).unlink()
    played = referee("match", "mine/mybot", "theirs/otherbot", "--games", "2", "--option", "target=200",
                     "--out", tmp_path / "r3", cwd=apart_)
    assert played.returncode == 0, played.stderr

    # Run from inside a bot's folder, the default results/ would land in it: hidden from this run's bots, but every
    # later run with that bot would be refused for it (it worked once, then not): refused at the first, made nowhere.
    inside = referee("match", "./mybot", "../theirs/otherbot", "--games", "2", cwd=apart_ / "mine")
    assert inside.returncode == 2 and "Traceback" not in inside.stderr
    assert "would be inside" in inside.stderr and "which bot mybot is shown" in inside.stderr
    assert "give --out a folder elsewhere" in inside.stderr
    assert not list((apart_ / "mine" / "results").glob("match-*"))  # (only last-week's, emptied above, is there)
