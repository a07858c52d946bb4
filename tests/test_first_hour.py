"""A newcomer's first hour: bad paths answered in one line, no dead ends, messages that point the right way."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from helpers import ROOT, arena

QUICK = ("--games", "2", "--option", "target=200", "--isolation", "none", "--no-report")


@pytest.mark.parametrize("command", [
    ["match", "greedy", "random", *QUICK],
    ["tournament", "--bot", "greedy", "--bot", "random", *QUICK],
    ["sprt", "greedy", "random", "--isolation", "none"],
])
@pytest.mark.parametrize("where", ["file", "file/below"])
def test_out_at_or_below_a_file_is_one_line_not_a_traceback(tmp_path, command, where):
    (tmp_path / "file").write_text("mine\n")
    run = arena(*command, "--out", str(tmp_path / where))
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and f"--out {tmp_path / where}: " in run.stderr
    assert "a file is there" in run.stderr or f"{tmp_path / 'file'} is a file" in run.stderr
    assert (tmp_path / "file").read_text() == "mine\n"


def test_out_where_no_folder_can_be_made(tmp_path):
    run = arena("match", "greedy", "random", *QUICK, "--out", "/proc/no-such-folder/out")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "--out /proc/no-such-folder/out: cannot make the folder" in run.stderr


def test_pgn_to_a_missing_folder_is_refused_before_the_first_game(tmp_path):
    out = tmp_path / "t"
    run = arena("tournament", "--bot", "greedy", "--bot", "random", *QUICK, "--out", str(out),
                "--pgn", str(tmp_path / "nowhere" / "t.pgn"))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"--pgn {tmp_path / 'nowhere' / 't.pgn'}: no such folder" in run.stderr
    assert not out.exists()  # refused before anything was made


def test_a_closed_pipe_stops_quietly():
    """``variants | head``: the reader is gone before the first line; no BrokenPipeError traceback."""
    read, write = os.pipe()
    os.close(read)
    run = subprocess.run([sys.executable, "-m", "arena", "variants"], stdout=write, stderr=subprocess.PIPE,
                         text=True, cwd=ROOT, timeout=120)
    os.close(write)
    assert run.stderr == "" and run.returncode == 141


@pytest.mark.parametrize("command", [["replay"], ["ratings"], ["deals"]])
def test_results_that_are_not_there_are_named(tmp_path, command):
    run = arena(*command, str(tmp_path / "nosuchdir"))
    assert run.returncode == 2 and f"{tmp_path / 'nosuchdir'}: no such file or folder" in run.stderr


def test_a_run_stopped_before_its_first_game_leaves_a_folder_a_rerun_reuses(tmp_path):
    import signal

    from helpers import as_from_a_terminal

    out = tmp_path / "m"
    silent = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'faulty.py'} sleep 1"  # never answers its first request
    process = subprocess.Popen([sys.executable, "-m", "arena", "match", "greedy", silent, "--time-per-move",
                                "600000", "--time-bank", "600000", *QUICK, "--out", str(out)],
                               cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=as_from_a_terminal)
    try:
        for line in process.stdout:  # the plan, the isolation line, then the bots start and the run begins
            if line.startswith("running") or "isolation" in line or line.startswith("bots:"):
                break
        while not (out / "games.jsonl").exists():  # the run's files are made: the first game is under way
            assert process.poll() is None, process.stderr.read()
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert not (out / "secret.key").exists() and not (out / "games.jsonl").exists()  # taken away: nothing was played
    assert (out / "logs").is_dir()  # the logs of what happened stay
    again = arena("match", "greedy", "random", *QUICK, "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert arena("replay", str(out)).returncode == 0


def test_a_folder_whose_records_were_deleted_is_never_started_over(tmp_path):
    """A key and schedule without records may be the evidence of records deleted: a new run never replaces them."""
    out = tmp_path / "m"
    assert arena("match", "greedy", "random", *QUICK, "--seed", "1", "--out", str(out)).returncode == 0
    key = (out / "secret.key").read_bytes()
    (out / "games.jsonl").write_text("")  # every record deleted
    again = arena("match", "greedy", "random", *QUICK, "--seed", "2", "--out", str(out))
    assert again.returncode == 2 and "no game saved: records deleted" in again.stderr
    assert (out / "secret.key").read_bytes() == key
    assert "2 scheduled game(s) without a record" in arena("replay", str(out)).stdout  # still the evidence


def test_a_bot_that_cannot_start_leaves_a_folder_a_rerun_reuses(tmp_path):
    out = tmp_path / "m"
    failing = arena("match", "greedy", f"{sys.executable} -c 'import sys; sys.exit(3)'", *QUICK, "--out", str(out))
    assert failing.returncode == 2 and "cannot start" in failing.stderr
    again = arena("match", "greedy", "random", *QUICK, "--out", str(out))
    assert again.returncode == 0, again.stderr


def test_results_already_there_say_how_to_start_afresh(tmp_path):
    out = tmp_path / "t"
    flags = ("tournament", "--bot", "greedy", "--bot", "random", *QUICK, "--out", str(out))
    assert arena(*flags).returncode == 0
    again = arena(*flags)
    assert again.returncode == 2
    assert "add --resume" in again.stderr and f"to start afresh there, delete {out} first" in again.stderr


def test_a_tournament_without_a_configuration_gets_a_folder_of_its_own(tmp_path):
    flags = ("tournament", "--bot", "greedy", "--bot", "random", *QUICK)
    first, second = arena(*flags, cwd=tmp_path), arena(*flags, cwd=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    folders = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert len(folders) == 2 and all(f.startswith("tournament-") for f in folders)
    bare = arena("tournament", "--resume", cwd=tmp_path)
    assert bare.returncode == 2 and "name the tournament's folder (--resume OUT)" in bare.stderr


def test_match_takes_concurrency_and_pgn_as_cutechess_users_expect(tmp_path):
    out, pgn = tmp_path / "m", tmp_path / "m.pgn"
    run = arena("match", "greedy", "random", "--games", "6", "--option", "target=200", "--isolation", "none",
                "--no-report", "--concurrency", "3", "--pgn", str(pgn), "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert pgn.read_text().count("[Event ") == 6
    assert {p.name for p in (out / "logs").glob("greedy.w*.stderr.log")} == {f"greedy.w{i}.stderr.log" for i in range(3)}
    assert arena("replay", str(out)).returncode == 0


def test_a_flag_of_another_command_is_not_offered_as_its_own_correction(tmp_path):
    run = arena("report", str(tmp_path), "--concurrency", "2")
    assert run.returncode == 2 and "unrecognized arguments: --concurrency" in run.stderr
    assert "did you mean '--concurrency'" not in run.stderr


def test_a_misspelt_sample_bot_gets_a_did_you_mean():
    run = arena("match", "greedyy", "random")
    assert run.returncode == 2 and "did you mean the sample bot 'greedy'?" in run.stderr


BABBLER = """import sys
print("id name babbler"); print("ready"); print({after_ready!r}, flush=True)
for line in sys.stdin:
    if line.startswith("quit"):
        break
    if line.startswith(("play", "bid", "meld", "trump", "request")):
        print("i play the ace now", flush=True)
"""


@pytest.mark.parametrize("after_ready, reason", [
    ("loading my weights", "sent a line nobody asked for: 'loading my weights'"),
    ("info fine", "expected one action token, got 5 words: 'i play the ace now'"),
])
def test_a_fault_reason_names_the_fault_and_quotes_the_line_once(tmp_path, after_ready, reason):
    bot = tmp_path / "babbler.py"
    bot.write_text(BABBLER.format(after_ready=after_ready))
    out = tmp_path / "m"
    run = arena("match", f"{sys.executable} {bot}", "random", *QUICK, "--out", str(out))
    assert run.returncode == 0, run.stderr
    record = (out / "games.jsonl").read_text().splitlines()[0]
    assert reason in record and "action token" not in reason.partition(":")[2]
    assert record.count("ace now") <= 1 and record.count("loading my weights") <= 1


def test_the_pgn_event_is_the_tournaments_name(tmp_path):
    pgn = tmp_path / "t.pgn"
    run = arena("tournament", "--bot", "greedy", "--bot", "random", *QUICK, "--name", 'Club "Spring" Cup',
                "--out", str(tmp_path / "t"), "--pgn", str(pgn))
    assert run.returncode == 0, run.stderr
    assert pgn.read_text().count('[Event "Club \\"Spring\\" Cup"]') == 2


def test_ctrl_c_in_a_tournament_prints_the_partial_table_and_how_to_continue(tmp_path):
    from helpers import interrupted_after_first_game

    out = tmp_path / "t"
    run = interrupted_after_first_game("tournament", "--bot", "greedy", "--bot", "random", "--games", "400",
                                       "--concurrency", "1", "--isolation", "none", "--out", out)
    assert run.returncode == 130, run.stderr
    assert "stopped after" in run.stdout and "| greedy" in run.stdout and "| random" in run.stdout
    assert f"pinochle-arena tournament --resume {out}" in run.stderr


def test_the_reports_game_anchors_are_the_game_ids(tmp_path):
    out = tmp_path / "m"
    assert arena("match", "greedy", "random", "--games", "2", "--option", "target=200", "--isolation", "none",
                 "--out", str(out)).returncode == 0
    page = (out / "report" / "index.html").read_text()
    assert '"id":"g1","anchor":"game-g1"' in page and '"id":"g2","anchor":"game-g2"' in page
    documented = re.findall(r"index\.html#(game-\S+?)`", (ROOT / "docs" / "records.md").read_text())
    assert documented and all(re.fullmatch(r"game-g\d+", anchor) for anchor in documented)  # as the report makes them


def test_a_bots_first_start_is_logged_once(tmp_path):
    out = tmp_path / "m"
    assert arena("match", "greedy", "random", *QUICK, "--out", str(out)).returncode == 0
    log = (out / "logs" / "greedy.stderr.log").read_text()
    assert log.count("start 1 of") == 1 and "check before the first game of" in log


# ---------------------------------------------------------------- 16. cutechess and fastchess habits

def played(out) -> list:
    from referee.records.audit import audit_results

    return audit_results(out / "games.jsonl").records


def test_rounds_play_the_games_that_many_times_over_with_new_deals(tmp_path):
    match = arena("match", "greedy", "random", "--games", "2", "--rounds", "3", *QUICK[2:], "--out", tmp_path / "m")
    assert match.returncode == 0, match.stderr
    assert len(played(tmp_path / "m")) == 6 and len({r.seed for r in played(tmp_path / "m")}) == 3
    tournament = arena("tournament", "--bot", "greedy", "--bot", "random", *QUICK, "--rounds", "2",
                       "--out", tmp_path / "t")
    assert tournament.returncode == 0, tournament.stderr
    assert len(played(tmp_path / "t")) == 4 and len({r.seed for r in played(tmp_path / "t")}) == 2


def test_a_deal_file_in_random_order_plays_each_of_its_deals_once_a_pass_in_an_order_from_the_seed(tmp_path):
    deals = tmp_path / "six.deals"
    assert arena("deals", "--seed", "3", "--count", "6", "--out", deals).returncode == 0
    from referee.records.deals import read_deals
    from referee.rules import get_variant

    in_file = [d.seed for d in read_deals(deals, get_variant("two-handed")).deals]
    orders = []
    for seed in ("1", "2", "1"):
        out = tmp_path / f"m{len(orders)}"
        run = arena("match", "greedy", "random", "--games", "12", "--deals", deals, "--deals-order", "random",
                    "--seed", seed, *QUICK[2:], "--out", out)
        assert run.returncode == 0, run.stderr
        seeds = [r.seed for r in sorted(played(out), key=lambda r: int(r.game_id[1:]))][::2]  # one game per deal
        assert sorted(seeds) == sorted(in_file)  # each deal of the file once
        orders.append(seeds)
    assert orders[0] == orders[2] and orders[0] != orders[1]  # the order is the seed's
    refused = arena("match", "greedy", "random", "--deals-order", "random", *QUICK, "--out", tmp_path / "x")
    assert refused.returncode == 2 and "give one with --deals FILE" in refused.stderr


def test_ratinginterval_prints_the_standings_every_n_games(tmp_path):
    run = arena("tournament", "--bot", "greedy", "--bot", "random", "--games", "4", *QUICK[2:],
                "--ratinginterval", "2", "--out", tmp_path / "t")
    assert run.returncode == 0, run.stderr
    assert "standings after 2 games:" in run.stdout and "standings after 4 games:" in run.stdout
    assert "standings after 1 games" not in run.stdout and "standings after 3 games" not in run.stdout


def test_wait_pauses_between_two_games_of_one_set_of_processes(tmp_path, monkeypatch):
    import trio

    pauses, sleep = [], trio.sleep

    async def noted(seconds):
        if seconds == 0.25:
            pauses.append(seconds)
        await sleep(0)

    monkeypatch.setattr(trio, "sleep", noted)
    assert arena("match", "greedy", "random", "--games", "4", "--wait", "250", *QUICK[2:],
                 "--out", tmp_path / "m").returncode == 0
    assert pauses == [0.25] * 3  # between the four games of its one lane
    pauses.clear()
    assert arena("tournament", "--bot", "greedy", "--bot", "random", "--games", "4", "--wait", "250",
                 "--concurrency", "1", *QUICK[2:], "--out", tmp_path / "t").returncode == 0
    assert pauses == [0.25] * 3


@pytest.mark.parametrize("command", [["match", "BOT", "random", *QUICK], ["check", "BOT"],
                                     ["tournament", "--bot", "BOT", "--bot", "random", *QUICK]])
def test_a_bot_given_as_its_folder_is_called_a_folder_with_the_command_that_starts_it(tmp_path, command):
    """``./mybot`` for a starter kit's folder: one line that says it is a folder and gives the kit's own command
    with its files' paths (before, a folder passed the program check and failed later, misleadingly)."""
    kit = tmp_path / "mybot"
    (kit / "build").mkdir(parents=True)
    (kit / "build" / "bot.jar").write_bytes(b"")
    (kit / "starter.toml").write_text('run = "java -jar build/bot.jar"\n')
    plain = tmp_path / "plain"
    plain.mkdir()
    for folder, said in ((kit, f'"java -jar {kit}/build/bot.jar"'), (plain, f'"{plain}/bot"')):
        run = arena(*[str(folder) if word == "BOT" else word for word in command], "--out", str(tmp_path / "out"))
        assert run.returncode == 2, run.stdout + run.stderr
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
        assert f"'{folder}' is a folder, not a program" in run.stderr and said in run.stderr


@pytest.mark.parametrize("command, said", [
    (["match", "-engine", "cmd=./mybot", "random"], "'--bot PROGRAM'"),
    (["tournament", "-each", "tc=10+1"], "apply to every bot"),
    (["match", "greedy", "random", "--sprt"], "the sprt command ('pinochle-arena sprt NEW OLD'"),
])
def test_another_tools_habit_is_answered_with_what_to_give_here(command, said):
    """cutechess's and fastchess's flags, or another command's, get what to give instead, not a near spelling."""
    run = arena(*command)
    assert run.returncode == 2 and said in run.stderr and "'--anchor'" not in run.stderr
    assert "'--restart'" not in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("command", ["ratings", "replay", "deals"])
def test_a_folder_without_records_is_called_that(tmp_path, command):
    """An empty folder, or a run stopped before its first game ended, is not a missing key."""
    empty = tmp_path / "empty"
    empty.mkdir()
    run = arena(command, str(empty))
    assert run.returncode == 2 and "not a results folder (it has no games.jsonl)" in run.stderr
    assert "secret.key" not in run.stderr and "Traceback" not in run.stderr
    (empty / "secret.key").write_text("0" * 64)
    run = arena(command, str(empty))
    assert run.returncode == 2 and "no game is recorded there yet" in run.stderr


def test_play_on_a_port_in_use_is_one_line_and_makes_nothing(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = arena("play", "random", "--port", str(port), "--out", str(tmp_path / "p"), "--isolation", "none")
    assert run.returncode == 2 and f"--port {port}: 127.0.0.1:{port} cannot be used" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "p").exists()


def test_play_stopped_before_its_first_move_leaves_nothing_that_blocks_the_same_command(tmp_path):
    """Ctrl-C while the page waits for the person: the run's key, schedule and metadata go, so the same command
    starts again there (before, it refused and advised --resume, which play does not take)."""
    import signal
    import socket
    import urllib.parse

    from helpers import as_from_a_terminal

    from referee.records.store import ResultStore

    out = tmp_path / "p"
    command = [sys.executable, "-m", "arena", "play", "random", "--out", str(out), "--isolation", "none"]
    for _ in range(2):  # the second time in the same folder
        process = subprocess.Popen(command, cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   preexec_fn=as_from_a_terminal)
        said = []
        for line in process.stdout:
            said.append(line)
            if "seat 0: open http" in line:
                break
        assert any(line.startswith("WARNING: isolation none") for line in said)  # what the bots' isolation protects
        page = urllib.parse.urlsplit(line.split("open ", 1)[1].strip())
        browser = socket.create_connection((page.hostname, page.port))  # a page held open, as a browser does
        browser.sendall(f"GET {page.path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n".encode())
        assert browser.recv(12).startswith(b"HTTP/1.1 200")
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
        browser.close()
        assert process.returncode == 130 and "Traceback" not in err, err
        ResultStore(out, "play.json").check_free()  # nothing of the run's left to refuse the next one
