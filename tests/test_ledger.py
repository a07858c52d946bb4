"""The ledger of what a run wrote: a record taken away, or replaced by another sealed record of its game, is
never played again by ``--resume`` and never passes ``replay``; a run stopped in the middle of a write still
resumes."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import attrs
import pytest
from helpers import arena, stopped_after

from referee.records.audit import Schedule, read_schedule, schedule_path, write_schedule
from referee.records.ledger import LedgerError, ledger_path, read_ledger
from referee.records.record import GameRecord, SeatInfo, read_records
from referee.records.seals import load_key, mac_in, read_sealed_json, seal, sealed_json
from referee.records.store import ResultStore, StoreError
from referee.rules import get_variant

QUICK = ("--option", "target=200", "--no-report")
RESUME = {"match": ("match", "--resume"), "tournament": ("tournament", "--no-report", "--resume"),
          "sprt": ("sprt", "--resume")}


def play(kind: str, out: Path) -> None:
    if kind == "match":
        run = arena("match", "greedy", "random", "--games", "4", "--out", out, *QUICK)
    elif kind == "tournament":
        run = arena("tournament", "--bot", "greedy", "--bot", "random", "--games", "2", "--out", out,
                    "--bootstrap", "0", "--concurrency", "2", *QUICK)
    else:
        run = arena("sprt", "greedy", "random", "--max-pairs", "2", "--elo0", "-500", "--elo1", "500",
                    "--concurrency", "2", "--option", "target=200", "--out", out)
    assert run.returncode in ((0, 1, 3) if kind == "sprt" else (0,)), run.stderr


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    for kind in RESUME:
        play(kind, root / kind)
    return {kind: root / kind for kind in RESUME}


def copy(finished: dict[str, Path], kind: str, tmp_path: Path) -> Path:
    out = tmp_path / kind
    shutil.copytree(finished[kind], out)
    return out


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def write(path: Path, kept: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in kept))


# --- the attack of issue 51: delete a record, resume, and replay calls the run consistent ----------------------


@pytest.mark.parametrize("kind", list(RESUME))
def test_a_resume_refuses_to_play_again_a_game_whose_record_was_deleted(kind, finished, tmp_path):
    out = copy(finished, kind, tmp_path)
    games = out / "games.jsonl"
    records = lines(games)
    gone = json.loads(records[1])["game_id"]
    write(games, records[:1] + records[2:])
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    resume = arena(*RESUME[kind], out)
    assert resume.returncode == 2 and "Traceback" not in resume.stderr
    error = resume.stderr.strip().splitlines()[-1]
    assert f"no longer holds the record this run wrote of 1 game(s) ({gone}; deleted or replaced" in error
    assert f"put the records back from a copy of {out}, or start the run again elsewhere" in error
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # nothing set aside or changed
    write(games, records)  # the record put back: the run resumes, and has nothing left to play
    again = arena(*RESUME[kind], out)
    assert again.returncode in ((0, 1, 3) if kind == "sprt" else (0,)), again.stderr
    assert lines(games) == records
    assert arena("replay", out).returncode == 0


def test_a_record_replaced_by_another_sealed_record_of_its_game_is_caught(finished, tmp_path):
    """A second record of a game with a good seal (here sealed with the key, as a game played again would be): the
    ledger names the one the run wrote."""
    out = copy(finished, "match", tmp_path)
    games = out / "games.jsonl"
    records = lines(games)
    other = GameRecord.from_json(records[2])  # g3's record, passed off as g2's
    other.game_id, other.extra = "g2", {**other.extra, "game": 2}
    other.seats, other.result = list(reversed(other.seats)), tuple(reversed(other.result))  # g2's seating
    write(games, [records[0], seal(other.to_json(), load_key(out)), *records[2:]])
    replay = arena("replay", out)
    assert replay.returncode == 1
    assert "games.jsonl:2: g2: rejected: not the record this run wrote of game 'g2' (ledger.jsonl:2 names " \
           "another): a record replaced" in replay.stdout
    assert "g2: no record, though the run wrote one (ledger.jsonl:2): deleted or replaced" in replay.stdout
    resume = arena("match", "--resume", out)
    assert resume.returncode == 2 and "of 1 game(s) (g2; deleted or replaced" in resume.stderr
    assert not (out / "games.jsonl.bad").exists()


def test_a_replaced_record_beside_the_one_written_is_set_aside_and_the_written_one_kept(finished, tmp_path):
    out = copy(finished, "match", tmp_path)
    games = out / "games.jsonl"
    records = lines(games)
    impostor = GameRecord.from_json(records[1])
    impostor.result = tuple(reversed(impostor.result))
    forged = seal(impostor.to_json(), load_key(out))
    write(games, [forged, *records])  # before the genuine one, which a second record of a game would lose to
    resume = arena("match", "--resume", out)
    assert resume.returncode == 0, resume.stderr
    assert "games.jsonl:1: set aside (not the record this run wrote of game 'g2'" in resume.stderr
    assert lines(games) == records and lines(out / "games.jsonl.bad") == [forged]


def test_a_line_taken_out_of_the_ledger_is_caught(finished, tmp_path):
    out = copy(finished, "match", tmp_path)
    ledger = lines(out / "ledger.jsonl")
    write(out / "ledger.jsonl", ledger[:1] + ledger[2:])
    replay = arena("replay", out)
    assert replay.returncode == 2
    assert "ledger.jsonl:2: counts record 3 where record 2 should be: lines were taken out" in replay.stderr
    resume = arena("match", "--resume", out)
    assert resume.returncode == 2 and "the run cannot be resumed" in resume.stderr
    (out / "ledger.jsonl").unlink()
    assert "ledger.jsonl is missing" in arena("replay", out).stderr
    assert "ledger.jsonl is missing" in arena("match", "--resume", out).stderr


def test_the_last_records_and_their_ledger_lines_taken_away_after_the_end_are_caught(finished, tmp_path):
    """Before the end that reads as a run stopped earlier; the sealed end says how many records there were."""
    out = copy(finished, "tournament", tmp_path)
    written = len(lines(out / "ledger.jsonl"))
    for name in ("games.jsonl", "ledger.jsonl"):
        write(out / name, lines(out / name)[:-1])
    for run in (arena("replay", out), arena("ratings", out, "--partial"), arena(*RESUME["tournament"], out)):
        assert run.returncode == 2 and f"ledger.jsonl lists {written - 1} record(s), but the run had written " \
                                       f"{written} when it ended ({out / 'tournament.json'})" in run.stderr


# --- a run stopped between its two writes, and runs begun before the ledger ------------------------------------


def test_a_record_written_just_before_a_stop_is_added_to_the_ledger(finished, tmp_path):
    out = copy(finished, "match", tmp_path)
    stopped_after(out)
    ledger = lines(out / "ledger.jsonl")
    (out / "ledger.jsonl").write_text("".join(line + "\n" for line in ledger[:-1]) + ledger[-1][:30])  # cut short
    assert arena("replay", out, "--partial").returncode == 0
    resume = arena("match", "--resume", out)
    assert resume.returncode == 0, resume.stderr
    assert "ledger.jsonl: added g3 (written just before the run stopped, not yet listed)" in resume.stderr
    assert "resuming: 3 of 4 games already played" in resume.stdout
    entries = read_ledger(out, load_key(out)).entries
    assert [e.game_id for e in entries] == ["g1", "g2", "g3", "g4"]
    assert [e.record for e in entries] == [mac_in(line) for line in lines(out / "games.jsonl")]
    assert arena("replay", out).returncode == 0


def test_a_run_begun_before_the_ledger_still_reads_and_resumes(finished, tmp_path):
    out = copy(finished, "match", tmp_path)
    stopped_after(out)
    key = load_key(out)
    old = attrs.evolve(read_schedule(out, key), ledger=False)
    schedule_path(out).unlink()
    write_schedule(out, old, key)
    ledger_path(out).unlink()
    assert '"ledger"' not in schedule_path(out).read_text()
    replay = arena("replay", out, "--partial")
    assert replay.returncode == 0 and "note: no ledger.jsonl (a run begun before records were ledgered)" \
        in replay.stdout
    resume = arena("match", "--resume", out)
    assert resume.returncode == 0 and "resuming: 3 of 4" in resume.stdout, resume.stderr
    assert not ledger_path(out).exists() and len(lines(out / "games.jsonl")) == 4
    assert "written" not in read_sealed_json(out / "match.json", key)["ended"]


# --- the store itself ------------------------------------------------------------------------------------------


def a_record(game_id: str) -> GameRecord:
    seats = [SeatInfo("a", "a", "a"), SeatInfo("b", "b", "b")]
    return GameRecord(game_id, "two-handed", get_variant("two-handed").settings(), 1, seats, {}, result=(1.0, 0.0))


def test_appends_from_many_threads_are_counted_in_the_order_written(tmp_path):
    variant = get_variant("two-handed")
    ids = [f"g{n}" for n in range(1, 41)]
    store = ResultStore(tmp_path / "out", "match.json")
    store.start({}, Schedule.of_games("match", variant, [(g, ["a", "b"]) for g in ids]))
    threads = [threading.Thread(target=store.append_many, args=([a_record(g) for g in ids[i:i + 4]],))
               for i in range(0, len(ids), 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    key = load_key(store.directory)
    entries = read_ledger(store.directory, key).entries
    assert [e.n for e in entries] == list(range(1, 41))
    assert [e.game_id for e in entries] == [r.game_id for r in read_records(store.games_path, key)]
    assert sorted(e.game_id for e in entries) == sorted(ids)
    store.mark_ended({})
    assert read_sealed_json(store.meta_path, key)["ended"] == {"written": 40}
    assert ResultStore(store.directory, "match.json").recover().listed == []


def test_a_ledger_line_with_a_bad_seal_or_a_game_twice_is_refused(tmp_path):
    variant = get_variant("two-handed")
    store = ResultStore(tmp_path / "out", "match.json")
    store.start({}, Schedule.of_games("match", variant, [("g1", ["a", "b"]), ("g2", ["a", "b"])]))
    store.append(a_record("g1"))
    path = ledger_path(store.directory)
    key = load_key(store.directory)
    first = lines(path)[0]
    write(path, [first, first.replace('"n":1', '"n":2')])
    with pytest.raises(LedgerError, match="ledger.jsonl:2: not written by this referee"):
        read_ledger(store.directory, key)
    entry = json.loads(first)
    del entry["mac"]
    entry["n"] = 2
    write(path, [first, seal(json.dumps(entry, separators=(",", ":")), key)])
    with pytest.raises(LedgerError, match="ledger.jsonl:2: game 'g1' again"):
        read_ledger(store.directory, key)
    with pytest.raises(StoreError, match="the run cannot be resumed"):
        ResultStore(store.directory, "match.json").recover()
