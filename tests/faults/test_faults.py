"""Every fault of an untrusted bot, one small script each (tests/bots/faulty.py).

For each: the right termination in the record, the offending seat (and only
it) loses, no process is left behind (no zombie, no orphan, not even a
grandchild that left the process group), and the referee's memory stays
bounded. The tournament test at the end checks that the other bots' games
are unaffected and the tournament carries on.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import trio
from helpers import ROOMY, play, play_tournament

from referee.bots import cgroups, kept
from referee.bots import sandbox as sandbox_module
from referee.bots.samples import SAMPLES
from referee.bots.sandbox import Isolation, Limits, Sandbox
from referee.bots.transport import BotCommand
from referee.match import Entrant, Restart
from referee.match.clock import TimeControl
from referee.records.record import Termination, read_records
from referee.records.replay import replay_record
from referee.rules import get_variant

FAULTY = Path(__file__).resolve().parent.parent / "bots" / "faulty.py"
FAST = TimeControl(bank_ms=20_000, increment_ms=0, move_ms=800, grace_ms=100)  # for the bots of TIMES_OUT
TIMES_OUT = {"sleep", "slow", "closeout", "nohandshake", "ignoreterm", "spin"}
T, E, P, I, C = (Termination.TIMEOUT, Termination.COMPLETED, Termination.PROTOCOL_ERROR, Termination.ILLEGAL_ACTION,
                 Termination.CRASH)


def faulty(mode, n=1, tc=None, sandbox=Sandbox(), restart=Restart.ON_FAULT, name=None, persist=False):
    command = BotCommand((sys.executable, str(FAULTY), mode, str(n)))
    tc = tc or (FAST if mode in TIMES_OUT else ROOMY)
    return Entrant(name or f"faulty-{mode}", command, tc, sandbox, restart, persist)


def sample(name, tc=ROOMY, persist=False):
    return Entrant(name, SAMPLES[name].command(), tc, persist=persist)


def children() -> dict[tuple[int, int], str]:
    """Children of this process, zombies included, keyed by pid and start time (so a reused pid is a
    new process), with the start of their /proc stat line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(b")", 1)[1].split()  # fields after the command name, from the state on
        if int(fields[1]) == os.getpid():
            found[int(entry.name), int(fields[19])] = stat.decode(errors="replace")[:80]
    return found


_children_before: set[tuple[int, int]] = set()


@pytest.fixture(autouse=True)
def _note_children_before():
    """Children this pytest process had before the test began, such as the resource tracker that
    multiprocessing starts for the Dask cluster tests when they ran earlier in the same pytest worker."""
    _children_before.clear()
    _children_before.update(children())


def leftovers() -> list[str]:
    """Children of this process that the test left behind, zombies included. The referee is a child
    subreaper, so every process a bot started that outlived it (a grandchild that left the group too)
    would be reparented here. Idle kept jails (docs/jail.md) are closed first: a jail waiting for its bot's next
    game holds no process of a game (each game's are killed with its PID namespace), only bwrap and the keeper,
    which must then go too."""
    kept.close_idle()
    return [stat for key, stat in children().items() if key not in _children_before]


def reset_peak_memory() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def peak_memory_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")




def closeout_expected(sandbox: Sandbox) -> tuple[Termination, str]:
    """A bot that closes its stdout and runs on. In a fresh jail bubblewrap's own processes hold its stdout too,
    so the close reads as silence and it loses on its clock; in a kept jail (docs/jail.md) no other process
    holds it, and the referee sees the end of its output at once, as unjailed: a crash."""
    if sandbox_module.is_kept(sandbox):
        return C, "closed its output"
    return T, "no reply"


CASES = [
    # mode, request at which it misbehaves, variant, termination, words the detail must contain
    ("sleep", 1, "two-handed", T, "no reply"),  # sleeps forever on the first request
    ("sleep", 30, "two-handed", T, "no reply"),  # ... in the middle of a game
    ("slow", 12, "two-handed", T, "no reply"),  # past its clock mid-game
    ("exit", 10, "two-handed", C, "exited with status 3"),
    ("segfault", 10, "two-handed", C, "SIGSEGV"),
    # Closing its stdout while running on: see closeout_expected (which fault depends on the jail).
    ("closeout", 10, "two-handed", T, "no reply"),
    ("nohandshake", 1, "two-handed", T, "ready"),
    ("garbage", 5, "two-handed", P, "%%%"),
    ("badutf8", 5, "two-handed", P, "UTF-8"),
    ("endless", 5, "two-handed", P, "without a newline"),
    ("flood", 5, "two-handed", P, "'info' lines"),  # 64 KiB of info lines for one request, before the 1 MiB cap
    ("infoflood", 3, "two-handed", P, "'info' lines"),  # just under the output cap, but thousands of lines
    ("twice", 5, "two-handed", P, "nobody asked"),
    ("unasked", 5, "two-handed", P, "pong 99"),  # refused as unasked, or as no action if a request crossed it
    ("nonsense", 5, "two-handed", I, "xyzzy"),
    ("illegal", 5, "two-handed", I, ""),
    ("notheld", 5, "two-handed", I, ""),
    ("wrongphase", 5, "two-handed", I, ""),  # bid:250 for a card, or a card for a meld: the opponent is random
    ("wrongphase", 1, "three-handed", I, ""),
    ("illegalbid", 1, "three-handed", I, "bid:5"),
    ("ignoreterm", 5, "two-handed", T, "no reply"),
    ("fork", 10, "two-handed", C, "exited with status 4"),
    ("daemon", 10, "two-handed", C, "exited with status 4"),
    ("spin", 5, "two-handed", T, "no reply"),
]


@pytest.mark.parametrize("mode, n, variant_name, termination, words", CASES)
def test_fault_ends_the_game_against_the_culprit_only(mode, n, variant_name, termination, words, tmp_path):
    variant = get_variant(variant_name)
    culprit = n % variant.players  # vary the faulty bot's seat over the cases
    entrants = [sample("random") for _ in range(variant.players)]
    entrants = [e if seat != culprit else faulty(mode, n) for seat, e in enumerate(entrants)]
    entrants = [e if seat == culprit else Entrant(f"random-{seat}", e.command, e.time_control)
                for seat, e in enumerate(entrants)]
    if mode == "closeout":
        termination, words = closeout_expected(Sandbox())
    reset_peak_memory()
    before = peak_memory_mb()
    (record,), _ = trio.run(play, entrants, variant, 7, tmp_path)
    assert record.termination is termination, record.detail
    assert record.culprit == culprit
    assert words in record.detail
    assert record.result[culprit] == 0 and all(r == 1 for s, r in enumerate(record.result) if s != culprit)
    assert replay_record(record).ok, replay_record(record).problems  # the record up to the fault is sound
    assert leftovers() == []
    assert peak_memory_mb() - before < 64, "the referee's memory must stay bounded whatever the bot writes"


def test_a_bot_that_allocates_without_bound_meets_its_memory_limit(tmp_path):
    fenced = Sandbox(Limits(memory_mb=300))
    # a roomy clock: filling 300 MiB takes a while on a busy machine, and the limit, not the clock, must end it
    patient = TimeControl(bank_ms=60_000, increment_ms=0, move_ms=30_000, grace_ms=100)
    (record,), _ = trio.run(play, [faulty("memory", 3, patient, sandbox=fenced), sample("random")],
                            get_variant("two-handed"), 7, tmp_path)
    assert record.termination is Termination.CRASH and record.culprit == 0
    assert leftovers() == []
    if os.geteuid() == 0 and cgroups.usable_hierarchy()[0] is not None:
        # its control group holds the memory of all its processes; the address space is not capped (a JVM
        # reserves more than it uses), so the kernel kills the bot, and the record says why
        assert "out of memory" in record.detail
    else:
        assert "MemoryError" in (tmp_path / "logs" / "faulty-memory.stderr.log").read_text()


def test_an_unjailed_bot_meets_its_memory_limit_as_an_address_space_cap(tmp_path):
    fenced = Sandbox(Limits(memory_mb=300), Isolation.NONE)
    patient = TimeControl(bank_ms=60_000, increment_ms=0, move_ms=30_000, grace_ms=100)
    (record,), _ = trio.run(play, [faulty("memory", 3, patient, sandbox=fenced), sample("random")],
                            get_variant("two-handed"), 7, tmp_path)
    assert record.termination is Termination.CRASH and record.culprit == 0
    assert leftovers() == []
    assert "MemoryError" in (tmp_path / "logs" / "faulty-memory.stderr.log").read_text()


def test_a_bot_spinning_on_every_core_meets_its_cpu_limit(tmp_path):
    # A clock far longer than any load can stretch 1 s of CPU (at load 33 on 2 cores it took over 10 s of wall
    # time, and the move's clock ran out first): only the CPU limit can end this game.
    patient = TimeControl(bank_ms=900_000, increment_ms=0, move_ms=900_000, grace_ms=100)
    fenced = Sandbox(Limits(cpu_seconds=1))
    (record,), _ = trio.run(play, [sample("random"), faulty("spin", 3, patient, fenced)], get_variant("two-handed"),
                            7, tmp_path)
    assert record.termination is Termination.CRASH and record.culprit == 1
    assert "SIGXCPU" in record.detail or "SIGKILL" in record.detail
    assert leftovers() == []


def test_stderr_flood_is_capped_and_the_game_goes_on(tmp_path):
    reset_peak_memory()
    before = peak_memory_mb()
    (record,), _ = trio.run(play, [faulty("stderrflood"), sample("random")], get_variant("two-handed"), 7, tmp_path)
    assert record.termination is Termination.COMPLETED, record.detail
    log = tmp_path / "logs" / "faulty-stderrflood.stderr.log"
    assert 1 << 20 <= log.stat().st_size < (1 << 20) + 4096
    assert log.read_text().rstrip().endswith("[pinochle-arena: stderr capped here]")
    assert peak_memory_mb() - before < 64
    assert leftovers() == []


def test_wedged_bot_is_found_by_the_ping_between_games_and_replaced(tmp_path):
    # (the stall check is for processes kept from game to game: persist)
    records, players = trio.run(play, [faulty("wedge", persist=True), sample("random")], get_variant("two-handed"), 7,
                                tmp_path, 2)
    assert [r.termination for r in records] == [E, E]
    assert players[0].stalls == 1 and players[0].starts == 2
    assert "stall check before game 2 failed" in (tmp_path / "logs" / "faulty-wedge.stderr.log").read_text()
    assert leftovers() == []


def test_restart_never_forfeits_the_games_after_a_fault(tmp_path):
    bot = faulty("exit", 10, restart=Restart.NEVER)
    records, players = trio.run(play, [bot, sample("random")], get_variant("two-handed"), 7, tmp_path, 3)
    assert [r.termination for r in records] == [C, C, C]
    assert "restart = never" in records[1].detail and players[0].starts == 1


def test_restart_always_starts_a_fresh_process_every_game_even_with_persist(tmp_path):
    bot = faulty("none", restart=Restart.ALWAYS, persist=True)
    records, players = trio.run(play, [bot, sample("random", persist=True)], get_variant("two-handed"), 7, tmp_path, 3)
    assert [r.termination for r in records] == [E, E, E]
    assert players[0].starts == 3 and players[1].starts == 1


def test_without_persist_every_game_gets_a_fresh_process(tmp_path):
    """The fair-play default: nothing a bot learnt in one seating of a deal survives into the next."""
    records, players = trio.run(play, [faulty("none"), sample("random")], get_variant("two-handed"), 7, tmp_path, 3)
    assert [r.termination for r in records] == [E, E, E]
    assert players[0].starts == 3 and players[1].starts == 3


def test_restart_on_fault_brings_a_crashed_bot_back_for_its_next_game(tmp_path):
    records, players = trio.run(play, [faulty("exit", 10), sample("random")], get_variant("two-handed"), 7, tmp_path, 2)
    assert [r.termination for r in records] == [C, C]  # the fresh process crashes again at request 10
    assert players[0].starts == 2


HOME_PROBE = """
import os, sys
name = sys.argv[3]
open(os.path.join(os.environ["HOME"], "mark-" + name), "w").write(name)
print("where", os.getcwd(), os.environ["HOME"], sorted(os.listdir(os.environ["HOME"])), file=sys.stderr)
print("env", " ".join(sorted(os.environ)), file=sys.stderr, flush=True)
"""


@pytest.mark.parametrize("isolation", ["jail", "none"])
def test_each_bot_works_in_a_fresh_folder_of_its_own_with_a_clean_environment(isolation, tmp_path):
    from referee.bots.sandbox import Isolation

    probe = tmp_path / "bot" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(HOME_PROBE + f"exec(open({str(FAULTY)!r}).read())\n")
    os.environ["PINOCHLE_SECRET_OF_THE_REFEREE"] = "1"
    sandbox = Sandbox(isolation=Isolation(isolation), read_only=(str(FAULTY.parent),))  # the probe runs faulty.py
    try:
        bots = [Entrant(name, BotCommand((sys.executable, str(probe), "none", "1", name)), ROOMY, sandbox)
                for name in ("a", "b")]
        records, _ = trio.run(play, bots, get_variant("two-handed"), 7, tmp_path / "out", 2)
    finally:
        del os.environ["PINOCHLE_SECRET_OF_THE_REFEREE"]
    assert [r.termination for r in records] == [E, E]
    for name in ("a", "b"):
        log = (tmp_path / "out" / "logs" / f"{name}.stderr.log").read_text()
        homes = [line.split(" ", 3) for line in log.splitlines() if line.startswith("where ")]
        assert len(homes) == 2  # one process per game
        for _, cwd, home, listing in homes:
            assert listing == f"['mark-{name}']"  # empty when it started: nothing of the other bot, or game
            assert cwd == home
        envs = [line for line in log.splitlines() if line.startswith("env ")]
        assert all("PINOCHLE_SECRET_OF_THE_REFEREE" not in line.split() for line in envs)
    assert not (tmp_path / "out" / "work").exists()  # unjailed folders are removed with their process
    assert leftovers() == []


def test_tournament_with_misbehaving_entrants_finishes_with_every_game(tmp_path):
    """Two good bots and three bad ones, concurrently: every game is recorded, games between the good
    bots are untouched, every fault is charged to a bad bot, and nothing is left running."""
    bad = {"crasher": "exit 8", "sleeper": "sleep 20", "flooder": "flood 6"}
    bad_bots = [{"name": name, "command": f"{sys.executable} {FAULTY} {how}"} for name, how in bad.items()]
    bad_bots[1]["time"] = {"bank": 20000, "move": 800}  # the sleeper's own clock is short: it runs out
    data = {
        "tournament": {"games_per_pairing": 2, "concurrency": 2, "seed": 3, "options": {"target": 300}},
        "time": {"bank": 600000, "increment": 0, "move": 30000},  # roomy, so only the bad bots lose
        "bot": [{"name": "random", "sample": "random"}, {"name": "greedy", "sample": "greedy"}, *bad_bots],
    }
    games, records = play_tournament(data, tmp_path)
    assert len(records) == len(games) == 20
    for r in records:
        names = [s.entrant for s in r.seats]
        if not set(names) & set(bad):
            assert r.termination is Termination.COMPLETED, r.detail
        elif r.termination is not Termination.COMPLETED:
            assert names[r.culprit] in bad
    assert leftovers() == []


def test_a_bot_flooding_info_lines_costs_another_game_no_time(tmp_path):
    """In one referee process, beside games of a bot that writes 10,000 info lines before every reply, the
    honest bots of the other games never lose on time: the flood is cut at the first request."""
    data = {
        "tournament": {"games_per_pairing": 2, "concurrency": 2, "processes": 1, "seed": 5,
                       "options": {"target": 300}},
        "bot": [{"name": "random", "sample": "random"}, {"name": "greedy", "sample": "greedy"},
                {"name": "tactician", "sample": "tactician"},
                {"name": "flooder", "command": f"{sys.executable} {FAULTY} infoflood 1"}],
    }
    games, records = play_tournament(data, tmp_path)
    assert len(records) == len(games) == 12
    for r in records:
        names = [s.entrant for s in r.seats]
        if "flooder" in names:
            assert r.termination is Termination.PROTOCOL_ERROR and names[r.culprit] == "flooder"
            assert "'info' lines" in r.detail
        else:
            assert r.termination is Termination.COMPLETED, r.detail
    assert leftovers() == []


PROBE = """
import socket, sys
port = int(sys.argv[3])
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
    verdict = "reached"
except OSError as e:
    verdict = "refused: " + type(e).__name__
print("network", verdict, file=sys.stderr, flush=True)
"""


@pytest.mark.parametrize("isolation", ["none", "jail"])
def test_the_jail_takes_the_network_away(isolation, tmp_path):
    """A bot that connects to a listener of the referee's on loopback: it can, unless isolated."""
    import socket

    from referee.bots.sandbox import Isolation, SandboxError

    sandbox = Sandbox(isolation=Isolation(isolation), read_only=(str(FAULTY.parent),))  # the probe runs faulty.py
    try:
        sandbox.check()
    except SandboxError as e:
        pytest.skip(str(e))
    probe = tmp_path / "bot" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(PROBE + f"exec(open({str(FAULTY)!r}).read())\n")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        # argv: faulty.py's mode and request number, then the port for the probe
        bot = Entrant("probe", BotCommand((sys.executable, str(probe), "none", "1", str(port))), ROOMY, sandbox)
        (record,), _ = trio.run(play, [bot, sample("random")], get_variant("two-handed"), 7, tmp_path / "out")
    finally:
        listener.close()
    assert record.termination is Termination.COMPLETED, record.detail
    log = (tmp_path / "out" / "logs" / "probe.stderr.log").read_text()
    assert ("network reached" if isolation == "none" else "network refused") in log
    assert leftovers() == []


def test_a_jail_that_is_not_available_is_a_clear_error(monkeypatch, tmp_path):
    from referee.bots import jail
    from tournaments.config import ConfigError, parse_config

    monkeypatch.setattr(jail, "problem", lambda: "bubblewrap is not installed (apt-get install bubblewrap)")
    data = {"bot": [{"name": "a", "sample": "random"}, {"name": "b", "sample": "random"}]}
    with pytest.raises(ConfigError, match=r"tournament\.isolation: no jail for the bots on this machine: bubblewrap "
                                          r"is not installed .*isolation none.*NOT safe against hostile bots"):
        parse_config(data, tmp_path / "t.toml")
    data["tournament"] = {"isolation": "none"}
    assert parse_config(data, tmp_path / "t.toml").entrants[0].sandbox.isolation.value == "none"


@pytest.mark.parametrize("processes", [1, 2])
def test_restart_never_retires_the_entrant_across_slots_and_processes(processes, tmp_path):
    """With restart = never, a fault in one concurrent slot retires the entrant in every slot and process:
    its games that start after the fault is known are forfeits, though other slots never saw it fail."""
    from tournaments.config import parse_config
    from tournaments.runner import run_games
    from tournaments.schedule import schedule
    from tournaments.store import ResultStore, tournament_schedule

    def config_with(doomed: str):
        data = {
            "tournament": {"games_per_pairing": 16, "concurrency": 4, "processes": processes, "seed": 5,
                           "options": {"target": 300}},
            "time": {"bank": 600000, "increment": 0, "move": 30000},  # roomy: the only fault is the crash
            "bot": [{"name": "random", "sample": "random"}, {"name": "greedy", "sample": "greedy"},
                    {"name": "crasher", "command": f"{sys.executable} {FAULTY} crashin {doomed}",
                     "restart": "never"}],
        }
        return parse_config(data, tmp_path / "t.toml", output=tmp_path / "out")

    from referee.match import game_wire_id

    games = schedule(config_with("-"))
    first = next(g for g in games if "crasher" in g.seating)  # the crasher's first game
    doomed = first.game_id
    config = config_with(game_wire_id(first.seed, first.game_id))  # the bot knows a game by its wire id
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config))
    trio.run(run_games, config, schedule(config), store)
    records = [r for r in read_records(store.games_path, store.key) if "crasher" in [s.entrant for s in r.seats]]
    assert len(records) == 32
    crash = next(r for r in records if r.game_id == doomed)
    assert crash.termination is C and "exited with status 3" in crash.detail
    over = crash.started + crash.seconds
    played_after = [r for r in records if r.started > over and "restart = never" not in r.detail]
    forfeits = [r for r in records if "restart = never" in r.detail]
    assert forfeits and all(r.termination is C and r.seats[r.culprit].entrant == "crasher" for r in forfeits)
    # one process shares the retirement at once; another worker may already hold its next two games
    assert len(played_after) <= (0 if processes == 1 else 2), [r.game_id for r in played_after]


def test_an_info_flood_with_no_output_cap_meets_the_info_cap(tmp_path):
    """'output = 0' lifts the cap on a bot's output; a bot that floods info lines instead of replying still
    meets the cap on info lines for one request (PROTOCOL.md, section 5), and the referee's memory stays
    bounded meanwhile (it keeps no more than a line)."""
    uncapped = Sandbox(Limits(output_kb=None))
    reset_peak_memory()
    before = peak_memory_mb()
    (record,), _ = trio.run(play, [faulty("flood", 5, sandbox=uncapped), sample("random")],
                            get_variant("two-handed"), 7, tmp_path)
    assert record.termination is Termination.PROTOCOL_ERROR and record.culprit == 0
    assert "'info' lines" in record.detail
    assert record.seconds < 10
    assert peak_memory_mb() - before < 64
    assert leftovers() == []
