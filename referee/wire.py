"""Rules events and decisions -> protocol messages. The one place the two meet."""

from __future__ import annotations

from protocol import HIDDEN
from protocol import messages as m

from .rules import events as e
from .rules.variants import Variant


def new_game_message(game_id: str, variant: Variant, seat: int) -> m.NewGame:
    return m.NewGame(game_id, variant.name, seat, variant.players, tuple(variant.settings().items()))


def event_message(event: e.Event):
    """The protocol message for one event (already addressed by the rules)."""
    if isinstance(event, e.HandDealt):
        return m.Deal(event.hand, event.dealer, event.turnup.to_text(), tuple(c.to_text() for c in event.cards))
    if isinstance(event, e.Played):
        return m.Play(event.seat, event.action.to_text())
    if isinstance(event, e.TrickWon):
        return m.Trick(event.seat, event.points)
    if isinstance(event, e.Drew):
        return m.Draw(event.seat, HIDDEN if event.card is None else event.card.to_text())
    if isinstance(event, e.Melded):
        return m.MeldShown(event.seat, event.name, event.points, tuple(c.to_text() for c in event.cards))
    if isinstance(event, e.Exchanged):
        return m.Exchange(event.seat, event.dix.to_text(), event.taken.to_text())
    if isinstance(event, e.PhaseTwo):
        return m.PhaseTwo(event.leader)
    if isinstance(event, e.Scored):
        return m.Bonus(event.seat, event.points, event.reason)
    if isinstance(event, e.Claimed):
        return m.ClaimMade(event.seat, event.success)
    if isinstance(event, e.HandEnded):
        return m.HandEnd(event.hand, event.points, event.totals)
    if isinstance(event, e.GameEnded):
        return None  # the referee sends its own gameover, which also covers faults
    raise TypeError(f"no message for event {event!r}")


def request_message(decision: e.Decision, time_left_ms: int, bank_ms: int, send_legal: bool) -> m.Request:
    legal = tuple(a.to_text() for a in decision.legal) if send_legal else ()
    return m.Request(decision.kind.value, time_left_ms, bank_ms, legal)
