"""Helpers of the attack tests: run the real command line, read what the bots reported, find leftovers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from referee.records.record import GameRecord, Termination, read_records
from referee.records.replay import replay_record
from referee.records.seals import load_key

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"
PYTHON = sys.executable
PID_WORD = "@REFEREE_PID@"
SECRET = "s3cr3t-" + "7f" * 8  # put in the referee's environment by the tests of other processes

# `python -m arena ...`, except that every argument and every .toml file named holds the referee's own pid
# in place of PID_WORD: an attacker is told the pid of the process it attacks.
WITH_PID = f"""
import os, sys
from pathlib import Path
pid = str(os.getpid())
args = [a.replace({PID_WORD!r}, pid) for a in sys.argv[1:]]
for a in args:
    if a.endswith(".toml"):
        Path(a).write_text(Path(a).read_text().replace({PID_WORD!r}, pid))
from arena.cli import main
sys.exit(main(args))
"""


def referee(*args: str, cwd: Path, env: dict[str, str] | None = None, with_pid: bool = False,
            timeout: float = 240) -> subprocess.CompletedProcess:
    """Run ``pinochle-arena ARGS`` as a user would (``python -m arena``); never hangs the test run."""
    start = [PYTHON, "-c", WITH_PID] if with_pid else [PYTHON, "-m", "arena"]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([*start, *map(str, args)], cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=timeout)


def match(out: Path, *bots: str, games: int = 2, extra: tuple[str, ...] = (), cwd: Path,
          **kw) -> subprocess.CompletedProcess:
    """A match from the command line with the defaults (jail, secret seed), short games."""
    done = referee("match", *bots, "--games", str(games), "--out", out, "--option", "target=200", *extra, cwd=cwd, **kw)
    assert done.returncode == 0, f"the referee failed:\n{done.stdout}\n{done.stderr}"
    return done


def tournament(config: Path, out: Path, *, cwd: Path, **kw) -> subprocess.CompletedProcess:
    done = referee("tournament", config, "--out", out, "--bootstrap", "0", cwd=cwd, **kw)
    assert done.returncode == 0, f"the referee failed:\n{done.stdout}\n{done.stderr}"
    return done


def tournament_config(path: Path, bots: dict[str, str], out: Path, *, games: int = 2,
                      read_only: tuple[Path, ...] = ()) -> Path:
    """A duplicate round robin of ``bots`` (name -> command line), two worker processes, short games."""
    lines = ["[tournament]", 'format = "round-robin"', 'variant = "two-handed"', f"games_per_pairing = {games}",
             "concurrency = 2", "processes = 2", f"output = {json.dumps(str(out))}"]
    if read_only:
        lines.append(f"read_only = {json.dumps([str(p) for p in read_only])}")
    lines += ["", "[tournament.options]", "target = 200", ""]
    for name, command in bots.items():
        lines += ["[[bot]]", f"name = {json.dumps(name)}", f"command = {json.dumps(command)}", ""]
    path.write_text("\n".join(lines))
    return path


def command(script: str | Path, *args: str) -> str:
    """The command line of an attack bot (or any Python script) run by the test's interpreter."""
    path = BOTS / script if isinstance(script, str) else script
    return " ".join([PYTHON, str(path), *args])


def copy_bots(to: Path) -> Path:
    """The attack bots in a folder of the test's own (what a bot writes beside itself stays in the test's tmp)."""
    shutil.copytree(BOTS, to, ignore=shutil.ignore_patterns("__pycache__"))
    return to


def apart(bots: Path, script: str) -> Path:
    """A copy of one attack bot (and its loop) in a folder of its own beside ``bots``: two entrants' programs
    side by side would be refused (each bot's jail would show it the other's)."""
    folder = bots.parent / f"{Path(script).stem}-apart"
    folder.mkdir(exist_ok=True)
    for name in (script, "botloop.py"):
        shutil.copy(bots / name, folder / name)
    return folder / script


def copy_engine(to: Path) -> Path:
    """Copies of the referee and protocol packages, as an attacker would ship them (not the repo root)."""
    for package in ("referee", "protocol"):
        shutil.copytree(ROOT / package, to / package)
    return to


def reports(out: Path, name: str) -> list[dict[str, str]]:
    """Every ``ATTACK NAME key=value ...`` line the bots wrote to their stderr logs, as dicts."""
    found = []
    for log in sorted((out / "logs").glob("*.stderr.log")):
        for line in log.read_text(errors="replace").splitlines():
            words = line.split()
            if words[:2] == ["ATTACK", name]:
                found.append(dict(w.split("=", 1) for w in words[2:] if "=" in w))
    return found


def stderr_text(out: Path) -> str:
    return "".join(log.read_text(errors="replace") for log in sorted((out / "logs").glob("*.stderr.log")))


def records(out: Path) -> list[GameRecord]:
    """The records of a run, every seal checked."""
    return list(read_records(out / "games.jsonl", load_key(out)))


def completed(recs: list[GameRecord]) -> None:
    """Every game ran to its end: no seat faulted, and each record replays through the rules."""
    faults = [(r.game_id, r.termination.value, r.culprit, r.detail) for r in recs
              if r.termination is not Termination.COMPLETED]
    assert faults == [], f"games ended on a fault: {faults}"
    for r in recs:
        report = replay_record(r)
        assert report.ok, f"{r.game_id} does not replay: {report.problems}"


def processes_with(word: str) -> list[int]:
    """Pids of the processes whose command line holds ``word`` (this test's own bots and what they started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if word.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def kill_processes_with(word: str) -> list[int]:
    """SIGKILL what :func:`processes_with` finds: only this test's bots carry ``word``."""
    found = processes_with(word)
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return found


def files_named(root: Path, word: str) -> list[Path]:
    return [Path(top, name) for top, dirs, files in os.walk(root) for name in dirs + files if word in name]


def assert_no_leftovers(mark: str, tmp: Path) -> None:
    """No process carries the test's word, and no file named with it is where a bot could have left one:
    the host's /tmp and /dev/shm, and the test's own folder."""
    left = processes_with(mark)
    assert left == [], f"processes of the bots outlived the match: {left}"
    for folder in (Path("/tmp"), Path("/dev/shm")):
        files = list(folder.glob(f"{mark}*"))
        assert files == [], f"a bot left files in the host's {folder}: {files}"
    files = files_named(tmp, mark)
    assert files == [], f"a bot left files in the test's folder: {files}"
