"""The sample bots shipped in sample_bots/, addressable by name on the command line."""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import attrs

import protocol

from .transport import BotCommand, BotStartError

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_bots"


@attrs.frozen
class SampleBot:
    name: str
    language: str
    summary: str
    argv: tuple[str, ...]
    source: Path | None = None  # a C source compiled to argv[0] on first use
    core: Path | None = None  # a Rust crate built on first use into a library the bot loads (it plays without)
    in_default: bool = True  # plays in the embedded default tournament
    read_only: tuple[str, ...] = ()  # folders it needs besides its own (a library it imports)

    def command(self) -> BotCommand:
        if self.source is not None:
            build_c(self.source, Path(self.argv[0]))
        if self.core is None:
            return BotCommand(self.argv, read_only=self.read_only)
        library = build_core(self.core)
        # The bot is told where its library is, and its jail shows that folder (for an installed package, a
        # folder of the user's cache that the bot would not otherwise see).
        return BotCommand(self.argv, env=((core_variable(self.core), str(library)),),
                          read_only=(*self.read_only, str(library.parent)))

    def core_problem(self) -> str:
        """Why this bot plays without its compiled core ("" when it has one, or needs none): the reason its
        last build failed, as the bot itself reads it."""
        if self.core is None:
            return ""
        library = core_library(self.core)
        if library.exists():
            return ""
        try:
            return (library.parent / FAILED_NAME).read_text().strip() or "it has not been built"
        except OSError:
            return "it has not been built"


def build_c(source: Path, binary: Path) -> None:
    """Compile a C sample bot with the system's cc, unless the binary is newer than its source."""
    if binary.exists() and binary.stat().st_mtime >= source.stat().st_mtime:
        return
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise BotStartError(f"sample bot {source.stem!r} is C and needs a C compiler (cc, gcc or clang) on PATH")
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(binary.name + f".{os.getpid()}.tmp")
    done = subprocess.run([compiler, "-O2", "-o", str(partial), str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BotStartError(f"cannot compile {source}: {done.stderr.strip()[:500]}")
    os.replace(partial, binary)  # atomic: concurrent first uses never run a half-written binary


def build_rust(crate: Path, library: Path, target: Path | None = None) -> None:
    """Build a Rust crate's library (``cargo build --release --offline``) and copy it to ``library``. Raises
    BotStartError if cargo is missing or fails.

    Without ``target`` cargo works in the crate's own target/ folder and the library is built again when a
    source is newer. With one (a folder of the user's cache: the crate itself may be read-only), cargo works
    there and ``library``'s path names the sources' digest (``core_library``): one that exists is up to date.

    Concurrent first uses are safe: cargo locks its target folder, and the copy is renamed into place, so a
    bot never loads a half-written library."""
    if library.exists() and (target is not None or library.stat().st_mtime >= newest_source(crate)):
        return
    cargo = shutil.which("cargo")
    if cargo is None:
        raise BotStartError(f"{crate.name} is Rust and needs cargo on PATH to build")
    target = target or crate / "target"
    done = subprocess.run([cargo, "build", "--release", "--offline", "--quiet", "--manifest-path",
                           str(crate / "Cargo.toml"), "--target-dir", str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BotStartError(f"cannot build {crate}: {' '.join(done.stderr.split())[:400]}")
    name = crate.name
    built = next((p for p in (target / "release" / f"lib{name}{ext}" for ext in (".so", ".dylib")) if p.exists()),
                 None)
    if built is None:
        raise BotStartError(f"cargo built {crate} but left no lib{name}.so in {target / 'release'}")
    library.parent.mkdir(parents=True, exist_ok=True)
    library.parent.chmod(0o755)  # a jailed bot runs as a uid of its own when the referee is root: it must read it
    partial = library.with_name(library.name + f".{os.getpid()}.tmp")
    shutil.copyfile(built, partial)
    partial.chmod(0o755)
    os.replace(partial, library)


def rust_sources(crate: Path) -> list[Path]:
    """The files a Rust crate's library is built from."""
    return sorted([crate / "Cargo.toml", *(p for p in [crate / "Cargo.lock"] if p.exists()),
                   *(crate / "src").rglob("*.rs")])


def newest_source(crate: Path) -> float:
    return max(p.stat().st_mtime for p in rust_sources(crate))


FAILED_NAME = "build-failed.txt"  # beside a core's library: why its last build failed (the bot reads it)


def core_variable(crate: Path) -> str:
    """The environment variable that tells a sample bot where its core's library is (native.py reads it)."""
    return f"{crate.name.upper()}_LIBRARY"


def is_installed(crate: Path) -> bool:
    """Whether ``crate`` lies in an installed package (site-packages), not in a checkout."""
    return any(part in ("site-packages", "dist-packages") for part in crate.parts)


def cache_folder() -> Path:
    """The user's cache folder for pinochle-arena (``$XDG_CACHE_HOME``, else ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "pinochle-arena"


def crate_digest(crate: Path) -> str:
    """A short sha256 of a crate's sources and the machine they are built for."""
    digest = hashlib.sha256(f"{sys.platform} {platform.machine()}\n".encode())
    for path in rust_sources(crate):
        digest.update(f"{path.relative_to(crate)}\n".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def core_library(crate: Path) -> Path:
    """Where the library built from ``crate`` goes: in a checkout, the crate's own target/ folder; in an
    installed package, whose folder may be read-only or shared by several users, a folder of the user's cache
    named by the sources' digest (so a package installed again, or another version, never loads a stale one)."""
    name = f"lib{crate.name}.so"
    if is_installed(crate) or not os.access(crate, os.W_OK):
        return cache_folder() / f"{crate.name}-{crate_digest(crate)}" / name
    return crate / "target" / name


def build_core(crate: Path) -> Path:
    """Build a sample bot's optional compiled core and return its library's path (``core_library``). A
    failure does not stop the bot, which plays without it: the reason is left beside that path, in
    ``build-failed.txt``, for the bot to tell (and ``SampleBot.core_problem``)."""
    library = core_library(crate)
    folder = library.parent
    failed = folder / FAILED_NAME
    target = None if folder == crate / "target" else cache_folder() / "cargo-target"
    try:
        build_rust(crate, library, target)
    except (BotStartError, OSError) as error:
        with contextlib.suppress(OSError):  # a folder it cannot write to: the bot says it is not built
            folder.mkdir(parents=True, exist_ok=True)
            partial = failed.with_name(failed.name + f".{os.getpid()}.tmp")
            partial.write_text(f"{error}\n")
            partial.chmod(0o644)
            os.replace(partial, failed)
        return library
    with contextlib.suppress(OSError):
        failed.unlink(missing_ok=True)
    return library


def _python(script: str) -> tuple[str, ...]:
    """The Python samples need only the standard library: run them with the base interpreter, not the
    referee's virtual environment, which a jailed bot then never sees, and without ``site`` (-S): the
    ``.pth`` files of an installation's site-packages run code at every start (tens of milliseconds where a
    distribution or a tool adds some), and a sample starts for every game."""
    return (os.path.realpath(sys.executable), "-S", str(SAMPLE_DIR / script))


def _python_with_library(script: str) -> tuple[str, ...]:
    """A Python sample that imports pinochle-arena's rules library runs with the interpreter the package is
    installed in (its virtual environment holds attrs); the jail shows that environment."""
    return (sys.executable, str(SAMPLE_DIR / script))


# The packages a library-using sample imports, wherever they are installed (a checkout or site-packages): the
# whole referee package, not only its rules, as an editable install's import hook loads referee/__init__.py first.
LIBRARY = (str(Path(protocol.__file__).resolve().parent), str(Path(__file__).resolve().parents[1]))

SAMPLES: dict[str, SampleBot] = {
    b.name: b
    for b in (
        SampleBot("random", "Python", "a uniformly random legal action, but a claim only with option.claim=yes "
                  "(the template to copy)", _python("random_bot.py")),
        SampleBot("greedy", "Python", "highest meld, cheap wins of counters, keeps trumps and meld cards", _python("greedy_bot.py")),
        SampleBot("tactician", "JavaScript (node)", "card counting, and exact search of the second phase",
                  ("node", str(SAMPLE_DIR / "js" / "tactician.js"))),
        SampleBot("montecarlo", "Python", "Monte Carlo: simulates the hidden cards, for every decision that matters",
                  _python_with_library("montecarlo_bot.py"), read_only=LIBRARY, in_default=False,
                  core=SAMPLE_DIR / "montecarlo_core"),
        SampleBot("first-legal", "C", "the first legal action at once (for measuring the referee)",
                  (str(SAMPLE_DIR / "c" / "build" / "first_legal"),), SAMPLE_DIR / "c" / "first_legal.c",
                  in_default=False),
    )
}


def resolve_bot(text: str) -> tuple[str, BotCommand]:
    """A sample bot's name or a command line -> (entrant name, command)."""
    sample = SAMPLES.get(text)
    if sample is not None:
        if sample.argv[0] == "node" and shutil.which("node") is None:
            raise BotStartError(f"sample bot {text!r} needs node (Node.js) on PATH")
        return sample.name, sample.command()
    command = BotCommand.from_text(text)
    try:
        command.check()
    except BotStartError as e:
        close = difflib.get_close_matches(text, SAMPLES, n=1, cutoff=0.6)
        raise BotStartError(f"{e}; did you mean the sample bot {close[0]!r}?" if close else str(e)) from None
    return entrant_name(command.argv), command


def entrant_name(argv: tuple[str, ...]) -> str:
    """A short name for a bot command: the script an interpreter runs, else the program."""
    program = argv[0]
    if _is_interpreter(program):
        interpreter = Path(program).name
        args = argv[1:]
        for i, arg in enumerate(args):
            if arg in ("-c", "-e", "--eval"):  # code on the command line: no file to name it by
                return f"{interpreter}-inline"
            if arg == "-m" and i + 1 < len(args):  # python -m package.bot
                return args[i + 1].rsplit(".", 1)[-1]
            if not arg.startswith("-"):
                return Path(arg).stem or interpreter
    return Path(program).stem or program


def command_identity(argv: tuple[str, ...]) -> str:
    """A command as a run's fingerprint keeps it: an interpreter by its name only (``python3``, not the path
    of the virtual environment it was found in) and a sample bot's files relative to the sample folder, so a
    resume with another interpreter path, or from a checkout that moved, is not refused."""
    first = Path(argv[0]).name if _is_interpreter(argv[0]) else argv[0]
    words = [first, *argv[1:]]
    prefix = str(SAMPLE_DIR) + os.sep
    return shlex.join(["sample_bots/" + w[len(prefix):] if w.startswith(prefix) else w for w in words])


def _is_interpreter(program: str) -> bool:
    return Path(program).name.rstrip("0123456789.") in {"python", "node", "ruby", "perl", "java", "sh", "bash", "pypy"}


def unique_names(names: list[str], taken: Iterable[str] = ()) -> list[str]:
    """Make entrant names unique, and unlike every name of ``taken``: random, random -> random, random-2
    (and random, random, random-2 -> random, random-2, random-2-2)."""
    used = set(taken)
    out = []
    for name in names:
        unique, k = name, 1
        while unique in used:
            k += 1
            unique = f"{name}-{k}"
        used.add(unique)
        out.append(unique)
    return out
