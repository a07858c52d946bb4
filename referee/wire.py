"""Rules events and decisions -> protocol messages. The one place the two meet."""

from __future__ import annotations

from protocol import HIDDEN
from protocol import messages as m

from .rules import events as e
from .rules.actions import Bid
from .rules.variants import Variant


def new_game_message(game_id: str, variant: Variant, seat: int) -> m.NewGame:
    return m.NewGame(game_id, variant.name, seat, variant.players, tuple(variant.settings().items()))


def event_message(event: e.Event):
    """The protocol message for one event (already addressed by the rules)."""
    if isinstance(event, e.HandDealt):
        turnup = m.NO_CARD if event.turnup is None else event.turnup.to_text()
        return m.Deal(event.hand, event.dealer, turnup, tuple(c.to_text() for c in event.cards))
    if isinstance(event, e.BidMade):
        return m.BidEvent(event.seat, event.amount)
    if isinstance(event, e.AuctionWon):
        return m.BidWon(event.seat, event.amount)
    if isinstance(event, e.Redeal):
        return m.RedealEvent(event.dealer)
    if isinstance(event, e.KittyShown):
        return m.Kitty(_texts(event.cards))
    if isinstance(event, e.TrumpDeclared):
        return m.Trump(event.seat, event.suit)
    if isinstance(event, e.CardCalled):
        return m.Call(event.seat, event.card.to_text())
    if isinstance(event, e.PartnerKnown):
        return m.PartnerEvent(event.bidder, event.partner)
    if isinstance(event, e.Given):
        return m.Give(event.giver, event.receiver, _texts(event.cards))
    if isinstance(event, e.Buried):
        return m.Bury(event.seat, _texts(event.cards))
    if isinstance(event, e.DummyTaken):
        return m.Dummy(event.seat, event.card.to_text())
    if isinstance(event, e.ContractResult):
        return m.Contract(event.bidder, event.bid, event.made, event.points)
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


def _texts(cards) -> tuple[str, ...]:
    return tuple(HIDDEN if c is None else c.to_text() for c in cards)


def request_message(decision: e.Decision, time_left_ms: int, bank_ms: int, send_legal: bool) -> m.Request:
    legal = legal_tokens(decision.legal) if send_legal else ()
    return m.Request(decision.kind.value, time_left_ms, bank_ms, legal)


def legal_tokens(actions) -> tuple[str, ...]:
    """The legal actions as tokens; runs of bids become ranges: ``bid:50..60``, ``bid:65..100/5``."""
    tokens: list[str] = []
    amounts = [a.amount for a in actions if isinstance(a, Bid)]
    tokens.extend(a.to_text() for a in actions if not isinstance(a, Bid))
    i = 0
    while i < len(amounts):
        j = i
        step = amounts[i + 1] - amounts[i] if i + 1 < len(amounts) else 1
        while j + 1 < len(amounts) and amounts[j + 1] - amounts[j] == step:
            j += 1
        if j == i:
            tokens.append(f"bid:{amounts[i]}")
        else:
            tokens.append(f"bid:{amounts[i]}..{amounts[j]}" + (f"/{step}" if step != 1 else ""))
        i = j + 1
    return tuple(tokens)
