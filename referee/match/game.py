"""One game between bot processes: ``play_game``.

The game loop asks the seat to act, validates the reply against the rules,
applies it, tells every seat what it may see, and records everything. A
bot's fault never escapes as an exception: it ends the game with a
:class:`~referee.records.record.Termination` naming the seat at fault, which loses.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence

import trio

from protocol import messages as m
from protocol import split_points

from ..bots.transport import BotError
from ..records.record import ActionEntry, GameRecord, Termination
from ..rules import Card, IllegalActionError, action_from_text, fault_returns, new_game
from ..rules import events as ev
from ..rules.actions import Action, Meld
from ..rules.events import Decision
from ..rules.observation import Observer
from ..rules.state import GameState
from ..rules.variants import Variant
from .client import BotClient
from .clock import Clock
from .player import Player
from .wire import V3_EVENTS, event_text, new_game_message, request_message, rule_messages, state_message

# A record keeps what a bot said within bounds (its handshake's words are bounded by the protocol itself): an
# illegal reply and the detail of a fault, each cut with a note of how much was left out.
MAX_ACTION_KEPT = 100
MAX_DETAIL_KEPT = 500


def cut(text: str, most: int) -> str:
    """``text``, or its first ``most`` characters and how many more there were."""
    return text if len(text) <= most else f"{text[:most]}... ({len(text) - most} more characters not kept)"


def game_wire_id(seed: int, game_id: str) -> str:
    """The id a game is given on the wire: 12 hex digits of a hash of its seed and its id in the schedule."""
    return hashlib.sha256(f"wire:{seed}:{game_id}".encode()).hexdigest()[:12]


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
    upcoming: Sequence[Player] = (),
    upcoming_game: str = "",
    seen: list[Sequence[ev.Notice]] | None = None,
) -> GameRecord:
    """Play one game; always returns a record, whatever the bots do.

    The seats' processes are started side by side (or were, ahead: see
    :meth:`Player.prepare`); once they are all there, those of the
    ``upcoming`` game's players are started in the background (for the
    game ``upcoming_game``: its logs, see :meth:`Player.will_play`). The
    players' processes are left running (a runner stops those that will
    not play again with :meth:`Player.game_over`).

    The bots are told another id for the game than ``game_id``, which
    names the pairing and the deal: a hash of the (secret) game seed and
    ``game_id``, kept in the record as ``wire_id``. It tells a bot nothing,
    differs between the seatings of a deal, and is the same when the game
    is played again (bots that seed their randomness with it replay alike).

    ``decks`` are the decks of the first deals (a deal file's); the deals
    after them come from ``seed``. The record says how many were given
    (``extra["fixed_decks"]``), so that a replay deals them alike.

    ``seen``, if given, is added each step's notices (every event with the
    seats allowed to see it), as the bots are told them: the deal's, then
    each action's, one list a step. They are the rules' own objects, kept
    by reference (nothing copied, nothing worked out): a caller that wants
    the game's events without replaying its record (the report's films)
    takes them from there.
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
        for p in players:
            p.will_play(game_id)
            p.prepare(nursery)
        clients = []
        for seat, p in enumerate(players):
            try:
                clients.append(await p.ensure_started(nursery))
            except BotError as e:
                raise _SeatFault(seat, _termination_of(e), f"failed to start: {e}") from None
        for p in upcoming:
            p.will_play(upcoming_game)
            p.prepare(nursery)
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
        _deliver(clients, notices, record, observers, seen)
        while (decision := game.decision()) is not None:
            action = await _take_turn(game, decision, clients[decision.seat], clocks[decision.seat],
                                      observers.get(decision.seat), record)
            _deliver(clients, game.apply(action), record, observers, seen)
        record.termination = Termination.COMPLETED
        record.result = game.returns()
    except _SeatFault as fault:
        record.termination = fault.termination
        record.culprit = fault.seat
        record.detail = cut(fault.detail, MAX_DETAIL_KEPT)
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


async def _take_turn(game: GameState, decision: Decision, client: BotClient, clock: Clock,
                     observer: Observer | None, record: GameRecord) -> Action:
    """Ask the seat to act, charge its clock and check its reply: the legal action, recorded; any fault of the
    seat's raises :class:`_SeatFault`."""
    seat = decision.seat
    wait = clock.deadline_ms()  # before the charge changes it: the message below gives this one
    v3_melds = client.version >= 3 and decision.kind is ev.DecisionKind.MELD
    request = request_message(decision, clock.allowance_ms(), int(clock.bank_ms),
                              game.meld_value if v3_melds else None)
    if observer is not None:
        client.post(state_message(observer.observation()))
    try:
        reply = await client.request(request, wait)
    except BotError as e:
        raise _SeatFault(seat, _termination_of(e), str(e)) from None
    text, used = reply.action, reply.used_ms
    if not clock.charge(used):
        raise _SeatFault(seat, Termination.TIMEOUT, f"replied after {used:.0f} ms; allowed {wait:.0f}")
    try:
        action = _checked_action(game, text, client.version >= 3, v3_melds)
    except IllegalActionError as e:
        shown = cut(text, MAX_ACTION_KEPT)
        record.actions.append(ActionEntry(seat, shown, used))
        await _tell_error(client, f"illegal action {shown}: {e}")
        raise _SeatFault(seat, Termination.ILLEGAL_ACTION, f"{shown}: {e}") from None
    record.actions.append(ActionEntry(seat, action.to_text(), used))
    return action


def _checked_action(game: GameState, text: str, version_3: bool, melds_scored: bool) -> Action:
    """The legal action ``text`` names; a version 3 meld may carry ``=POINTS``, which must be what it scores."""
    action_text, points = split_points(text) if version_3 else (text, None)
    action = action_from_text(action_text)
    game.check(action)
    if points is not None:
        if not melds_scored or not isinstance(action, Meld):
            raise IllegalActionError("only a meld may carry =POINTS")
        scored = game.meld_value(action)
        if points != scored:
            raise IllegalActionError(f"{action_text} scores {scored} now, not {points}")
    return action


def _deliver(clients: Sequence[BotClient], notices: Sequence[ev.Notice], record: GameRecord,
             observers: dict[int, Observer], seen: list[Sequence[ev.Notice]] | None) -> None:
    """Record what happened and queue each event for the seats that may see it (written before their next request).

    A seat's :class:`Observer` (version 3's ``want state``) sees exactly the events its bot is told, and ``seen``
    (see :func:`play_game`) keeps the step's notices.
    """
    if seen is not None:
        seen.append(notices)
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
        v3_only = isinstance(event, V3_EVENTS)
        for seat in notice.seats:
            if not v3_only or clients[seat].version >= 3:
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
