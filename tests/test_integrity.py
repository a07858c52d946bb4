"""Results no bot can touch: sealed records, the key that seals them, and the checks against the schedule.

A forged or altered line in ``games.jsonl`` must be caught by every command
that reads results (``tournament --resume``, ``replay``, ``ratings``), and so
must a line with a good seal that the run cannot have written: a second
record of one game, a game that is not scheduled, a swapped seating, a
fault whose culprit did not lose.
"""

from __future__ import annotations

import json
import secrets
import shutil
import stat
from pathlib import Path

import pytest
from helpers import arena, stopped_after
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.records.audit import (
    Schedule,
    ScheduleError,
    check_records,
    read_schedule,
    write_schedule,
)
from referee.records.record import GameRecord, RecordError, SeatInfo, Termination, append_records, read_records
from referee.records.seals import KeyFileError, SealError, check_seal, load_key, new_key, seal
from referee.rules import fault_returns, get_variant
from tournaments.store import ResultStore, StoreError

ROOT = Path(__file__).resolve().parent.parent
TWO = get_variant("two-handed")
FOUR = get_variant("four-handed")


# --- the key and the seal -------------------------------------------------------------------------------------


def test_a_new_key_is_private_random_and_never_overwritten(tmp_path):
    out = tmp_path / "new" / "out"
    key = new_key(out)
    assert stat.S_IMODE((out / "secret.key").stat().st_mode) == 0o600
    assert stat.S_IMODE(out.stat().st_mode) == 0o700  # a new output directory is the referee's alone
    text = (out / "secret.key").read_text()
    assert len(text) == 65 and text.endswith("\n") and bytes.fromhex(text) == key
    assert load_key(out) == key
    assert new_key(tmp_path / "other") != key
    with pytest.raises(KeyFileError, match="already exists"):
        new_key(out)
    assert load_key(out) == key  # the refused second key did not replace the first


def test_an_existing_output_directory_keeps_its_mode(tmp_path):
    tmp_path.chmod(0o755)
    new_key(tmp_path)
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "secret.key").stat().st_mode) == 0o600


@pytest.mark.parametrize("content, message", [(None, "is missing"), ("not hex\n", "is not a key"),
                                              ("ab" * 16 + "\n", "is not a key")])
def test_a_missing_or_bad_key_is_a_clear_error(tmp_path, content, message):
    if content is not None:
        (tmp_path / "secret.key").write_text(content)
    with pytest.raises(KeyFileError, match=message) as caught:
        load_key(tmp_path)
    assert str(tmp_path / "secret.key") in str(caught.value)


def test_a_seal_covers_the_text_and_only_its_key_opens_it():
    key, other = secrets.token_bytes(32), secrets.token_bytes(32)
    text = '{"game_id":"g1","result":[1.0,0.0]}'
    line = seal(text, key)
    assert json.loads(line)["mac"] and json.loads(line)["result"] == [1.0, 0.0]
    assert check_seal(line, key) == text
    with pytest.raises(SealError, match="does not match"):
        check_seal(line, other)
    with pytest.raises(SealError, match="carries no seal"):
        check_seal(text, key)
    with pytest.raises(SealError, match="does not match"):
        check_seal(line.replace("1.0,0.0", "0.0,1.0"), key)


# --- one real match: its key, its schedule, its sealed lines ----------------------------------------------------


@pytest.fixture(scope="module")
def match_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("match") / "m"
    run = arena("match", "random", "greedy", "--games", "4", "--seed", "3", "--option", "target=200", "--out", str(out))
    assert run.returncode == 0, run.stderr
    return out


def test_a_match_writes_a_private_key_and_its_schedule(match_dir):
    assert stat.S_IMODE((match_dir / "secret.key").stat().st_mode) == 0o600
    assert stat.S_IMODE(match_dir.stat().st_mode) == 0o700
    key = load_key(match_dir)
    planned = read_schedule(match_dir, key)
    assert planned.kind == "match" and planned.variant == "two-handed" and planned.options["target"] == "200"
    assert [(g.game_id, g.seating) for g in planned.games] == [
        ("g1", ("random", "greedy")), ("g2", ("greedy", "random")), ("g3", ("random", "greedy")),
        ("g4", ("greedy", "random"))]
    records = list(read_records(match_dir / "games.jsonl", key))
    assert [r.game_id for r in records] == ["g1", "g2", "g3", "g4"]
    assert check_records(records, planned) == []
    lines = (match_dir / "games.jsonl").read_text().splitlines()
    assert all(list(json.loads(line))[-1] == "mac" for line in lines)


def test_a_schedule_with_a_bad_seal_is_refused(match_dir, tmp_path):
    (tmp_path / "secret.key").write_bytes((match_dir / "secret.key").read_bytes())
    text = (match_dir / "schedule.jsonl").read_text().replace('"greedy","random"', '"random","greedy"', 1)
    (tmp_path / "schedule.jsonl").write_text(text)
    with pytest.raises(ScheduleError, match=r"schedule\.jsonl:3: not written by this referee"):
        read_schedule(tmp_path, load_key(tmp_path))
    with pytest.raises(ScheduleError, match="already exists"):
        write_schedule(tmp_path, Schedule.of_games("match", TWO, []), load_key(tmp_path))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(0, 1, exclude_max=True), flip=st.integers(1, 255))
def test_any_flipped_byte_in_a_sealed_record_is_caught(where, flip, match_dir, tmp_path):
    line = (match_dir / "games.jsonl").read_bytes().split(b"\n")[1]
    at = int(where * len(line))
    damaged = line[:at] + bytes([line[at] ^ flip]) + line[at + 1:]
    path = tmp_path / "games.jsonl"
    path.write_bytes(damaged + b"\n")
    with pytest.raises(RecordError, match=r"games\.jsonl:\d+: not (a valid game record|written by this referee)"):
        list(read_records(path, load_key(match_dir)))


def test_a_number_too_large_for_an_integer_is_a_damaged_record_not_a_crash(match_dir, tmp_path):
    """A flipped byte can make a seed's digits read as 1e999 (infinity as a float): the record is not valid, said
    in one line; int() of it raised OverflowError, which no reader expected (found by the test above)."""
    line = (match_dir / "games.jsonl").read_text().split("\n")[1]
    seed = json.loads(line)["seed"]
    path = tmp_path / "games.jsonl"
    path.write_text(line.replace(f'"seed":{seed}', '"seed":1e999', 1) + "\n")
    with pytest.raises(RecordError, match=r"games\.jsonl:1: not a valid game record"):
        list(read_records(path, load_key(match_dir)))


def test_records_read_without_a_key_only_when_asked(match_dir):
    path = match_dir / "games.jsonl"
    assert list(read_records(path, None)) == list(read_records(path, load_key(match_dir)))
    with pytest.raises(RecordError, match="not written by this referee: its seal does not match"):
        list(read_records(path, secrets.token_bytes(32)))


# --- check_records on made-up records ---------------------------------------------------------------------------


def record(game_id, seating, termination=Termination.COMPLETED, culprit=None, result=(1.0, 0.0), variant=TWO):
    return GameRecord(game_id=game_id, variant=variant.name, options=variant.settings(), seed=1,
                      seats=[SeatInfo(name, name, f"./{name}") for name in seating], time_control={},
                      termination=termination, culprit=culprit, result=tuple(result))


PLAN = Schedule.of_games("match", TWO, [("g1", ["a", "b"]), ("g2", ["b", "a"])])


def reasons(records, planned=PLAN):
    return [(p.index, p.reason) for p in check_records(records, planned)]


def test_records_the_schedule_allows_pass():
    assert reasons([record("g1", "ab"), record("g2", "ba", Termination.TIMEOUT, 0, (0.0, 1.0)),
                    ]) == []


@pytest.mark.parametrize("bad, reason", [
    (record("g3", "ab"), "game 'g3' is not in the match's schedule"),
    (record("g1", "ab"), "a second record of game 'g1' (the first is kept)"),
    (record("g2", "ab"), "seating a, b; the schedule seats b, a"),
    (record("g2", "ba", variant=get_variant("two-handed", {"target": "200"})), "variant two-handed"),
    (record("g2", "ba", Termination.TIMEOUT, 0, (1.0, 0.0)), "seat 0 was at fault (timeout) but did not lose"),
    (record("g2", "ba", Termination.CRASH, 1, (0.0, 0.0)), "result (0.0, 0.0); a crash by seat 1 gives (1.0, 0.0)"),
    (record("g2", "ba", Termination.ILLEGAL_ACTION, None, (0.0, 1.0)), "names no seat of the game at fault"),
    (record("g2", "ba", Termination.PROTOCOL_ERROR, 2, (0.0, 1.0)), "names no seat of the game at fault"),
    (record("g2", "ba", Termination.COMPLETED, 0, (0.0, 1.0)), "a completed game names seat 0 at fault"),
    (record("g2", "ba", result=(1.0,)), "does not give one score per seat"),
])
def test_a_record_the_schedule_rules_out_is_a_problem(bad, reason):
    found = reasons([record("g1", "ab"), bad])
    assert len(found) == 1 and found[0][0] == 1 and reason in found[0][1], found


def test_the_first_good_record_of_a_game_is_kept():
    assert reasons([record("g1", "ba"), record("g1", "ab"), record("g1", "ab")]) == [
        (0, "seating b, a; the schedule seats a, b"), (2, "a second record of game 'g1' (the first is kept)")]


def test_a_partnership_fault_costs_both_partners():
    planned = Schedule.of_games("tournament", FOUR, [("t-1a", ["a1", "b1", "a2", "b2"])])
    expected = fault_returns(FOUR, 2)
    assert expected == (0.0, 1.0, 0.0, 1.0)
    assert reasons([record("t-1a", ["a1", "b1", "a2", "b2"], Termination.TIMEOUT, 2, expected, FOUR)], planned) == []
    found = reasons([record("t-1a", ["a1", "b1", "a2", "b2"], Termination.TIMEOUT, 2, (1.0, 1.0, 0.0, 1.0), FOUR)],
                    planned)
    assert found == [(0, "result (1.0, 1.0, 0.0, 1.0); a timeout by seat 2 gives (0.0, 1.0, 0.0, 1.0)")]


def test_an_sprt_schedule_is_a_pattern():
    planned = Schedule.of_sprt(TWO, "new", "old", 3)
    good = [record("sprt-1a", ["new", "old"]), record("sprt-1b", ["old", "new"]), record("sprt-3b", ["old", "new"])]
    assert reasons(good, planned) == []
    assert reasons([record("sprt-2b", ["new", "old"]), record("sprt-4a", ["new", "old"]),
                    record("sprt-01a", ["new", "old"]), record("sprt-0a", ["new", "old"]),
                    record("sprt-2c", ["new", "old"])], planned) == [
        (0, "seating new, old; the schedule seats old, new"),
        *[(i, f"game {g!r} is not in the sprt's schedule") for i, g in
          enumerate(["sprt-4a", "sprt-01a", "sprt-0a", "sprt-2c"], 1)]]


def test_a_schedule_reads_back_as_written(tmp_path):
    key = new_key(tmp_path)
    planned = Schedule.of_sprt(get_variant("two-handed", {"target": "500"}), "new", "old", 7)
    write_schedule(tmp_path, planned, key)
    assert read_schedule(tmp_path, key) == planned


# --- the commands: a tournament with a forged or impossible line ------------------------------------------------


CONFIG = """
[tournament]
name = "sealed"
games_per_pairing = 4
seed = 5
concurrency = 2
options = { target = 200 }

[[bot]]
name = "rnd"
sample = "random"

[[bot]]
name = "greedy"
sample = "greedy"
"""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    """A finished tournament of four games: ``out`` and its configuration ``t.toml`` in one directory."""
    root = tmp_path_factory.mktemp("tournament")
    (root / "t.toml").write_text(CONFIG)
    run = arena("tournament", str(root / "t.toml"), "--out", str(root / "out"), "--bootstrap", "0")
    assert run.returncode == 0, run.stderr
    return root


def interrupted(tournament: Path, tmp_path: Path) -> tuple[Path, list[str], str]:
    """A copy of the tournament that stopped before its last game: (out, the lines kept, the last game's line)."""
    root = tmp_path / "copy"
    shutil.copytree(tournament, root)
    (last,) = stopped_after(root / "out")
    return root, (root / "out" / "games.jsonl").read_text().splitlines(), last


def as_record(line: str) -> GameRecord:
    return GameRecord.from_json(line)


def forged(kind: str, kept: list[str], last: str, key: bytes) -> tuple[str, str]:
    """(the line a forger appends, what the checks should say about it)."""
    missing = as_record(last).game_id
    if kind in ("no seal", "wrong key"):
        fake = as_record(kept[0])  # a copy of a real record for the game not yet played, its result flipped
        fake.game_id = missing
        fake.result = tuple(reversed(fake.result))
        text = fake.to_json()
        line = text if kind == "no seal" else seal(text, secrets.token_bytes(32))
        why = "it carries no seal" if kind == "no seal" else "its seal does not match"
        return line, f"not written by this referee: {why}"
    if kind == "duplicate":
        return kept[0], f"a second record of game '{as_record(kept[0]).game_id}'"
    # with the right key (a referee bug, or someone who holds OUT/secret.key): the schedule still says no
    fake = as_record(last)
    if kind == "swapped seating":
        fake.seats = list(reversed(fake.seats))
        fake.result = tuple(reversed(fake.result))
        why = "seating"
    elif kind == "unscheduled":
        fake.game_id = "rnd-greedy-99a"
        why = "game 'rnd-greedy-99a' is not in the tournament's schedule"
    else:  # "culprit won": a timeout charged to the seat that won
        fake.culprit = max(range(len(fake.result)), key=lambda s: fake.result[s])
        fake.termination = Termination.TIMEOUT
        why = f"seat {fake.culprit} was at fault (timeout) but did not lose"
    return seal(fake.to_json(), key), why


KINDS = ["no seal", "wrong key", "duplicate", "swapped seating", "unscheduled", "culprit won"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_forged_or_impossible_line_is_rejected_by_replay_ratings_and_resume(kind, tournament, tmp_path):
    root, kept, last = interrupted(tournament, tmp_path)
    out = root / "out"
    games = out / "games.jsonl"
    line, why = forged(kind, kept, last, load_key(out))
    with open(games, "a") as f:
        f.write(line + "\n")
    number = len(kept) + 1

    replay = arena("replay", str(games))
    assert replay.returncode == 1
    assert f"games.jsonl:{number}: " in replay.stdout and why in replay.stdout, replay.stdout
    assert f"replayed {len(kept)} game(s): {len(kept)} consistent, 0 with mismatches; 1 rejected" in replay.stdout

    ratings = arena("ratings", str(out), "--bootstrap", "0")
    assert ratings.returncode == 2 and why in ratings.stderr and "refusing to rate" in ratings.stderr
    assert "Traceback" not in ratings.stderr
    unverified = arena("ratings", str(out), "--bootstrap", "0", "--no-verify")
    assert unverified.returncode == 0 and "unverified" in unverified.stderr

    resumed = arena("tournament", str(root / "t.toml"), "--out", str(out), "--resume", "--bootstrap", "0")
    assert resumed.returncode == 0, resumed.stderr
    assert f"games.jsonl:{number}: set aside (" in resumed.stderr and why in resumed.stderr
    assert f"resuming: {len(kept)} of 4 games already played" in resumed.stdout  # the forged game is played again
    assert (out / "games.jsonl.bad").read_text() == line + "\n"
    records = list(read_records(games, load_key(out)))
    assert sorted(r.game_id for r in records) == sorted(as_record(x).game_id for x in [*kept, last])
    assert arena("replay", str(games)).returncode == 0
    assert arena("ratings", str(out), "--bootstrap", "0").returncode == 0


def test_genuine_records_pass_every_command(tournament, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(tournament, root)
    out = root / "out"
    replay = arena("replay", str(out / "games.jsonl"))
    assert replay.returncode == 0 and "4 consistent, 0 with mismatches; 0 rejected" in replay.stdout
    assert arena("ratings", str(out), "--bootstrap", "0").returncode == 0
    resumed = arena("tournament", str(root / "t.toml"), "--out", str(out), "--resume", "--bootstrap", "0")
    assert resumed.returncode == 0 and "resuming: 4 of 4" in resumed.stdout and "set aside" not in resumed.stderr
    assert stat.S_IMODE((out / "secret.key").stat().st_mode) == 0o600


def test_without_the_key_the_commands_refuse_unless_told_not_to_verify(tournament, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(tournament, root)
    out = root / "out"
    (out / "secret.key").unlink()
    for args in (["replay", str(out / "games.jsonl")], ["ratings", str(out)]):
        run = arena(*args)
        assert run.returncode == 2 and "secret.key is missing" in run.stderr and "--no-verify" in run.stderr
        assert "Traceback" not in run.stderr
    resumed = arena("tournament", str(root / "t.toml"), "--out", str(out), "--resume")
    assert resumed.returncode == 2 and "secret.key is missing" in resumed.stderr
    replay = arena("replay", "--no-verify", str(out / "games.jsonl"))
    assert replay.returncode == 0 and "unverified" in replay.stderr and "unverified" in replay.stdout
    with pytest.raises(StoreError, match="secret.key is missing"):
        ResultStore(out).recover()


def test_without_the_schedule_the_commands_refuse(tournament, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(tournament, root)
    (root / "out" / "schedule.jsonl").unlink()
    run = arena("ratings", str(root / "out"))
    assert run.returncode == 2 and "schedule.jsonl is missing" in run.stderr


def test_a_tournament_refuses_to_start_over_a_key(tmp_path):
    (tmp_path / "t.toml").write_text(CONFIG)
    new_key(tmp_path / "out")
    run = arena("tournament", str(tmp_path / "t.toml"), "--out", str(tmp_path / "out"))
    assert run.returncode == 2 and "already holds results" in run.stderr


def test_an_sprt_seals_its_records_and_checks_its_pattern(tmp_path):
    out = tmp_path / "s"
    run = arena("sprt", "greedy", "random", "--max-pairs", "2", "--elo0", "-500", "--elo1", "500",
                "--concurrency", "1", "--option", "target=200", "--out", str(out))
    assert run.returncode in (0, 1, 3), run.stderr
    assert stat.S_IMODE((out / "secret.key").stat().st_mode) == 0o600
    key = load_key(out)
    assert read_schedule(out, key) == Schedule.of_sprt(get_variant("two-handed", {"target": "200"}), "greedy",
                                                       "random", 2)
    games = out / "games.jsonl"
    played = list(read_records(games, key))
    assert played and {r.game_id for r in played} <= {"sprt-1a", "sprt-1b", "sprt-2a", "sprt-2b"}
    assert arena("replay", str(games)).returncode == 0
    beyond = played[0]
    beyond.game_id = "sprt-3a"  # more pairs than it may play
    append_records(games, [beyond], key)
    replay = arena("replay", str(games))
    assert replay.returncode == 1 and "game 'sprt-3a' is not in the sprt's schedule" in replay.stdout


def test_a_match_refuses_an_output_directory_with_a_key(tmp_path):
    new_key(tmp_path / "m")
    run = arena("match", "random", "random", "--games", "1", "--no-duplicate", "--out", str(tmp_path / "m"))
    assert run.returncode == 2 and "secret.key already exists" in run.stderr and "Traceback" not in run.stderr
