"""Tournaments: configuration, schedule, a real run, kill and resume, ratings, SPRT."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest
from helpers import arena, as_from_a_terminal, command_line, descendants, sigint_state, stopped_after
from hypothesis import given
from hypothesis import strategies as st

from referee.records.record import GameRecord, SeatInfo

from referee.records.deals import DealsOrder
from tournaments.config import ConfigError, Format, default_config, parse_config
from tournaments.schedule import schedule
from tournaments.standings import Leader, standings

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'} 11"  # seeded: replays the same way


def write_config(tmp_path, games=4, extra="", name="t.toml"):
    path = tmp_path / name
    path.write_text(f"""
[tournament]
name = "test"
games_per_pairing = {games}
seed = 5
concurrency = 2
{extra}

[[bot]]
name = "greedy"
sample = "greedy"

[[bot]]
name = "tactician"
sample = "tactician"

[[bot]]
name = "rnd"
command = "{RANDOM}"
""")
    return path


BASE = {"tournament": {"games_per_pairing": 4}, "bot": [{"name": "a", "sample": "random"}, {"name": "b", "sample": "greedy"}]}


def with_(**changes):
    data = json.loads(json.dumps(BASE))
    for dotted, value in changes.items():
        node = data
        keys = dotted.split("__")
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = value
    return data


@pytest.mark.parametrize(
    "data, message",
    [
        (with_(tournament__format="swiss"), "tournament.format: 'swiss' is not one of"),
        (with_(tournament__games_per_pairing=3), "must be even with duplicate deals"),
        (with_(tournament__games_per_pairing="many"), "tournament.games_per_pairing should be a whole number"),
        (with_(tournament__variant="nine-handed"), "unknown variant 'nine-handed'"),
        (with_(tournament__options={"target": "x"}), "target='x' must be a whole number"),
        (with_(tournament__colour="red"), "unknown key tournament.colour; allowed here:"),
        (with_(tournament__concurency=2), "unknown key tournament.concurency; did you mean tournament.concurrency?"),
        (with_(tournament__format="gauntlet"), "a gauntlet needs the name"),
        (with_(tournament__format="gauntlet", tournament__candidate="zz"), "tournament.candidate: no entrant named 'zz'"),
        (with_(tournament__anchor="zz"), "tournament.anchor: no entrant named 'zz'"),
        (with_(tournament__deals_order="shuffled"),
         """tournament.deals_order must be "sequential" or "random", got 'shuffled'"""),
        (with_(tournament__candidate="a"), 'tournament.candidate only applies to format = "gauntlet"'),
        (with_(tournament__concurrency=0), "concurrency must be at least 1"),
        (with_(time__move=-5), "time: time per move must be positive"),
        ({"tournament": {}, "bot": [{"name": "a", "sample": "random"}, {"name": "a", "sample": "greedy"}]}, "repeated: a"),
        ({"tournament": {}, "bot": [{"name": "a", "sample": "random"}]}, "needs at least 2 bots"),
        ({"tournament": {}}, "no bots"),
        ({"bot": [{"name": "a"}, {"name": "b", "sample": "greedy"}]}, "bot[1].: give exactly one of command"),
        ({"bot": [{"name": "a", "sample": "chess"}, {"name": "b", "sample": "greedy"}]}, "bot[1].sample: no sample bot 'chess'"),
        ({"bot": [{"name": "a", "command": "./nope"}, {"name": "b", "sample": "greedy"}]}, "bot[1].command: bot program './nope' not found"),
        ({"bot": [{"name": "a b", "sample": "random"}, {"name": "b", "sample": "greedy"}]}, "use letters, digits"),
        ({"bot": [{"name": "a", "sample": "random", "time": {"move": "fast"}}, {"name": "b", "sample": "greedy"}]},
         "bot[1].time.move should be a whole number"),
    ],
)
def test_bad_configs_name_the_key(data, message, tmp_path):
    with pytest.raises(ConfigError) as err:
        parse_config(data, tmp_path / "x.toml")
    assert message in str(err.value)
    assert str(tmp_path / "x.toml") in str(err.value)


def test_a_sample_bot_in_a_config_is_named_after_its_sample_unless_given_a_name(tmp_path):
    """As --bot greedy is on the command line ([[bot]] sample = "greedy" without a name was refused: name is
    missing); a command still needs one, and two unnamed copies of a sample are two bots of one name."""
    config = parse_config({"tournament": {"games_per_pairing": 4},
                           "bot": [{"sample": "greedy"}, {"name": "mine", "sample": "random"}]}, tmp_path / "x.toml")
    assert [e.name for e in config.entrants] == ["greedy", "mine"]
    with pytest.raises(ConfigError, match="bot\\[2\\].name is missing"):  # (counted from 1)
        parse_config({"bot": [{"sample": "greedy"}, {"command": "./mybot"}]}, tmp_path / "x.toml")
    with pytest.raises(ConfigError, match="bot names must be unique; repeated: greedy"):
        parse_config({"bot": [{"sample": "greedy"}, {"sample": "greedy"}]}, tmp_path / "x.toml")
    from referee.bots.samples import SAMPLES
    from tournaments.config import with_flags  # --bot greedy=tactician takes the place of the config's greedy

    flagged = with_flags({"tournament": {"games_per_pairing": 4}, "bot": [{"sample": "greedy"}, {"sample": "random"}]},
                         bots=[{"name": "greedy", "sample": "tactician"}])
    assert [(e.name, e.command.argv[-1]) for e in parse_config(flagged, tmp_path / "x.toml").entrants] == \
        [("random", SAMPLES["random"].command().argv[-1]), ("greedy", SAMPLES["tactician"].command().argv[-1])]


def test_the_closed_sets_are_enums_that_keep_their_text(tmp_path):
    """format and deals_order parse to their enums; the fingerprint kept with the results (and compared on
    --resume) holds their text as before, and a string given to the config is made a member."""
    config = parse_config(with_(tournament__format="knockout"), tmp_path / "x.toml")
    assert config.format is Format.KNOCKOUT and config.deals_order is DealsOrder.SEQUENTIAL
    fingerprint = config.fingerprint()
    assert type(fingerprint["format"]) is str and fingerprint["format"] == "knockout"
    assert "deals_order" not in fingerprint  # the default is left out, as in 0.2's runs
    shuffled = attrs.evolve(config, format="gauntlet", candidate="a", deals_order="random")
    assert shuffled.format is Format.GAUNTLET and shuffled.deals_order is DealsOrder.RANDOM
    assert json.dumps(shuffled.fingerprint()).count('"random"') == 1
    boards = parse_config({**BASE, "tournament": {"format": "boards"}}, tmp_path / "x.toml")
    assert boards.format is Format.ROUND_ROBIN and boards.boards == 100


def test_config_file_that_is_not_toml(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[tournament\nname = 1")
    run = arena("tournament", str(path))
    assert run.returncode == 2 and "not valid TOML" in run.stderr and "Traceback" not in run.stderr


def test_duplicate_schedule_pairs_deals_and_swaps_seats():
    config = attrs.evolve(default_config(), seed=1)  # (as drawn when a run starts)
    games = schedule(config)
    assert len(games) == 3 * config.games_per_pairing
    assert len({g.game_id for g in games}) == len(games)
    by_id = {g.game_id: g for g in games}
    a, b = by_id["random-greedy-1a"], by_id["random-greedy-1b"]
    assert a.seed == b.seed and a.seating == tuple(reversed(b.seating))
    # every pairing plays the same deals
    assert by_id["greedy-tactician-1a"].seed == a.seed
    assert by_id["random-greedy-2a"].seed != a.seed


def test_no_deal_is_made_before_the_seed_is_drawn():
    """A configuration without a seed (one is drawn when the run starts) deals nothing: deals derived from no seed
    would be the same for every such run, and so known in advance."""
    with pytest.raises(ValueError, match="seed is drawn when it starts"):
        schedule(default_config())


def test_independent_schedule_and_gauntlet():
    config = attrs.evolve(default_config(), duplicate=False, games_per_pairing=4, seed=1)
    seeds = [g.seed for g in schedule(config)]
    assert len(set(seeds)) == len(seeds)
    gauntlet = attrs.evolve(default_config(), format="gauntlet", candidate="greedy", seed=1)
    assert {g.pairing for g in schedule(gauntlet)} == {("greedy", "random"), ("greedy", "tactician")}


def test_tournament_runs_and_reports(tmp_path):
    out = tmp_path / "out"
    run = arena("tournament", str(write_config(tmp_path)), "--out", str(out), "--bootstrap", "50")
    assert run.returncode == 0, run.stderr
    assert "Ratings (12 games" in run.stdout and "Crosstable" in run.stdout and "Head to head" in run.stdout
    assert "12/12" in run.stderr
    for name in ("games.jsonl", "tournament.json", "ratings.csv", "headtohead.csv", "crosstable.csv", "ratings.json"):
        assert (out / name).exists(), name
    data = json.loads((out / "ratings.json").read_text())
    assert {r["bot"] for r in data["ratings"]} == {"greedy", "tactician", "rnd"}
    assert all(h["model"] == "pentanomial" for h in data["head_to_head"])
    again = arena("tournament", str(write_config(tmp_path)), "--out", str(out))
    assert again.returncode == 2 and "already holds results" in again.stderr


def read_results(out):
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return sorted((r["game_id"], tuple(r["result"]), tuple(r["totals"]), len(r["actions"])) for r in records)


def test_sigkill_then_resume_gives_the_same_results(tmp_path):
    config = write_config(tmp_path, games=4)
    full = tmp_path / "full"
    assert arena("tournament", str(config), "--out", str(full), "--bootstrap", "50").returncode == 0

    cut = tmp_path / "cut"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", str(config), "--out", str(cut)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    games = cut / "games.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if games.exists() and games.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    played = games.read_text().count("\n")
    assert 3 <= played < 12, "the kill should land mid-tournament"

    resumed = arena("tournament", str(config), "--out", str(cut), "--resume", "--bootstrap", "50")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {played} of 12 games already played" in resumed.stdout
    assert read_results(cut) == read_results(full)  # nothing repeated, nothing skipped, same games
    assert json.loads((cut / "ratings.json").read_text()) == json.loads((full / "ratings.json").read_text())


def test_killing_the_tournament_process_stops_its_referee_workers_and_their_bots(tmp_path):
    """SIGKILL of the parent alone: the worker processes see their input end, stop their bots and exit."""
    config = write_config(tmp_path, games=40)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", str(config), "--out", str(out),
                             "--processes", "2"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not ((out / "games.jsonl").exists()
                                               and (out / "games.jsonl").read_text().count("\n") >= 2):
        time.sleep(0.05)
    assert descendants(proc.pid), "the tournament should have workers and bots running"
    family = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and [p for p in family if _alive(p)]:
        time.sleep(0.1)
    assert [p for p in family if _alive(p)] == []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_resume_sets_aside_a_cut_short_line(tmp_path):
    config = write_config(tmp_path, games=2)
    out = tmp_path / "out"
    assert arena("tournament", str(config), "--out", str(out)).returncode == 0
    path = out / "games.jsonl"
    (last,) = stopped_after(out)
    with open(path, "a") as f:
        f.write(last[:50])  # the last game half written when the run was killed (so not yet in the ledger)
    resumed = arena("tournament", str(config), "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "cut short" in resumed.stderr and "resuming: 5 of 6" in resumed.stdout
    assert len(path.read_text().splitlines()) == 6
    assert (out / "games.jsonl.bad").exists()


def test_resume_refuses_a_changed_configuration(tmp_path):
    out = tmp_path / "out"
    assert arena("tournament", str(write_config(tmp_path, games=2)), "--out", str(out)).returncode == 0
    run = arena("tournament", str(write_config(tmp_path, games=4)), "--out", str(out), "--resume")
    assert run.returncode == 2 and "configuration changed" in run.stderr and "games_per_pairing" in run.stderr


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path):
    config = write_config(tmp_path, games=20)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", str(config), "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_from_a_terminal)
    games = out / "games.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (games.exists() and games.read_text().count("\n") >= 2):
        time.sleep(0.05)
    assert sigint_state(proc.pid)["SigCgt"]  # it handles Ctrl-C
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "--resume" in err and "games are saved" in err
    assert "Traceback" not in err


def test_ctrl_c_at_the_terminal_while_the_referee_workers_start_prints_no_traceback(tmp_path):
    """A terminal's Ctrl-C goes to the whole foreground process group. The referee workers start before the bots
    are checked (runner.WorkersAhead), and used to be in that group, so a Ctrl-C while they imported printed a
    traceback from each: they are in groups of their own, and the run stops them."""
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "--bot", "random", "--bot", "greedy",
                             "--games", "20", "--concurrency", "2", "--processes", "2", "--isolation", "none",
                             "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_from_a_terminal, process_group=0)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and not workers:
        workers = [pid for pid in descendants(proc.pid) if "tournaments.worker" in command_line(pid)]
        time.sleep(0.005)
    assert workers
    os.killpg(proc.pid, signal.SIGINT)  # (the terminal's Ctrl-C: the run's whole group, as the workers import)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    while time.monotonic() < deadline and any(map(_alive, workers)):
        time.sleep(0.05)
    assert not any(map(_alive, workers))  # the run ended them


def test_ratings_command_writes_tables_and_pgn(tmp_path):
    out = tmp_path / "out"
    assert arena("tournament", str(write_config(tmp_path, games=2)), "--out", str(out)).returncode == 0
    pgn = tmp_path / "games.pgn"
    run = arena("ratings", str(out), "--anchor", "rnd", "--pgn", str(pgn), "--out", str(tmp_path / "tables"))
    assert run.returncode == 0, run.stderr
    assert "anchor rnd = 0" in run.stdout
    text = pgn.read_text()
    assert text.count("[White ") == 6 and '[Result "' in text
    assert (tmp_path / "tables" / "ratings.csv").read_text().startswith("rank,bot,Elo")
    bad = arena("ratings", str(out), "--anchor", "nobody")
    assert bad.returncode == 2 and "played no game" in bad.stderr


@pytest.mark.parametrize(
    "new, old, status, verdict",
    [("greedy", "random", 0, "H1 accepted"), ("random", "greedy", 1, "H0 accepted")],
)
def test_sprt_decides_and_exits_with_a_status(new, old, status, verdict, tmp_path):
    run = arena("sprt", new, old, "--elo0", "0", "--elo1", "100", "--seed", "3", "--out", str(tmp_path / "s"),
                "--concurrency", "2", "--option", "target=300")  # shorter games, the same test
    assert run.returncode == status, run.stdout + run.stderr
    assert verdict in run.stdout
    assert "LLR" in run.stderr


def test_sprt_undecided_after_max_pairs(tmp_path):
    run = arena("sprt", "greedy", "greedy", "--max-pairs", "2", "--concurrency", "1", "--out", str(tmp_path / "s"))
    assert run.returncode == 3 and "undecided" in run.stdout


def test_a_tournament_refused_before_its_first_game_leaves_no_results_behind(tmp_path):
    """The layout check (and every start check) comes before the results folder is made, so the same command
    runs once the layout is fixed."""
    event = tmp_path / "event"
    event.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    for name in ("mybot", "otherbot"):
        program = event / name
        program.write_text("#!/usr/bin/env python3\n" + (ROOT / "sample_bots" / "random_bot.py").read_text())
        program.chmod(0o755)
    out = tmp_path / "out"
    run = arena("tournament", "--bot", "./mybot", "--bot", "./otherbot", "--games", "2", "--out", str(out),
                "--no-report", cwd=event)
    assert run.returncode == 2 and "would be shown" in run.stderr
    assert not (out / "secret.key").exists() and not (out / "games.jsonl").exists()


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd"), st.sampled_from([0.0, 0.5, 1.0])),
                max_size=30))
def test_the_progress_lines_leader_is_the_first_of_the_standings(games):
    """Kept up game by game, the leader is always the entrant the standings of all the games so far put first."""
    leader = Leader()
    records = []
    for number, (first, second, share) in enumerate(games):
        seats = [SeatInfo(first, first, "cmd"), SeatInfo(second, second, "cmd")]
        records.append(GameRecord(f"g{number}", "two-handed", {}, number, seats, {}, result=(share, 1.0 - share)))
        leader.add(records[-1])
        top = standings(records)[0]
        assert leader.now() == (top.entrant, pytest.approx(top.percent))
    assert games or leader.now() is None
