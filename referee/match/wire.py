"""Rules events and decisions -> protocol messages. The one place the two meet.

Version 3 adds three things made here: the ``rule`` lines that describe a
game before it starts, the ``state`` snapshot of what a seat knows (from
:class:`~.rules.observation.Observer`, fed the same events as the bot), and
the points a legal meld would score, written into its token (``royal:KH,QH=4``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol import HIDDEN
from protocol import messages as m

from ..rules import events as e
from ..rules.actions import AuctionChoices, Meld, PlayCard
from ..rules.bidding import range_text
from ..rules.cards import sort_cards
from ..rules.melds import KINDS
from ..rules.observation import Observation
from ..rules.tricks import MustWin
from ..rules.variants import Variant


def new_game_message(game_id: str, variant: Variant, seat: int) -> m.NewGame:
    return m.NewGame(game_id, variant.name, seat, variant.players, tuple(variant.settings().items()))


def event_message(event: e.Event) -> m.RefereeMessage | None:
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
        message = event_message(event)
        assert message is not None, "every kept event has a line"
        text = _TEXTS[event] = message.to_text()
    return text


V3_EVENTS = (e.TargetRaised,)  # events with a line only in version 3 (a version 2 bot hears exactly what it did)
_KEPT = (e.Played, e.TrickWon, e.Drew)  # few distinct values, each hashed once (cache_hash)
_TEXTS: dict[e.Event, str] = {}


def _deal(ev: e.HandDealt) -> m.Deal:
    turnup = m.NO_CARD if ev.turnup is None else ev.turnup.to_text()
    return m.Deal(ev.hand, ev.dealer, turnup, tuple(c.to_text() for c in ev.cards))


# One entry per event type: a dict lookup instead of a chain of isinstance checks (each function takes the
# event of its key: a table keyed by type, which the type checker cannot pair, hence Any)
_MESSAGE_OF: dict[type, Callable[[Any], m.RefereeMessage | None]] = {
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
    e.TargetRaised: lambda ev: m.TargetEvent(ev.target),
    e.HandEnded: lambda ev: m.HandEnd(ev.hand, ev.points, ev.totals),
    e.GameEnded: lambda ev: None,  # the referee sends its own gameover, which also covers faults
}


def _texts(cards) -> tuple[str, ...]:
    return tuple(HIDDEN if c is None else c.to_text() for c in cards)


def request_message(decision: e.Decision, time_left_ms: int, bank_ms: int, meld_value=None) -> m.Request:
    """The request for ``decision``; with ``meld_value`` (version 3) each meld token carries its points."""
    return m.Request(_KIND_TEXT[decision.kind], time_left_ms, bank_ms, legal_tokens(decision.legal, meld_value))


_KIND_TEXT = {kind: kind.value for kind in e.DecisionKind}  # (an enum's value is two Python calls away)


def legal_tokens(actions, meld_value=None) -> tuple[str, ...]:
    """The legal actions as tokens; an auction's bids as ranges: ``bid:50..60``, ``bid:65..100/5``.

    ``meld_value(meld)`` gives what a meld would score; its tokens then end
    in ``=POINTS`` (version 3), which a reply may keep or leave off.
    """
    if isinstance(actions, AuctionChoices):
        return (("pass",) if actions.may_pass else ()) + tuple("bid:" + range_text(r) for r in actions.ranges)
    if meld_value is None:  # (most requests: one pass, no call per action but its text's)
        return tuple([a.to_text() for a in actions if type(a) is not PlayCard or not a.copy])
    tokens = []
    for a in actions:
        if type(a) is PlayCard and a.copy:
            continue  # named copies are accepted, not listed: PROTOCOL.md
        if meld_value is not None and isinstance(a, Meld):
            tokens.append(f"{a.to_text()}={meld_value(a)}")
        else:
            tokens.append(a.to_text())
    return tuple(tokens)


# ---------------------------------------------------------------- version 3
_DUTY_WORDS = {MustWin.ALWAYS: "head", MustWin.TRUMP_LED: "head-if-trump-led", MustWin.NEVER: None}


def rule_messages(variant: Variant) -> list[m.Rule]:
    """The rules of a game that matter for play, as ``rule`` lines (PROTOCOL.md, section 10)."""
    values = variant.counter_values
    rules = [
        m.Rule("ranks", tuple(r.value for r in variant.deck_ranks)),
        m.Rule("copies", (str(variant.deck_copies),)),
        m.Rule("points", tuple(f"{r.value}={values.get(r, 0)}" for r in variant.deck_ranks)),
        m.Rule("last-trick", (str(variant.last_trick),)),
        m.Rule("target", (str(variant.target),)),
    ]
    for kind in KINDS:
        row = variant.melds.values.get(kind)
        if row is not None:
            levels = [row[i] if i < len(row) else None for i in range(variant.deck_copies)]
            rules.append(m.Rule("meld", (kind, *("-" if v is None else str(v) for v in levels))))
    strict = tuple(w for w in ("suit", "trump", _DUTY_WORDS[variant.phase2_must_win]) if w)
    if variant.family == "stock":
        rules.append(m.Rule("follow", ("1", "free")))
    rules.append(m.Rule("follow", ("2", *strict)))
    if variant.first_lead_trump:
        rules.append(m.Rule("first-lead", ("trump",)))
    return rules


def _cards_text(cards) -> str:
    return ",".join(c.to_text() for c in cards) or "-"


def _per_seat(values) -> str:
    return "/".join(str(v) for v in values)


def state_message(obs: Observation) -> m.State:
    """What the seat may know now, as one ``state`` line (PROTOCOL.md, section 10)."""
    leader = obs.trick[0][0] if obs.trick else None
    fields = [
        ("hand", str(obs.hand_number)), ("dealer", str(obs.dealer)), ("phase", str(obs.phase)),
        ("trump", obs.trump.value if obs.trump is not None else "-"),
        ("turnup", obs.turnup.to_text() if obs.turnup is not None else "-"),
        ("cards", _cards_text(obs.hand)),
        ("tables", "/".join(_cards_text(t) for t in obs.tables)),
        ("leader", "-" if leader is None else str(leader)),
        ("trick", _cards_text(c for _, c in obs.trick)),
        ("held", _per_seat(len(obs.hand) if s == obs.seat else n for s, n in enumerate(obs.held))),
        *((name, str(n)) for name, n in obs.piles),
        ("bid", "-" if obs.bidder is None else f"{obs.bidder}:{obs.bid}"),
        ("partner", "-" if obs.partner is None else str(obs.partner)),
        ("meld", _per_seat(obs.meld_points)), ("tricks", _per_seat(obs.trick_points)),
        ("totals", _per_seat(obs.totals)),
        ("unseen", ",".join(f"{c.to_text()}:{n}" for c, n in _sorted_counts(obs.unseen())) or "-"),
        ("target", str(obs.target)),
        ("bids", ",".join(f"{seat}:{'pass' if amount is None else amount}" for seat, amount in obs.bids) or "-"),
        ("won", _per_seat(obs.tricks_won)),
        ("known", "/".join("-" if s == obs.seat else _cards_text(k) for s, k in enumerate(obs.known))),
    ]
    return m.State(tuple(fields))


def _sorted_counts(counts):
    return [(c, counts[c]) for c in sort_cards(counts)]
