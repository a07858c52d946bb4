"""pinochle-arena installed like any Python package, not only as the checkout's editable install.

``python -m build`` makes an sdist and a wheel that carry every file a user needs (each package, PROTOCOL.md,
the sample bots, the starter kits, the viewer's files, the montecarlo core's crate; never a build's output). In
a fresh virtual environment, ``pip install .`` and ``pip install -e .`` each play ``match montecarlo greedy`` under
the default jail from a folder outside the checkout, and montecarlo loads its compiled core: built on first use
into the user's cache (the installed package's folder may be read-only), never into site-packages; an editable
install builds it in its own tree's ``target/``, as a checkout does. (``pip install .`` installs a wheel pip builds
from the tree; the wheel ``python -m build`` makes from the sdist is checked to hold the same files, rather than
installed and played a third time: each install and match costs about half a minute of the suite.)

The installs are slow tests (about half a minute each): one virtual environment per kind of install (one
shared, the second install replacing the first, was tried: the jail's image of an interpreter's installation is
compared with its files every 30 s, so the second game saw the first install's files; and what a run builds
beside an installed package's modules, such as the kept jail's keeper, outlives pip's uninstall). One cargo build
serves the installed package (a cache folder of the test session's own); the editable install builds its own, in
its tree. The montecarlo bot thinks 10 ms a decision (``option.think=10``), not its default 100: the test checks
that it plays with its compiled core, not how well. They skip, in one line, where pip cannot reach PyPI or
``build`` is not installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from referee.bots import jail, samples
from referee.bots.samples import SAMPLE_DIR, SampleBot, build_core, core_library

CHECKOUT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "referee", "protocol", "tournaments", "league", "sample_bots", "viewer", "analysis")
BUILT = ("target", "build", "__pycache__")  # folders a build leaves in the tree: never shipped
CRATE = ("Cargo.toml", "Cargo.lock", "README.md", "native.py", "src/lib.rs")
NO_CORE = "playing without its compiled core"  # what montecarlo says when it plays without it
OFFLINE = ("Could not find a version", "No matching distribution", "Failed to establish", "NewConnectionError",
           "Temporary failure in name resolution", "Network is unreachable")


def wheel_name() -> str:
    """The wheel's file name: pure Python (the core is built where it is first used), this version."""
    version = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    return f"pinochle_arena-{version}-py3-none-any.whl"


def run(argv: list, cwd: Path, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def plain_env(**more: str) -> dict:
    """This environment without what would make a new virtual environment see the checkout's packages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **more}


def succeeded(done: subprocess.CompletedProcess, what: str) -> None:
    """Fail with the output; skip in one line where the failure is pip not reaching PyPI."""
    if done.returncode == 0:
        return
    output = done.stdout + done.stderr
    if any(sign in output for sign in OFFLINE):
        pytest.skip(f"{what}: pip cannot reach PyPI")
    pytest.fail(f"{what} failed ({done.returncode}):\n{output[-3000:]}")


def project_files() -> set[str]:
    """The checkout's files of the packages: tracked, and new ones not ignored (what the next commit holds)."""
    listed = run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *PACKAGES], CHECKOUT)
    if listed.returncode != 0:
        pytest.skip("the install tests need the checkout's git (to know its files)")
    return {f for f in listed.stdout.splitlines() if (CHECKOUT / f).is_file()}


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the checkout's files, so that the builds leave nothing in the checkout (pip builds in the tree)."""
    folder = tmp_path_factory.mktemp("source") / "pinochle-arena"
    for name in ("pyproject.toml", "MANIFEST.in", "README.md", *sorted(project_files())):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(CHECKOUT / name, folder / name)
    shutil.copytree(CHECKOUT / "docs", folder / "docs")
    return folder


@pytest.fixture(scope="module")
def dist(source, tmp_path_factory) -> Path:
    """The sdist and the wheel (made from the sdist), by ``python -m build`` as a release makes them."""
    if run([sys.executable, "-c", "import build"], CHECKOUT).returncode != 0:
        pytest.skip("python -m build is not installed (pip install build, or make install)")
    out = tmp_path_factory.mktemp("dist")
    succeeded(run([sys.executable, "-m", "build", "--outdir", out, source], source, plain_env()), "python -m build")
    return out


@pytest.fixture(scope="session")
def user_cache(tmp_path_factory) -> Path:
    """The user's cache folder of the installed referees (XDG_CACHE_HOME): one core build serves every install."""
    return tmp_path_factory.mktemp("cache")


EDITABLE = "pip install -e ."


@pytest.fixture(scope="module", params=["pip install .", EDITABLE])
def installed(request, source, tmp_path_factory) -> tuple[Path, Path]:
    """A fresh virtual environment with pinochle-arena installed; returns its folder and the package's (the tree
    of an editable install: a copy of ``source`` of its own)."""
    venv = tmp_path_factory.mktemp("venv")
    venv.chmod(0o755)  # (pytest makes it 0700) the jailed bot, a uid of its own, reads the interpreter's folder
    # (without a pip of its own: this one installs into it with --python, which saves a pip's install each)
    succeeded(run([sys.executable, "-m", "venv", "--without-pip", venv], venv), "python -m venv")
    if request.param == "pip install .":
        command, cwd = ["install", "--quiet", "."], source
    else:
        cwd = tmp_path_factory.mktemp("editable") / "pinochle-arena"
        shutil.copytree(source, cwd)
        cwd.chmod(0o755)  # (read by the jailed bot, as the venv is)
        command = ["install", "--quiet", "-e", "."]
    succeeded(run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", *command], cwd, plain_env()),
              request.param)
    return venv, (cwd if request.param == EDITABLE else next(venv.glob("lib/python*/site-packages")))


@pytest.mark.slow
def test_the_sdist_and_the_wheel_carry_every_file_and_no_build(dist):
    """Every file of the packages (PROTOCOL.md, the starter kits and their dot-files, the viewer's static files
    and templates, the montecarlo core's crate) is in the sdist and in the wheel; nothing a build left is."""
    (sdist,) = dist.glob("pinochle_arena-*.tar.gz")
    (wheel,) = dist.glob("pinochle_arena-*.whl")
    assert wheel.name == wheel_name()
    with tarfile.open(sdist) as tar:
        in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    files = project_files()
    assert {"protocol/PROTOCOL.md", "sample_bots/starters/rust/.cargo/config.toml", "viewer/templates/base.html",
            *(f"sample_bots/montecarlo_core/{name}" for name in CRATE)} <= files
    assert files - in_sdist == set()
    assert files - in_wheel == set()
    for name in in_sdist | in_wheel:
        assert not set(Path(name).parts) & set(BUILT), f"{name} is a build's output"
    assert "README.md" in in_sdist and "MANIFEST.in" in in_sdist


def test_the_install_docs_name_the_wheel_this_version_makes():
    for page in ("README.md", "docs/cluster.md"):
        text = (CHECKOUT / page).read_text(encoding="utf-8")
        assert set(re.findall(r"pinochle_arena-[\w.]+-py3-none-any\.whl", text)) == {wheel_name()}, page


@pytest.mark.slow
def test_an_installed_package_plays_montecarlo_with_its_core_in_the_jail(installed, user_cache, tmp_path):
    """From a folder outside the checkout, under the default jail: a game played without a fault, and
    montecarlo loaded its compiled core (built into the user's cache, not into site-packages; an editable install's
    in its tree, as a checkout's)."""
    venv, package = installed
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed: montecarlo plays without its compiled core")
    if jail.problem():
        pytest.skip(f"no jail here: {jail.problem()}")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    done = run([venv / "bin" / "pinochle-arena", "match", "montecarlo", "option.think=10", "greedy", "--games", "1",
                "--no-duplicate", "--out", out],
               elsewhere, plain_env(XDG_CACHE_HOME=str(user_cache)))
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [r["termination"] for r in records] == ["completed"]
    assert all(str(package) in r["seats"][0]["command"] for r in records)  # the installed copy played, not the checkout
    log = (out / "logs" / "montecarlo.stderr.log").read_text()
    assert "start 1 of" in log and NO_CORE not in log and "Traceback" not in log
    assert NO_CORE not in done.stderr
    in_tree = package / "sample_bots" / "montecarlo_core" / "target"
    if package.name == "site-packages":
        assert list(user_cache.glob("pinochle-arena/montecarlo_core-*/libmontecarlo_core.so"))
        assert not in_tree.exists()
    else:
        assert (in_tree / "libmontecarlo_core.so").exists()


@pytest.fixture
def installed_crate(tmp_path, monkeypatch) -> Path:
    """The montecarlo core's crate as an installed package holds it, the user's cache in ``tmp_path``."""
    crate = tmp_path / "venv" / "lib" / "site-packages" / "sample_bots" / "montecarlo_core"
    shutil.copytree(SAMPLE_DIR / "montecarlo_core", crate, ignore=shutil.ignore_patterns(*BUILT))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return crate


def test_an_installed_core_goes_to_the_users_cache_under_its_digest(installed_crate, tmp_path):
    library = core_library(installed_crate)
    assert library.parent.parent == tmp_path / "cache" / "pinochle-arena"
    assert library.parent.name == f"montecarlo_core-{samples.crate_digest(installed_crate)}"
    (installed_crate / "src" / "lib.rs").write_text((installed_crate / "src" / "lib.rs").read_text() + "\n")
    assert core_library(installed_crate) != library  # other sources: never the library built from the old ones


def test_without_cargo_the_referee_names_the_reason_and_the_bot_is_told_where_to_look(installed_crate, monkeypatch,
                                                                                        capsys):
    """No cargo: the bot's command names its library's place and shows that folder; the match and check
    commands say in one line why montecarlo plays without its core."""
    from arena.cli.args import say_core_problems

    monkeypatch.setattr(shutil, "which", lambda name: None)
    bot = SampleBot("montecarlo", "Python", "", ("python3", "montecarlo_bot.py"), core=installed_crate)
    command = bot.command()
    library = core_library(installed_crate)
    assert dict(command.env) == {"MONTECARLO_CORE_LIBRARY": str(library)}
    assert str(library.parent) in command.read_only
    assert "needs cargo on PATH" in bot.core_problem()
    assert not (installed_crate / "target").exists()
    monkeypatch.setitem(samples.SAMPLES, "montecarlo", bot)
    say_core_problems(["montecarlo", "greedy", "montecarlo"])
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("note: sample bot montecarlo plays without its compiled core") and "cargo" in line


def test_the_bot_reads_the_library_and_the_reason_where_the_referee_names_them(tmp_path, monkeypatch):
    sys.path.insert(0, str(SAMPLE_DIR))
    from montecarlo_core import native

    (tmp_path / "build-failed.txt").write_text("cannot build it: no linker\n")
    monkeypatch.setenv(native.VARIABLE, str(tmp_path / "libmontecarlo_core.so"))
    with pytest.raises(native.CoreMissing, match=f"no compiled core at {tmp_path}/.*: cannot build it: no linker"):
        native.load()


def test_a_checkouts_core_stays_in_its_own_target_folder():
    crate = SAMPLE_DIR / "montecarlo_core"
    assert core_library(crate) == crate / "target" / "libmontecarlo_core.so"
    if shutil.which("cargo") is not None:
        assert build_core(crate) == crate / "target" / "libmontecarlo_core.so"
