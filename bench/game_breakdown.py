"""Where one jailed game's time goes: the fair-play default (a jail and a fresh process per game) taken apart.

Two-handed games between two C first-legal bots (they answer at once, so all
that is measured is the referee and the jail), one at a time, each record
sealed and saved with its fsync as a tournament saves it. The referee's own
functions are wrapped with timers (wall clock, so time spent waiting on the
kernel or a bot counts where it is spent):

* a bot's start: the sandbox's set-up (a uid from the pool, a control group,
  the bwrap command line, the syscall filter), the fork and exec of bwrap,
  then the protocol's handshake up to 'ready' (bwrap making the jail,
  setpriv, the bot's exec and its first lines);
* every decision (a request and its reply), the first apart;
* a bot's end (in the background, beside the next game): 'quit', the process's exit, the clean-up of its control
  group and uid, the look for leftovers;
* the record: sealed and appended with its fsync;
* the rest of play_game: the rules engine, the protocol's text, the clocks.

Then the same games under cProfile, whose top functions by their own time
say what dominates the referee's CPU.

    python bench/game_breakdown.py [--games 40] [--isolation jail|none] [--profile 15]
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import pstats
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import trio
from _common import summary
from tabulate import tabulate

from referee.bots import cgroups, jail, sandbox, transport
from referee.bots.samples import SAMPLES
from referee.bots.sandbox import Isolation, Sandbox
from referee.match import Entrant, Player, client, play_game
from referee.records.audit import Schedule
from referee.records.store import ResultStore
from referee.rules import get_variant

SPENT: dict[str, list[float]] = defaultdict(list)  # label -> seconds of each call


def timed(label: str, function):
    """``function`` (sync or async) with each call's wall time added to SPENT[label]."""
    if _is_async(function):
        @functools.wraps(function)
        async def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                SPENT[label].append(time.perf_counter() - start)
    else:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                SPENT[label].append(time.perf_counter() - start)
    return wrapper


def _is_async(function) -> bool:
    import inspect

    return inspect.iscoroutinefunction(function)


def instrument() -> None:
    """Wrap the steps of a game's life where the referee looks them up."""
    jail.Uid.take = classmethod(timed("start: a uid from the pool", jail.Uid.take.__func__))
    cgroups.BotCgroup.create = classmethod(timed("start: control group made", cgroups.BotCgroup.create.__func__))
    jail.command = timed("start: bwrap command line", jail.command)
    jail.seccomp_program = timed("start: syscall filter compiled (cached)", jail.seccomp_program)
    transport.launch = timed("start: sandbox set-up (all)", transport.launch)
    sandbox.spawn.spawn = timed("start: fork and exec of bwrap", sandbox.spawn.spawn)
    sandbox._JailEnd.admit = timed("start: the jail fenced (groups, rlimits, filter)", sandbox._JailEnd.admit)
    transport.BotProcess.start = classmethod(timed("start: process started (all)",
                                                   transport.BotProcess.start.__func__))
    client.BotClient.start = classmethod(timed("start: to 'ready' (all)", client.BotClient.start.__func__))
    Player.ensure_started = timed("start: the game waits for its seats' bots", Player.ensure_started)
    client.BotClient.request = timed("decision", client.BotClient.request)
    client.BotClient.quit = timed("end: quit to clean-up (all)", client.BotClient.quit)
    sandbox._JailEnd.close = timed("end: control group and uid given back", sandbox._JailEnd.close)
    transport.kill_leftovers = timed("end: look for leftovers", transport.kill_leftovers)
    ResultStore.append = timed("record: sealed and saved (fsync)", ResultStore.append)


async def play(isolation: Isolation, games: int, folder: Path) -> list[float]:
    """Seconds of each of ``games`` games, each with fresh bot processes, its record saved."""
    variant = get_variant("two-handed")
    command = SAMPLES["first-legal"].command()
    store = ResultStore(folder / "out")
    store.start({}, Schedule.of_games("match", variant, [(f"g{g}", ["a", "b"]) for g in range(games)]))
    lengths = []
    async with trio.open_nursery() as nursery:
        players = [Player.logged(Entrant(name, command, sandbox=Sandbox(isolation=isolation)), folder / "logs")
                   for name in ("a", "b")]
        for g in range(games):
            start = time.perf_counter()
            record = await play_game(nursery, players, variant, g, f"g{g}")
            store.append(record)
            lengths.append(time.perf_counter() - start)
            if record.termination.value != "completed":
                raise SystemExit(f"game {g} did not complete: {record.detail}")
        for p in players:
            await p.close()
        nursery.cancel_scope.cancel()
    return lengths


def breakdown(games: int, lengths: list[float]) -> list[list]:
    per_game = statistics.mean(lengths) * 1000
    rows = []
    for label in sorted(SPENT, key=lambda k: (k.split(":")[0], "(all)" not in k, k)):
        calls = SPENT[label]
        total = sum(calls) * 1000 / games
        rows.append([label, len(calls) / games, f"{statistics.median(calls) * 1000:.3f}", f"{total:.2f}",
                     f"{total / per_game:.0%}"])
    return rows


def profile(isolation: Isolation, games: int, folder: Path, top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    trio.run(play, isolation, games, folder)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--isolation", choices=("jail", "none"), default="jail")
    parser.add_argument("--profile", type=int, default=15, help="functions of the profile to print (0: none)")
    args = parser.parse_args()
    isolation = Isolation(args.isolation)
    Sandbox(isolation=isolation).check()
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(play, isolation, 2, Path(tmp) / "warm")  # (the C bot compiled, the caches warm)
        SPENT.clear()
        instrument()
        lengths = trio.run(play, isolation, args.games, Path(tmp) / "timed")
        rows = breakdown(args.games, lengths)
        print(f"{args.games} two-handed games of first-legal against itself, isolation {args.isolation}, a fresh "
              f"process per game: {statistics.mean(lengths) * 1000:.1f} ms a game (median "
              f"{statistics.median(lengths) * 1000:.1f})")
        print(tabulate(rows, headers=["step", "calls a game", "ms a call (median)", "ms a game", "of a game"],
                       tablefmt="github"))
        # The seats' bots start side by side (a game waits for less than the sum of their starts), and a bot's end
        # runs in the background, beside the next game: neither is counted twice.
        accounted = sum(sum(SPENT[k]) for k in ("start: the game waits for its seats' bots", "decision",
                                                 "record: sealed and saved (fsync)")) * 1000 / args.games
        game = statistics.mean(lengths) * 1000
        print(f"the rest (rules engine, protocol text, clocks, trio): {game - accounted:.1f} ms a game "
              f"({(game - accounted) / game:.0%})")
        starts = sum(SPENT["start: the game waits for its seats' bots"]) * 1000 / args.games
        decisions = list(SPENT["decision"])  # (before the profiled games add theirs)
        if args.profile:
            print("\nthe referee's CPU, by function (cProfile, own time):")
            print(profile(isolation, args.games, Path(tmp) / "profiled", args.profile))
    summary(f"a {args.isolation} game of instant bots: {game:.1f} ms; starting its bots {starts:.1f} ms "
            f"({starts / game:.0%}); {len(decisions) / args.games:.0f} decisions at "
            f"{statistics.median(decisions) * 1e6:.0f} us (median)")


if __name__ == "__main__":
    main()
