"""Whatever a bot says, a record of its game stays small: its handshake's words are bounded by the protocol,
its id texts are cut (and the run says so), and an illegal reply or a fault's detail is kept only in part."""

from __future__ import annotations

import sys

import pytest
from helpers import arena

from protocol import ProtocolError, parse_bot_line
from referee.records.record import read_records

BOT = """
import sys
for line in sys.stdin:
    words = line.split()
    if words[0] == "pinochle":
        print("id name " + "N" * 5000)
        print("id version " + "v" * 300)
        print("ready", flush=True)
    elif words[0] == "go":
        print("Z" * 60000 if {illegal} else words[4].split("..")[0], flush=True)
    elif words[0] == "ping":
        print("pong", words[1], flush=True)
    elif words[0] == "quit":
        break
"""


@pytest.mark.parametrize("line", [
    "id " + "k" * 33 + " text",
    "option " + "o" * 33 + " int 1 0 9",
    "option depth string " + "d" * 65,
    "option style choice a " + " ".join(f"c{i}" for i in range(40)),
    "want " + "w" * 33,
])
def test_a_handshake_word_past_its_bound_is_a_protocol_error(line):
    with pytest.raises(ProtocolError, match="at most"):
        parse_bot_line(line)


def test_long_id_texts_are_cut_and_the_run_says_so(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT.format(illegal=False))
    out = tmp_path / "m"
    run = arena("match", f"{sys.executable} {bot}", "random", "--games", "2", "--isolation", "none", "--out", out,
                "--no-report")
    assert run.returncode == 0, run.stderr
    assert "its 'id name' was cut to 100 characters" in run.stderr
    assert "its 'id version' was cut to 100 characters" in run.stderr
    for record in read_records(out / "games.jsonl", key=None):
        seat = next(s for s in record.seats if s.bot_name.startswith("N"))
        assert seat.bot_name == "N" * 100 and seat.ids == {"name": "N" * 100, "version": "v" * 100}
    assert (out / "games.jsonl").stat().st_size < 40_000


def test_an_illegal_reply_and_its_detail_are_kept_only_in_part(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT.format(illegal=True))
    out = tmp_path / "m"
    run = arena("match", f"{sys.executable} {bot}", "random", "--games", "2", "--isolation", "none", "--out", out,
                "--no-report")
    assert run.returncode == 0, run.stderr
    for record in read_records(out / "games.jsonl", key=None):
        assert record.termination.value == "illegal-action"
        assert record.actions[-1].action == "Z" * 100 + "... (59900 more characters not kept)"
        assert len(record.detail) < 700 and "more characters not kept" in record.detail
    assert (out / "games.jsonl").stat().st_size < 20_000
