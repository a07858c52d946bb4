"""The same attacks with ``--isolation none``: what the jail is for.

Unjailed, a bot runs as the referee's user with a clean environment and a
fresh working folder, and nothing more: these runs show it reading the
output folder, remembering a deal from one seating to the next, reading the
referee's environment and rewriting its opponent's program. Only harmless
attacks run here (the spying bot reads the referee's environment and
nothing else: no signal, no write to another process), and every file they
touch is the test's own (the mark fixture removes what they leave in /tmp
and /dev/shm).
"""

from __future__ import annotations

import hashlib

import pytest

from .jailrun import RANDOM_BOT, SECRET, command, completed, match, records, reports, stderr_text

NONE = ("--isolation", "none")


def reading_out(tmp_path, bots, mark):
    out = tmp_path / "out"
    match(out, command(bots / "read_out.py", f"out={out}", f"mark={mark}"), "random", extra=NONE, cwd=tmp_path)
    completed(records(out))
    first, second = reports(out, "readout")
    for said in (first, second):
        read = dict(item.rsplit(":", 1) for item in said["read"].split(","))
        assert int(read[str(out / "secret.key")]) > 0  # the key that seals the records
        assert str(out) in said["listed"]
    assert str(out / "games.jsonl") in second["read"]  # the first game's record, before the second game
    assert "random.stderr.log" in second["read"]  # the opponent's log


def memory(tmp_path, bots, mark):
    out = tmp_path / "out"
    match(out, command(bots / "memory.py", f"mark={mark}"), "random", extra=NONE, cwd=tmp_path)
    completed(records(out))
    first, second = reports(out, "memory")
    assert first["found"] == "none"
    assert first["id"] in second["found"]  # the second seating of the deal knows the first one's hand
    assert "/tmp:" in second["found"] and "/dev/shm:" in second["found"]


def environ(tmp_path, bots, mark):
    out = tmp_path / "out"
    attacker = command(bots / "processes.py", "referee=@REFEREE_PID@", "only=environ", f"mark={mark}")
    match(out, attacker, "random", extra=NONE, cwd=tmp_path, env={"PINOCHLE_TEST_SECRET": SECRET}, with_pid=True)
    completed(records(out))
    for said in reports(out, "processes"):
        assert said["secret"] == SECRET
        assert said["environ"] != "-"
        assert said["stop"] == said["kill"] == said["fd1"] == "-"  # never tried unjailed
    assert SECRET in stderr_text(out)


def overwriting(tmp_path, bots, mark):
    victim_folder = tmp_path / "victim"
    victim_folder.mkdir()
    victim = victim_folder / "random_bot.py"
    victim.write_bytes(RANDOM_BOT.read_bytes())
    before = hashlib.sha256(victim.read_bytes()).hexdigest()
    out = tmp_path / "out"
    match(out, command(bots / "overwrite.py", str(victim), f"mark={mark}"), command(victim), extra=NONE, cwd=tmp_path)
    completed(records(out))  # the changes are harmless comments: the victim still plays
    for said in reports(out, "overwrite"):
        assert said == {"append": "ok", "chmod": "ok", "beside": "ok", "delete": "ok"}
    assert hashlib.sha256(victim.read_bytes()).hexdigest() != before
    assert mark in victim.read_text()
    (victim_folder / f"{mark}-beside.py").unlink()


def page_cache(tmp_path, bots, mark):
    out = tmp_path / "out"
    match(out, command(bots / "page_cache.py", f"mark={mark}"), "random", extra=NONE, cwd=tmp_path)
    completed(records(out))
    first, second = reports(out, "pagecache")
    assert second["mincore"] == "ok" and second["aio"] == "ok" and second["pmadvise"] == "ok"
    # the second seating finds cached every face of the first seating's hand: its opponent's hand now
    assert set(first["hand"].split(",")) <= set(second["found"].split(","))


def locks(tmp_path, bots, mark):
    out = tmp_path / "out"
    match(out, command(bots / "locks.py", f"mark={mark}"), "random", extra=NONE, cwd=tmp_path)
    completed(records(out))
    for said in reports(out, "locks"):
        assert said["flock"] == said["fcntl"] == said["ofd"] == said["highbits"] == "seen"
        assert said["inotify"] == said["io_uring"] == "ok"


def fault_around(tmp_path, bots, mark):
    out = tmp_path / "out"
    match(out, command(bots / "fault_around.py", f"mark={mark}"), "random", extra=NONE, cwd=tmp_path)
    completed(records(out))
    first, second = reports(out, "faultaround")
    # the second seating sees which pages the first one read: its opponent's hand, asking nothing refusable (a page
    # another process of the machine read meanwhile shows too: the first seating's eviction cannot keep it out)
    found = set(second["found"].split(","))
    assert set(first["hand"].split(",")) <= found and len(found) < 24


def counters(tmp_path, bots, mark):
    out = tmp_path / "out"
    match(out, command(bots / "counters.py", f"mark={mark}"), "random", games=1, extra=(*NONE, "--no-duplicate"),
          cwd=tmp_path)
    completed(records(out))
    (said,) = reports(out, "counters")
    moved = said["moved"].split(",")
    assert "/proc/stat" in moved  # its own forks, counted machine-wide: another process sees them too
    assert said["sysinfo"] == "moved"


ATTACKS = {"reading OUT": reading_out, "memory across seatings": memory, "the referee's environment": environ,
           "overwriting the opponent": overwriting, "memory through the page cache": page_cache,
           "a channel through locks and watches": locks, "the page cache read by fault-around": fault_around,
           "the machine's counters": counters}


@pytest.mark.parametrize("attack", ATTACKS)
def test_unjailed_attack_succeeds(attack, tmp_path, bots, mark):
    """Without the jail each of these attacks works (see the table in tests/attacks/__init__.py)."""
    ATTACKS[attack](tmp_path, bots, mark)
