"""Rules events and decisions -> protocol messages. The one place the two meet."""

from __future__ import annotations

from protocol import HIDDEN
from protocol import messages as m

from .rules import events as e
from .rules.actions import AuctionChoices, PlayCard
from .rules.bidding import range_text
from .rules.variants import Variant


def new_game_message(game_id: str, variant: Variant, seat: int) -> m.NewGame:
    return m.NewGame(game_id, variant.name, seat, variant.players, tuple(variant.settings().items()))


def event_message(event: e.Event):
    """The protocol message for one event (already addressed by the rules); None for none."""
    try:
        make = _MESSAGE_OF[type(event)]
    except KeyError:
        raise TypeError(f"no message for event {event!r}") from None
    return make(event)


def event_text(event: e.Event) -> str | None:
    """The protocol line for one event; None for none.

    The lines of the commonest events (a card played, a trick won, a card
    drawn: a few hundred distinct values in all) are kept, as making the
    message and its text again costs more than looking it up.
    """
    if type(event) not in _KEPT:
        message = event_message(event)
        return None if message is None else message.to_text()
    text = _TEXTS.get(event)
    if text is None:
        text = _TEXTS[event] = event_message(event).to_text()
    return text


_KEPT = (e.Played, e.TrickWon, e.Drew)  # few distinct values, each hashed once (cache_hash)
_TEXTS: dict[e.Event, str] = {}


def _deal(ev: e.HandDealt) -> m.Deal:
    turnup = m.NO_CARD if ev.turnup is None else ev.turnup.to_text()
    return m.Deal(ev.hand, ev.dealer, turnup, tuple(c.to_text() for c in ev.cards))


_MESSAGE_OF = {  # one entry per event type: a dict lookup instead of a chain of isinstance checks
    e.HandDealt: _deal,
    e.BidMade: lambda ev: m.BidEvent(ev.seat, ev.amount),
    e.AuctionWon: lambda ev: m.BidWon(ev.seat, ev.amount),
    e.Redeal: lambda ev: m.RedealEvent(ev.dealer),
    e.KittyShown: lambda ev: m.Kitty(_texts(ev.cards)),
    e.KittyCardTurned: lambda ev: m.KittyCard(ev.card.to_text()),
    e.ThrownIn: lambda ev: m.ThrowIn(ev.seat),
    e.TrumpDeclared: lambda ev: m.Trump(ev.seat, ev.suit),
    e.CardCalled: lambda ev: m.Call(ev.seat, ev.card.to_text()),
    e.PartnerKnown: lambda ev: m.PartnerEvent(ev.bidder, ev.partner),
    e.SetAside: lambda ev: None,  # the seat's own reply: no line
    e.Given: lambda ev: m.Give(ev.giver, ev.receiver, _texts(ev.cards)),
    e.Buried: lambda ev: m.Bury(ev.seat, _texts(ev.cards)),
    e.DummyTaken: lambda ev: m.Dummy(ev.seat, ev.card.to_text()),
    e.ContractResult: lambda ev: m.Contract(ev.bidder, ev.bid, ev.made, ev.points),
    e.Played: lambda ev: m.Play(ev.seat, ev.action.plain().to_text()),
    e.TrickWon: lambda ev: m.Trick(ev.seat, ev.points),
    e.Drew: lambda ev: m.Draw(ev.seat, HIDDEN if ev.card is None else ev.card.to_text()),
    e.Melded: lambda ev: m.MeldShown(ev.seat, ev.name, ev.points, tuple(c.to_text() for c in ev.cards)),
    e.Exchanged: lambda ev: m.Exchange(ev.seat, ev.dix.to_text(), ev.taken.to_text()),
    e.PhaseTwo: lambda ev: m.PhaseTwo(ev.leader),
    e.PlayBegins: lambda ev: None,  # versions 1 and 2 have no line for it: the first lead request says it
    e.Scored: lambda ev: m.Bonus(ev.seat, ev.points, ev.reason),
    e.Claimed: lambda ev: m.ClaimMade(ev.seat, ev.success),
    e.HandEnded: lambda ev: m.HandEnd(ev.hand, ev.points, ev.totals),
    e.GameEnded: lambda ev: None,  # the referee sends its own gameover, which also covers faults
}


def _texts(cards) -> tuple[str, ...]:
    return tuple(HIDDEN if c is None else c.to_text() for c in cards)


def request_message(decision: e.Decision, time_left_ms: int, bank_ms: int, send_legal: bool) -> m.Request:
    legal = legal_tokens(decision.legal) if send_legal else ()
    return m.Request(decision.kind.value, time_left_ms, bank_ms, legal)


def legal_tokens(actions) -> tuple[str, ...]:
    """The legal actions as tokens; an auction's bids as ranges: ``bid:50..60``, ``bid:65..100/5``."""
    if isinstance(actions, AuctionChoices):
        return (("pass",) if actions.may_pass else ()) + tuple("bid:" + range_text(r) for r in actions.ranges)
    return tuple(a.to_text() for a in actions if not (type(a) is PlayCard and a.copy))  # named copies: PROTOCOL.md
