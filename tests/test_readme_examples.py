"""The shell examples of README.md and docs/*.md, run as printed (issue 34, item 17).

Every ```sh block of those pages is run by bash, line by line (a line ending in ``\\`` goes on), with
``pinochle-arena`` on PATH, in a fresh folder of its own that holds what a reader has by the time they read
it: ``sample_bots/`` and ``tournaments/`` of this checkout; ``mybot/``, the bot README's "Your first bot"
makes (``./mybot/bot``, also reachable as ``python3 mybot/mybot.py``), with two options declared, ``depth``
and ``style``, as the examples that set them assume; and the results of one short match, as
``results/match-...`` and ``results/event``. The block that makes ``mybot/`` runs without one.

Runs are made short and nothing else: ``--games`` becomes the fewest a run takes (one game per seating of a deal), a
game is one hand (``--option max-hands=1``, unless on boards), ``check`` plays one game, ``--boards`` 2,
``deals --count`` 3; ``analyse`` weighs with 32 worlds (``--worlds 32``); an SPRT stops after one pair (``--max-pairs 1``, exit status 3,
undecided, which is what it says then); a match or tournament writes no HTML report (``--no-report``;
tests/test_report.py covers the report). Everything else is as printed: the bots, variants, options, seeds,
folders and flags.

What cannot run on a test machine is in ``NOT_RUN`` below, each with its reason; a line there that no page
has any more fails ``test_every_line_not_run_is_still_in_the_pages``, so the list cannot go stale. The links
between the pages are checked too: every relative link leads to a file, and every ``#anchor`` to a heading.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent

# (a pattern a line starts with, why it is not run)
NOT_RUN: list[tuple[str, str]] = [
    (r"make demo\b", "installs and runs the 120-game default tournament: what the other examples do, in small"),
    (r"make test\b", "the whole test suite, this test among it"),
    (r"make (bench|bench-instructions|soak)\b", "minutes of benchmarks; bench/ is run by make bench"),
    (r"\.venv/bin/python -m (pytest|mypy)\b", "the checkout's own tests and type checker (docs/development.md): "
                                              "the reader's folder holds neither; make test runs both"),
    (r"pinochle-arena \w+ .*\[", "a synopsis: the brackets are optional parts, not a command"),
    (r"pinochle-arena \w+ --resume OUT\b", "a synopsis: OUT stands for a stopped run's folder "
                                            "(tests/test_resume.py resumes real ones)"),
    (r"pinochle-arena play\b", "waits for a person in the browser (tests/browser/ plays it by clicking)"),
    (r"pinochle-arena league serve\b", "serves until Ctrl-C (tests/test_league_site.py and tests/browser/ open its pages)"),
    (r"pinochle-arena league (show myleague --format|void myleague)\b", "the league of the quick start above, with "
                                                                        "a 'cheater' in it (tests/test_league_data.py "
                                                                        "shows and voids in a league of its own)"),
    (r"curl -H \"Authorization: Bearer", "talks to a running league serve (tests/test_league_uploads.py sends "
                                        "the same requests)"),
    (r"curl http://127\.0\.0\.1:8000/", "talks to a running league serve (tests/test_league_data.py asks the same "
                                       "addresses)"),
    (r"pinochle-arena cluster (scheduler|worker)\b", "a cluster's long-running servers, on machines of their own "
                                                     "(tests/test_cluster.py runs them on loopback)"),
    (r"pinochle-arena tournament .*--cluster tls://10\.0\.0\.5", "needs the cluster at 10.0.0.5"),
    (r"python -m build\b", "makes the wheel (tests/test_install.py builds one and plays from it in a fresh venv)"),
    (r"scp dist/pinochle_arena-", "copies the wheel to another machine"),
    (r"pip install 'pinochle_arena-", "installs the wheel with its dependencies from the network "
                                      "(tests/test_install.py installs one in a fresh venv)"),
    (r"cp -r sample_bots/starters/java\b", "needs a JDK; tests/test_starters.py builds and checks every kit "
                                           "whose toolchain is there"),
    (r"pinochle-arena check 'java -jar build/bot\.jar'", "the Java kit's build, above"),
    (r"ordo\b", "Ordo is not installed here: another program, for cross-checking"),
    (r"git worktree add /tmp/before HEAD~1", "needs a git checkout with its history (a developer's), which the "
                                             "reader's folder is not"),
    (r'OLD="\$\(pwd\)/\.venv/bin/python /tmp/before/', "the checkout's own Python and the worktree above"),
    (r'pinochle-arena match montecarlo option\.worlds=100 "\$OLD"', "plays the worktree above (the montecarlo "
                                                                   "tests play it jailed with its library)"),
    (r"S=bench/sparring/target/", "the sparring bot, a cargo build (bench/montecarlo_strength.py builds and plays it)"),
    (r'pinochle-arena match ("\$OLD"|montecarlo) option\.worlds=100 \$S', "plays the worktree above and sparring"),
    (r"python bench/paired_margin\.py old new", "compares the two matches above (tests/test_paired_margin.py "
                                               "compares match folders)"),
]
# a block whose lines all start so makes mybot/ itself, in a folder without one
MAKES_MYBOT = "cp -r sample_bots/starters/python mybot"


def sh_blocks() -> list[tuple[str, list[str]]]:
    """Every ```sh block of the pages: (page:line, its commands, continuation lines joined)."""
    blocks = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
            # a line ending in \ goes on; so does a synopsis, whose wrapped lines start with spaces and a [
            commands = re.sub(r"\\\n\s*|\n\s+(?=\[)", " ", m.group(1)).splitlines()
            start = text[:m.start()].count("\n") + 1
            blocks.append((f"{page.relative_to(ROOT)}:{start}", [c for c in commands if c.strip()]))
    return blocks


def why_not_run(command: str) -> str | None:
    return next((why for pattern, why in NOT_RUN if re.match(pattern, command.strip())), None)


def seats(command: str) -> int:
    variant = re.search(r"--variant (\S+)", command)
    from referee.rules import get_variant

    return get_variant(variant.group(1) if variant else "two-handed").players


def shortened(command: str) -> str:
    """The command with its run made short (see the module's docstring); anything else as printed."""
    words = command.split()
    if words[:1] != ["pinochle-arena"] or len(words) < 2:
        return command
    kind = words[1]
    command = re.sub(r"--boards \d+", "--boards 2", command)
    command = re.sub(r"--count \d+", "--count 3", command)
    if kind in ("match", "tournament") and "--boards" not in command:
        # one game per seating of a deal: three seats play each deal in all six orders, in a match as in a tournament
        games = seats(command) * (2 if seats(command) == 3 else 1)
        command, n = re.subn(r"--games \d+", f"--games {games}", command)
        command = re.sub(r"(\s+#.*)?$", lambda m: ("" if n else f" --games {games}") + (m.group(1) or ""),
                         command, count=1)
    if kind in ("match", "tournament"):
        command = re.sub(r"(\s+#.*)?$", lambda m: " --no-report" + (m.group(1) or ""), command, count=1)
    if kind in ("match", "tournament", "sprt", "check") and "--boards" not in command and "max-hands" not in command:
        # one hand a game (a board's length): the suite has to stay short, and a whole game adds only hands
        command = re.sub(r"(\s+(\|\||#).*)?$", lambda m: " --option max-hands=1" + (m.group(1) or ""), command,
                         count=1)
    if kind == "check" and "--games" not in command:
        command = re.sub(r"(\s+#.*)?$", lambda m: " --games 1" + (m.group(1) or ""), command, count=1)
    if kind == "league" and words[2:3] == ["run"]:
        command = re.sub(r"--games \d+", "--games 4", command)  # a league's loop, a few games long
    if kind == "league" and words[2:3] == ["show"]:
        command = re.sub(r"(\s+#.*)?$", lambda m: " --bootstrap 0" + (m.group(1) or ""), command, count=1)
    if kind == "analyse" and "--worlds" not in command:  # a few worlds a decision: seconds a game otherwise
        command = re.sub(r"(\s+#.*)?$", lambda m: " --worlds 32" + (m.group(1) or ""), command, count=1)
    if kind == "sprt":
        extra = "" if "--boards" in command else " --max-pairs 1"
        command = re.sub(r"(\s+#.*)?$", lambda m: f"{extra} || [ $? = 3 ]" + (m.group(1) or ""), command, count=1)
    return command


def script(commands: list[str]) -> str:
    lines = ["set -ex"]
    for c in commands:
        lines.append(f"# not run: {c}" if why_not_run(c) or c.lstrip().startswith("#") else shortened(c))
    return "\n".join(lines) + "\n"


def arena(*args: str, cwd: Path) -> None:
    subprocess.run([str(BIN / "pinochle-arena"), *args], cwd=cwd, check=True, capture_output=True, timeout=120)


def make_mybot(folder: Path) -> None:
    """README's "Your first bot", with two options declared as the examples that set them assume."""
    mybot = folder / "mybot"
    shutil.copytree(ROOT / "sample_bots" / "starters" / "python", mybot)
    bot = mybot / "bot.py"
    text = bot.read_text(encoding="utf-8")
    assert "OPTIONS: list[str] = []" in text
    bot.write_text(text.replace("OPTIONS: list[str] = []", 'OPTIONS: list[str] = ["option depth int 4 1 12", '
                                '"option style choice safe safe bold"]'), encoding="utf-8")
    bot.chmod(0o755)
    (mybot / "bot").symlink_to("bot.py")
    (mybot / "mybot.py").symlink_to("bot.py")


@pytest.fixture(scope="module")
def reader(tmp_path_factory) -> Path:
    """The folder of a reader who has made their first bot and played one match."""
    if not (BIN / "pinochle-arena").exists():
        pytest.skip(f"pinochle-arena is not installed beside {sys.executable} (make install)")
    if shutil.which("bwrap") is None:
        pytest.skip("the examples run bots in their jail: install bubblewrap (make install does)")
    folder = tmp_path_factory.mktemp("reader")
    for name in ("sample_bots", "tournaments"):
        (folder / name).symlink_to(ROOT / name)
    make_mybot(folder)
    arena("match", "greedy", "random", "--games", "2", "--seed", "1", "--no-report",
          "--out", "results/match-20260101-000000", cwd=folder)
    shutil.copytree(folder / "results" / "match-20260101-000000", folder / "results" / "event")
    return folder


BLOCKS = sh_blocks()


@pytest.mark.parametrize("where, commands", BLOCKS, ids=[where for where, _ in BLOCKS])
def test_the_shell_examples_run_as_printed(reader, tmp_path, where, commands):
    if all(why_not_run(c) or c.lstrip().startswith("#") for c in commands):
        pytest.skip("; ".join(sorted({why_not_run(c) for c in commands if why_not_run(c)})))
    folder = tmp_path / "reader"
    shutil.copytree(reader, folder, symlinks=True)
    if any(c.startswith(MAKES_MYBOT) for c in commands):
        shutil.rmtree(folder / "mybot")
    env = {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    run = subprocess.run(["bash", "-c", script(commands)], cwd=folder, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, f"{where}:\n{run.stderr[-4000:]}\n{run.stdout[-2000:]}"


def test_every_line_not_run_is_still_in_the_pages():
    commands = [c for _, block in BLOCKS for c in block]
    unused = [pattern for pattern, _ in NOT_RUN if not any(re.match(pattern, c.strip()) for c in commands)]
    assert unused == []


def test_shortening_keeps_the_command_and_makes_the_run_small():
    assert shortened("pinochle-arena match greedy random --games 100 --seed 7") == \
        "pinochle-arena match greedy random --games 2 --seed 7 --no-report --option max-hands=1"
    assert shortened("pinochle-arena match a b c --variant three-handed   # three") == \
        "pinochle-arena match a b c --variant three-handed --games 6 --no-report --option max-hands=1   # three"
    assert shortened("pinochle-arena tournament --bot a --bot b --bot c --boards 300   # or in TOML") == \
        "pinochle-arena tournament --bot a --bot b --bot c --boards 2 --no-report   # or in TOML"
    assert shortened("pinochle-arena sprt a b") == \
        "pinochle-arena sprt a b --option max-hands=1 --max-pairs 1 || [ $? = 3 ]"
    assert shortened("pinochle-arena check ./mybot/bot") == \
        "pinochle-arena check ./mybot/bot --option max-hands=1 --games 1"
    assert shortened("pinochle-arena league run myleague --games 40   # until Ctrl-C") == \
        "pinochle-arena league run myleague --games 4   # until Ctrl-C"
    assert shortened("pinochle-arena league show myleague") == "pinochle-arena league show myleague --bootstrap 0"
    assert shortened("pinochle-arena variants") == "pinochle-arena variants"


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            for m in re.finditer(r"^#+ (.*)$", text, re.M)}


def test_every_link_between_the_pages_leads_somewhere():
    pages = [*PAGES, ROOT / "CHANGELOG.md", ROOT / "protocol" / "PROTOCOL.md", ROOT / "bench" / "README.md",
             *sorted((ROOT / "sample_bots").rglob("README.md"))]
    broken = []
    for page in pages:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists() or (anchor and anchor not in anchors(dest)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
