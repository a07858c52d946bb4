"""Attack 18: nothing a game leaves in a kept jail reaches the next game there, and the keeper cannot be reached.

Each test starts the same attack bot (bots/kept_game.py) for two games, one after the other, through the
transport (in this process: cheap) with ``kept_jail`` set, and reads game 2's report: what game 1 left
(files, a process, IPC objects, warmed pages) must be gone, and every attack on the keeper refused. Each
fence is also shown to matter: with the keeper told to keep that state (``kept.WEAKEN``, for these tests
only), game 2 finds what game 1 left. The keeper's own fences (another PID namespace, another uid, a channel
the bot never holds) have no switch: the report shows them directly (the processes the bot sees, the errors
its signals and ptrace get, the descriptors it holds), and any other value fails the test.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import trio

from referee.bots import kept
from referee.bots import sandbox as sandbox_module
from referee.bots.jail import UID_BASE
from referee.bots.samples import SAMPLES
from referee.bots.sandbox import Limits, Sandbox
from referee.bots.transport import BotCommand, BotProcess
from referee.match import Entrant
from referee.match.lane import GameSpec, LaneSettings, open_lane
from referee.records.record import Termination
from referee.rules import get_variant

from .jailrun import PYTHON

pytestmark = pytest.mark.usefixtures("needs_own_files")


@pytest.fixture
def kept_jails(monkeypatch):
    """kept.WEAKEN as a test sets it, with no idle jail before or after (a jail is made with its WEAKEN)."""
    problem = kept.problem()
    if problem:
        pytest.skip(f"no kept jail here: {problem}")
    kept.close_idle()

    def weaken(*what: str) -> None:
        monkeypatch.setattr(kept, "WEAKEN", frozenset(what))

    yield weaken
    kept.close_idle()


def report(line: str) -> dict[str, str]:
    words = line.split()
    assert words[:2] == ["ATTACK", "kept"], line
    return dict(word.split("=", 1) for word in words[2:])


LIMITS = Limits(open_files=37)  # low: the keeper's set-up of a game holds few descriptors at once


async def one_game(nursery: trio.Nursery, command: BotCommand, killed: bool = False) -> dict[str, str]:
    """The report of one game's process, which then ends as a bot's process ends after its game (its input
    closed), or ``killed`` (SIGTERM, then SIGKILL, as the referee ends a bot that overran its time)."""
    bot = await BotProcess.start(nursery, command, sandbox=Sandbox(LIMITS, kept_jail=True))
    try:
        said = report((await bot.read_line(trio.current_time() + 60)).text)
        assert (await bot.read_line(trio.current_time() + 60)).text == "left"
    finally:
        code = await (bot.kill() if killed else bot.stop())
    assert code == (128 + signal.SIGTERM if killed else 0)  # (a game's init ends as bwrap does: 128 + signal)
    return said


def two_games(bots: Path, mark: str) -> tuple[dict[str, str], dict[str, str], int]:
    """Game 1's and game 2's reports, and how many kept jails the two games used."""
    command = BotCommand((PYTHON_IN_JAIL, str(bots / "kept_game.py"), f"mark={mark}"))
    jails = set()

    async def main():
        async with trio.open_nursery() as nursery:
            first = await one_game(nursery, command, killed=True)  # its jail is given back all the same
            jails.update(id(j) for idle in kept._IDLE.values() for j in idle)
            second = await one_game(nursery, command)
            jails.update(id(j) for idle in kept._IDLE.values() for j in idle)
            nursery.cancel_scope.cancel()
        return first, second

    first, second = trio.run(main)
    return first, second, len(jails)


PYTHON_IN_JAIL = "python3"  # the system's, which the jail's system image holds (not the test's venv)
FRESH = {"files": "-", "process": "-", "ipc": "-", "ptys": "-", "note": "-", "pages": "0"}


def test_a_game_finds_nothing_an_earlier_game_left_and_cannot_reach_the_keeper(kept_jails, bots, mark):
    """Game 1 leaves everything and is killed (SIGTERM to its init, as for a bot out of time); game 2, a fresh
    process in the same jail, finds none of it."""
    first, second, jails = two_games(bots, mark)
    assert jails == 1  # both games in one kept jail
    # A devpts of its own each game: the terminal game 1 left in flight (alive until the kernel collects it,
    # which only a released Unix socket somewhere sets off) is in game 1's instance, not in game 2's.
    assert first["devpts"] != second["devpts"]
    # A uid of its own each game: what game 1 left in flight is not counted against game 2's uid (37 open files:
    # 38 in flight, the kernel refuses past the limit), whether or not the kernel has collected it yet.
    assert first["uid"] != second["uid"] and first["inflight"] == second["inflight"] == "38"
    # A control group of its own each game: memory game 1 left charged to its group (held in flight) is not
    # counted against game 2's limit.
    assert first["cgroup"] != second["cgroup"]
    for said in (first, second):
        assert {key: said[key] for key in FRESH} == FRESH, said
        assert said["seen"] == "1"  # its PID namespace's init alone: the keeper is in another
        assert said["signals"] == "1:SIGTERM:Operation_not_permitted,1:SIGKILL:Operation_not_permitted"
        assert said["ptrace"] == "1:Operation_not_permitted"
        assert said["procfs"] == ",".join(f"1:{name}:Permission_denied" for name in
                                          ("exe", "fd", "ns", "root", "environ"))
        assert said["fds"] == "0,1,2" and said["sent"] == "-"  # no channel to the keeper
        assert said["caps"] == ",".join(["0000000000000000"] * 5) and said["nnp"] == "1" and said["seccomp"] == "2"
        assert int(said["uid"]) >= UID_BASE and said["groups"] == "-"  # a uid of its own, no groups
        assert said["nofile"] == "37"  # its limits


def test_each_fence_matters(kept_jails, bots, mark):
    """With the keeper's fences between games turned off, game 2 finds each thing game 1 left (so the test above
    can fail): files (no fresh tmpfs), IPC objects (no fresh IPC namespace), a process (no fresh PID namespace),
    warmed pages (the same image mounts each game), the jail's own devpts (where game 1's terminal is, while
    the kernel has not collected it: not asserted, it depends on Unix sockets released elsewhere on the
    machine) and the jail's control group (whose removal with the game would also kill the process left).
    Each probe sees through one fence only."""
    kept_jails("spaces", "ipc", "pid", "images", "devpts", "groups")
    first, second, _ = two_games(bots, mark)
    assert {key: first[key] for key in FRESH} == FRESH, first
    assert second["files"] == "/home/bot,/tmp,/dev/shm"
    assert second["ipc"] == "shm,sem,msg,mq"
    assert second["process"] != "-"
    assert second["pages"] == "8"
    assert second["devpts"] == first["devpts"]
    assert second["cgroup"] == first["cgroup"]


def test_games_of_the_game_loop_play_in_kept_jails(kept_jails, tmp_path):
    """Three games of two first-legal bots through a lane, each a fresh process (the next game's started ahead,
    the last game's stopped behind): all complete, and the lane closes the kept jails at its end. (How many it
    made depends on when the stops behind end; that a game's jail serves the next is test_a_game_finds...'s.)"""
    made = []
    original = sandbox_module._open_kept

    async def counted(start):
        made.append(await original(start))
        return made[-1]

    command = SAMPLES["first-legal"].command()
    entrants = {name: Entrant(name, command, sandbox=Sandbox(kept_jail=True)) for name in ("a", "b")}
    settings = LaneSettings(get_variant("two-handed"), tmp_path / "logs")
    specs = [GameSpec(f"g{n}", ("a", "b") if n % 2 else ("b", "a"), n, ("a", "b"), n) for n in range(3)]

    async def main():
        async with open_lane(entrants, settings) as lane:
            for spec, after in zip(specs, [*specs[1:], None], strict=True):
                record = await lane.play(spec, after)
                assert record.termination is Termination.COMPLETED, record.termination
        assert not kept._IDLE  # the lane closed them

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox_module, "_open_kept", counted)
        trio.run(main)
    assert made and all(jail.closed for jail in made)
