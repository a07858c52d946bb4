"""The starter kits of sample_bots/starters/: each one builds and passes ``check`` in every preset, jailed.

Each kit's ``starter.toml`` names the tools it needs, its build command and
its run command. A kit whose toolchain this machine lacks is skipped with
one line saying what to install (``make test`` installs what it can). The
kit is built as a league builds an upload (``league.builds.jailed_build``:
in the jail, which sees only the system's tools) where there is a jail,
else in a copy of its folder; the checkout gets no build output, and the
built folder is readable by the jailed bot's own uid.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import tomllib
from pathlib import Path

import pytest
import trio
from helpers import arena

from league.builds import BuildFailed, Log, jailed_build
from league.uploads import read_manifest, unpack
from referee.bots import jail
from referee.rules import PRESETS

STARTERS = Path(__file__).resolve().parent.parent / "sample_bots" / "starters"
KITS = sorted(p.parent.name for p in STARTERS.glob("*/starter.toml"))
PACKAGES = {"javac": "default-jdk-headless", "jar": "default-jdk-headless", "java": "default-jdk-headless",
            "go": "golang-go", "mcs": "mono-mcs", "mono": "mono-runtime", "cargo": "cargo", "g++": "g++",
            "cc": "gcc", "make": "make", "node": "nodejs", "python3": "python3"}


def manifest(kit: str) -> dict:
    return tomllib.loads((STARTERS / kit / "starter.toml").read_text(encoding="utf-8"))


def test_there_is_a_kit_for_every_language_entrants_use():
    assert {manifest(kit)["language"] for kit in KITS} == {"Python", "JavaScript", "C", "C++", "Java", "Rust", "Go",
                                                           "C#"}
    for kit in KITS:
        assert (STARTERS / kit / "README.md").is_file()
        assert set(manifest(kit)) >= {"language", "tools", "build", "run"}


@pytest.fixture
def built(request):
    """A built copy of the kit, in a folder of the test's own that the jailed bot may read."""
    kit = request.param
    spec = manifest(kit)
    seen = jail.JAIL_PATH if not jail.problem() else None  # the jail's build sees the system's tools only
    missing = [tool for tool in spec["tools"] if shutil.which(tool, path=seen) is None]
    if missing:
        packages = " ".join(sorted({PACKAGES.get(t, t) for t in missing}))
        pytest.skip(f"no {', '.join(missing)} for the {spec['language']} kit: apt-get install {packages}")
    folder = Path(tempfile.mkdtemp(prefix=f"pa-starter-{kit}-"))
    try:
        folder.chmod(0o755)
        copy = folder / kit
        shutil.copytree(STARTERS / kit, copy, ignore=shutil.ignore_patterns("build", "target"))
        if not jail.problem():
            yield build_in_the_jail(copy, folder), spec["run"]
            return
        if spec["build"]:
            done = subprocess.run(spec["build"], shell=True, cwd=copy, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{spec['build']} failed:\n{done.stdout}\n{done.stderr}"
        yield copy, spec["run"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def build_in_the_jail(copy: Path, folder: Path) -> Path:
    """The kit built as a league builds an upload; returns the built folder."""
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() or path.stat().st_mode & 0o100 else 0o644)
    top, manifest = read_manifest(copy)
    log = Log()
    try:
        trio.run(jailed_build, top, manifest, folder / "built.tar", log)
    except BuildFailed as e:
        raise AssertionError(f"{manifest.build} failed in the jail: {e}\n{log.text()}") from None
    unpack(folder / "built.tar", folder / "built", links="skip")
    return folder / "built"


@pytest.mark.slow
@pytest.mark.parametrize("built", KITS, indirect=True)
def test_the_kit_passes_check_in_every_preset_in_the_default_jail(built, tmp_path):
    copy, run = built
    failed = {}
    for preset in PRESETS:
        # a game of two hands: every phase, as dealer and not, a second deal by the next dealer, a game's end (a
        # second game would only seat the bot elsewhere at the same table, for a fifth of the suite's time)
        result = arena("check", run, "--variant", preset, "--games", "1", "--option", "max-hands=2",
                       "--out", tmp_path / preset, cwd=copy)
        if result.returncode != 0 or "PASSED" not in result.stdout:
            failed[preset] = result.stdout[-2000:] + result.stderr[-2000:]
    assert failed == {}
