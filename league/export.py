"""A league as a results folder: its sealed records, a schedule of its games, a ledger of the records written and
its key, so that ``replay``, ``ratings`` and ``report`` read a league as they read a tournament."""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from referee.records.audit import Schedule, write_schedule
from referee.records.ledger import Entry, append_entries, new_ledger
from referee.records.record import GameRecord
from referee.records.seals import KEY_FILE, mac_in
from referee.rules import get_variant

from .db import LeagueDB


def export(db: LeagueDB, out: Path, final: bool = False) -> int:
    """Write ``out/games.jsonl`` (every game's record as saved, in the order they finished), ``out/schedule.jsonl``
    (those games, as the schedule they are checked against), ``out/ledger.jsonl`` (the records written) and
    ``out/secret.key``; returns the games written. ``final``: the final phase's games alone, those its standings
    count (:mod:`league.final`), so that ``ratings`` ranks them as the final standings do."""
    lines = [line for _, line in db.final_records()] if final else db.records()
    records = [GameRecord.from_json(line) for line in lines]
    settings = db.settings().get("tournament", {})
    variant = get_variant(settings.get("variant", "two-handed"), settings.get("options", {}))
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = db.key()
    key_path = out / KEY_FILE
    with open(os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as f:
        f.write(key.hex() + "\n")
    schedule = Schedule.of_games("tournament", variant, [(r.game_id, [s.entrant for s in r.seats]) for r in records])
    new_ledger(out)
    write_schedule(out, attrs.evolve(schedule, ledger=True), key)
    with open(out / "games.jsonl", "x", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    append_entries(out, key, [Entry(n, r.game_id, mac_in(line)) for n, (r, line) in enumerate(zip(records, lines), 1)])
    return len(lines)


__all__ = ["export"]
