"""One hash of everything the referee says and records, to show a speed-up changed none of it.

Plays ``--games`` games of every preset (25 by default) between real bot
processes (this file run with ``--bot``: a seeded random legal token at once,
protocol 3 with ``want state`` on even seats and protocol 2 on odd ones, now
and then an ``info`` line, a v3 meld token without its points, or a reply
that must be parsed), with transcripts. The hash covers every line each bot
was sent (events, ``rule`` and ``state`` lines, requests with their legal
tokens, game ends) and every line it sent back, in order, and every record
(actions, melds, hands, deals, result), the times left out: a request's
``time_left`` and ``bank`` and a record's milliseconds and dates depend on
the clock, not the code (and a seat's ``command`` and ``program`` on where
this file is and what else its folder holds). Run it before and after a change; the hashes must
match. About a minute.

    python bench/wire_hash.py [--games 25] [--presets two-handed ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
TIMES = re.compile(r"^> go (\S+) \d+ \d+", re.MULTILINE)


def bot(seat: int) -> None:
    """The bot of a seat: protocol 3 and ``want state`` on even seats, 2 on odd ones; a random legal token."""
    rng = random.Random(seat)
    version = 3 if seat % 2 == 0 else 2
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "pinochle":
            out.write(f"id name hash-bot-{seat}\n" + ("protocol 3\nwant state\n" if version == 3 else "") + "ready\n")
        elif words[0] == "ping":
            out.write(f"pong {words[1]}\n")
        elif words[0] == "quit":
            return
        elif words[0] == "go":
            token = choose(words[4:], rng)
            roll = rng.random()
            if roll < 0.05:
                out.write(f"info thinking about {token}\n")
            if version == 3 and "=" in token and roll < 0.5:
                token = token.split("=")[0]  # the points may be left off
            out.write(token + "\n")
        else:
            continue
        out.flush()


def choose(tokens: list[str], rng: random.Random) -> str:
    """A random legal token; a bid range gives its lowest bid, or the next one up (so auctions end)."""
    if rng.random() < 0.0002:
        return "nonsense"  # an illegal reply now and then: the error line and the fault are hashed too
    token = rng.choice(tokens)
    if token.startswith("bid:") and ".." in token:
        low, _, rest = token[4:].partition("..")
        step = int(rest.partition("/")[2] or 1)
        return f"bid:{int(low) + step * rng.randrange(2)}" if int(low) + step <= int(rest.partition("/")[0]) \
            else f"bid:{low}"
    return token


async def play(preset: str, games: int, folder: Path) -> list[str]:
    """The records of ``games`` games of ``preset`` (times zeroed, as JSON), the transcripts in ``folder``."""
    import attrs
    import trio

    from referee.bots.sandbox import Isolation, Sandbox
    from referee.bots.transport import BotCommand
    from referee.match import Entrant, Player, play_game
    from referee.rules import get_variant

    variant = get_variant(preset)
    players = [Player.logged(Entrant(f"s{seat}", BotCommand((sys.executable, str(HERE), "--bot", str(seat))),
                                     sandbox=Sandbox(isolation=Isolation.NONE), persist=True),
                             folder, transcripts=True)
               for seat in range(variant.players)]
    texts = []
    async with trio.open_nursery() as nursery:
        for g in range(games):
            record = await play_game(nursery, players, variant, 1000 + g, f"{preset}-{g}")
            record.started = record.seconds = 0.0
            # (the command names this file, and program is a hash of its folder's files: neither is the referee's)
            record.seats = [attrs.evolve(s, command="", program="") for s in record.seats]
            for a in record.actions:
                object.__setattr__(a, "ms", 0.0)
            texts.append(record.to_json())
        for p in players:
            await p.close()
    return texts


def digest(preset: str, games: int, keep: Path | None = None) -> tuple[str, int, int, int]:
    """(hash, lines on the wire, decisions, games completed) of ``games`` games of ``preset``; with ``keep``, what
    was hashed is written there too (to compare two runs whose hashes differ)."""
    import trio

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "logs"
        records = trio.run(play, preset, games, folder)
        h = hashlib.sha256()
        lines = 0
        hashed = []
        for path in sorted(folder.glob("*.protocol.log")):
            text = TIMES.sub(r"> go \1 T B", path.read_text(encoding="utf-8"))
            lines += text.count("\n")
            hashed.append(text)
        hashed += [text + "\n" for text in records]
        for text in hashed:
            h.update(text.encode())
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / f"{preset}.txt").write_text("".join(hashed), encoding="utf-8")
    decisions = sum(len(json.loads(t)["actions"]) for t in records)
    completed = sum(json.loads(t)["termination"] == "completed" for t in records)
    return h.hexdigest()[:16], lines, decisions, completed


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--bot":
        bot(int(sys.argv[2]))
        return
    sys.path.insert(0, str(HERE.parent))
    from _common import summary
    from tabulate import tabulate

    from referee.rules.variants import PRESETS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=25)
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--keep", type=Path, help="write what is hashed in this folder, a file per preset")
    args = parser.parse_args()
    rows = []
    for preset in args.presets:
        rows.append([preset, *digest(preset, args.games, args.keep)])
        print(f"  {preset}: {rows[-1][1]}", flush=True)
    print(tabulate(rows, headers=["preset", "hash", "lines on the wire", "decisions", "completed"], tablefmt="github"))
    everything = hashlib.sha256("".join(r[1] for r in rows).encode()).hexdigest()[:16]
    summary(f"wire hash of {args.games} games of {len(rows)} presets: {everything}")


if __name__ == "__main__":
    main()
