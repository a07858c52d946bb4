"""The compliance checker for bot authors: ``pinochle-arena check BOT``.

Plays a few quick games of one variant between the bot and the reference
bot (the stdlib random bot) under strict settings (no grace on the clock)
and reports, check by check, what worked and, for what did not, the exact
line at fault and what was expected instead. Every protocol line of the
bot is kept in a transcript, which is where the offending lines come from.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import trio

from protocol import messages as m

from .clock import TimeControl
from .match import Entrant, Player, derive_seed, play_game
from .record import GameRecord, Termination
from .rules.variants import Variant
from .samples import SAMPLES
from .transport import BotError, BotStartError

REFERENCE = "random"
PASS, FAIL, WARN, SKIP = "ok", "FAIL", "warn", "-"


@attrs.define
class Check:
    name: str
    status: str = SKIP
    detail: str = ""


@attrs.define
class CheckReport:
    bot: str
    variant: str
    checks: list[Check]
    games: list[GameRecord] = attrs.Factory(list)
    transcript: Path | None = None

    @property
    def passed(self) -> bool:
        return all(c.status in (PASS, WARN) for c in self.checks)

    def render(self) -> str:
        width = max(len(c.name) for c in self.checks)
        lines = [f"Compliance check of {self.bot} ({self.variant}, against the reference bot {REFERENCE!r})", ""]
        for c in self.checks:
            lines.append(f"  [{c.status:>4}] {c.name:<{width}}  {c.detail.splitlines()[0] if c.detail else ''}")
            lines.extend(f"  {'':>6} {'':<{width}}  {more}" for more in c.detail.splitlines()[1:])
        lines.append("")
        if self.transcript is not None:
            lines.append(f"Full protocol transcript: {self.transcript}")
        lines.append("PASSED: the bot follows the protocol." if self.passed else
                     "FAILED: fix the checks marked FAIL (the lines quoted are exactly what was sent and received).")
        return "\n".join(lines)


CHECKS = ("starts", "handshake", "answers ping", "stays up for every game", "legal play in every phase",
          "replies on time", "every line understood", "clean exit on quit")


async def run_check(entrant: Entrant, variant: Variant, games: int, seed: int, out: Path,
                    startup_timeout: float = 10.0) -> CheckReport:
    """Play ``games`` games (the bot in every seat in turn) and check each step; never raises for the bot's faults."""
    strict = attrs.evolve(entrant, time_control=attrs.evolve(entrant.time_control, grace_ms=0))
    checks = {name: Check(name) for name in CHECKS}
    logs = out / "logs"
    player = Player.logged(strict, logs, "bot", transcripts=True, startup_timeout=startup_timeout)
    report = CheckReport(entrant.name, variant.name, list(checks.values()), transcript=player.transcript_path)
    reference = SAMPLES[REFERENCE]
    others = [Player.logged(Entrant(f"{REFERENCE}-{i}", reference.command(), TimeControl()), logs, f"reference-{i}")
              for i in range(1, variant.players)]
    async with trio.open_nursery() as nursery:
        try:
            await _start(player, nursery, checks)
            steps = [_ping(player, checks), _play(player, others, variant, games, seed, nursery, report, checks),
                     _quit(player, checks)]
            for step in steps:
                if all(c.status in (PASS, WARN) for c in checks.values() if c.status != SKIP) and player.client:
                    await step
                else:
                    step.close()  # never started: an earlier check failed
        finally:
            with trio.CancelScope(shield=True):
                await player.retire()
                for p in others:
                    await p.close()
            nursery.cancel_scope.cancel()
    for c in checks.values():
        if c.status == SKIP:
            c.detail = "not judged: the check stopped at the failure above"
    asked = _decisions(player.transcript_path)
    if asked and checks["legal play in every phase"].status == PASS:
        checks["legal play in every phase"].detail += "; asked " + ", ".join(f"{k} {v}" for k, v in asked.items())
    return report


async def _start(player: Player, nursery: trio.Nursery, checks: dict[str, Check]) -> None:
    try:
        client = await player.ensure_started(nursery)
    except BotStartError as e:
        checks["starts"] = _fail(checks["starts"], str(e), "", "a command that starts a program")
        return
    except BotError as e:  # it started, but the handshake went wrong (the process is killed by now)
        checks["starts"].status = PASS
        checks["handshake"] = _fail(checks["handshake"], str(e), _tail(player.transcript_path),
                                    "'pinochle 2' answered by optional 'id name ...' lines and then 'ready'")
        return
    checks["starts"].status = PASS
    checks["handshake"].status = PASS
    checks["handshake"].detail = f"id name {client.name!r}" + (f", author {client.author!r}" if client.author else "")
    if client.name == Path(player.entrant.command.argv[-1]).name:
        checks["handshake"].status = WARN
        checks["handshake"].detail = "no 'id name' line: the bot is shown under its file name"


async def _ping(player: Player, checks: dict[str, Check]) -> None:
    try:
        ms = await player.client.ping(2.0, "check")
    except BotError as e:
        await player.retire()  # closes the transcript, so its last lines can be read
        checks["answers ping"] = _fail(checks["answers ping"], str(e), _tail(player.transcript_path),
                                       "'pong check' at once")
        return
    checks["answers ping"].status = PASS
    checks["answers ping"].detail = f"in {ms:.1f} ms"


async def _play(player: Player, others: list[Player], variant: Variant, games: int, seed: int,
                nursery: trio.Nursery, report: CheckReport, checks: dict[str, Check]) -> None:
    seats = variant.players
    asked: dict[str, int] = {}
    times: list[float] = []
    for g in range(games):
        if player.client is None:
            break
        seat = g % seats
        seated = list(others)
        seated.insert(seat, player)
        record = await play_game(nursery, seated, variant, derive_seed(seed, "check", g // seats), f"check{g + 1}")
        report.games.append(record)
        for entry in record.actions:
            if entry.seat == seat:
                asked[_kind(entry.action)] = asked.get(_kind(entry.action), 0) + 1
                times.append(entry.ms or 0.0)
        if record.termination is not Termination.COMPLETED:
            if record.culprit != seat:
                continue  # the reference bot failed (it should not); the game says nothing of the bot
            where = {Termination.TIMEOUT: "replies on time", Termination.ILLEGAL_ACTION: "legal play in every phase",
                     Termination.PROTOCOL_ERROR: "every line understood",
                     Termination.CRASH: "stays up for every game"}[record.termination]
            checks[where] = _fail(checks[where], f"game {record.game_id}: {record.detail}",
                                  _tail(player.transcript_path), _expected(record))
            return
    played = len(report.games)
    checks["stays up for every game"].status = PASS
    checks["stays up for every game"].detail = f"{played} games without a crash"
    checks["legal play in every phase"].status = PASS
    checks["legal play in every phase"].detail = (f"{played} games, {sum(asked.values())} legal actions: "
                                                   + ", ".join(f"{k} {v}" for k, v in sorted(asked.items())))
    checks["replies on time"].status = PASS
    if times:
        checks["replies on time"].detail = f"slowest {max(times):.0f} ms, mean {sum(times) / len(times):.1f} ms"
    checks["every line understood"].status = PASS
    checks["every line understood"].detail = "every line it sent was a valid message, none unasked"


async def _quit(player: Player, checks: dict[str, Check]) -> None:
    if player.client is None:
        return
    client, player.client = player.client, None
    try:
        await client.send(m.MatchEnd())
    except BotError:
        pass
    status = await client.quit(grace=1.0)  # kills it if it is still running a second after 'quit'
    if status == 0:
        checks["clean exit on quit"].status = PASS
        checks["clean exit on quit"].detail = "exited with status 0"
    else:
        what = "was still running a second after 'quit' and was killed" if status is not None and status < 0 else (
            f"exited with status {status}")
        checks["clean exit on quit"] = _fail(checks["clean exit on quit"], what, _tail(player.transcript_path),
                                             "exit with status 0 within a second of 'quit'")


def _decisions(path: Path | None) -> dict[str, int]:
    """How often each kind of decision was asked, from the transcript's 'go' lines."""
    counts: dict[str, int] = {}
    if path is not None and path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("> go "):
                kind = line.split()[2]
                counts[kind] = counts.get(kind, 0) + 1
    return counts


def _kind(action: str) -> str:
    head = action.split(":", 1)[0]
    if len(action) == 2 or head == "table":
        return "card"
    return head


def _expected(record: GameRecord) -> str:
    if record.termination is Termination.TIMEOUT:
        return "one action line within the time the request allows (the clock has no grace here)"
    if record.termination is Termination.ILLEGAL_ACTION:
        return "one of the legal actions listed at the end of the 'go' line"
    if record.termination is Termination.PROTOCOL_ERROR:
        return "exactly one line per request: one action token (or 'info ...' lines before it)"
    return "the bot to keep running until 'quit'"


def _tail(path: Path | None, count: int = 4) -> str:
    if path is None or not path.exists():
        return ""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join(lines[-count:])


def _fail(check: Check, what: str, lines: str, expected: str) -> Check:
    detail = what
    if lines:
        detail += "\nlast lines (> sent to the bot, < from the bot):\n" + "\n".join("    " + x for x in lines.splitlines())
    check.status, check.detail = FAIL, detail + f"\nexpected: {expected}"
    return check
