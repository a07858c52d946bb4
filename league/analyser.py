"""The background analyser: a process of its own that weighs the league's games, newest first, at the lowest priority
and within a share of one core (what it keeps and who sees it: :mod:`league.analysis`).

``league run`` and ``league final`` start it (:func:`start_if_on`) when the league's analysis is on and stop it
when the run ends; the weighing never runs in the runner's process, let alone its event loop. The process:

* **Priority.** The runner lowers it as soon as it is started, before it has imported anything (started by
  hand, it lowers itself): nice 19, and the scheduling class SCHED_IDLE, in which the kernel gives it a core only when
  nothing else wants one; and nice 19 for its session's autogroup, where the kernel has them (it runs in a
  session of its own, so that Ctrl-C is the runner's to hear, and an autogroup is weighed against the others'
  as a whole). The ladder's games come first.
* **A share of the CPU**, at most ``cpu_share`` of one core over time, enforced in one of two ways
  (:attr:`Analyser.bound` says which, and ``league run`` prints it):

  - *a control group*, where the runner may make them (as root, on cgroup v1 or v2: the jail's own finding,
    :func:`referee.bots.cgroups.usable_hierarchy`): a group of its own beside the bots' folder, in the
    referee's own group (:func:`cpu_group`), with a CPU quota of ``cpu_share`` times the period (v1
    ``cpu.cfs_quota_us``, v2 ``cpu.max``), the lowest weight (v1 ``cpu.shares`` 2, v2 ``cpu.weight`` 1) and
    ``cpu.idle`` 1 where the kernel has it. The kernel enforces the quota, even in the middle of one long
    search. A run killed with its analyser is cleaned up, the analyser killed, by the next one that starts one
    (:func:`sweep_groups`).
  - *a duty cycle*, elsewhere: the process weighs a game in slices of ``SLICE`` actions and, after each, sleeps
    until the CPU time it has used is within ``cpu_share`` of the wall time since it began, give or take
    ``BURST`` seconds of CPU (:class:`DutyCycle`). A slice is a few decisions: the bound holds to within one.

* **Nothing lost but the game in hand.** Each game's analysis is saved whole, in one transaction of
  ``DIR/analysis.db``; a SIGKILL loses the game being weighed, which is weighed again next time.
* **It dies with its runner**: between two slices it looks whether its parent is still the runner that started
  it, and stops if not.

Its output (a crash, the compiled core's build) goes to ``DIR/analysis.log``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import attrs

from analysis import AnalysisError, SeatAnalysis, analyse_record
from analysis.house import core
from analysis.values import Budget
from referee.bots.cgroups import CPU_PERIOD_US, BotCgroup, run_name, start_time, usable_hierarchy
from referee.records.record import GameRecord
from referee.records.seals import SealError, check_seal

from .analysis import AnalysisStore, SeatRow, analysis_settings, next_game
from .db import LeagueDB, database_url

LOG_FILE = "analysis.log"
SLICE = 8  # actions of a game weighed between two looks at the clock and the parent
BURST = 1.0  # seconds of CPU the duty cycle lets the process use ahead of its share
POLL = 2.0  # seconds between two looks for a new game, when none waits
LOWEST_WEIGHT = {1: ("cpu.shares", "2"), 2: ("cpu.weight", "1")}


# ---------------------------------------------------------------------- the runner's side
@attrs.define
class Analyser:
    """The analyser process a run started, and the control group that bounds it (None: its duty cycle does)."""

    process: subprocess.Popen
    group: Path | None
    bound: str  # how its CPU is bounded, in words

    @classmethod
    def start(cls, folder: Path, share: float, grouped: bool = True) -> Analyser:
        """Start the analyser of the league in ``folder``, bounded to ``share`` of one core (``grouped``: by a
        control group where the run may make one; else, and without, by its duty cycle)."""
        group, why = cpu_group(share) if grouped else (None, "not asked for")
        command = [sys.executable, "-m", "league.analyser", str(folder.absolute()), "--parent", str(os.getpid())]
        if group is not None:
            command += ["--cgroup", str(group / "cgroup.procs")]
        source = str(Path(__file__).resolve().parent.parent)  # (where league and analysis are imported from)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))}
        with open(folder / LOG_FILE, "ab") as log:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                       start_new_session=True)  # (Ctrl-C is the runner's to hear; it stops this)
        try:  # (at once, before it has imported anything: it does the same itself, for a start by hand)
            if group is not None:
                (group / "cgroup.procs").write_text(str(process.pid))
            lower_priority(process.pid)
        except OSError:
            process.kill()
            process.wait()
            if group is not None:
                BotCgroup((group,)).remove()
            raise
        bound = (f"a control group's CPU quota ({group})" if group is not None
                 else f"a duty cycle in its process (no control group: {why})")
        return cls(process, group, bound)

    def stop(self) -> None:
        """Stop it (the game it was weighing is weighed again next time) and remove its group. Blocking."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.wait()
        if self.group is not None:
            BotCgroup((self.group,)).remove()


def start_if_on(db: LeagueDB, folder: Path, say: Callable[[str], None]) -> Analyser | None:
    """The analyser of the league in ``folder`` if its analysis is on, started and said in a line (``league run``
    and ``league final`` start it alike); None when off, or when it cannot start (said: the games are played all
    the same)."""
    settings = analysis_settings(db)
    if not settings.enabled:
        return None
    try:
        analyser = Analyser.start(folder, settings.cpu_share)
    except OSError as e:
        say(f"the games' analysis could not start ({e.strerror or e}): playing without it")
        return None
    say(f"analysing the games in the background (process {analyser.process.pid}, nice 19, SCHED_IDLE), "
        f"at most {settings.cpu_share:g} of a core by {analyser.bound}")
    return analyser


GROUP_PREFIX = "pinochle-arena-analysis-"  # + the run's name (PID.START of its first process)


def cpu_group(share: float) -> tuple[Path | None, str]:
    """A control group of the analyser's own, its CPU bounded to ``share`` of one core and idle (or at the lowest
    weight) beside everything else the referee runs; or (None, why not).

    It is made beside the run's shared folder of bots' groups, in the referee's own group, not inside it: a group
    is idle only among its siblings, and the referee's own processes (this runner's, its workers') sit in its own
    group, next to the bots' folder, as do the other sessions of the machine in the root. Groups of analysers
    whose run is gone are killed and removed first."""
    hierarchy, why = usable_hierarchy()
    if hierarchy is None:
        return None, why
    home = hierarchy.folders[2 if hierarchy.version == 1 else 0].parent.parent  # (the referee's own group)
    sweep_groups(home)
    group = home / f"{GROUP_PREFIX}{run_name()}"
    quota = max(int(share * CPU_PERIOD_US), 1000)
    writes = [LOWEST_WEIGHT[hierarchy.version]]
    writes += ([("cpu.cfs_period_us", str(CPU_PERIOD_US)), ("cpu.cfs_quota_us", str(quota))]
               if hierarchy.version == 1 else [("cpu.max", f"{quota} {CPU_PERIOD_US}")])
    try:
        group.mkdir(exist_ok=True)
        for file, value in writes:
            (group / file).write_text(value)
        if (group / "cpu.idle").exists():
            (group / "cpu.idle").write_text("1")
    except OSError as e:
        BotCgroup((group,)).remove()
        return None, f"cannot set up its control group {group}: {e.strerror or e}"
    return group, ""


def sweep_groups(home: Path) -> None:
    """Kill and remove the analysers' groups in ``home`` whose run's first process is gone (a run killed with its
    analyser)."""
    for group in home.glob(f"{GROUP_PREFIX}*"):
        pid, _, start = group.name.removeprefix(GROUP_PREFIX).partition(".")
        if pid.isdigit() and start_time(int(pid)) == start:
            continue  # (its run goes on)
        BotCgroup((group,)).close()


# ---------------------------------------------------------------------- the analyser's side
@attrs.define
class DutyCycle:
    """Keeps a process's CPU time within ``share`` of the wall time, give or take ``burst`` seconds: a bucket that
    fills at ``share`` seconds of CPU a second, up to ``burst``, and that each slice of work empties; when it is
    overdrawn, :meth:`rest` sleeps until it is not."""

    share: float
    burst: float = BURST
    sleep: Callable[[float], None] = time.sleep
    credit: float = 0.0
    wall: float = attrs.Factory(time.monotonic)
    cpu: float = attrs.Factory(time.process_time)

    def rest(self) -> None:
        now, cpu = time.monotonic(), time.process_time()
        self.credit = min(self.burst, self.credit + self.share * (now - self.wall)) - (cpu - self.cpu)
        self.wall, self.cpu = now, cpu
        if self.credit < 0:
            self.sleep(-self.credit / self.share)
            self.credit, self.wall, self.cpu = 0.0, time.monotonic(), time.process_time()


@attrs.define
class Pace:
    """What the analyser does between two slices of work: stop if its runner is gone, and keep its duty cycle
    (None: a control group bounds it)."""

    parent: int | None
    duty: DutyCycle | None

    def step(self) -> None:
        if self.parent is not None and os.getppid() != self.parent:
            raise SystemExit(0)  # (its runner is gone: the game in hand is weighed again next time)
        if self.duty is not None:
            self.duty.rest()

    def wait(self, seconds: float) -> None:
        self.step()
        time.sleep(seconds)


def weigh_game(db: LeagueDB, store: AnalysisStore, number: int, budget: Budget, pace: Pace) -> None:
    """Weigh every seat of game ``number`` and save it (or, if it cannot be weighed, why)."""
    started = time.process_time()
    line = db.record(number)
    assert line is not None  # (a game is never removed)
    game_id = ""
    try:
        record = _read(line, db.key())
        game_id = record.game_id
        seats = db.seat_versions(number)
        weighed = []
        for first in range(1, len(record.actions) + 1, SLICE):
            weighed += analyse_record(record, {s for s, _ in seats}, budget, only=range(first, first + SLICE))
            pace.step()
    except (AnalysisError, SealError) as e:
        store.save(number, game_id, [], time.process_time() - started, note=" ".join(str(e).split()) or "failed")
        return
    versions = db.versions()
    rows = [SeatRow(number, seat, versions[v].entrant, versions[v].label,
                    SeatAnalysis(game_id, seat, versions[v].label, budget, tuple(w for w in weighed if w.seat == seat)))
            for seat, v in seats]
    store.save(number, game_id, rows, time.process_time() - started)


def _read(line: str, key: bytes) -> GameRecord:
    """A game's record, its seal checked; AnalysisError if it cannot be read (a damaged record is one game that
    cannot be weighed, not the end of the analysis)."""
    try:
        return GameRecord.from_json(check_seal(line, key))
    except SealError:
        raise
    except (ValueError, KeyError, TypeError) as e:
        raise AnalysisError(f"its record cannot be read ({e})") from None


def work(db: LeagueDB, store: AnalysisStore, pace: Pace, until_empty: bool = False) -> int:
    """Weigh the games waiting, newest first, while the league's analysis is on (``until_empty``: until none
    waits, on or off); returns how many were weighed."""
    weighed = 0
    while True:
        settings = analysis_settings(db)
        if not (settings.enabled or until_empty):
            return weighed
        number = next_game(db, store, settings.backlog)
        if number is None:
            if until_empty:
                return weighed
            pace.wait(POLL)
            continue
        weigh_game(db, store, number, settings.budget, pace)
        weighed += 1


def lower_priority(pid: int = 0) -> None:
    """Nice 19 and SCHED_IDLE for process ``pid`` (0: this one): a core only when nothing else wants it. (Both
    are a thread's, and the threads it starts later inherit them.) Its session's autogroup too, where the kernel
    groups tasks by session: a process in a session of its own is otherwise weighed as a group of nice 0 against
    every other session, whatever its own priority."""
    os.setpriority(os.PRIO_PROCESS, pid, 19)
    os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
    autogroup = Path(f"/proc/{pid or 'self'}/autogroup")
    if autogroup.exists():
        autogroup.write_text("19")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m league.analyser",
                                     description="the league's background analyser (league run starts it)")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--parent", type=int, default=None, help="stop when this process is no longer the parent")
    parser.add_argument("--cgroup", default=None, help="the cgroup.procs to join first (its CPU bound)")
    args = parser.parse_args(argv)
    if args.parent is None:  # (started by hand: a runner that starts it has put it in its group and lowered it)
        if args.cgroup is not None:
            Path(args.cgroup).write_text(str(os.getpid()))
        lower_priority()
    db = LeagueDB.open(database_url(args.folder))
    store = AnalysisStore.open(args.folder)
    settings = analysis_settings(db)
    try:
        core()  # (the compiled search, built on first use)
    except AnalysisError as e:
        store.set_note(f"stopped: {e}")
        print(f"league analysis stopped: {e}", file=sys.stderr)
        return 2
    store.set_note("")
    pace = Pace(args.parent, None if args.cgroup is not None else DutyCycle(settings.cpu_share))
    with contextlib.suppress(KeyboardInterrupt):
        work(db, store, pace)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Analyser", "DutyCycle", "Pace", "cpu_group", "lower_priority", "start_if_on", "weigh_game", "work"]
