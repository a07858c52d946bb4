"""Attack 17: partners signal through CPU contention (bots/contention.py), a channel the jail leaves open.

How fast it carries a hand depends on the machine and its load, so that is
a figure of bench/contention_channel.py, never asserted here. This test
asserts only what does not depend on timing: the attack bot, as both
partners of a four-handed game, plays it legally to the end in the default
jail (its first reply waits for the channel, up to a few seconds: the clock
is roomy, so a busy machine cannot make that a time-out), and each
partner reports, before its first reply, that it pinned its thread to a core
(nothing refuses it) and which hand it sent.
"""

from __future__ import annotations

import pytest

from .jailrun import assert_no_leftovers, command, completed, match, records, reports

pytestmark = pytest.mark.usefixtures("needs_jail")


def test_partners_signal_by_contention(tmp_path, bots, mark):
    out = tmp_path / "out"
    attacker = command(bots / "contention.py", f"mark={mark}")
    match(out, attacker, "random", attacker, "random", games=1, cwd=tmp_path,
          extra=("--variant", "four-handed", "--no-duplicate", "--time-per-move", "30000", "--time-bank", "600000"))
    recs = records(out)
    completed(recs)
    said = reports(out, "contention")
    for record in recs:
        attackers = [s for s, seat in enumerate(record.seats) if seat.command == attacker]
        assert len(attackers) == 2 and attackers[1] - attackers[0] == 2  # partners
        wire_id = record.extra["wire_id"]
        for seat in attackers:
            lines = [r for r in said if r["id"] == wire_id and r["seat"] == str(seat)]
            assert lines, f"seat {seat} of {record.game_id} reported nothing"
            first = lines[0]
            assert first["partner"] == str((seat + 2) % 4)
            assert first["pin"] == "ok"
            assert first["hand"].split(",") == sorted(record.deals[0]["hands"][seat])
            assert first["heard"] in ("yes", "no")  # what it heard is the bench's business
    assert_no_leftovers(mark, tmp_path)
