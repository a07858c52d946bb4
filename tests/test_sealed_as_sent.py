"""A tournament's parent seals the bytes its referee workers send, without making a record's JSON again.

The seal is what it was (an HMAC over the line as written), and the line is
the one the parent wrote before: the JSON of a record read back is the JSON
it was read from. The worker here is a stand-in that sends records in JSON
of its own spacing, so that a line made again would show.
"""

from __future__ import annotations

import json
import sys

import trio

from referee.records.record import ActionEntry, GameRecord, SeatInfo, Termination, read_records
from referee.records.seals import check_seal
from tournaments.config import parse_config
from tournaments.runner import WorkerHooks, run_games
from tournaments.schedule import schedule
from tournaments.store import ResultStore, tournament_schedule


def a_record(game_id: str = "g1") -> GameRecord:
    """A record with what JSON could write two ways: rounded times, a missing time, shares, a fault, unicode."""
    return GameRecord(
        game_id=game_id, variant="two-handed", options={"target": "200"}, seed=12, time_control={"a": {"bank_ms": 1}},
        seats=[SeatInfo("a", "bot \u00e9", "./a", {"name": "x"}, 3, {"depth": "2"}, "sha256:00"),
               SeatInfo("b", "b", "./b")],
        deals=[{"hand": 1, "cards": ["AS", "KH"]}], actions=[ActionEntry(0, "AS", 12.345678), ActionEntry(1, "KH", None)],
        melds=[{"hand": 1, "seat": 0, "meld": "royal", "points": 4, "cards": ["KH", "QH"]}],
        hands=[{"hand": 1, "points": [10, 0], "totals": [10, 0]}], termination=Termination.TIMEOUT, culprit=1,
        detail="no reply \u2013 <late>", result=(1.0, 0.0), totals=(10, 0), started=1700000000.1234567,
        seconds=0.3333333, extra={"pairing": ["a", "b"], "pair": 1, "turn": 0})


def test_a_record_read_back_writes_the_json_it_was_read_from():
    text = a_record().to_json()
    assert GameRecord.from_json(text).to_json() == text


def test_a_record_passed_on_keeps_its_text_until_a_field_is_set():
    text = json.dumps(json.loads(a_record().to_json()), separators=(", ", ": "))  # another spacing
    record = GameRecord.passed_on(text)
    assert record.to_json() is text
    assert record == GameRecord.from_json(text)
    record.detail = "changed"
    assert record.to_json() != text and json.loads(record.to_json())["detail"] == "changed"


# A referee worker that plays nothing: for each game handed to it, a record (TEMPLATE, a_record's JSON with spaces
# after its commas) of that game and seating
STAND_IN = """
import json, sys
from tournaments.worker_wire import END, decode
decode(sys.stdin.buffer.readline())
for line in sys.stdin.buffer:
    if line.strip() == END:
        break
    spec, _ = decode(line.strip())
    record = json.loads(TEMPLATE)
    record.update(game_id=spec.game_id, seats=[dict(record["seats"][1], entrant=e) for e in spec.seating])
    sys.stdout.write(json.dumps(record, separators=(", ", ": ")) + "\\n")
    sys.stdout.flush()
"""


def test_the_parent_seals_the_lines_its_workers_sent(tmp_path):
    data = {"tournament": {"games_per_pairing": 4, "concurrency": 2, "processes": 2, "seed": 7, "isolation": "none"},
            "bot": [{"name": "p", "sample": "first-legal"}, {"name": "q", "sample": "first-legal"}]}
    config = parse_config(data, tmp_path / "t.toml", output=tmp_path / "out")
    games = schedule(config)
    store = ResultStore(config.output)
    store.start(config.fingerprint(), tournament_schedule(config, games))
    worker = f"TEMPLATE = {a_record().to_json()!r}\n{STAND_IN}"
    trio.run(run_games, config, games, store, None, False, WorkerHooks(command=(sys.executable, "-c", worker)))

    lines = store.games_path.read_text(encoding="utf-8").splitlines()
    sent = [check_seal(line, store.key) for line in lines]  # the seal matches...
    assert len(sent) == len(games) and all(", " in text and '"mac"' not in text for text in sent)  # ...their bytes
    assert sorted(r.game_id for r in read_records(store.games_path, store.key)) == sorted(g.game_id for g in games)
