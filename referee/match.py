"""Play games between bot processes: one game (``play_game``) and a match of many.

The game loop asks the seat to act, validates the reply against the rules,
applies it, tells every seat what it may see, and records everything. A
bot's fault never escapes as an exception: it ends the game with a
:class:`~referee.record.Termination` naming the seat at fault, which loses.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from typing import Any, TypeVar
from pathlib import Path

import attrs
import trio

from protocol import messages as m
from protocol import split_points

from .audit import Schedule
from .clock import Clock, TimeControl
from .deals import DealFile
from .player import BotClient
from .record import ActionEntry, GameRecord, SeatInfo, Termination
from .results import ResultStore
from .rules import Card, IllegalActionError, action_from_text, fault_returns, new_game
from .rules import events as ev
from .rules.variants import Variant
from .sandbox import Sandbox
from .transport import BotCommand, BotCrashed, BotError, BotTimeout
from .rules.observation import Observer
from .wire import event_text, new_game_message, request_message, rule_messages, state_message


class Restart(enum.Enum):
    """When a bot's process is started afresh (cutechess's ``restart``)."""

    ON_FAULT = "on-fault"  # keep the process from game to game; a fresh one after a fault or a failed ping
    ALWAYS = "always"  # a fresh process for every game
    NEVER = "never"  # after its first fault the bot is not started again: it forfeits its remaining games


@attrs.frozen
class Entrant:
    """A bot as the user named it: a label, how to start it, its time control and its fence.

    Without ``persist`` (the default) every game gets a fresh process with an
    empty writable space, so nothing a bot learnt in one seating of a deal
    survives into the next; ``persist`` (for entrants the organiser trusts)
    keeps a process from game to game as ``restart`` says.
    """

    name: str
    command: BotCommand
    time_control: TimeControl = TimeControl()
    sandbox: Sandbox = Sandbox()
    restart: Restart = Restart.ON_FAULT
    persist: bool = False
    options: tuple[tuple[str, str], ...] = ()  # protocol 3: values for options the bot declares (setoption)
    # a player that is not a process: returns its line once it is there (a person's seat in a browser)
    connect: Callable[[], Awaitable[Any]] | None = attrs.field(default=None, eq=False)


def game_wire_id(seed: int, game_id: str) -> str:
    """The id a game is given on the wire: 12 hex digits of a hash of its seed and its id in the schedule."""
    return hashlib.sha256(f"wire:{seed}:{game_id}".encode()).hexdigest()[:12]


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from a base seed and labels (game number, pairing...)."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


T = TypeVar("T")
BOARDS_PER_PROCESS = 20  # one seating of this many boards in a row is played by one process (see Player)


@attrs.define(eq=False)
class Player:
    """An entrant's running bot, restarted after a fault (cutechess's restart-on-failure).

    ``one_seating`` says that the games this player is given are one seating
    each of different boards, so no two of them are on the same deal: its
    process is then kept from game to game (for up to
    ``BOARDS_PER_PROCESS`` games, a bound on what one process may spend of
    its lifetime CPU limit), even without ``persist``. A board's other
    seatings are played by other players, with processes of their own.
    """

    entrant: Entrant
    log_path: Path | None = None
    startup_timeout: float = 10.0
    transcript_path: Path | None = None
    workdir: Path | None = None  # unjailed: where its fresh working folders go, unless the command names one
    hidden: tuple[str, ...] = ()  # folders its jail must never show it (the output folder)
    client: BotClient | None = None
    starts: int = 0
    games: int = 0
    one_seating: bool = False
    games_on_process: int = 0  # games the running process has been given
    faulted: bool = False
    stall_timeout: float = 2.0  # seconds for the pong of the stall check between games
    stalls: int = 0  # pings between games that went unanswered

    @classmethod
    def logged(cls, entrant: Entrant, logs: Path, stem: str | None = None, transcripts: bool = False,
               startup_timeout: float = 10.0, one_seating: bool = False) -> Player:
        """A player whose stderr (and, with ``transcripts``, protocol lines) go to ``logs/STEM.*.log``.

        Unjailed, each of its processes works in a fresh folder under
        ``work/STEM`` next to ``logs`` (removed when the process ends); a
        jailed one works in its private home and never sees the folder that
        holds ``logs``.
        """
        stem = file_safe(stem or entrant.name)
        return cls(entrant, logs / f"{stem}.stderr.log", startup_timeout,
                   logs / f"{stem}.protocol.log" if transcripts else None, logs.parent / "work" / stem,
                   (str(logs.parent.resolve()),), one_seating=one_seating)

    async def ensure_started(self, nursery: trio.Nursery) -> BotClient:
        """The running bot for the next game: checked with a ping if it played before, else started."""
        self.games += 1
        if self.faulted and self.entrant.restart is Restart.NEVER:
            raise BotCrashed("not restarted after its fault in an earlier game (restart = never)")
        if self.client is not None and self._fresh_process_due():
            await self.close()
        if self.client is not None and not await self._answers_ping() and self.entrant.restart is Restart.NEVER:
            self.faulted = True
            raise BotTimeout("did not answer the stall check before this game (restart = never)")
        if self.client is None:
            self.starts += 1
            self.note(f"start {self.starts} of {self.entrant.command.to_text()}")
            client = None
            try:
                if self.entrant.connect is not None:
                    client = await BotClient.attach(await self.entrant.connect(), self.entrant.name,
                                                    self.startup_timeout)
                else:
                    client = await BotClient.start(nursery, self.entrant.command, self.log_path,
                                                   self.startup_timeout, self.transcript_path, self.entrant.sandbox,
                                                   self.workdir, self.hidden)
                client.set_options(dict(self.entrant.options))
            except BotError:
                self.faulted = True
                if client is not None:  # it started, but refused its options
                    await client.process.kill()
                raise
            self.client = client
            self.games_on_process = 0
        self.games_on_process += 1
        return self.client

    def _fresh_process_due(self) -> bool:
        """Whether the next game needs a new process: always with ``restart = always``, never with ``persist``,
        and otherwise for every game but those of one seating of successive boards (see the class)."""
        if self.entrant.restart is Restart.ALWAYS:
            return True
        if self.entrant.persist:
            return False
        return not self.one_seating or self.games_on_process >= BOARDS_PER_PROCESS

    async def _answers_ping(self) -> bool:
        """The stall check between games: a bot that is alive but wedged is replaced before it plays."""
        try:
            await self.client.ping(self.stall_timeout, str(self.games))
            return True
        except BotError as e:
            self.stalls += 1
            self.note(f"stall check before game {self.games} failed ({e}); stopping it")
            client, self.client = self.client, None
            await client.process.kill()
            return False

    def note(self, text: str) -> None:
        """A line of the referee's own in the bot's stderr log (starts, stall checks, faults)."""
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "ab") as f:
                f.write(f"=== pinochle-arena: {text}\n".encode())

    async def retire(self) -> None:
        """Stop the process after a fault; the next game starts a fresh one (see :class:`Restart`)."""
        self.faulted = True
        if self.client is not None:
            client, self.client = self.client, None
            await client.process.kill()

    async def close(self) -> None:
        if self.client is not None:
            client, self.client = self.client, None
            try:
                await client.send(m.MatchEnd())
            except BotError:
                pass
            await client.quit()

    def seat_info(self) -> SeatInfo:
        """Who played, as the record keeps it: the entrant, what the bot called itself, its protocol and options."""
        command = self.entrant.command.to_text()
        if self.client is None:
            return SeatInfo(self.entrant.name, self.entrant.name, command)
        c = self.client
        return SeatInfo(self.entrant.name, c.name, command, dict(c.ids), c.version, dict(c.options))


class _SeatFault(Exception):
    def __init__(self, seat: int, termination: Termination, detail: str):
        super().__init__(detail)
        self.seat = seat
        self.termination = termination
        self.detail = detail


def _termination_of(error: BotError) -> Termination:
    return Termination(error.termination)


async def play_game(
    nursery: trio.Nursery,
    players: Sequence[Player],
    variant: Variant,
    seed: int,
    game_id: str,
    extra: dict | None = None,
    decks: Sequence[Sequence[Card]] = (),
) -> GameRecord:
    """Play one game; always returns a record, whatever the bots do.

    The bots are told another id for the game than ``game_id``, which
    names the pairing and the deal: a hash of the (secret) game seed and
    ``game_id``, kept in the record as ``wire_id``. It tells a bot nothing,
    differs between the seatings of a deal, and is the same when the game
    is played again (bots that seed their randomness with it replay alike).

    ``decks`` are the decks of the first deals (a deal file's); the deals
    after them come from ``seed``. The record says how many were given
    (``extra["fixed_decks"]``), so that a replay deals them alike.
    """
    wire_id = game_wire_id(seed, game_id)
    record = GameRecord(
        game_id=game_id,
        variant=variant.name,
        options=variant.settings(),
        seed=seed,
        seats=[],
        time_control={},
        started=time.time(),
        extra={**(extra or {}), "wire_id": wire_id, **({"fixed_decks": len(decks)} if decks else {})},
    )
    wall = time.monotonic()
    clocks = [Clock(p.entrant.time_control) for p in players]
    game = None
    try:
        clients = []
        for seat, p in enumerate(players):
            try:
                clients.append(await p.ensure_started(nursery))
            except BotError as e:
                raise _SeatFault(seat, _termination_of(e), f"failed to start: {e}") from None
        record.seats = [p.seat_info() for p in players]
        record.time_control = {p.entrant.name: p.entrant.time_control.to_dict() for p in players}
        rules = rule_messages(variant) if any(c.version >= 3 for c in clients) else ()
        observers = {}  # version 3 seats that asked for a state line before each request
        for seat, client in enumerate(clients):
            client.post(new_game_message(wire_id, variant, seat))
            if client.version >= 3:
                for rule in rules:
                    client.post(rule)
            if "state" in client.wants:
                observers[seat] = Observer(variant, seat)
        game, notices = new_game(variant, seed, decks)
        _deliver(clients, notices, record, observers)
        while not game.is_terminal():
            decision = game.decision()
            seat = decision.seat
            client = clients[seat]
            clock = clocks[seat]
            wait = clock.deadline_ms()  # before the charge changes it: the message below gives this one
            v3_melds = client.version >= 3 and decision.kind is ev.DecisionKind.MELD
            request = request_message(decision, clock.allowance_ms(), int(clock.bank_ms),
                                      game.meld_value if v3_melds else None)
            if seat in observers:
                client.post(state_message(observers[seat].observation()))
            try:
                text, used = await client.request(request, wait)
            except BotError as e:
                raise _SeatFault(seat, _termination_of(e), str(e)) from None
            if not clock.charge(used):
                raise _SeatFault(seat, Termination.TIMEOUT, f"replied after {used:.0f} ms; allowed {wait:.0f}")
            try:
                action_text, points = split_points(text) if client.version >= 3 else (text, None)
                action = action_from_text(action_text)
                game.check(action)
                if points is not None:
                    if not v3_melds:
                        raise IllegalActionError("only a meld may carry =POINTS")
                    scored = game.meld_value(action)
                    if points != scored:
                        raise IllegalActionError(f"{action_text} scores {scored} now, not {points}")
            except IllegalActionError as e:
                record.actions.append(ActionEntry(seat, text, used))
                await _tell_error(clients[seat], f"illegal action {text}: {e}")
                raise _SeatFault(seat, Termination.ILLEGAL_ACTION, f"{text}: {e}") from None
            record.actions.append(ActionEntry(seat, action.to_text(), used))
            _deliver(clients, game.apply(action), record, observers)
        record.termination = Termination.COMPLETED
        record.result = game.returns()
    except _SeatFault as fault:
        record.termination = fault.termination
        record.culprit = fault.seat
        record.detail = fault.detail
        record.result = fault_returns(variant, fault.seat)
        players[fault.seat].note(f"game {game_id}: {fault.termination.value}: {fault.detail}")
        await players[fault.seat].retire()
    if not record.seats:
        record.seats = [p.seat_info() for p in players]
    if game is not None:
        record.deals = list(game.deals)
        record.totals = tuple(game.totals)
    else:
        record.totals = tuple(0 for _ in players)
    record.seconds = time.monotonic() - wall
    await _announce_end(players, record)
    return record


def _deliver(clients: Sequence[BotClient], notices: Sequence[ev.Notice], record: GameRecord,
             observers: dict[int, Observer]) -> None:
    """Record what happened and queue each event for the seats that may see it (written before their next request).

    A seat's :class:`Observer` (version 3's ``want state``) sees exactly the events its bot is told.
    """
    for notice in notices:
        event = notice.event
        if isinstance(event, ev.Melded):
            record.melds.append({"hand": len(record.hands) + 1, "seat": event.seat, "meld": event.name,
                                 "points": event.points, "cards": [c.to_text() for c in event.cards]})
        elif isinstance(event, ev.HandEnded):
            record.hands.append({"hand": event.hand, "points": list(event.points), "totals": list(event.totals)})
        for seat in notice.seats:
            if seat in observers:
                observers[seat].see(event)
        text = event_text(event)
        if text is None:
            continue
        for seat in notice.seats:
            clients[seat].post(text)


async def _tell_error(client: BotClient, text: str) -> None:
    try:
        await client.send(m.ErrorNotice(text))
    except BotError:
        pass


async def _announce_end(players: Sequence[Player], record: GameRecord) -> None:
    """Tell every still-healthy bot how the game ended; a bot that cannot hear it is retired."""
    message = m.GameOver(record.termination.value, record.culprit, record.result, record.totals)
    for p in players:
        if p.client is None:
            continue
        try:
            await p.client.send(message)
        except BotError:
            await p.retire()


async def preflight(entrants: Sequence[Entrant], logs: Path, startup_timeout: float = 10.0) -> list[tuple[str, str]]:
    """Start each entrant's bot once (handshake and options), as a game would, before any game is played.

    Returns (entrant, why) for each that cannot start, so that a run stops
    at once with the reason instead of charging every game to that bot
    (cutechess checks its engines the same way). The start is logged in the
    bot's stderr log like any other.
    """
    failures = []
    async with trio.open_nursery() as nursery:
        for entrant in entrants:
            player = Player.logged(entrant, logs, startup_timeout=startup_timeout)
            try:
                await player.ensure_started(nursery)
            except BotError as e:
                player.note(f"could not start before the first game: {e}")
                failures.append((entrant.name, str(e)))
            finally:
                await player.close()
    return failures


@attrs.frozen
class MatchPlan:
    entrants: tuple[Entrant, ...]
    variant: Variant
    games: int
    seed: int
    out_dir: Path
    startup_timeout: float = 10.0
    transcripts: bool = False  # write every protocol line to logs/<entrant>.protocol.log
    duplicate: bool = True  # each deal once per seating; else a new deal every game (the seating still rotates)
    deals: DealFile | None = None  # a deal file's deals, in turn, instead of deals from the seed
    boards: bool = False  # each group of games is a board (one hand in every seating; the variant has max-hands=1)


def match_schedule(plan: MatchPlan) -> list[tuple[int, int, tuple[int, ...], tuple]]:
    """(game number, game seed, seating, fixed decks) for each game of a match.

    Games go in groups of one game per seat: every game of a group is dealt
    from the same seed with the seating rotated one place, so each bot holds
    each seat's cards once (for two bots: the same deal twice, seats swapped).
    Without ``duplicate`` every game has a deal of its own (the first game
    is the same either way). With a deal file, deal k is the file's k-th
    (its seed and decks), in turn.
    """
    n = len(plan.entrants)
    schedule = []
    for g in range(plan.games):
        group, turn = divmod(g, n)
        k = group if plan.duplicate else g
        if plan.deals is not None:
            deal, decks = plan.deals.deal(k).seed, plan.deals.deal(k).decks
        else:
            deal, decks = derive_seed(plan.seed, "pair", k), ()
        schedule.append((g + 1, deal, tuple((seat + turn) % n for seat in range(n)), decks))
    return schedule


def match_games(plan: MatchPlan) -> Schedule:
    """What ``schedule.jsonl`` keeps of a match: every game's id and seating."""
    return Schedule.of_games("match", plan.variant, [
        (f"g{number}", [plan.entrants[i].name for i in seating]) for number, _, seating, _ in match_schedule(plan)])


async def run_match(plan: MatchPlan, on_game: Callable[[GameRecord], None] | None = None,
                    store: ResultStore | None = None, done: Collection[str] = ()) -> list[GameRecord]:
    """Play the games of ``plan`` one after another, but those in ``done``; records go to ``store``.

    Without a store, one is started in ``out_dir``: it makes ``secret.key``,
    which seals every record, and ``schedule.jsonl``, the games the records
    are checked against (see :class:`~referee.results.ResultStore`).
    """
    if store is None:
        store = ResultStore(plan.out_dir, "match.json")
        store.start({}, match_games(plan))
    records: list[GameRecord] = []
    logs = plan.out_dir / "logs"
    n = len(plan.entrants)
    async with trio.open_nursery() as nursery:
        players: list[Player] = []
        lane = None
        try:
            games = match_schedule(plan)
            if plan.boards:
                games = board_runs(games, lambda game: divmod(game[0] - 1, n))
            for number, seed, seating, decks in games:
                if f"g{number}" in done:
                    continue
                seating_lane = (number - 1) % n if plan.boards else 0  # boards: each seating has processes of its own
                if seating_lane != lane:
                    lane = seating_lane
                    await close_players(players)
                    players = _new_players(plan, logs, retired={p.entrant.name for p in players if p.faulted})
                seated = [players[i] for i in seating]
                board = _board_extra(plan, number, seating) if plan.boards else {}
                record = await play_game(nursery, seated, plan.variant, seed, f"g{number}",
                                         extra={"game": number, "seating": list(seating), **board}, decks=decks)
                store.append(record)
                records.append(record)
                if on_game is not None:
                    on_game(record)
        finally:
            await close_players(players)
            nursery.cancel_scope.cancel()
    return records


def _new_players(plan: MatchPlan, logs: Path, retired: Collection[str]) -> list[Player]:
    """Players for the match's entrants; those ``retired`` by a fault under ``restart = never`` stay retired."""
    players = [Player.logged(e, logs, transcripts=plan.transcripts, startup_timeout=plan.startup_timeout,
                             one_seating=plan.boards) for e in plan.entrants]
    for p in players:
        p.faulted = p.entrant.name in retired
    return players


async def close_players(players: Iterable[Player]) -> None:
    """Stop the players' bots (matchend, quit), even while the caller is being cancelled."""
    with trio.CancelScope(shield=True):
        for p in players:
            await p.close()


def board_runs(games: Sequence[T], board_and_seating: Callable[[T], tuple[int, Any]]) -> list[T]:
    """Board games in the order to play them: runs of ``BOARDS_PER_PROCESS`` boards, and in each run the
    first seating of every board, then the second, and so on.

    ``board_and_seating`` gives a game's board (from 0) and its seating
    (anything that sorts; a tournament adds its table). Each seating's
    processes thus play their boards in a row (see :class:`Player`), and
    only one seating's processes run at a time.
    """
    def run_then_seating(game: T) -> tuple:
        board, seating = board_and_seating(game)
        return board // BOARDS_PER_PROCESS, seating, board
    return sorted(games, key=run_then_seating)


def board_run_groups(games: Sequence[T], board_and_seating: Callable[[T], tuple[int, Any]]) -> list[list[T]]:
    """:func:`board_runs`, cut into what one set of processes plays: each group one run of one seating."""
    def run_and_seating(game: T) -> tuple:
        board, seating = board_and_seating(game)
        return board // BOARDS_PER_PROCESS, seating
    return [list(group) for _, group in itertools.groupby(board_runs(games, board_and_seating), run_and_seating)]


def _board_extra(plan: MatchPlan, number: int, seating: tuple[int, ...]) -> dict:
    """What a board's game records: its board's number and, with partners, the side each seat plays for (the
    two partners, who sit opposite whatever the rotation, are one contestant: "A+C")."""
    extra: dict = {"board": (number - 1) // len(plan.entrants) + 1}
    if plan.variant.partners.value == "opposite":
        names = [plan.entrants[i].name for i in seating]
        n = len(names)
        extra["sides"] = ["+".join(sorted((names[s], names[(s + 2) % n]))) for s in range(n)]
    return extra


def file_safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "bot"


__all__ = ["Entrant", "MatchPlan", "Player", "derive_seed", "match_games", "match_schedule", "board_runs", "board_run_groups", "close_players", "play_game", "preflight", "run_match"]
