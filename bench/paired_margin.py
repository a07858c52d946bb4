"""Is one version of a bot stronger than another, judged against the same opponent? Two matches on the same deals.

Play the old version and the new one each against the same opponent, with the same ``--seed`` and ``--boards``
(or ``--games``), so that both matches deal the same cards; then give this the two output folders. For each deal
(a board, or a duplicate pair) it takes the bot's margin, its points a hand less the other seats' (the mean over its
seats and the deal's seatings), in each match, and the difference new less old, with a 95% interval from a bootstrap
over deals. What a deal's cards do is the same in both matches and cancels, so this interval is narrower than the
two margins' separate intervals allow (by a quarter to a half where boards already play each deal in every seating).
Play both with a fixed number of worlds, nodes or the like where the bot has one, so that the machine's load decides
nothing.

    pinochle-arena match ./old-bot option.worlds=100 greedy greedy greedy greedy --variant call-for-partner \\
        --boards 100 --seed 11 --out old
    pinochle-arena match ./new-bot option.worlds=100 greedy greedy greedy greedy --variant call-for-partner \\
        --boards 100 --seed 11 --out new
    python bench/paired_margin.py old new --bot mybot

``--bot`` names the bot's entrant in each folder: the name the match gave it, its ``id name`` (a repeat in the same
match becomes NAME-2 and so on, which counts as the same bot); give two names if the versions call themselves
differently, the old one's first. Margins are in points a hand (a game of several hands counts as its mean hand);
the two matches must be of one variant with the same options.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from _common import interval, points_a_hand, side_margin


def margins(folder: Path, bot: str) -> tuple[str, dict[int, float]]:
    """The match's variant and options, and per deal (its seed) the bot's points a hand less the other seats',
    the mean over the deal's games."""
    path = folder / "games.jsonl"
    if not path.is_file():
        raise SystemExit(f"paired_margin: no games.jsonl in {folder} (give a match's --out folder)")
    ours = re.compile(re.escape(bot) + r"(-\d+)?")
    per_deal: dict[int, list[float]] = defaultdict(list)
    kinds = set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            record = json.loads(line)
            kinds.add(json.dumps([record["variant"], record["options"]], sort_keys=True))
            margin = game_margin(record, ours)
        except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError):
            raise SystemExit(f"paired_margin: {path}, line {number}, is not a game record") from None
        if margin is not None:
            per_deal[record["seed"]].append(margin)
    if not per_deal:
        raise SystemExit(f"paired_margin: no game in {folder} has an entrant named {bot!r} beside another")
    if len(kinds) > 1:
        raise SystemExit(f"paired_margin: {folder} holds games of several variants or options; give one match's")
    return kinds.pop(), {deal: sum(m) / len(m) for deal, m in per_deal.items()}


def game_margin(record: dict, ours: re.Pattern) -> float | None:
    """The bot's points a hand in one game less the other seats' (None if it has no seat, or every seat)."""
    mine = [s for s, seat in enumerate(record["seats"]) if ours.fullmatch(seat["entrant"])]
    if not 0 < len(mine) < len(record["seats"]):
        return None
    return side_margin(points_a_hand(record), mine)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="the match folder of the version before")
    parser.add_argument("new", type=Path, help="the match folder of the version after, on the same deals")
    parser.add_argument("--bot", nargs="+", required=True, metavar="NAME",
                        help="the bot's entrant name in each folder (one name for both)")
    args = parser.parse_args()
    if len(args.bot) > 2:
        parser.error("--bot takes one name, or two (the old folder's, then the new one's)")
    old_name, new_name = args.bot[0], args.bot[-1]
    (old_kind, old), (new_kind, new) = margins(args.old, old_name), margins(args.new, new_name)
    if old_kind != new_kind:
        raise SystemExit(f"paired_margin: the matches are of different variants or options ({old_kind}; {new_kind})")
    deals = sorted(set(old) & set(new))
    if not deals:
        raise SystemExit("paired_margin: the two matches share no deal: play both with the same --seed and count")
    units = [[new[d] - old[d]] for d in deals]
    diff, low, high = interval(units, random.Random(1))
    mean_old, mean_new = (sum(m[d] for d in deals) / len(deals) for m in (old, new))
    print(f"{len(deals)} deals in both ({len(old)} and {len(new)} in the folders)")
    print(f"margin a hand against the others: old {mean_old:+.1f}, new {mean_new:+.1f}")
    verdict = "stronger" if low > 0 else "weaker" if high < 0 else "not clear"
    print(f"summary: new less old {diff:+.1f} ({low:+.1f} to {high:+.1f}) points a hand, 95%: {verdict}")


if __name__ == "__main__":
    sys.exit(main())
