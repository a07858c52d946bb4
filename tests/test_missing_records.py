"""Records that cannot be bent by taking away: a deleted or truncated record is missed, and an edited seed is
not taken up by a resume (a silent re-deal of every game left)."""

from __future__ import annotations

import json

import pytest
from helpers import arena, stopped_after


def play(kind: str, out, *extra: str):
    if kind == "match":
        run = arena("match", "greedy", "random", "--games", "4", "--option", "target=200", "--out", str(out),
                    "--no-report", *extra)
    elif kind == "tournament":
        run = arena("tournament", "--bot", "greedy", "--bot", "random", "--games", "2", "--option", "target=200",
                    "--out", str(out), "--no-report", "--bootstrap", "0", *extra)
    else:
        run = arena("sprt", "greedy", "random", "--max-pairs", "3", "--elo0", "-500", "--elo1", "500",
                    "--concurrency", "1", "--option", "target=200", "--out", str(out), *extra)
    assert run.returncode in ((0, 1, 3) if kind == "sprt" else (0,)), run.stderr
    return run


def delete_line(out, number: int) -> str:
    games = out / "games.jsonl"
    lines = games.read_text().splitlines(keepends=True)
    gone = json.loads(lines[number])["game_id"]
    games.write_text("".join(lines[:number] + lines[number + 1:]))
    return gone


@pytest.mark.parametrize("kind", ["match", "sprt"])
def test_a_deleted_record_is_missed_by_replay_ratings_and_report(kind, tmp_path):
    """The ledger says the run wrote it: no --partial excuses it, unlike a game not played yet."""
    out = tmp_path / "run"
    play(kind, out)
    assert arena("replay", str(out)).returncode == 0
    assert arena("ratings", str(out), "--bootstrap", "0").returncode == 0
    gone = delete_line(out, 1)
    for partial in ((), ("--partial",)):
        replay = arena("replay", str(out), *partial)
        assert replay.returncode == 1
        assert f"{gone}: no record, though the run wrote one (ledger.jsonl:2): deleted or replaced" in replay.stdout
        assert "1 record(s) written and gone" in replay.stdout
        ratings = arena("ratings", str(out), "--bootstrap", "0", *partial)
        assert ratings.returncode == 2 and f"1 record(s) the run wrote are gone ({gone};" in ratings.stderr
        assert arena("report", str(out), *partial).returncode == 2


@pytest.mark.parametrize("kind", ["match", "sprt"])
def test_a_run_stopped_early_is_rated_only_with_partial(kind, tmp_path):
    out = tmp_path / "run"
    play(kind, out)
    (unplayed,) = (json.loads(line)["game_id"] for line in stopped_after(out))
    replay = arena("replay", str(out))
    assert replay.returncode == 1 and "0 record(s) written and gone" in replay.stdout
    if kind == "match":
        assert f"{unplayed}: no record (scheduled: not played yet, or deleted)" in replay.stdout
    assert arena("replay", str(out), "--partial").returncode == 0
    ratings = arena("ratings", str(out), "--bootstrap", "0")
    assert ratings.returncode == 2 and "--partial rates the games there are" in ratings.stderr
    partial = arena("ratings", str(out), "--bootstrap", "0", "--partial")
    assert partial.returncode == 0 and "(--partial: not every scheduled game)" in partial.stdout


def test_a_truncated_file_is_missed_too(tmp_path):
    out = tmp_path / "run"
    play("match", out)
    games = out / "games.jsonl"
    lines = games.read_text().splitlines(keepends=True)
    games.write_text("".join(lines[:2]))  # the last two records cut off
    ratings = arena("ratings", str(out), "--bootstrap", "0", "--partial")
    assert ratings.returncode == 2 and "2 record(s) the run wrote are gone (g3, g4;" in ratings.stderr
    ledger = out / "ledger.jsonl"
    ledger.write_text("".join(ledger.read_text().splitlines(keepends=True)[:2]))  # and their lines in the ledger
    for run in (arena("replay", str(out), "--partial"), arena("match", "--resume", str(out))):
        assert run.returncode == 2 and "ledger.jsonl lists 2 record(s), but the run had written 4 when it ended" \
            in run.stderr


def test_an_edited_seed_is_not_taken_up_by_a_resume(tmp_path):
    out = tmp_path / "run"
    play("match", out, "--games", "2")  # the later --games wins: a short match to resume
    meta = out / "match.json"
    data = json.loads(meta.read_text())
    data["seed"] += 1
    meta.write_text(json.dumps(data, indent=2) + "\n")
    resume = arena("match", "--resume", str(out))
    assert resume.returncode == 2 and "match.json" in resume.stderr and "seal does not match" in resume.stderr
    assert "Traceback" not in resume.stderr


def test_an_edited_tournament_seed_is_not_taken_up_by_a_resume(tmp_path):
    out = tmp_path / "t"
    play("tournament", out)
    meta = out / "tournament.json"
    data = json.loads(meta.read_text())
    data["seed"] = 12345
    meta.write_text(json.dumps(data, indent=2) + "\n")
    resume = arena("tournament", "--resume", str(out), "--no-report")
    assert resume.returncode == 2 and "tournament.json" in resume.stderr and "seal does not match" in resume.stderr


def test_an_sprt_that_has_not_ended_is_rated_only_with_partial(tmp_path):
    out = tmp_path / "run"
    play("sprt", out)
    meta = out / "sprt.json"
    from referee.records.seals import load_key, read_sealed_json, sealed_json

    key = load_key(out)
    data = read_sealed_json(meta, key)
    del data["ended"]  # as a test stopped by Ctrl-C leaves it
    meta.write_text(sealed_json(data, key))
    ratings = arena("ratings", str(out), "--bootstrap", "0")
    assert ratings.returncode == 2 and "the SPRT has not ended" in ratings.stderr
    assert arena("ratings", str(out), "--bootstrap", "0", "--partial").returncode == 0


def test_a_run_of_version_0_1_reads_as_unfinished_and_is_not_resumed_on_a_guess(tmp_path):
    """0.1 wrote its metadata unsealed: its records still read (an SPRT's as not known to have ended), but a
    resume is refused with the reason, not on an unsealed seed."""
    out = tmp_path / "run"
    play("sprt", out)
    meta = out / "sprt.json"
    data = json.loads(meta.read_text())
    del data["seal"], data["ended"]
    meta.write_text(json.dumps(data, indent=2) + "\n")
    replay = arena("replay", str(out))
    assert replay.returncode == 1 and "the SPRT has not ended" in replay.stdout
    assert arena("replay", str(out), "--partial").returncode == 0
    assert arena("ratings", str(out), "--bootstrap", "0", "--partial").returncode == 0
    resume = arena("sprt", "--resume", str(out))
    assert resume.returncode == 2 and "written by pinochle-arena 0.1" in resume.stderr
    assert "Traceback" not in resume.stderr


def test_an_edited_tournament_configuration_is_not_taken_up_by_a_resume(tmp_path):
    """A resume takes its bots, fences and limits from OUT/config.json: an edit there (a bot unjailed, say) is
    refused, as an edited seed is."""
    out = tmp_path / "t"
    play("tournament", out)
    kept = out / "config.json"
    data = json.loads(kept.read_text())
    data["data"].setdefault("tournament", {})["isolation"] = "none"
    kept.write_text(json.dumps(data, indent=2) + "\n")
    resume = arena("tournament", "--resume", str(out), "--no-report")
    assert resume.returncode == 2 and "config.json" in resume.stderr and "seal does not match" in resume.stderr
