"""The compliance checker for bot authors: ``pinochle-arena check BOT``.

Plays a few games of one variant between the bot and the reference bot
(the sample ``greedy``, which plays every game to its end) under strict
settings (no grace on the clock) and reports, check by check, what worked
and, for what did not, the exact line at fault and what was expected
instead. Every protocol line of the bot is kept in a transcript, which is
where the offending lines come from.

Beyond the protocol, it looks at how the bot plays and warns (never fails)
about play that loses without an error: passing every auction (a range
token such as ``bid:20..30`` is not a reply), always answering the first
legal action, never melding, claims that lose the game. In the bidding games
one game deals the bot a hand whose meld alone is worth the minimum bid, so a
bot that never bids shows it. When the bot's claims end the games early, one
more game without claims makes sure the second phase is played.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import attrs
import trio

from protocol import messages as m

from ..bots.samples import SAMPLES
from ..bots.transport import BotError, BotStartError, OptionRefused
from ..records.record import GameRecord, Termination
from ..rules.cards import Suit
from ..rules.dealing import deal_out, deck_for, derive_seed
from ..rules.events import DecisionKind
from ..rules.game import Game
from ..rules.melds import count_hand_meld
from ..rules.variants import Variant, apply_option
from .client import FAILURE_LINE, last_stderr_line, printable
from .clock import TimeControl
from .lane import GameSpec, Lane, LaneSettings, open_lane
from .player import Entrant, Player

REFERENCE = "greedy"
STDERR_WAIT = 2.0  # seconds a crashed bot's stderr log is given to show why it stopped
FIRST_LEGAL_SHARE = 0.9  # answering the first legal action this often (of 20 or more real choices) is warned about
STRONG_HAND_TRIES = 2000  # deals looked at for one where the bot's meld alone is worth the minimum bid
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
    seats: list[int] = attrs.Factory(list)  # the bot's seat in each of ``games``
    transcript: Path | None = None
    stderr: Path | None = None  # the bot's stderr log

    @property
    def passed(self) -> bool:
        return all(c.status in (PASS, WARN) for c in self.checks)

    def render(self, paths: bool = True) -> str:
        """The report as printed; ``paths``: with the lines naming its log files (not where they are on a server
        the reader cannot see)."""
        width = max(len(c.name) for c in self.checks)
        lines = [f"Compliance check of {self.bot} ({self.variant}, against the reference bot {REFERENCE!r})", ""]
        for c in self.checks:
            lines.append(f"  [{c.status:>4}] {c.name:<{width}}  {c.detail.splitlines()[0] if c.detail else ''}")
            lines.extend(f"  {'':>6} {'':<{width}}  {more}" for more in c.detail.splitlines()[1:])
        lines.append("")
        if paths and self.transcript is not None:
            lines.append(f"Full protocol transcript: {self.transcript}")
        if paths and self.stderr is not None:
            lines.append(f"What the bot wrote on stderr: {self.stderr}")
        warned = sum(1 for c in self.checks if c.status == WARN)
        if not self.passed:
            lines.append("FAILED: fix the checks marked FAIL (the lines quoted are exactly what was sent and "
                         "received).")
        elif warned:
            lines.append(f"PASSED: the bot follows the protocol, with {warned} warning{'s' if warned > 1 else ''} "
                         "marked warn above (play that loses games, or a missing name).")
        else:
            lines.append("PASSED: the bot follows the protocol.")
        return "\n".join(lines)


CHECKS = ("starts", "handshake", "answers ping", "stays up for every game", "legal play in every phase",
          "replies on time", "every line understood", "clean exit on quit", "plays to win")


async def run_check(entrant: Entrant, variant: Variant, games: int, seed: int, out: Path,
                    startup_timeout: float | None = None) -> CheckReport:
    """Play ``games`` games (the bot in every seat in turn) and check each step; never raises for the bot's faults."""
    # one process for every game (persist), so that "stays up for every game" and the clean exit are its own
    strict = attrs.evolve(entrant, time_control=attrs.evolve(entrant.time_control, grace_ms=0), persist=True)
    checks = {name: Check(name) for name in CHECKS}
    logs = out / "logs"
    player = Player.logged(strict, logs, "bot", transcripts=True, startup_timeout=startup_timeout)
    report = CheckReport(entrant.name, variant.name, list(checks.values()), transcript=player.transcript_path,
                         stderr=player.log_path)
    reference = SAMPLES[REFERENCE]
    others = [Player.logged(Entrant(f"{REFERENCE}-{i}", reference.command(), TimeControl(), persist=True), logs,
                            f"reference-{i}") for i in range(1, variant.players)]
    players = {p.entrant.name: p for p in (player, *others)}
    entrants = {name: p.entrant for name, p in players.items()}
    refused: OptionRefused | None = None
    async with open_lane(entrants, LaneSettings(variant, logs, duplicate=False), players=players) as lane:
        try:
            try:
                await _start(player, lane.nursery, checks)
            except OptionRefused as e:  # raised once the lane is closed (from inside, it would come in a group)
                refused = e
            steps = [lambda: _ping(player, checks),
                     lambda: _play(lane, player, others, variant, games, seed, report, checks),
                     lambda: _quit(player, checks)]
            for step in steps:  # (each made when its turn comes: one never reached is never made, nor left unawaited)
                if not (all(c.status in (PASS, WARN) for c in checks.values() if c.status != SKIP) and player.client):
                    break  # an earlier check failed
                await step()
        finally:
            with trio.CancelScope(shield=True):
                await player.retire()
    if refused is not None:
        raise refused
    for c in checks.values():
        if c.status == SKIP:
            c.detail = "not judged: the check stopped at its failure (FAIL)"
    if checks["legal play in every phase"].status == PASS:  # then every request got its reply
        exchanges = _exchanges(player.transcript_path)
        asked = Counter(decision for decision, _, _ in exchanges)
        if asked:
            order = [k.value for k in DecisionKind]  # in the order of play: lead, follow, meld, take, bid...
            checks["legal play in every phase"].detail += "; asked " + ", ".join(
                f"{k} {asked[k]}" for k in sorted(asked, key=lambda k: order.index(k) if k in order else len(order)))
        _judge_play(checks["plays to win"], exchanges, variant, _wrong_claims(report))
    return report


async def _start(player: Player, nursery: trio.Nursery, checks: dict[str, Check]) -> None:
    try:
        client = await player.ensure_started(nursery)
    except BotStartError as e:
        checks["starts"] = _fail(checks["starts"], str(e), "", "a command that starts a program")
        return
    except OptionRefused:  # the options given to check with: the user's to fix, not a fault of the bot's
        raise
    except BotError as e:  # it started, but the handshake went wrong (the process is killed by now)
        checks["starts"].status = PASS
        checks["handshake"] = _fail(checks["handshake"], str(e), _tail(player.transcript_path),
                                    "'pinochle 3' answered by optional 'id', 'protocol 3', 'option' and 'want' lines, then 'ready'")
        return
    checks["starts"].status = PASS
    checks["handshake"].status = PASS
    checks["handshake"].detail = (f"id name {client.name!r}" + (f", author {client.author!r}" if client.author else "")
                                  + f"; {_version_text(client)}")
    if not client.ids.get("name"):
        checks["handshake"].status = WARN
        checks["handshake"].detail = f"no 'id name' line: the bot is shown under its file name; {_version_text(client)}"


async def _crash_said(log: Path | None) -> str:
    """What a crashed bot's stderr log says of why (:func:`.client.last_stderr_line`). Its last lines may reach
    the log a moment after the crash is seen (the pipe is drained by a task of its own): a line that says a
    failure is waited for up to STDERR_WAIT seconds, then what is there is taken."""
    with trio.move_on_after(STDERR_WAIT):
        while not FAILURE_LINE.match(last_stderr_line(log)):
            await trio.sleep(0.02)
    return last_stderr_line(log)


def _version_text(client) -> str:
    """The protocol the bot speaks, and in version 3 its options (as set) and wants."""
    if client.version < 3:
        return (f"protocol {client.version} (send 'protocol 3' for the rule lines, meld points, state lines "
                "and options of version 3)")
    options = ", ".join(f"{name}={client.options.get(name, o.default)} ({o.type})"
                        for name, o in client.declared.items()) or "none"
    wants = ", ".join(sorted(client.wants)) or "none"
    return f"protocol 3, options: {options}, wants: {wants}"


async def _ping(player: Player, checks: dict[str, Check]) -> None:
    if player.client is None:  # (its start failed: the check stopped there)
        return
    try:
        ms = await player.client.ping(2.0, "check")
    except BotError as e:
        await player.retire()  # closes the transcript, so its last lines can be read
        checks["answers ping"] = _fail(checks["answers ping"], str(e), _tail(player.transcript_path),
                                       "'pong check' at once")
        return
    checks["answers ping"].status = PASS
    checks["answers ping"].detail = f"in {ms:.1f} ms"


async def _play(lane: Lane, player: Player, others: list[Player], variant: Variant, games: int, seed: int,
                report: CheckReport, checks: dict[str, Check]) -> None:
    seats = variant.players
    asked: dict[str, int] = {}
    times: list[float] = []
    plan = [(variant, g % seats, derive_seed(seed, "check", g // seats)) for g in range(games)]
    if variant.family == "auction":
        plan.append((variant, 0, _strong_hand_seed(variant, seed)))
    for g in range(len(plan) + 1):
        if player.client is None:
            break
        if g == len(plan):  # claims cut every game short: one more without them, for the second phase
            if variant.family != "stock" or not variant.claim or any(_no_claim(r) for r in report.games):
                break
            plan.append((apply_option(variant, "claim", "no"), 0, derive_seed(seed, "check-no-claim", 0)))
        rules, seat, game_seed = plan[g]
        seated = [p.entrant.name for p in others]
        seated.insert(seat, player.entrant.name)
        record = await lane.play(GameSpec(f"check{g + 1}", tuple(seated), game_seed, tuple(lane.entrants), g + 1,
                                          rules=rules))
        report.games.append(record)
        report.seats.append(seat)
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
            said = await _crash_said(player.log_path) if record.termination is Termination.CRASH else ""
            checks[where] = _fail(checks[where], f"game {record.game_id}: {record.detail}"
                                  + (f"; its stderr says: {said}" if said else ""),
                                  _tail(player.transcript_path), _expected(record))
            return
    played = len(report.games)
    checks["stays up for every game"].status = PASS
    checks["stays up for every game"].detail = f"{played} games without a crash"
    checks["legal play in every phase"].status = PASS
    checks["legal play in every phase"].detail = (f"{played} games, {sum(asked.values())} legal actions: "
                                                   + ", ".join(f"{k} {v}" for k, v in sorted(asked.items())))
    if plan[-1][0] is not variant:
        checks["legal play in every phase"].detail += " (the last game without claims: its claims ended the others early)"
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


def _strong_hand_seed(variant: Variant, seed: int) -> int:
    """A game seed whose first deal gives seat 0 a hand whose meld alone is worth the minimum bid."""
    minimum = variant.bids.minimum
    for k in range(STRONG_HAND_TRIES):
        candidate = derive_seed(seed, "check-strong-hand", k)
        hand = deal_out(variant, deck_for(variant, candidate, 1), 0).hands[0]
        best = max(sum(line.points for line in count_hand_meld(hand, suit, variant.melds)) for suit in Suit)
        if best >= minimum:
            return candidate
    return derive_seed(seed, "check-strong-hand", 0)


def _no_claim(record: GameRecord) -> bool:
    """Was the game played to its end (no claim cut it short)?"""
    return not any(a.action == "claim" for a in record.actions)


def _wrong_claims(report: CheckReport) -> str:
    """'N of M games ended in a wrong claim: ...' for the games the bot lost by claiming; empty if none."""
    wrong = [(record, seat) for record, seat in zip(report.games, report.seats) if _lost_by_claim(record, seat)]
    if not wrong:
        return ""
    shown = ", ".join(f"{record.game_id} (hand {record.hands[-1]['hand']}: {record.totals[seat]} of the "
                      f"{_claim_target(record, seat)} needed)" for record, seat in wrong[:5])
    more = f" and {len(wrong) - 5} more" if len(wrong) > 5 else ""
    return (f"{len(wrong)} of {len(report.games)} games ended in a wrong claim: {shown}{more}\n"
            "a claim wins only when the game total, this hand's meld and the counters won so far reach the target "
            "as it stands (raised by 'target' lines); leave 'claim' out unless you have counted (PROTOCOL.md, "
            "section 13)")


def _lost_by_claim(record: GameRecord, seat: int) -> bool:
    """Did the game end with the bot's claim, and the bot lose it?"""
    last = record.actions[-1] if record.actions else None
    return (record.termination is Termination.COMPLETED and last is not None and last.seat == seat
            and last.action == "claim" and record.result[seat] == 0.0)


def _claim_target(record: GameRecord, seat: int) -> int:
    """The target ``seat``'s claim, the record's last action, had to reach: the rules' own, raised as the game
    went (a claim leaves it as it is)."""
    return Game.from_record(record).observation(seat).target


def _exchanges(path: Path | None) -> list[tuple[str, list[str], str]]:
    """(decision, legal tokens, reply) for every request in the transcript that got a reply."""
    found: list[tuple[str, list[str], str]] = []
    if path is None or not path.exists():
        return found
    asked: tuple[str, list[str]] | None = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("> go "):
            words = line[2:].split()
            asked = (words[1], words[4:])
        elif line.startswith("< ") and asked is not None and not line.startswith("< info"):
            found.append((asked[0], asked[1], line[2:].strip()))
            asked = None
    return found


def _judge_play(check: Check, exchanges: list[tuple[str, list[str], str]], variant: Variant,
                wrong_claims: str = "") -> None:
    """Warn about play that loses without an error: it never bids, always takes the first action, never melds,
    claims wrongly (``wrong_claims``, already worded)."""
    warnings: list[str] = [wrong_claims] if wrong_claims else []
    bids = [(legal, reply) for decision, legal, reply in exchanges
            if decision == "bid" and any(t.startswith("bid:") for t in legal)]
    if bids and all(reply == "pass" for _, reply in bids):
        low = variant.bids.minimum
        warnings.append(f"passed all {len(bids)} bid requests, one of them with a hand whose meld alone was worth the "
                        f"minimum bid ({low}); if it meant to bid: a range token such as bid:{low}..{low + 10} is not "
                        f"a reply, bid one number from it, e.g. bid:{low}")
    choices = [(legal, reply) for decision, legal, reply in exchanges
               if len(legal) > 1 and decision != "bid" and not any(".." in t for t in legal)]
    first = sum(1 for legal, reply in choices if reply == legal[0])
    if len(choices) >= 20 and first >= FIRST_LEGAL_SHARE * len(choices):
        warnings.append(f"answered the first legal action {first} times in {len(choices)} real choices: "
                        "the list comes in no particular order, so this is no strategy")
    melds = [reply for decision, legal, reply in exchanges if decision == "meld" and len(legal) > 1]
    if len(melds) >= 3 and all(reply == "pass" for reply in melds):
        warnings.append(f"never melded: passed all {len(melds)} meld requests that offered a meld")
    if warnings:
        check.status, check.detail = WARN, "\n".join(warnings)
    else:
        check.status = PASS
        check.detail = f"bids, chooses and melds ({len(exchanges)} replies looked at)"


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
        detail += "\nlast lines (> sent to the bot, < from the bot):\n" + "\n".join("    " + printable(x)
                                                                                     for x in lines.splitlines())
    check.status, check.detail = FAIL, detail + f"\nexpected: {expected}"
    return check
