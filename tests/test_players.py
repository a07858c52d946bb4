"""Players start the next game's processes ahead and stop the last game's behind: what a process sees, what a
failed start is charged to, and that nothing is left running however a run ends."""

import os
import sys
from pathlib import Path

import pytest
import trio

from referee.bots.sandbox import Isolation, Sandbox
from referee.bots.transport import BotCommand
from referee.match import Entrant, MatchPlan, Player, close_players, play_game, run_match
from referee.match.clock import TimeControl
from referee.records.record import Termination
from referee.rules import get_variant

BOTS = Path(__file__).parent / "bots"
V = get_variant("two-handed")
UNJAILED = Sandbox(isolation=Isolation.NONE)  # (the diarist writes its diary in a folder of the test's)


def diarist(name: str, folder: Path, fail_from: int | None = None) -> Entrant:
    folder.mkdir(exist_ok=True)
    argv = (sys.executable, str(BOTS / "diarist.py"), str(folder), *([str(fail_from)] if fail_from else []))
    return Entrant(name, BotCommand(argv), TimeControl(bank_ms=20_000, move_ms=2_000), sandbox=UNJAILED)


def diaries(folder: Path) -> list[list[str]]:
    return [path.read_text().splitlines() for path in sorted(folder.glob("*.log"))]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_every_process_of_a_match_plays_exactly_one_game_and_saw_nothing_before_it(tmp_path):
    entrants = (diarist("a", tmp_path / "a"), diarist("b", tmp_path / "b"))
    plan = MatchPlan(entrants, V, 6, 11, tmp_path / "out")
    records = trio.run(run_match, plan)
    assert [r.termination for r in records] == [Termination.COMPLETED] * 6
    for name in ("a", "b"):
        kept = diaries(tmp_path / name)
        assert len(kept) == 6  # one process a game, and none started for a seventh
        for lines in kept:
            words = [line.split()[0] for line in lines]
            assert words[0] == "pinochle" and words.count("game") == 1  # the greeting first, then one game
            assert words[-2:] == ["matchend", "quit"]
            assert all(w not in ("deal", "go") for w in words[:words.index("game")])  # nothing before its game


def test_the_next_games_processes_are_started_during_this_game_and_the_next_game_starts_none(tmp_path):
    players = [Player(diarist(n, tmp_path / n)) for n in ("a", "b")]

    async def two_games():
        async with trio.open_nursery() as nursery:
            await play_game(nursery, players, V, 1, "g1", upcoming=players)
            assert [p.starts for p in players] == [2, 2]  # the second game's processes, ahead
            first = [p.client.process.pid for p in players]
            for p in players:
                await p.game_over(nursery)
            await play_game(nursery, players, V, 2, "g2")
            assert [p.starts for p in players] == [2, 2]  # the second game waited for none
            assert not {p.client.process.pid for p in players} & set(first)
            await close_players(players)
        return first

    first = trio.run(two_games)
    assert not any(alive(pid) for pid in first)


def test_a_start_that_fails_ahead_is_the_fault_of_the_game_it_was_for(tmp_path):
    # b's second process fails to start; it was started during the first game, which b plays to the end
    players = [Player(diarist("a", tmp_path / "a")), Player(diarist("b", tmp_path / "b", fail_from=2))]

    async def two_games():
        async with trio.open_nursery() as nursery:
            first = await play_game(nursery, players, V, 1, "g1", upcoming=players)
            for p in players:
                await p.game_over(nursery)
            second = await play_game(nursery, players, V, 2, "g2")
            await close_players(players)
        return first, second

    first, second = trio.run(two_games)
    assert first.termination is Termination.COMPLETED
    assert second.termination is Termination.CRASH and second.culprit == 1
    assert second.detail.startswith("failed to start")


def test_a_run_cancelled_while_processes_start_ahead_leaves_none_running(tmp_path):
    players = [Player(diarist(n, tmp_path / n)) for n in ("a", "b")]

    async def cancelled():
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                try:
                    await play_game(nursery, players, V, 1, "g1", upcoming=players)
                    for p in players:
                        await p.game_over(nursery)
                    scope.cancel()  # with the next game's processes on their way up
                    await trio.sleep_forever()
                finally:
                    await close_players(players)

    trio.run(cancelled)
    pids = [int(pid) for n in ("a", "b") for pid in (tmp_path / n / "pids").read_text().split()]
    assert len(pids) >= 2 and not any(alive(pid) for pid in pids)


def test_a_working_folder_is_made_even_when_the_last_processes_clean_up_removes_its_parent_meanwhile(tmp_path,
                                                                                                    monkeypatch):
    # Unjailed, each process works in a fresh folder under work/NAME, and the clean-up of a stopped process
    # removes work/NAME when it leaves it empty: now that a process is stopped in another thread while the
    # next one starts, that may fall between the next one making work/NAME and its folder in it.
    from referee.bots import sandbox

    workdir = tmp_path / "work" / "bot"
    made = []
    real = sandbox.tempfile.mkdtemp

    def raced(**kwargs):
        if not made:  # the first time, the other thread's clean-up comes first
            made.append(None)
            workdir.rmdir()
            workdir.parent.rmdir()
        return real(**kwargs)

    monkeypatch.setattr(sandbox.tempfile, "mkdtemp", raced)
    how = sandbox.launch(UNJAILED, ("true",), None, {}, workdir)
    assert Path(how.cwd).parent == workdir and Path(how.cwd).is_dir() and made
    how.cleanup()
    assert not workdir.exists()


def test_without_prlimit_a_bot_cannot_start_and_says_what_to_install(monkeypatch):
    from referee.bots import sandbox

    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    monkeypatch.setattr(sandbox.os, "access", lambda path, mode: False)
    try:
        sandbox.launch(UNJAILED, ("true",), None, {})
    except sandbox.SandboxError as e:
        assert "prlimit" in str(e) and "util-linux" in str(e)
    else:
        raise AssertionError("started without prlimit")


def cpu_weight(pid: int) -> int:
    """The CPU weight of the control group that jailed bot process ``pid`` (bwrap, which stays outside) has put
    its jail in: the group of its child, the jail's first process."""
    from referee.bots import cgroups

    pid = next(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(int(p.name)) == pid)
    hierarchy, _ = cgroups.usable_hierarchy()
    index, file, _, _ = hierarchy.weight()
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if hierarchy.version == 2 or "cpu" in controllers.split(","):
            return int((hierarchy.folders[index] / Path(path).name / file).read_text())
    raise AssertionError(f"process {pid} is in no cpu group")


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_a_process_started_ahead_has_a_low_cpu_weight_until_its_game_begins(tmp_path):
    # A bot could spin before 'ready' in the process started for its next game, while its current game is
    # played: until that process's game begins, its group weighs a sixteenth of a playing bot's.
    from referee.bots import cgroups
    from referee.bots.samples import SAMPLES

    if cgroups.usable_hierarchy()[0] is None:
        pytest.skip(f"no control groups for the bots here: {cgroups.usable_hierarchy()[1]}")
    _, _, low, playing = cgroups.usable_hierarchy()[0].weight()
    player = Player(Entrant("first-legal", SAMPLES["first-legal"].command()))  # in the default jail

    async def ahead_then_play():
        async with trio.open_nursery() as nursery:
            player.prepare(nursery)
            await player._spare.done.wait()
            before = cpu_weight(player._spare.client.process.pid)
            client = await player.ensure_started(nursery)
            after = cpu_weight(client.process.pid)
            await close_players([player])
        return before, after

    assert trio.run(ahead_then_play) == (int(low), int(playing))


def test_a_working_folder_is_made_though_another_process_clean_up_removes_its_parent_meanwhile(tmp_path, monkeypatch):
    """An unjailed bot's working folder is made under work/NAME while the clean-up of its previous process, in
    another thread, may remove work/NAME once empty: Path.mkdir(exist_ok=True) then raises FileExistsError (it
    found the folder, then found it gone); a tournament lost a game to it ('failed to start: [Errno 17] File
    exists'). The folder is made again."""
    from pathlib import Path as RealPath

    from referee.bots import sandbox

    workdir = tmp_path / "work" / "tactician.w0"
    real_mkdir = RealPath.mkdir
    raced = []

    def mkdir_in_the_race(self, *args, **kwargs):
        if self == workdir and not raced:
            raced.append(True)
            raise FileExistsError(17, "File exists", str(self))  # as pathlib does when the folder went meanwhile
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(RealPath, "mkdir", mkdir_in_the_race)
    made = RealPath(sandbox._fresh_folder(workdir))
    assert raced and made.is_dir() and made.parent == workdir
