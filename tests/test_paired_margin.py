"""bench/paired_margin.py: a bot's margin in two matches on the same deals, compared deal by deal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def match_folder(folder: Path, variant: str, margins_by_deal: dict[int, list[int]], hands=1, target="500") -> Path:
    """A match's games.jsonl as the benchmark reads it: per deal, one game a seating, the bot (named "bot", and
    "bot-2" in its second seat) and the points a hand of its seats less the opponent's given, over ``hands``."""
    folder.mkdir()
    lines = []
    for deal, margins in margins_by_deal.items():
        for margin in margins:
            lines.append(json.dumps({"variant": variant, "options": {"target": target}, "seed": deal,
                                     "seats": [{"entrant": "bot"}, {"entrant": "other"}, {"entrant": "bot-2"}],
                                     "hands": [{"points": [50 + margin, 50, 50 + margin]}] * hands}))
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def paired(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "paired_margin.py"), *args], capture_output=True, text=True)


def test_the_difference_is_taken_deal_by_deal_and_the_deal_luck_cancels(tmp_path):
    # deal luck: each deal's margin swings by hundreds, the same in both matches; the new bot gains 10 on every deal
    luck = {1: [300, 280], 2: [-200, -220], 3: [40, 60], 4: [-90, -70]}
    old = match_folder(tmp_path / "old", "three-handed", luck)
    new = match_folder(tmp_path / "new", "three-handed",
                       {deal: [m + 10 for m in margins] for deal, margins in luck.items()} | {5: [1000]})
    done = paired(str(old), str(new), "--bot", "bot")
    assert done.returncode == 0, done.stderr
    assert "4 deals in both (4 and 5 in the folders)" in done.stdout  # deal 5 was played by one match only
    assert "summary: new less old +10.0 (+10.0 to +10.0) points a hand, 95%: stronger" in done.stdout
    # games of three hands: the margin is a hand's, not the game's
    three = match_folder(tmp_path / "three", "three-handed", {deal: [m + 10 for m in ms] for deal, ms in luck.items()},
                         hands=3)
    done = paired(str(old), str(three), "--bot", "bot")
    assert "summary: new less old +10.0 (+10.0 to +10.0) points a hand" in done.stdout, done.stderr


def test_matches_that_cannot_be_compared_are_refused_in_one_line(tmp_path):
    old = match_folder(tmp_path / "old", "three-handed", {1: [5]})
    other_variant = match_folder(tmp_path / "b", "four-handed", {1: [5]})
    other_deals = match_folder(tmp_path / "c", "three-handed", {2: [5]})
    other_target = match_folder(tmp_path / "d", "three-handed", {1: [5]}, target="1000")
    broken = match_folder(tmp_path / "e", "three-handed", {1: [5]})
    (broken / "games.jsonl").write_text((broken / "games.jsonl").read_text() + '{"variant": "three-ha\n')
    for args, words in [((old, other_variant, "--bot", "bot"), "different variants"),
                        ((old, other_target, "--bot", "bot"), "different variants or options"),
                        ((old, broken, "--bot", "bot"), "line 2, is not a game record"),
                        ((old, other_deals, "--bot", "bot"), "share no deal"),
                        ((old, old, "--bot", "nobody"), "no game in"),
                        ((old, tmp_path / "missing", "--bot", "bot"), "no games.jsonl")]:
        done = paired(*map(str, args))
        assert done.returncode != 0 and words in done.stderr and "Traceback" not in done.stderr
