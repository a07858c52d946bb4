"""Typed messages of the pinochle-arena text protocol, versions 1 to 3.

Each message is a frozen record with ``to_text()``; ``protocol.codec`` parses
lines back into them. Cards are two-character tokens (``AS``, ``TD``, ``9C``);
actions are opaque one-token strings whose meaning belongs to the rules
(``AS``, ``table:AS``, ``royal:KH,QH``, ``pass``, ``take:stock``...).
See PROTOCOL.md for the grammar and the meaning of each message.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

PROTOCOL_VERSION = 3  # the version the referee greets with; a bot opts in with 'protocol 3'
FALLBACK_VERSION = 2  # what a bot that does not opt in is spoken to in (versions 1 and 2 read alike)
HIDDEN = "??"  # a card the audience may not see


def _ints(values: Iterable[float]) -> str:
    return " ".join(_num(v) for v in values)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# --------------------------------------------------------------- referee -> bot
@attrs.frozen
class Hello:
    version: int = PROTOCOL_VERSION

    def to_text(self) -> str:
        return f"pinochle {self.version}"


@attrs.frozen
class NewGame:
    game_id: str
    variant: str
    seat: int
    players: int
    options: tuple[tuple[str, str], ...] = ()

    def to_text(self) -> str:
        opts = "".join(f" {k}={v}" for k, v in self.options)
        return f"game {self.game_id} {self.variant} {self.seat} {self.players}{opts}"


NO_CARD = "-"  # in 'deal': the bidding games have no turn-up


@attrs.frozen
class Deal:
    hand: int
    dealer: int
    turnup: str  # NO_CARD in the bidding games
    cards: tuple[str, ...]

    def to_text(self) -> str:
        return f"deal {self.hand} {self.dealer} {self.turnup} {' '.join(self.cards)}"


@attrs.frozen
class Bonus:
    seat: int
    points: int
    reason: str

    def to_text(self) -> str:
        return f"bonus {self.seat} {self.points} {self.reason}"


@attrs.frozen
class Play:
    seat: int
    action: str

    def to_text(self) -> str:
        return f"play {self.seat} {self.action}"


@attrs.frozen
class Trick:
    winner: int
    points: int

    def to_text(self) -> str:
        return f"trick {self.winner} {self.points}"


@attrs.frozen
class Draw:
    seat: int
    card: str  # HIDDEN when drawn face down by another seat

    def to_text(self) -> str:
        return f"draw {self.seat} {self.card}"


@attrs.frozen
class MeldShown:
    seat: int
    name: str
    points: int
    cards: tuple[str, ...]

    def to_text(self) -> str:
        return f"meld {self.seat} {self.name} {self.points} {' '.join(self.cards)}"


@attrs.frozen
class Exchange:
    seat: int
    dix: str
    taken: str

    def to_text(self) -> str:
        return f"exchange {self.seat} {self.dix} {self.taken}"


@attrs.frozen
class PhaseTwo:
    leader: int

    def to_text(self) -> str:
        return f"phase2 {self.leader}"


@attrs.frozen
class TargetEvent:
    """Version 3: the target rose (``tiebreak=play-on``: both seats reached it in one hand)."""

    target: int

    def to_text(self) -> str:
        return f"target {self.target}"


@attrs.frozen
class ClaimMade:
    seat: int
    success: bool

    def to_text(self) -> str:
        return f"claim {self.seat} {'yes' if self.success else 'no'}"


@attrs.frozen
class HandEnd:
    hand: int
    points: tuple[int, ...]
    totals: tuple[int, ...]

    def to_text(self) -> str:
        return f"handend {self.hand} points {_ints(self.points)} totals {_ints(self.totals)}"


@attrs.frozen
class GameOver:
    termination: str  # completed, timeout, illegal-action, protocol-error, crash
    culprit: int | None  # the seat at fault, if any
    result: tuple[float, ...]
    totals: tuple[int, ...]

    def to_text(self) -> str:
        who = "-" if self.culprit is None else str(self.culprit)
        return f"gameover {self.termination} {who} result {_ints(self.result)} totals {_ints(self.totals)}"


@attrs.frozen
class Request:
    """Asks the bot for exactly one action."""

    decision: str  # lead, follow, meld, take; bid, trump, call, give, bury
    time_left_ms: int  # what the bot may still spend on this reply (bank or move limit, the smaller)
    bank_ms: int  # its whole remaining time bank for the game
    legal: tuple[str, ...] = ()  # every legal action (always sent; bids as range tokens)

    def to_text(self) -> str:
        head = f"go {self.decision} {self.time_left_ms} {self.bank_ms}"
        return f"{head} {' '.join(self.legal)}" if self.legal else head


@attrs.frozen
class ErrorNotice:
    text: str

    def to_text(self) -> str:
        return f"error {self.text}"


@attrs.frozen
class Ping:
    token: str

    def to_text(self) -> str:
        return f"ping {self.token}"


@attrs.frozen
class MatchEnd:
    def to_text(self) -> str:
        return "matchend"


@attrs.frozen
class Quit:
    def to_text(self) -> str:
        return "quit"


# ------------------------------------------------------- bidding games (v2)
def _cards(cards: Iterable[str]) -> str:
    return " ".join(cards)


@attrs.frozen
class BidEvent:
    seat: int
    amount: int | None  # None: passed

    def to_text(self) -> str:
        return f"bid {self.seat} {'pass' if self.amount is None else self.amount}"


@attrs.frozen
class BidWon:
    seat: int
    amount: int

    def to_text(self) -> str:
        return f"bidwon {self.seat} {self.amount}"


@attrs.frozen
class RedealEvent:
    dealer: int

    def to_text(self) -> str:
        return f"redeal {self.dealer}"


@attrs.frozen
class Kitty:
    cards: tuple[str, ...]

    def to_text(self) -> str:
        return f"kitty {_cards(self.cards)}"


@attrs.frozen
class KittyCard:
    card: str

    def to_text(self) -> str:
        return f"kittycard {self.card}"


@attrs.frozen
class ThrowIn:
    seat: int

    def to_text(self) -> str:
        return f"throwin {self.seat}"


@attrs.frozen
class Trump:
    seat: int
    suit: str

    def to_text(self) -> str:
        return f"trump {self.seat} {self.suit}"


@attrs.frozen
class Call:
    seat: int
    card: str

    def to_text(self) -> str:
        return f"call {self.seat} {self.card}"


@attrs.frozen
class PartnerEvent:
    bidder: int
    partner: int | None

    def to_text(self) -> str:
        return f"partner {self.bidder} {'-' if self.partner is None else self.partner}"


@attrs.frozen
class Give:
    giver: int
    receiver: int
    cards: tuple[str, ...]  # HIDDEN for cards this audience may not see

    def to_text(self) -> str:
        return f"give {self.giver} {self.receiver} {_cards(self.cards)}"


@attrs.frozen
class Bury:
    seat: int
    cards: tuple[str, ...]

    def to_text(self) -> str:
        return f"bury {self.seat} {_cards(self.cards)}"


@attrs.frozen
class Dummy:
    seat: int
    card: str

    def to_text(self) -> str:
        return f"dummy {self.seat} {self.card}"


@attrs.frozen
class Contract:
    bidder: int
    bid: int
    made: bool
    points: int

    def to_text(self) -> str:
        return f"contract {self.bidder} {self.bid} {'made' if self.made else 'set'} {self.points}"


# ------------------------------------------------------------ version 3
@attrs.frozen
class SetOption:
    """An option the bot declared, set to the value the organiser chose (or its default)."""

    name: str
    value: str

    def to_text(self) -> str:
        return f"setoption {self.name} {self.value}"


@attrs.frozen
class Rule:
    """One rule of the game about to start: ``rule KEY VALUE...`` (PROTOCOL.md, section 10)."""

    key: str
    values: tuple[str, ...]

    def to_text(self) -> str:
        return f"rule {self.key} {' '.join(self.values)}"


@attrs.frozen
class State:
    """A snapshot of what the seat may know, sent before each request to a bot that asked for it."""

    fields: tuple[tuple[str, str], ...]

    def to_text(self) -> str:
        return "state " + " ".join(f"{k}={v}" for k, v in self.fields)


RefereeMessage = (
    Hello | NewGame | Deal | Bonus | Play | Trick | Draw | MeldShown | Exchange | PhaseTwo | ClaimMade | TargetEvent
    | HandEnd | GameOver | Request | ErrorNotice | Ping | MatchEnd | Quit
    | BidEvent | BidWon | RedealEvent | Kitty | KittyCard | ThrowIn | Trump | Call | PartnerEvent | Give | Bury | Dummy | Contract
    | SetOption | Rule | State
)


# --------------------------------------------------------------- bot -> referee
@attrs.frozen
class Id:
    field: str  # name, author, or any other lower-case key (version, url, ...)
    value: str

    def to_text(self) -> str:
        return f"id {self.field} {self.value}"


@attrs.frozen
class Ready:
    def to_text(self) -> str:
        return "ready"


@attrs.frozen
class Info:
    text: str

    def to_text(self) -> str:
        return f"info {self.text}" if self.text else "info"


@attrs.frozen
class Pong:
    token: str

    def to_text(self) -> str:
        return f"pong {self.token}"


@attrs.frozen
class Reply:
    """The bot's action, one token."""

    action: str

    def to_text(self) -> str:
        return self.action


@attrs.frozen
class ProtocolChoice:
    """``protocol 3`` in the handshake: the bot speaks version 3."""

    version: int

    def to_text(self) -> str:
        return f"protocol {self.version}"


OPTION_TYPES = ("int", "bool", "choice", "string")


@attrs.frozen
class OptionDeclared:
    """``option NAME TYPE DEFAULT [MIN MAX | CHOICE...]``: a setting the organiser may change (like UCI's)."""

    name: str
    type: str  # one of OPTION_TYPES
    default: str
    extra: tuple[str, ...] = ()  # int: (min, max); choice: the choices; else nothing

    def to_text(self) -> str:
        return " ".join(("option", self.name, self.type, self.default, *self.extra))

    def check(self, value: str) -> str | None:
        """Why ``value`` is not a value of this option (None: it is)."""
        if self.type == "int":
            try:
                number = int(value)
            except ValueError:
                return f"{self.name} takes a whole number, not {value!r}"
            low, high = (int(x) for x in self.extra)
            return None if low <= number <= high else f"{self.name} takes {low} to {high}, not {value}"
        if self.type == "bool":
            return None if value in ("yes", "no") else f"{self.name} takes yes or no, not {value!r}"
        if self.type == "choice":
            return None if value in self.extra else f"{self.name} takes one of {', '.join(self.extra)}, not {value!r}"
        return None


@attrs.frozen
class Want:
    """``want FEATURE`` in the handshake: ``want state`` asks for a snapshot before each request."""

    feature: str

    def to_text(self) -> str:
        return f"want {self.feature}"


BotMessage = Id | Ready | Info | Pong | Reply | ProtocolChoice | OptionDeclared | Want
