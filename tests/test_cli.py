"""The command line, run as a user would run it."""

import json
import sys
from pathlib import Path

import pytest
from attrs import evolve as attrs_evolve
from helpers import arena, arena_process

ROOT = Path(__file__).resolve().parent.parent


def test_match_plays_records_and_prints_standings(tmp_path):
    out = tmp_path / "m"
    run = arena_process("match", "greedy", "random", "--games", "4", "--seed", "9", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert "| greedy" in run.stdout and "| random" in run.stdout
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 4
    first = json.loads(lines[0])
    assert first["variant"] == "two-handed" and first["termination"] == "completed"
    assert first["seats"][0]["entrant"] == "greedy"
    assert "4/4" in run.stderr  # progress
    replay = arena("replay", str(out / "games.jsonl"))
    assert replay.returncode == 0 and "4 consistent, 0 with mismatches" in replay.stdout
    replay = arena("replay", str(out))  # the output folder names its games.jsonl
    assert replay.returncode == 0 and "4 consistent, 0 with mismatches" in replay.stdout


def test_match_with_a_command_line_bot(tmp_path):
    bot = f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'} 5"
    run = arena("match", bot, "random", "--games", "2", "--seed", "1", "--out", str(tmp_path / "m"),
                "--variant", "two-handed-150")
    assert run.returncode == 0, run.stderr
    # the command's bot says 'id name random', as does the sample: each is called by it, made unique, and the
    # sample keeps its own (a bot cannot take the name of an entrant that keeps its name)
    assert "as the bots call themselves ('id name'): random-2 vs random" in run.stdout


def test_a_bot_is_called_by_the_name_it_gives_and_its_logs_follow_it(tmp_path):
    bot = tmp_path / "named.py"
    source = (ROOT / "sample_bots" / "random_bot.py").read_text().replace('print("id name random")',
                                                                          'print("id name Fancy Bot 2.1")')
    bot.write_text(source)
    out = tmp_path / "m"
    run = arena("match", f"{sys.executable} {bot}", "greedy", "--games", "2", "--out", str(out),
                "--isolation", "none", "--no-report")
    assert run.returncode == 0, run.stderr
    assert "('id name'): Fancy Bot 2.1 vs greedy" in run.stdout and "| Fancy Bot 2.1 |" in run.stdout
    assert {p.name for p in (out / "logs").glob("*.stderr.log")} == {"Fancy_Bot_2.1.stderr.log", "greedy.stderr.log"}
    ratings = arena("ratings", str(out), "--bootstrap", "0")
    assert "Fancy Bot 2.1" in ratings.stdout


def test_match_partners_are_rated_as_sides(tmp_path):
    out = tmp_path / "m"
    run = arena("match", "greedy", "random", "greedy", "random", "--variant", "four-handed", "--games", "4",
                "--option", "target=20", "--out", str(out), "--no-report")
    assert run.returncode == 0, run.stderr
    ratings = arena("ratings", str(out), "--bootstrap", "0")
    assert ratings.returncode == 0, ratings.stderr
    tables = ratings.stdout
    entrants = tables.split("Multi-player ratings")[1].split("\n\n")[0]
    assert "| greedy+greedy-2 |" in entrants and "| random+random-2 |" in entrants and "| greedy " not in entrants
    individual = tables.split("Individual crosstable")[1].split("\n\n")[0]
    header = next(line for line in individual.splitlines() if line.startswith("| bot "))
    columns = [cell.strip() for cell in header.split("|")]  # (ordered by the results: find them by name)
    greedy_row = [cell.strip() for cell in next(line for line in individual.splitlines()
                                                 if line.startswith("| greedy  ")).split("|")]
    assert [greedy_row[columns.index(name)] for name in ("greedy", "greedy-2")] == ["", "-"]  # never against its partner


@pytest.mark.parametrize(
    "args, message",
    [
        (["match", "./no-such-bot", "random"], "bot program './no-such-bot' not found"),
        (["match", "nonexistent-program-xyz", "random"], "not found on PATH"),
        (["match", "greedy"], "seats 2 players: give 2 bots, one a seat (got 1: greedy)"),
        (["match", "greedy", "random", "--variant", "four-handed-foo"], "unknown variant 'four-handed-foo'"),
        (["match", "greedy", "random", "--option", "target"], "should look like key=value"),
        (["match", "greedy", "random", "--option", "colour=red"], "has no option 'colour'"),
        (["match", "greedy", "random", "--option", "must-win=sometimes"], "is not one of"),
        (["match", "greedy", "random", "--option", "target=lots"], "must be a whole number"),
        (["match", "greedy", "'unclosed", "--games", "1"], "bad bot command"),
    ],
)
def test_bad_input_gets_a_clear_message(args, message, tmp_path):
    run = arena(*args, "--out", str(tmp_path / "x"))
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_variants_lists_presets_and_options():
    run = arena("variants")
    assert run.returncode == 0
    for name in ("two-handed", "two-handed-hoyle", "two-handed-150", "meld-timing", "double-pinochle"):
        assert name in run.stdout
    one = arena("variants", "two-handed-hoyle")
    assert "before-draw" in one.stdout and "| claim" in one.stdout


def test_replay_reports_a_tampered_record(tmp_path):
    out = tmp_path / "m"
    assert arena("match", "random", "random", "--games", "2", "--seed", "3", "--out", str(out)).returncode == 0
    path = out / "games.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[1]["totals"] = [records[1]["totals"][0] + 1, records[1]["totals"][1]]
    records[0]["actions"][3][1] = "AS" if records[0]["actions"][3][1] != "AS" else "KS"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = arena("replay", str(path))
    assert run.returncode == 1  # the seals no longer match: both records are rejected before any replay
    assert "2 rejected" in run.stdout and "games.jsonl:1: g1: rejected: not written by this referee" in run.stdout
    run = arena("replay", "--no-verify", str(path))  # the rules find what was changed, seals or not
    assert run.returncode == 1
    assert "g1:" in run.stdout and "g2: result" in run.stdout and "unverified" in run.stderr


def test_replay_names_the_bad_line_of_a_corrupt_file(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text('{"format": 1}\nnot json\n')
    run = arena("replay", "--no-verify", str(path))
    assert run.returncode == 2
    assert f"{path}:1: not a valid game record: missing field" in run.stderr


def test_refuses_to_overwrite_results(tmp_path):
    out = tmp_path / "m"
    assert arena("match", "random", "random", "--games", "1", "--no-duplicate", "--out", str(out)).returncode == 0
    run = arena("match", "random", "random", "--games", "1", "--no-duplicate", "--out", str(out))
    assert run.returncode == 2 and "games.jsonl" in run.stderr and "already exist" in run.stderr
    assert f"add --resume {out}" in run.stderr


def test_a_run_says_what_its_isolation_protects_and_warns_when_unjailed(tmp_path):
    jailed = arena("match", "random", "random", "--games", "2", "--option", "target=200", "--out", str(tmp_path / "j"))
    assert jailed.returncode == 0, jailed.stderr
    assert "bots are jailed (bubblewrap)" in jailed.stdout and "a secret seed" in jailed.stdout
    assert "WARNING" not in jailed.stdout
    seed = json.loads((tmp_path / "j" / "games.jsonl").read_text().splitlines()[0])["seed"]
    assert seed > 1 << 32  # derived from a 128-bit secret, not from the clock
    unjailed = arena("match", "random", "random", "--games", "2", "--option", "target=200", "--isolation", "none",
                     "--seed", "3", "--out", str(tmp_path / "n"))
    assert unjailed.returncode == 0, unjailed.stderr
    assert "WARNING: isolation none" in unjailed.stdout and "NOT kept from each other" in unjailed.stdout
    assert "seed 3" in unjailed.stdout


def test_a_tournament_without_a_seed_draws_a_secret_one_and_resume_keeps_it(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text('[tournament]\ngames_per_pairing = 2\nconcurrency = 1\n[tournament.options]\ntarget = 200\n'
                      '[[bot]]\nname = "a"\nsample = "random"\n[[bot]]\nname = "b"\nsample = "random"\n')
    out = tmp_path / "out"
    first = arena("tournament", str(config), "--out", str(out), "--bootstrap", "0")
    assert first.returncode == 0, first.stderr
    assert "a secret seed" in first.stdout
    seed = json.loads((out / "tournament.json").read_text())["seed"]
    assert seed >= 1 << 64  # 128 random bits (below 2^64 with chance 2^-64)
    again = arena("tournament", str(config), "--out", str(out), "--resume", "--bootstrap", "0")
    assert again.returncode == 0, again.stderr  # the same fingerprint: the secret seed was kept
    assert "resuming: 2 of 2 games already played" in again.stdout


FAULTY = ROOT / "tests" / "bots" / "faulty.py"


def test_a_bot_that_cannot_start_stops_the_match_at_once_with_the_reason(tmp_path):
    out = tmp_path / "m"
    run = arena("match", "greedy", f"{sys.executable} -c 'import sys; sys.exit(3)'", "--games", "4",
                "--out", str(out), "--isolation", "none")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "cannot start" in run.stderr and "status 3" in run.stderr
    assert not (out / "games.jsonl").exists() or not (out / "games.jsonl").read_text().strip()  # no game played


def test_the_bots_are_checked_side_by_side_so_the_run_waits_for_the_slowest_start_not_the_sum(tmp_path):
    """Each bot waits, before its handshake, until the other has started: checked one after the other, the first
    would wait out its start allowance and the run would stop; side by side, both start at once."""
    meet = tmp_path / "meet"
    meet.mkdir()

    def waiting_for(me: str, other: str) -> str:
        return (f"sh -c 'touch {meet}/{me}; while [ ! -e {meet}/{other} ]; do sleep 0.01; done; "
                f"exec {sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}'")

    run = arena("tournament", "--bot", f"a={waiting_for('a', 'b')}", "--bot", f"b={waiting_for('b', 'a')}",
                "--games", "2", "--concurrency", "1", "--startup-timeout", "60", "--out", str(tmp_path / "t"),
                "--isolation", "none", "--no-report")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cannot start" not in run.stderr


def test_bots_that_cannot_start_are_named_in_the_order_given(tmp_path):
    """Not in the order their starts fail: the first given fails last."""
    run = arena("tournament", "--bot", "b=sh -c 'sleep 1; exit 1'", "--bot", "greedy", "--bot",
                f"a={sys.executable} -c 'import sys; sys.exit(3)'", "--out", str(tmp_path / "t"), "--isolation", "none")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.index("bot b cannot start") < run.stderr.index("bot a cannot start")
    assert "bot greedy" not in run.stderr


def test_a_bot_cannot_write_escape_sequences_to_the_organisers_terminal(tmp_path):
    """The last line of a failing bot's stderr is quoted in the error: its control characters (which could set
    the window title, clear the screen and print a fake verdict) are shown as escapes, not sent raw."""
    bot = tmp_path / "esc.py"
    bot.write_text("import sys\nsys.stderr.write('boom \\x1b]0;TITLE\\x07\\x1b[2JFAKE: all passed\\n')\nsys.exit(3)\n")
    run = arena("match", "greedy", f"{sys.executable} {bot}", "--games", "2", "--out", str(tmp_path / "m"),
                "--isolation", "none")
    assert run.returncode == 2 and "cannot start" in run.stderr
    assert "\x1b" not in run.stderr and "\x07" not in run.stderr
    assert "boom \\x1b]0;TITLE\\x07\\x1b[2JFAKE: all passed" in run.stderr


def test_an_option_the_bot_does_not_declare_stops_the_match_naming_the_options_it_has(tmp_path):
    run = arena("match", "greedy", "option.depth=5", "random", "--games", "2", "--out", str(tmp_path / "m"))
    assert run.returncode == 2
    assert "declares no option depth (its options: noise)" in run.stderr


def test_fault_reasons_are_on_the_progress_line_in_the_summary_and_in_the_bot_s_log(tmp_path):
    out = tmp_path / "m"
    # greedy, not random: the faulty bot's third request (and so its fault's reason) must not vary from run to run
    run = arena("match", "greedy", f"{sys.executable} {FAULTY} illegal 3", "--games", "2", "--seed", "1",
                "--out", str(out), "--isolation", "none")
    assert run.returncode == 0, run.stderr
    # the progress line says who (by the name the bot gives, 'id name faulty-illegal') and why, not just 'by seat 1'
    assert ("illegal-action by faulty-illegal: AC: seat 1 is to meld: send a meld such as royal:KH,QH or pass"
            in run.stderr)
    # the summary: faults by bot and kind, with the first reason
    assert ("| faulty-illegal | illegal-action |       2 | g1: AC: seat 1 is to meld: send a meld such as royal:KH,QH"
            in run.stdout)
    log = (out / "logs" / "faulty-illegal.stderr.log").read_text()
    assert "=== pinochle-arena: game g1: illegal-action: " in log


def test_progress_counts_only_this_run_and_fits_the_terminal(monkeypatch):
    import io
    import re
    import types

    from arena.cli import progress
    from arena.cli.progress import Progress

    now = [1000.0]
    # the progress line's own clock, which the test moves: the machine's load is no matter
    monkeypatch.setattr(progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    plain = io.StringIO()
    p = Progress(100, stream=plain, live=False, start=90)  # 90 games played before a resume
    now[0] += 10  # ten seconds into this run
    p.update(95)
    assert "[95/100] 0.5 games/s ETA 10s" in plain.getvalue()  # 5 games in 10 s, not 95
    monkeypatch.setenv("COLUMNS", "80")
    live = io.StringIO()
    p = Progress(100, stream=live, live=True, start=90)
    p.update(91, "g91: a vs b 1-0 (crash by b: no reply to 'lead' within 400 ms, and more words than fit)")
    p.close()
    assert max(len(x) for x in re.split(r"[\r\n]", live.getvalue())) <= 80


def test_match_refuses_a_game_count_that_splits_a_duplicate_group(tmp_path):
    run = arena("match", "random", "random", "--games", "3", "--out", str(tmp_path / "m"))
    assert run.returncode == 2 and "give a multiple of 2, or --no-duplicate" in run.stderr
    # the plan is printed before the bots start: a bot that cannot start shows the default count at no cost
    run = arena("match", "greedy", "greedy", "false", "--variant", "three-handed", "--seed", "1",
                "--out", str(tmp_path / "three"), "--isolation", "none")
    assert "24 games" in run.stdout  # the default, rounded up to whole groups (of six: every order of three seats)
    assert run.returncode == 2 and "bot false cannot start" in run.stderr


def test_match_without_duplicate_deals_gives_every_game_its_own_deal():
    from referee.bots.transport import BotCommand
    from referee.match import Entrant, MatchPlan, match_schedule
    from referee.rules import get_variant

    a, b = (Entrant(name, BotCommand(("unused",))) for name in "ab")
    plan = MatchPlan((a, b), get_variant("two-handed"), 4, 7, Path("unused"))
    assert [g.seed for g in match_schedule(plan)][::2] == [g.seed for g in match_schedule(plan)][1::2]
    single = attrs_evolve(plan, duplicate=False)
    seeds = [g.seed for g in match_schedule(single)]
    assert len(set(seeds)) == 4 and seeds[0] == match_schedule(plan)[0].seed
    assert [g.seating for g in match_schedule(single)] == [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a")]


def test_misspelt_commands_and_flags_get_a_suggestion_and_the_version_is_printed():
    assert "did you mean 'match'?" in arena("mach", "greedy", "random").stderr
    assert "did you mean '--concurrency'?" in arena("tournament", "--concurency", "2").stderr
    version = arena_process("--version")
    assert version.returncode == 0 and version.stdout.startswith("pinochle-arena ")


@pytest.mark.parametrize("argv, line", [
    (["match", "greedy", "random", "--games", "0"],
     "pinochle-arena match: error: argument --games: must be positive (see 'pinochle-arena match --help')"),
    (["match", "greedy", "random", "--gmaes", "4"],
     "pinochle-arena match: error: unrecognized arguments: --gmaes 4; did you mean '--games'? "
     "(see 'pinochle-arena match --help')"),
    (["tournament", "--bot", "greedy", "--bot", "random", "--out", ""],
     "pinochle-arena tournament: error: argument --out: an empty path: give a folder or file name "
     "(see 'pinochle-arena tournament --help')"),
    (["league", "run", "--frob"], None),
    # a tournament made from the command line alone is told of in its flags' words, not its configuration's keys
    (["tournament", "--bot", "greedy", "--bot", "random", "--games", "3"],
     "pinochle-arena: error: command line: --games must be even with duplicate deals (games come in pairs)"),
    (["tournament", "--bot", "greedy", "--bot", "random", "--format", "gauntlet"],
     "pinochle-arena: error: command line: --candidate: a gauntlet needs the name of the bot that plays everyone"),
    (["tournament", "--bot", "greedy"],
     "pinochle-arena: error: command line: two-handed needs at least 2 bots, the command line gives 1"),
    (["tournament", "--bot", "mine=greedy", "--bot", "mine=random"],  # (was: the second silently named mine-2)
     "pinochle-arena: error: --bot mine=...: two bots are named 'mine': give each its own name"),
    (["tournament", "--bot", "greedy", "--bot", "greedy=random"],  # a name given that another bot has of its own
     "pinochle-arena: error: --bot greedy=...: two bots are named 'greedy': give each its own name"),
])
def test_a_mistake_on_the_command_line_is_one_line(argv, line, tmp_path):
    """cli.md's promise: a mistake in the input is one line and exit status 2 (argparse printed the command's
    usage first, twenty lines above the one that says what is wrong); an empty --out is one (it wrote a run's key
    and records among the current folder's files)."""
    done = arena(*argv, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    if line is not None:
        assert done.stderr.strip() == line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, script", [
    (("python3", "-u", "bot.py"), "bot.py"),
    (("python3.11", "-X", "dev", "first/bot.py", "--fast"), "first/bot.py"),
    (("node", "jsbot/bot.js"), "jsbot/bot.js"),
    (("java", "-Xmx512m", "-jar", "build/bot.jar"), "build/bot.jar"),
    (("python3", "-m", "bots.mybot"), None),
    (("python3", "-c", "import x"), None),
    (("sh", "-c", "./bot < /dev/null"), None),
    (("./mybot", "bot.py"), None),  # not an interpreter: its arguments are its own
    (("python3", "-u", "-"), None),
    # flags with a value are skipped with it; code inline, even in a group of flags, is no file; nor is a URL
    (("node", "-r", "dotenv/config", "bot.js"), "bot.js"),
    (("ruby", "-r", "bundler/setup", "bot.rb"), "bot.rb"),
    (("python3", "-X", "pycache_prefix=/tmp/pyc", "bot.py"), "bot.py"),
    (("php", "-d", "include_path=lib/", "bot.php"), "bot.php"),
    (("php", "-r", "echo 1;"), None),
    (("bash", "-lc", "python3 bot.py"), None),
    (("sh", "-ec", "./bot"), None),
    (("deno", "run", "https://example.org/bot.ts"), None),
    (("python3", "./bot"), "./bot"),
    (("node", "--stack-size", "2000", "bot.js"), None),  # (a value not known to be one: no file's name, not taken)
])
def test_the_file_an_interpreter_runs_is_known(argv, script):
    from referee.bots.transport import script_of

    assert script_of(argv) == script


def test_a_missing_script_is_named_before_the_start_as_the_user_gave_it(tmp_path):
    """`check "python3 ./first/bot.pyy"` (a typo): one line naming the file as typed, not the interpreter's error
    from inside the jail ("can't open file '/home/bot/./first/bot.pyy'"), nor node's version banner after it."""
    import shutil

    cases = [(f"{sys.executable} ./first/bot.pyy", "./first/bot.pyy")]
    cases += [("node jsbot/nobot.js", "jsbot/nobot.js")] if shutil.which("node") else []
    for command, file in cases:
        done = arena("check", command, "--out", str(tmp_path / "c"), cwd=tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.strip() == f"pinochle-arena: error: bot file {file!r} not found (given to " \
                                      f"{command.split()[0]} to run)"


def test_an_inline_command_is_named_by_its_interpreter():
    from referee.bots.samples import entrant_name

    assert entrant_name(("python3", "-c", "import sys; sys.exit(3)")) == "python3-inline"
    assert entrant_name(("node", "-e", "console.log(1)")) == "node-inline"
    assert entrant_name(("python3", "-m", "bots.mybot")) == "mybot"
    assert entrant_name(("python3", "-u", "bot.py")) == "bot"


def test_variants_name_the_rule_texts_they_cite():
    run = arena("variants", "two-handed-dummy")
    assert run.returncode == 0
    assert "003: Two-Handed Single-Deck Pinochle Rules" in run.stdout and "docs/rules-sources.md" in run.stdout
    assert (ROOT / "docs" / "rules-sources.md").exists()
