"""`pinochle-arena check`: the compliance report for bot authors, and its exit status."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import arena

FAULTY = Path(__file__).resolve().parent / "bots" / "faulty.py"
CLAIMER = Path(__file__).resolve().parent / "bots" / "claimer.py"
ROOT = Path(__file__).resolve().parent.parent
SEEDED_RANDOM = f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'} 7"  # the same choices every run


def check(bot: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    options = [word for word in extra if word.startswith("option.")]  # the bot's own, after it
    extra = tuple(word for word in extra if not word.startswith("option."))
    seed = () if "--seed" in extra else ("--seed", "1")  # the same deals every run of the suite
    startup = () if "--startup-timeout" in extra else ("--startup-timeout", "30")  # roomy on a busy machine
    return arena("check", bot, *options, "--games", "2", *startup, "--option", "target=300",
                 "--out", str(tmp_path / "check"), *seed, *extra)


def test_every_check_deals_anew_and_gives_its_games_new_ids(tmp_path):
    ids, seeds = [], []
    for run in ("a", "b"):
        done = arena("check", "random", "--games", "2", "--out", str(tmp_path / run))
        assert done.returncode == 0, done.stdout + done.stderr
        seeds.append(done.stdout.rsplit("(seed ", 1)[1].split(":")[0])
        log = next((tmp_path / run / "logs").glob("*.protocol.log")).read_text().splitlines()
        ids.append(next(line.split()[2] for line in log if line.startswith("> game ")))
    assert ids[0] != ids[1] and seeds[0] != seeds[1]
    again = arena("check", "random", "--games", "2", "--seed", seeds[0], "--out", str(tmp_path / "c"))
    assert again.returncode == 0, again.stdout + again.stderr
    log = next((tmp_path / "c" / "logs").glob("*.protocol.log")).read_text().splitlines()
    assert next(line.split()[2] for line in log if line.startswith("> game ")) == ids[0]


def test_a_good_bot_passes_every_check(tmp_path):
    done = check("random", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("starts", "handshake", "answers ping", "stays up for every game", "legal play in every phase",
                 "replies on time", "every line understood", "clean exit on quit"):
        assert f"[  ok] {name}" in done.stdout
    assert re.search(r"; asked lead \d+, follow \d+, meld \d+", done.stdout)  # in the order of play
    assert "asked follow" not in done.stdout and "meld " in done.stdout
    assert "PASSED" in done.stdout
    assert "protocol 3, options: claim=no (bool), wants: none" in done.stdout  # random's one option


def test_a_version_2_bot_passes_too(tmp_path):
    """PROTOCOL.md's 20-line bot speaks version 2; in the preset that offers claims it never claims."""
    section = (ROOT / "protocol" / "PROTOCOL.md").read_text().split("## 8. A complete bot in 20 lines")[1]
    bot = tmp_path / "tiny.py"
    bot.write_text(section.split("```python\n")[1].split("```")[0])
    done = check(f"{sys.executable} {bot}", tmp_path, "--variant", "two-handed-hoyle", "--isolation", "none")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "protocol 2 (send 'protocol 3'" in done.stdout and "PASSED" in done.stdout
    assert "wrong claim" not in done.stdout and " claim " not in done.stdout  # no claim among its actions


def test_a_bot_whose_id_name_is_its_file_name_is_not_told_it_sent_none(tmp_path):
    """The warning is for a bot that sent no 'id name' line, not for one that named itself as its file is named."""
    bot = tmp_path / "bin" / "random"
    bot.parent.mkdir()
    bot.write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}\n")
    bot.chmod(0o755)
    done = check(str(bot), tmp_path, "--isolation", "none")  # (id name random, from a program called random)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[  ok] handshake" in done.stdout and "no 'id name' line" not in done.stdout
    assert "id name 'random'" in done.stdout


def test_a_version_3_bot_is_checked_with_its_options_and_wants(tmp_path):
    done = check("tactician", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "protocol 3, options: budget=20000 (int), wants: state" in done.stdout
    done = check("greedy", tmp_path / "b", "option.noise=10")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "protocol 3, options: noise=10 (int), wants: none" in done.stdout
    done = check("first-legal", tmp_path / "c")  # the C sample sends meld tokens back with their points
    assert done.returncode == 0, done.stdout + done.stderr
    assert "protocol 3, options: none, wants: none" in done.stdout


def test_a_bidding_game_is_checked_in_every_phase(tmp_path):
    done = check("greedy", tmp_path, "--variant", "call-for-partner", "--option", "target=100")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "bid " in done.stdout and "lead " in done.stdout


@pytest.mark.parametrize("mode, failed, quoted, expected", [
    ("illegal 5", "legal play in every phase", "< ", "one of the legal actions"),
    ("garbage 5", "every line understood", "< %%% this is not an action %%%", "exactly one line per request"),
    ("slow 3", "replies on time", "> go ", "within the time"),
    ("nohandshake", "handshake", "> pinochle 3", "then 'ready'"),
    ("wedge", "answers ping", "> ping check", "'pong check'"),
    ("noquit", "clean exit on quit", "> quit", "exit with status 0"),
    ("exit 5", "stays up for every game", "> go ", "keep running until 'quit'"),
])
def test_a_faulty_bot_fails_with_the_offending_line_and_what_was_expected(mode, failed, quoted, expected, tmp_path):
    # a clock that 'slow 3' overruns and a fast reply never does; a short start only where it is the fault
    short_start = ("--startup-timeout", "2") if mode == "nohandshake" else ()
    done = check(f"{sys.executable} {FAULTY} {mode}", tmp_path, "--time-per-move", "2000", *short_start)
    assert done.returncode == 1, done.stdout + done.stderr
    report = done.stdout
    assert f"[FAIL] {failed}" in report
    failure = report[report.index(f"[FAIL] {failed}"):]
    assert quoted in failure and "expected: " in failure and expected in failure
    assert "FAILED" in report


def test_a_command_that_does_not_start_is_a_usage_error(tmp_path):
    done = check("./no-such-bot", tmp_path)
    assert done.returncode == 2 and "not found" in done.stderr


def test_a_bot_that_never_bids_and_always_answers_first_is_warned_about(tmp_path):
    """faulty 'none' answers the first legal action: 'pass' in every auction, even with a hand worth the minimum bid."""
    done = check(f"{sys.executable} {FAULTY} none", tmp_path, "--variant", "three-handed", "--option", "target=100")
    assert done.returncode == 0, done.stdout + done.stderr  # warnings do not fail the check
    assert "[warn] plays to win" in done.stdout
    assert "passed all" in done.stdout and "bid:20..30 is not a reply" in done.stdout  # three-handed: from 20
    assert "answered the first legal action" in done.stdout


def test_a_bot_that_chooses_plays_to_win(tmp_path):
    done = check("greedy", tmp_path, "--variant", "four-handed", "--option", "target=100")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[  ok] plays to win" in done.stdout


def test_games_cut_short_by_claims_get_one_more_game_without_them(tmp_path):
    """two-handed-hoyle allows a claim; random told to claim does so early, so no game reached the second phase."""
    done = check(SEEDED_RANDOM, tmp_path, "--variant", "two-handed-hoyle", "option.claim=yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the last game without claims" in done.stdout
    assert "2 of 3 games ended in a wrong claim" in done.stdout
    transcript = (tmp_path / "check" / "logs" / "bot.protocol.log").read_text()
    assert " claim=no" in transcript and "> phase2 " in transcript


@pytest.mark.parametrize("bot, options", [
    (f"{sys.executable} {CLAIMER} random", ("--option", "claim=yes")),  # two-handed, with claims
    (SEEDED_RANDOM, ("--variant", "two-handed-hoyle", "option.claim=yes")),
])
def test_claims_that_lose_games_are_a_warning_with_their_count(tmp_path, bot, options):
    done = check(bot, tmp_path, *options)
    assert done.returncode == 0, done.stdout + done.stderr  # a warning, not a failure
    found = re.search(r"\[warn\] plays to win +(\d) of (\d) games ended in a wrong claim: check\d \(hand "
                      r"\d+: (\d+) of the 300 needed\)", done.stdout)
    assert found, done.stdout
    wrong, games, count = found.groups()
    assert int(wrong) >= 1 and int(games) >= int(wrong) and int(count) < 300
    assert "leave 'claim' out unless you have counted" in done.stdout
    assert "PASSED: the bot follows the protocol, with 1 warning" in done.stdout
    log = (tmp_path / "check" / "logs" / "bot.protocol.log").read_text()
    assert "< claim\n> claim " in log


def test_a_wrong_claim_is_measured_against_the_raised_target(tmp_path):
    """claimer 'stale' claims once its total has passed the first target (100); the target rose to 600."""
    done = check(f"{sys.executable} {CLAIMER} stale", tmp_path, "--variant", "two-handed-hoyle", "--option",
                 "target=100", "--option", "target-step=500")
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.findall(r"check\d \(hand (\d+): (\d+) of the (\d+) needed\)", done.stdout)
    assert found, done.stdout
    for hand, count, target in found:
        assert int(hand) >= 2 and target == "600" and 100 <= int(count) < 600


@pytest.mark.parametrize("bot, variant", [("greedy", "two-handed-hoyle"),  # never claims
                                          (f"{sys.executable} {CLAIMER} counted", "two-handed-hoyle"),
                                          (f"{sys.executable} {CLAIMER} counted", "two-handed")])
def test_a_bot_that_never_claims_or_claims_only_when_it_wins_is_not_warned(tmp_path, bot, variant):
    done = check(bot, tmp_path, "--variant", variant, "--option", "claim=yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrong claim" not in done.stdout and "[  ok] plays to win" in done.stdout


def test_ctrl_c_stops_a_check_in_one_line(tmp_path):
    """Ctrl-C while the bot thinks: exit status 130 and one line, without the words of the commands that keep
    records, nor Python's warning of the check's later steps left unawaited (they were made before their turn)."""
    import signal
    import time

    from helpers import as_from_a_terminal

    out = tmp_path / "c"
    silent = f"{sys.executable} {FAULTY} sleep 1"  # never answers its first request
    process = subprocess.Popen([sys.executable, "-m", "arena", "check", silent, "--time-per-move", "600000",
                                "--time-bank", "600000", "--out", str(out)], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal)
    log = out / "logs" / "bot.stderr.log"  # (check names the bot under test "bot"; its stderr is logged as it comes)
    try:
        waited = time.monotonic() + 120
        while not (log.exists() and "asleep" in log.read_text()):  # asked its first request, it thinks
            assert process.poll() is None and time.monotonic() < waited, "never asked its first request"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert err.strip() == "pinochle-arena: interrupted", err


def test_a_crash_in_a_game_is_quoted_from_the_bots_stderr_and_its_log_is_named(tmp_path):
    bot = tmp_path / "crashing" / "bot.py"
    bot.parent.mkdir()
    bot.write_text("import sys\nasked = 0\nfor line in sys.stdin:\n    w = line.split()\n"
                   "    if w[0] == 'pinochle':\n        print('ready', flush=True)\n"
                   "    elif w[0] == 'ping':\n        print('pong ' + w[1], flush=True)\n"
                   "    elif w[0] == 'go':\n        asked += 1\n"
                   "        if asked == 3:\n            raise IndexError('list index out of range in my_strategy')\n"
                   "        print(w[4], flush=True)\n")
    done = check(f"{sys.executable} {bot}", tmp_path)
    assert done.returncode == 1
    assert re.search(r"\[FAIL\] stays up for every game +game check1: exited with status 1; its stderr says: "
                     r"IndexError: list index out of range in my_strategy", done.stdout), done.stdout
    assert f"What the bot wrote on stderr: {tmp_path / 'check' / 'logs' / 'bot.stderr.log'}" in done.stdout
    isolation = next(line for line in done.stdout.splitlines() if line.startswith("bots are jailed"))
    assert isolation.endswith("; check plays its games in one process") and "fresh process" not in isolation


def test_an_option_value_the_bot_does_not_take_is_the_users_mistake_not_a_failed_check(tmp_path):
    """check BOT option.depth=20, for a bot whose depth runs 1 to 9: one line, exit status 2, as match says it (it
    was a FAIL of the bot's handshake, exit status 1, 'fix the checks marked FAIL')."""
    v3bot = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'v3bot.py'} 'protocol 3' 'option depth int 3 1 9'"
    done = check(v3bot, tmp_path, "option.depth=20")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "FAIL" not in done.stdout
    assert done.stderr.strip().endswith("option depth=20 refused: depth takes 1 to 9, not 20"), done.stderr
    assert check(v3bot, tmp_path, "option.depth=5", "--out", str(tmp_path / "fine")).returncode == 0
