"""Resume everywhere, and tournaments from the command line: as a user runs them.

Every run here is reproducible (greedy is deterministic per game, random is
given a seed, the deal seed is fixed), so a game played again after a resume
must come out exactly as it did the first time.
"""

import json
import os
from pathlib import Path

import pytest
from helpers import arena, interrupted_after_first_game, stopped_after

from referee.bots.samples import command_identity
from tournaments.config import parse_config, with_flags

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"python3 {ROOT / 'sample_bots' / 'random_bot.py'} 7"
UNJAILED = ("--isolation", "none")  # the jail has tests of its own; these are about resuming


def games(out: Path) -> dict[str, dict]:
    return {r["game_id"]: r for r in map(json.loads, (out / "games.jsonl").read_text().splitlines())}


def outcome(record: dict) -> tuple:
    return record["seats"][0]["entrant"], record["totals"], record["result"], len(record["actions"])


def test_a_tournament_from_flags_alone_keeps_its_configuration_and_resumes_from_its_folder(tmp_path):
    out = tmp_path / "t"
    first = arena("tournament", "--bot", "greedy", "--bot", f"rnd={RANDOM}", "--bot", "greedy-noisy=greedy",
                  "option.noise=30", "--games", "2", "--seed", "5", "--option", "target=500", "--time-per-move", "3000",
                  "--out", str(out), "--bootstrap", "0", *UNJAILED)
    assert first.returncode == 0, first.stderr
    assert "greedy, rnd, greedy-noisy; 2 games per pairing" in first.stdout
    played = games(out)
    assert len(played) == 6
    record = next(iter(played.values()))
    assert record["options"]["target"] == "500"
    assert all(tc["move_ms"] == 3000 for tc in record["time_control"].values())
    noisy = [s for r in played.values() for s in r["seats"] if s["entrant"] == "greedy-noisy"]
    assert noisy and all(s["options"] == {"noise": "30"} for s in noisy)
    kept = json.loads((out / "config.json").read_text())
    assert [b["name"] for b in kept["data"]["bot"]] == ["greedy", "rnd", "greedy-noisy"]

    stopped_after(out, 2)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    resumed = arena("tournament", "--resume", str(out), "--bootstrap", "0", cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming: 2 of 6 games already played" in resumed.stdout
    again = games(out)
    assert again.keys() == played.keys()
    assert {g: outcome(r) for g, r in again.items()} == {g: outcome(r) for g, r in played.items()}


def test_resuming_a_tournament_from_its_folder_refuses_flags_that_would_change_it(tmp_path):
    out = tmp_path / "t"
    assert arena("tournament", "--bot", "greedy", "--bot", RANDOM, "--games", "2", "--seed", "1", "--out", str(out),
                 "--bootstrap", "0", *UNJAILED).returncode == 0
    for flags, named in ((["--games", "4"], "--games"), (["--bot", "random"], "--bot"),
                         (["--time-per-move", "100"], "--time-per-move"), (["--isolation", "jail"], "--isolation")):
        run = arena("tournament", "--resume", str(out), *flags)
        assert run.returncode == 2 and named in run.stderr and "cannot change it" in run.stderr, run.stderr
    run = arena("tournament", "--resume", str(tmp_path / "nothing-here"))
    assert run.returncode == 2 and "no such folder" in run.stderr
    done = arena("tournament", "--resume", str(out), "--concurrency", "1", "--bootstrap", "0")
    assert done.returncode == 0 and "resuming: 2 of 2 games already played" in done.stdout


def test_flags_win_over_the_configuration_file_and_apply_to_every_bot(tmp_path):
    data = {"tournament": {"variant": "two-handed", "games_per_pairing": 4, "isolation": "none", "read_only": []},
            "time": {"move": 5000},
            "bot": [{"name": "a", "sample": "greedy", "time": {"move": 2000, "bank": 9000}, "restart": "never"},
                    {"name": "b", "sample": "random"}]}
    merged = with_flags(data, tournament={"games_per_pairing": 2, "restart": "always", "read_only": [str(ROOT)]},
                        options={"target": 700}, time={"move": 300}, limits={"memory": 1024},
                        bots=[{"name": "b", "sample": "tactician"}, {"name": "c", "sample": "greedy"}])
    config = parse_config(merged, tmp_path / "t.toml")
    assert config.games_per_pairing == 2 and config.variant.target == 700
    assert [e.name for e in config.entrants] == ["a", "b", "c"]
    a, b, c = config.entrants
    assert "tactician" in b.command.to_text()  # replaced by the flag's bot of the same name
    assert {e.time_control.move_ms for e in config.entrants} == {300}  # over a bot's own value too
    assert a.time_control.bank_ms == 9000  # what the flags leave alone stays the bot's own
    assert {e.restart.value for e in config.entrants} == {"always"}
    assert {e.sandbox.limits.memory_mb for e in config.entrants} == {1024}
    assert all(str(ROOT) in e.sandbox.read_only for e in config.entrants)
    assert data["bot"][0]["time"]["move"] == 2000  # the file's data is not changed


def test_the_fingerprint_leaves_out_where_the_interpreter_lives():
    one = command_identity(("/home/a/.venv/bin/python3", "/bots/mine.py", "--fast"))
    assert one == command_identity(("/usr/bin/python3", "/bots/mine.py", "--fast")) == "python3 /bots/mine.py --fast"
    assert one != command_identity(("/usr/bin/python3", "/bots/other.py", "--fast"))
    assert command_identity(("/bots/v7/mybot",)) != command_identity(("/bots/v6/mybot",))  # a program is not an interpreter


def test_a_match_resumes_from_its_folder_and_plays_only_the_missing_games_alike(tmp_path):
    out = tmp_path / "m"
    first = arena("match", "greedy", RANDOM, "--games", "6", "--seed", "11", "--out", str(out), *UNJAILED)
    assert first.returncode == 0, first.stderr
    played = games(out)
    stopped_after(out, 3)
    again = arena("match", "--resume", str(out), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "resuming: 3 of 6 games already played" in again.stdout
    assert {g: outcome(r) for g, r in games(out).items()} == {g: outcome(r) for g, r in played.items()}
    refused = arena("match", "--resume", str(out), "--games", "8")
    assert refused.returncode == 2 and "--games cannot change it" in refused.stderr
    fresh = arena("match", "greedy", "random", "--out", str(out), *UNJAILED)
    assert fresh.returncode == 2 and f"--resume {out}" in fresh.stderr


def test_an_sprt_resumes_with_its_whole_pairs_counted_and_its_half_pair_finished(tmp_path):
    out = tmp_path / "s"
    args = ("sprt", "greedy", RANDOM, "--max-pairs", "3", "--elo0", "0", "--elo1", "5", "--seed", "2",
            "--option", "target=300", "--concurrency", "1", "--out", str(out), *UNJAILED)
    first = arena(*args)
    assert first.returncode == 3, first.stderr  # three pairs cannot decide a 5 Elo test
    played = games(out)
    assert sorted(played) == ["sprt-1a", "sprt-1b", "sprt-2a", "sprt-2b", "sprt-3a", "sprt-3b"]
    stopped_after(out, 3)  # pair 1, and half of pair 2
    again = arena("sprt", "--resume", str(out))
    assert again.returncode == 3, again.stderr
    assert "resuming: 3 games already played" in again.stdout and "undecided" in again.stdout
    assert first.stdout.splitlines()[-1] == again.stdout.splitlines()[-1]  # the same pentanomial, Elo and LLR
    assert {g: outcome(r) for g, r in games(out).items()} == {g: outcome(r) for g, r in played.items()}


def test_ctrl_c_in_a_match_prints_the_partial_table_and_how_to_continue(tmp_path):
    out = tmp_path / "m"
    run = interrupted_after_first_game("match", "greedy", RANDOM, "--games", "400", "--seed", "3", "--out", out,
                                       *UNJAILED)
    assert run.returncode == 130, run.stderr
    assert "stopped after" in run.stdout and "| greedy" in run.stdout and "| bot " in run.stdout
    assert f"pinochle-arena match --resume {out}" in run.stderr
    saved = len(games(out))
    assert 1 <= saved < 400 and f"stopped after {saved} of 400 games" in run.stdout


def test_the_example_round_robin_is_reproducible(tmp_path):
    config = ROOT / "tournaments" / "round_robin.toml"
    runs = []
    for name in ("one", "two"):
        run = arena("tournament", str(config), "--games", "1", "--no-duplicate", "--out", str(tmp_path / name),
                    "--bootstrap", "0", "--isolation", "none", "--concurrency", "2", "--option", "target=300")
        assert run.returncode == 0, run.stderr
        runs.append({g: outcome(r) for g, r in games(tmp_path / name).items()})
    assert runs[0] == runs[1] and len(runs[0]) == 6


@pytest.mark.parametrize("command", ["match", "sprt"])
def test_resume_needs_a_folder_the_command_wrote(tmp_path, command):
    (tmp_path / "empty").mkdir()
    run = arena(command, "--resume", str(tmp_path / "empty"))
    assert run.returncode == 2 and f"no {command}.json" in run.stderr
    run = arena(command, "--resume", str(tmp_path / "empty"), "greedy")
    assert run.returncode == 2 and "BOTS cannot change it" in run.stderr
    assert os.path.isdir(tmp_path / "empty")


def test_the_fingerprint_names_sample_bots_wherever_the_checkout_lies(monkeypatch):
    import referee.bots.samples as samples

    interpreter, *flags, script = samples.SAMPLES["greedy"].argv  # (flags: -S)
    here = command_identity((interpreter, *flags, script))
    assert here.split()[1:] == [*flags, "sample_bots/greedy_bot.py"]
    monkeypatch.setattr(samples, "SAMPLE_DIR", Path("/elsewhere/sample_bots"))  # the checkout moved
    assert command_identity((f"/opt/bin/{Path(interpreter).name}", *flags,
                             "/elsewhere/sample_bots/greedy_bot.py")) == here
    assert command_identity(("/usr/bin/python3", "/other/sample_bots/greedy_bot.py")).endswith(
        " /other/sample_bots/greedy_bot.py")  # outside the samples: another bot
