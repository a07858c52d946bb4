"""Benchmark 6: what the jail costs, per bot start and per decision.

Three figures, each measured with ``isolation = "none"`` and with the jail
(bubblewrap; as root also a uid and a control group per bot), in
alternating rounds so that both see the same machine:

* a bot start: spawn, handshake (``pinochle 2`` / ``ready``) and quit of the
  C first-legal bot, in milliseconds;
* decisions per second of two-handed games between two first-legal bots
  whose processes are kept from game to game (``persist``), so only the
  per-decision cost of the jail shows (the target: at least 90% of the
  rate without it). This machine's speed moves by up to 2x from minute to
  minute, so each round plays both modes back to back and the figure is
  the median over the rounds of the jailed rate over the unjailed one;
* games per second with the fair-play default (a fresh process for every
  game) against kept processes, both jailed: what secrecy between the
  seatings of a deal costs with instant bots (real bots think far longer);
  and the same fresh process a game in a kept jail (the default, as root:
  docs/jail.md; "jail" above is ``--no-kept-jail``), whose start is also
  timed.

    python bench/jail_cost.py [--starts 20] [--games 15] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import trio
from _common import summary
from tabulate import tabulate

from referee.bots.samples import SAMPLES
from referee.bots import kept as kept_jails
from referee.bots.sandbox import Isolation, Sandbox, is_kept
from referee.match import Entrant, Player, play_game
from referee.match.client import BotClient
from referee.rules import get_variant

MODES = {"none": Sandbox(isolation=Isolation.NONE), "jail": Sandbox(isolation=Isolation.JAIL, kept_jail=False)}
KEPT = Sandbox(isolation=Isolation.JAIL, kept_jail=True)


async def start_times(sandbox: Sandbox, starts: int, folder: Path) -> list[float]:
    """Milliseconds from spawning the bot to its 'ready', ``starts`` times (each process then quits)."""
    command = SAMPLES["first-legal"].command()
    times = []
    async with trio.open_nursery() as nursery:
        for _ in range(starts):
            t = time.perf_counter()
            client = await BotClient.start(nursery, command, sandbox=sandbox, workdir=folder / "work")
            times.append((time.perf_counter() - t) * 1000)
            await client.quit()
        nursery.cancel_scope.cancel()
    return times


async def play(sandbox: Sandbox, games: int, persist: bool, folder: Path) -> tuple[float, float]:
    """(decisions/s, games/s) of ``games`` two-handed games between two first-legal bots, one at a time."""
    variant = get_variant("two-handed")
    command = SAMPLES["first-legal"].command()
    decisions = 0
    async with trio.open_nursery() as nursery:
        players = [Player.logged(Entrant(name, command, sandbox=sandbox, persist=persist), folder / "logs")
                   for name in ("a", "b")]
        t = time.perf_counter()
        for g in range(games):
            record = await play_game(nursery, players, variant, g, f"g{g}")
            decisions += len(record.actions)
        elapsed = time.perf_counter() - t
        for p in players:
            await p.close()
        nursery.cancel_scope.cancel()
    return decisions / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    MODES["jail"].check()
    starts: dict[str, list[float]] = {m: [] for m in MODES}
    rates: dict[str, list[float]] = {m: [] for m in MODES}
    fresh: list[float] = []
    kept: list[float] = []
    in_kept: list[float] = []  # games/s, a fresh process a game in kept jails
    kept_starts: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for _ in range(args.rounds):
            for mode, sandbox in MODES.items():
                starts[mode] += trio.run(start_times, sandbox, args.starts, folder)
                decisions, games = trio.run(play, sandbox, args.games, True, folder)
                rates[mode].append(decisions)
                if mode == "jail":
                    kept.append(games)
            fresh.append(trio.run(play, MODES["jail"], args.games, False, folder)[1])
            if is_kept(KEPT):
                kept_starts += trio.run(start_times, KEPT, args.starts, folder)
                in_kept.append(trio.run(play, KEPT, args.games, False, folder)[1])
                kept_jails.close_idle()
    rows = []
    for mode in MODES:
        rows.append([mode, f"{statistics.median(starts[mode]):.1f}", f"{statistics.quantiles(starts[mode], n=10)[-1]:.1f}",
                     f"{statistics.median(rates[mode]):,.0f}", f"{min(rates[mode]):,.0f}-{max(rates[mode]):,.0f}"])
    print(tabulate(rows, headers=["isolation", "start ms (median)", "start ms (p90)", "decisions/s (median)",
                                  "decisions/s (range)"], tablefmt="github"))
    ratios = sorted(j / n for j, n in zip(rates["jail"], rates["none"], strict=True))
    share = statistics.median(ratios)
    per_start = statistics.median(starts["jail"]) - statistics.median(starts["none"])
    fresh_share = statistics.median(f / k for f, k in zip(fresh, kept, strict=True))
    print(f"\njailed/unjailed decisions/s, round by round: {', '.join(f'{r:.0%}' for r in ratios)}")
    print(f"jailed games/s: median {statistics.median(kept):.1f} with kept processes, "
          f"{statistics.median(fresh):.1f} with a fresh process per game")
    if in_kept:
        print(f"in kept jails (the default): a start {statistics.median(kept_starts):.1f} ms (median), "
              f"{statistics.median(in_kept):.1f} games/s with a fresh process per game")
    summary(f"jail: +{per_start:.1f} ms per bot start; decisions/s {share:.0%} of unjailed (median of "
            f"{len(ratios)} rounds; {'met' if share >= 0.9 else 'NOT met'}: target 90%); a fresh process per "
            f"game: {fresh_share:.0%} of the games/s of kept processes with instant bots")


if __name__ == "__main__":
    main()
