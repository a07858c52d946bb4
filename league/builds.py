"""Builds: an entrant's upload made into a version, in the jail the games are played in.

An upload (:mod:`league.uploads`) is received into ``DIR/builds/N/src`` and
queued. :func:`build_forever` (run by ``league serve``) takes the builds in
turn; each one:

1. runs the manifest's build command in the jail (bubblewrap, no network,
   a uid of its own and a control group as root): the sources are shown
   read-only, copied into the jail's private home and built there, so the
   build writes only to that size-capped space; its output (the build log)
   is capped, its time, memory and processes are limited;
2. takes the built folder out of the jail as a tar stream (capped), and
   unpacks it with the same checks as an upload into
   ``DIR/bots/NAME/bN``, where the version will run from (read-only);
3. runs ``check`` on it under the league's variant, time control and
   limits, always jailed, and makes sure its jail shows it no other
   entrant's files;
4. only then enters it as the entrant's new version, which ``league run``
   takes up within a second. A failed build or check leaves the previous
   version playing; the entrant's page says why, with the log.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import sys
import traceback
from pathlib import Path

import attrs
import trio
from sqlalchemy import exc

from referee.bots.apart import RESULTS_ELSEWHERE_LEAGUE, exposures, jails_of
from referee.bots.fingerprint import fingerprint
from referee.bots.jail import SYSTEM, JailSpec, is_under, visible_paths
from referee.bots.sandbox import LEADERS, Isolation, Limits, Sandbox, SandboxError, kill_leftovers, launch
from referee.bots.sandbox import start as start_process
from referee.bots.spawn import become_subreaper
from referee.bots.transport import OptionRefused
from referee.match.compliance import run_check

from .db import Build, LeagueDB, Version
from .uploads import Manifest, UploadError, read_manifest, unpack

BUILD_SECONDS = 300  # wall-clock time a build may take
BUILD_LIMITS = Limits(memory_mb=2048, cpu_seconds=600, processes=256, open_files=1024, file_mb=256, output_kb=None,
                      disk_mb=1024, cpus=1)
LOG_BYTES = 256 << 10  # the build's output (stdout and stderr): past this it is stopped
BUILT_BYTES = 256 << 20  # the built folder, as it comes out of the jail
CHECK_GAMES = 2
POLL = 2.0  # seconds between two looks for queued builds (an upload also wakes the builder at once)

# What runs in the jail: the sources (shown read-only at $SOURCE) copied into the private home, built there (its
# output to stderr: the build log), then the folder sent out on stdout as a tar, hard links as the files they are
# (cargo hard-links its binary into two folders: as a link the second copy would be skipped when unpacked).
SCRIPT = """set -e
cp -R "$SOURCE/." "$HOME/bot"
cd "$HOME/bot"
if [ -n "$BUILD" ]; then sh -c "$BUILD" >&2; fi
exec tar --hard-dereference -cf - .
"""


class BuildFailed(Exception):
    """A build or check that did not pass; the message is one line for the entrant."""


def build_folder(league: Path, build: int) -> Path:
    return league / "builds" / str(build)


def receive(league: Path, db: LeagueDB, name: str, archive: bytes) -> int:
    """An upload for ``name``: checked and unpacked at once (UploadError says why it is refused), then queued.
    Returns the build's number."""
    incoming = league / "builds" / f"incoming-{secrets.token_hex(8)}"
    incoming.mkdir(parents=True, mode=0o700)
    try:
        (incoming / "upload").write_bytes(archive)
        unpack(incoming / "upload", incoming / "src")
        read_manifest(incoming / "src")
        build = db.new_build(name)
        incoming.rename(build_folder(league, build))
    except BaseException:
        shutil.rmtree(incoming, ignore_errors=True)
        raise
    db.queue_build(build)
    return build


async def build_forever(league: Path, db: LeagueDB, wake: trio.MemoryReceiveChannel | None = None) -> None:
    """Take queued builds in turn, for ever (builds a stopped server left half-done are queued again first);
    a message on ``wake`` says an upload was queued."""
    await trio.to_thread.run_sync(db.requeue_builds)
    while True:
        try:
            build = await trio.to_thread.run_sync(db.take_build)
        except exc.DatabaseError:  # a damaged database: the pages say so (503) until it is repaired
            build = None
        if build is None:
            with trio.move_on_after(POLL):
                await (wake.receive() if wake is not None else trio.sleep_forever())
            continue
        await build_one(league, db, build)


async def build_one(league: Path, db: LeagueDB, build: Build) -> None:
    """Build, check and enter one upload; the outcome (and the log) goes to the build's row. Never raises for
    anything an upload can cause: the builder goes on with the next one."""
    try:
        await _build_one(league, db, build)
    except Exception as e:  # a bug of ours that an upload found: this build fails, the others are still built
        print(f"league serve: build {build.id} of {build.entrant} failed on an internal error:", file=sys.stderr)
        traceback.print_exc()
        message = f"an internal error of the league's ({type(e).__name__}); the organiser has its details"
        await trio.to_thread.run_sync(db.finish_build, build.id, "failed", message, message + "\n")


async def _build_one(league: Path, db: LeagueDB, build: Build) -> None:
    folder = build_folder(league, build.id)
    log = Log()
    bot = league / "bots" / build.entrant / f"b{build.id}"
    shutil.rmtree(bot, ignore_errors=True)  # (left by a server stopped in the middle of this build)
    done = False  # its outcome saved: else its sources stay, for a restarted server to build again
    try:
        if not (folder / "src").is_dir():
            raise BuildFailed("the upload's files are gone (the server stopped while it was received): send it again")
        source, manifest = read_manifest(folder / "src")
        log.say(f"build {build.id} of {build.entrant}: {manifest.build or '(no build command)'}; run: {manifest.run}")
        await jailed_build(source, manifest, folder / "built.tar", log)
        bot.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        for note in await trio.to_thread.run_sync(lambda: unpack(folder / "built.tar", bot, BUILT_BYTES, "skip",
                                                                  tar_only=True)):
            log.say(note)
        version = await _check_and_enter(league, db, build.entrant, manifest, bot, folder / "check", log)
    except (BuildFailed, UploadError) as e:
        shutil.rmtree(bot, ignore_errors=True)
        log.say(f"FAILED: {e}")
        await trio.to_thread.run_sync(db.finish_build, build.id, "failed", str(e), log.text())
        done = True
    else:
        log.say(f"PASSED: version {version.number} of {build.entrant} plays from now on")
        await trio.to_thread.run_sync(db.finish_build, build.id, "passed", "", log.text(), version.id)
        done = True
    finally:
        for scratch in ("built.tar", "check", *(("src",) if done else ())):
            path = folder / scratch
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)


def shown_outside(entrant, folder: Path) -> list[Path]:
    """The folders an uploaded bot's jail would show besides its own folder, the system and the runtime its
    command names by name (python3, java): what a script's ``#!`` line or any other way of naming a path would
    open to it. The run command's words are checked at upload; this checks what the built files add."""
    argv = entrant.command.argv
    allowed: list[str | Path] = [folder.resolve(), *SYSTEM]
    if os.sep not in argv[0]:  # a runtime found on PATH, as the organiser's machine has it
        allowed += [real for _, real in visible_paths(JailSpec((argv[0],)))]
    spec = jails_of([(entrant.name, entrant.command, entrant.sandbox)], ())[entrant.name]
    return [real for _, real in visible_paths(spec) if not is_under(real, allowed)]


@attrs.define
class Log:
    lines: list[str] = attrs.Factory(list)

    def say(self, line: str) -> None:
        self.lines.append(line.rstrip("\n"))

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


async def jailed_build(source: Path, manifest: Manifest, tar_path: Path, log: Log,
                       limits: Limits = BUILD_LIMITS, seconds: float = BUILD_SECONDS) -> None:
    """Run the build in the jail; the built folder is written to ``tar_path``. BuildFailed says why not."""
    source = source.resolve()
    # A build sees the host's system as it is (its compilers and their libraries), not a bot's own file system:
    # it plays no game, so there is no hand in it to learn, and no seating reads the host's files.
    sandbox = Sandbox(limits, Isolation.JAIL, read_only=(str(source),), own_files=False)
    try:
        how = launch(sandbox, ("/bin/sh", "-c", SCRIPT), None, {"SOURCE": str(source), "BUILD": manifest.build})
    except SandboxError as e:
        raise BuildFailed(f"no jail to build in: {e}") from None
    become_subreaper()
    try:
        process = await start_process(how)
    except BaseException as e:  # (cancelled too: the uid and control group go back)
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(how.cleanup)
        if isinstance(e, (OSError, SandboxError)):
            raise BuildFailed(f"cannot start the build in the jail: {getattr(e, 'strerror', None) or e}") from None
        raise
    LEADERS.add(process.pid)
    output, too_much = bytearray(), list[str]()
    try:
        await process.stdin.aclose()
        with open(tar_path, "wb") as tar, trio.move_on_after(seconds) as timer:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_drain, process.stderr, output.extend, LOG_BYTES, too_much, "log", nursery)
                nursery.start_soon(_drain, process.stdout, tar.write, BUILT_BYTES, too_much, "built folder", nursery)
                await process.wait()
    finally:
        with trio.CancelScope(shield=True):
            await _end(process, how)
    log.say(output.decode(errors="replace"))
    if timer.cancelled_caught:
        raise BuildFailed(f"the build took longer than {seconds:.0f} s")
    if too_much:
        limit = LOG_BYTES if too_much[0] == "log" else BUILT_BYTES
        raise BuildFailed(f"the build's {too_much[0]} passed {limit >> 10} KiB")
    if how.out_of_memory():
        raise BuildFailed(f"the build ran out of memory ({limits.memory_mb} MiB)")
    if process.returncode != 0:
        raise BuildFailed(f"the build failed (exit status {process.returncode}): its log says why")


async def _drain(stream, keep, limit: int, too_much: list[str], what: str, nursery: trio.Nursery) -> None:
    """Read ``stream`` to its end into ``keep``; past ``limit`` bytes note it and stop everything."""
    got = 0
    while chunk := await stream.receive_some(1 << 16):
        got += len(chunk)
        if got > limit:
            too_much.append(what)
            nursery.cancel_scope.cancel()
            return
        keep(chunk)


async def _end(process, how) -> None:
    """Kill whatever is left of the build, reap it and give back its uid and control group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    await process.wait()
    LEADERS.discard(process.pid)
    await trio.to_thread.run_sync(how.cleanup)
    await trio.to_thread.run_sync(kill_leftovers, how.marker, None)
    for stream in (process.stdout, process.stderr):
        await stream.aclose()


async def _check_and_enter(league: Path, db: LeagueDB, name: str, manifest: Manifest, bot: Path, out: Path,
                           log: Log) -> Version:
    """``check`` the built bot under the league's settings, jailed, then enter it as ``name``'s newest version."""
    from tournaments.config import ConfigError

    from .runner import games_folder, league_config

    table = {"command": manifest.run, "cwd": str(bot), "isolation": "jail"}
    others = [v for v in db.players() if v.entrant != name]
    try:
        config = league_config(db, league, [Version(0, name, 1, table, ""), *others])
    except ConfigError as e:  # (in the entrant's words: its manifest's run command, not the league's bot[1])
        said = str(e).removeprefix(f"league {league}: ")
        raise BuildFailed(re.sub(r"^bot\[1\]\.command: ", "the manifest's run command: ", said)) from None
    entrant = config.entrants[0]
    outside = shown_outside(entrant, bot)
    if outside:
        raise BuildFailed(f"the bot's jail would show {outside[0]}, outside its folder (a script's first line, #!, "
                          "names it?): an uploaded bot may use its own files and the system's only")
    problems = exposures(jails_of([(e.name, e.command, e.sandbox) for e in config.entrants],
                                  (str(games_folder(league)),)), RESULTS_ELSEWHERE_LEAGUE)
    if problems:
        raise BuildFailed(problems[0])
    try:
        report = await run_check(entrant, config.variant, CHECK_GAMES, secrets.randbits(63), out)
    except OptionRefused as e:
        raise BuildFailed(f"the league's options for it: {e}") from None
    log.say(report.render(paths=False))  # (no path on the server: the files are not kept)
    if not report.passed:
        raise BuildFailed("the built bot failed check: the log shows the report")
    program = await trio.to_thread.run_sync(fingerprint, entrant.command)
    return await trio.to_thread.run_sync(lambda: db.update(name, table, program, organiser=False))


__all__ = ["BUILD_LIMITS", "BUILD_SECONDS", "BuildFailed", "Log", "build_forever", "build_one", "jailed_build", "receive"]
