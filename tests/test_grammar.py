"""PROTOCOL.md's grammar (section 15) against what is really said on the wire.

The ABNF block is read from PROTOCOL.md itself and parsed with the ``abnf``
package (a parser of RFC 5234 grammars). Every line the referee sends in a
game of each preset, to bots that ask for everything version 3 offers, must
parse as a ``referee-line``, and every line the sample bots send as a
``bot-line``; so must every line of the document's own transcripts.
"""

from __future__ import annotations

import functools
from pathlib import Path

import attrs
import pytest
import trio
from abnf import Rule
from abnf.parser import ParseError

from referee.bots.samples import SAMPLES
from referee.match import Entrant, MatchPlan, TimeControl, run_match
from referee.rules import PRESETS, get_variant

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol" / "PROTOCOL.md"


class Wire(Rule):
    """The protocol's grammar (a Rule subclass holds one grammar)."""


@functools.cache
def grammar() -> type[Wire]:
    block = PROTOCOL.read_text(encoding="utf-8").split("```abnf\n")[1].split("```")[0]
    Wire.load_grammar(block)
    return Wire


def parses(rule: str, line: str) -> bool:
    try:
        grammar()(rule).parse_all(line)
    except ParseError:
        return False
    return True


def played_lines(variant: str, options: dict[str, str], seed: int, tmp_path: Path) -> list[str]:
    """Every line of one game's transcripts: tactician (protocol 3, 'want state') at every seat but one greedy."""
    players = get_variant(variant, options).players
    names = ["tactician"] * (players - 1) + ["greedy"]
    entrants = tuple(attrs.evolve(Entrant(n, SAMPLES[n].command(), TimeControl()), name=f"{n}-{i}")
                     for i, n in enumerate(names))
    plan = MatchPlan(entrants, get_variant(variant, options), 1, seed, tmp_path, transcripts=True)
    trio.run(run_match, plan)
    return [line for e in entrants for line in (tmp_path / "logs" / f"{e.name}.protocol.log").read_text().splitlines()]


def unparsed(lines: list[str]) -> list[str]:
    """The lines that do not parse (each distinct line parsed once: an event goes to every seat alike)."""
    return [line for line in dict.fromkeys(lines)
            if not parses("referee-line" if line.startswith("> ") else "bot-line", line[2:])]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_line_of_a_game_of_each_preset_parses_by_the_grammar(preset, tmp_path):
    lines = played_lines(preset, {}, 3, tmp_path)
    assert any(line.startswith("> state ") for line in lines)  # the state line is there to be checked
    assert unparsed(lines) == []


def test_the_target_line_of_play_on_parses(tmp_path):
    lines = played_lines("two-handed", {"target": "100", "target-step": "10"}, 3, tmp_path)  # both pass 100
    assert any(line.startswith("> target ") for line in lines)
    assert unparsed(lines) == []


def test_every_line_of_protocol_md_parses():
    lines = [line for line in PROTOCOL.read_text(encoding="utf-8").splitlines() if line[:2] in ("> ", "< ")]
    assert len(lines) > 300
    assert unparsed(lines) == []


@pytest.mark.parametrize("rule, line", [
    ("referee-line", "play 0 ZZ"),
    ("referee-line", "go lead 5000 60000"),  # no legal action
    ("referee-line", "state hand=1 dealer=0"),  # fields missing
    ("referee-line", "deal 1 0 QH"),  # no cards
    ("referee-line", "game 7F3A9C01E2B4 two-handed 0 2"),  # the id is lower-case hex
    ("bot-line", "bid:21..30"),  # a range is never a reply
    ("bot-line", "AS KS"),  # one action
    ("bot-line", "id Name X"),  # keys are lower case
])
def test_lines_that_break_the_protocol_do_not_parse(rule, line):
    assert not parses(rule, line)


@pytest.mark.parametrize("rule, line", [
    ("bot-line", "as"),  # replies are read without regard to case
    ("bot-line", "Royal:kh,qh=40"),
    ("bot-line", "table:KS@marriage+pinochle"),
    ("bot-line", "info thinking: 12 worlds, best AS"),
    ("referee-line", "gameover timeout 1 result 1 0 totals 120 -40"),
    ("referee-line", "gameover completed - result 0.5 0.5 totals 1000 1000"),
])
def test_lines_that_keep_the_protocol_parse(rule, line):
    assert parses(rule, line)
