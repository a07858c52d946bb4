"""Actions a seat can take, each with a one-token text form.

The text form is what a bot sends and what a game record stores:

===================  =====================================================
``AS``               play a card from the hand to the trick (lead or follow)
``table:AS``         play a melded card lying on the table to the trick
``table:KS@kings``   ... naming the copy by the melds it served, when two differ
``royal:KH,QH``      make a meld, naming the cards it takes from the hand
``pass``             make no (more) meld
``take:stock``       last two stock cards: take the face-down card
``take:turnup``      last two stock cards: take the turn-up
``claim``            claim to have reached the target (if the variant allows)
``throw-in``         concede the hand instead of declaring trump (003, alternate scoring)
``bid:25``           bid 25 (bidding games); ``pass`` passes
``trump:H``          declare trump
``call:AS``          call a card: its first holder is the partner (five players)
``give:AS``          pass one card to the partner (one request per card)
``bury:AS``          bury one card (one request per card)
===================  =====================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import ClassVar, overload

import attrs

from .cards import ALL_FACES, Card, IdentityEnum, Interned, Suit, sort_cards
from .melds import Meld as Meld  # re-exported: a meld is one of the actions
from .melds import parse_type_name


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the message says why."""


class PlayCard(Interned):
    """Play a card to the trick: from the hand, or (``from_table``) a melded card lying on the table.

    Two copies of a card on the table may have served different melds; then
    ``copy`` names the one to play by its history, the melds it served in
    order joined by ``+`` (``table:KS@kings``, ``table:KS@marriage+pinochle``).
    Without ``copy`` the referee chooses (:meth:`.melds.MeldBoard.remove`).

    Like :class:`Card`, interned: there is one object per (card, from_table,
    copy), so ``PlayCard(card("AS")) is PlayCard(card("AS"))``, and equality
    and hashing are by identity, at C speed; every legality check compares
    actions. It behaves as a frozen value: attributes cannot be set.
    """

    __slots__ = ("_text", "card", "copy", "from_table")
    _interned: ClassVar[dict[tuple[Card, bool, str | None], PlayCard]] = {}

    card: Card
    from_table: bool  # a melded card lying on the table (first phase of two-handed)
    copy: str | None  # which table copy, by the melds it served; None: either (or the only one)
    _text: str

    def __new__(cls, card: Card, from_table: bool = False, copy: str | None = None) -> PlayCard:
        found = cls._interned.get((card, from_table, copy))
        if found is not None:
            return found
        if not isinstance(card, Card) or not isinstance(from_table, bool):
            raise TypeError(f"PlayCard(card, from_table) takes a Card and a bool, got {card!r}, {from_table!r}")
        if copy is not None and not (from_table and isinstance(copy, str) and copy):
            raise TypeError(f"only a table card names its copy, by a non-empty history: {copy!r}")
        text = ("table:" if from_table else "") + card.to_text() + ("" if copy is None else "@" + copy)
        return cls._made((card, from_table, copy), card=card, from_table=from_table, copy=copy, _text=text)

    def __reduce__(self) -> tuple[type[PlayCard], tuple[Card, bool, str | None]]:
        return (PlayCard, (self.card, self.from_table, self.copy))

    def __repr__(self) -> str:
        copy = "" if self.copy is None else f", copy={self.copy!r}"
        return f"PlayCard(card={self.card!r}, from_table={self.from_table!r}{copy})"

    def plain(self) -> PlayCard:
        """The same play without naming the copy (as version 2 of the protocol shows it)."""
        return self if self.copy is None else PlayCard(self.card, self.from_table)

    def to_text(self) -> str:
        return self._text


@attrs.frozen
class Pass:
    def to_text(self) -> str:
        return "pass"


class StockPick(IdentityEnum):
    STOCK = "stock"
    TURNUP = "turnup"


@attrs.frozen
class TakeLast:
    pick: StockPick

    def to_text(self) -> str:
        return "take:" + self.pick.value


@attrs.frozen
class Claim:
    def to_text(self) -> str:
        return "claim"


@attrs.frozen
class ThrowIn:
    """003, alternate scoring: the bid winner concedes the hand instead of declaring trump."""

    def to_text(self) -> str:
        return "throw-in"


@attrs.frozen
class Bid:
    amount: int

    def to_text(self) -> str:
        return f"bid:{self.amount}"


@attrs.frozen
class DeclareTrump:
    suit: Suit

    def to_text(self) -> str:
        return f"trump:{self.suit.value}"


@attrs.frozen
class _CardChoice:
    """An action that names one card: its text is ``verb:CARD``."""

    card: Card
    verb: ClassVar[str] = ""

    def to_text(self) -> str:
        return f"{self.verb}:{self.card.to_text()}"


@attrs.frozen
class CallCard(_CardChoice):
    """Call a card: its first holder is the partner for the hand (five players)."""

    verb: ClassVar[str] = "call"


@attrs.frozen
class GiveCard(_CardChoice):
    """Pass one card to the partner (cards are passed one request at a time)."""

    verb: ClassVar[str] = "give"


@attrs.frozen
class BuryCard(_CardChoice):
    """Bury one card (one request at a time)."""

    verb: ClassVar[str] = "bury"


class AuctionChoices(Sequence["Pass | Bid"]):
    """The legal actions of a turn in the auction: ``pass`` if allowed, then every bid of ``ranges``.

    It is the tuple ``(Pass(), Bid(20), Bid(21), ...)`` without making it:
    the highest bid is what a side could score at most, so a turn offers up
    to several hundred bids. Indexing, iterating, ``len``, ``in`` (by
    arithmetic) and equality with a tuple work as on that tuple.
    """

    __slots__ = ("may_pass", "ranges")

    def __init__(self, may_pass: bool, ranges: Sequence[range]) -> None:
        self.may_pass = may_pass
        self.ranges = tuple(ranges)

    def __len__(self) -> int:
        return int(self.may_pass) + sum(len(r) for r in self.ranges)

    def __iter__(self) -> Iterator[Pass | Bid]:
        if self.may_pass:
            yield Pass()
        for r in self.ranges:
            for amount in r:
                yield Bid(amount)

    @overload
    def __getitem__(self, index: int) -> Pass | Bid: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Pass | Bid, ...]: ...

    def __getitem__(self, index: int | slice) -> Pass | Bid | tuple[Pass | Bid, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += len(self)
        if self.may_pass:
            if index == 0:
                return Pass()
            index -= 1
        for r in self.ranges:
            if 0 <= index < len(r):
                return Bid(r[index])
            index -= len(r)
        raise IndexError("auction choice index out of range")

    def __contains__(self, action: object) -> bool:
        if type(action) is Pass:
            return self.may_pass
        return type(action) is Bid and any(action.amount in r for r in self.ranges)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AuctionChoices):
            return (self.may_pass, self.ranges) == (other.may_pass, other.ranges)
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"AuctionChoices(may_pass={self.may_pass}, ranges={list(self.ranges)})"


Action = PlayCard | Meld | Pass | TakeLast | Claim | ThrowIn | Bid | DeclareTrump | CallCard | GiveCard | BuryCard

_ONE_CARD = {cls.verb: cls for cls in (CallCard, GiveCard, BuryCard)}
_HISTORY = re.compile(r"[a-z-]+(\+[a-z-]+)*")  # meld type names joined by +
# Every card play, made once: by from_table and card (the rules engine's legal plays), and by its token as
# written here (AS, table:AS), the commonest reply, looked up before parsing.
PLAYS: dict[bool, dict[Card, PlayCard]] = {t: {c: PlayCard(c, t) for c in ALL_FACES} for t in (False, True)}
_PLAY_OF_TEXT = {p.to_text(): p for by_card in PLAYS.values() for p in by_card.values()}


def action_from_text(text: str) -> Action:
    """Parse one action token; raises IllegalActionError with a readable reason."""
    found = _PLAY_OF_TEXT.get(text)
    if found is not None:
        return found
    token = text.strip()
    low = token.lower()
    if low == "pass":
        return Pass()
    if low == "claim":
        return Claim()
    if low == "throw-in":
        return ThrowIn()
    if low.startswith("take:"):
        try:
            return TakeLast(StockPick(low[5:]))
        except ValueError:
            raise IllegalActionError(f"{token!r}: expected take:stock or take:turnup") from None
    head, sep, rest = token.partition(":")
    if sep and head.lower() in _ONE_CARD:
        try:
            return _ONE_CARD[head.lower()](Card.from_text(rest))
        except ValueError as e:
            raise IllegalActionError(f"{token!r}: {e}") from None
    if sep and head.lower() == "bid":
        if not (rest.isascii() and rest.isdigit() and len(rest) <= 9):  # int() refuses 4,300 digits, with a crash
            raise IllegalActionError(f"{token!r}: a bid is bid:AMOUNT, a whole number like bid:25")
        return Bid(int(rest))
    if sep and head.lower() == "trump":
        try:
            return DeclareTrump(Suit.from_text(rest))
        except ValueError as e:
            raise IllegalActionError(f"{token!r}: {e}") from None
    if low.startswith("table:"):
        face, at, copy = token[6:].partition("@")
        if at and not _HISTORY.fullmatch(copy.lower()):
            raise IllegalActionError(f"{token!r}: a table copy is named by the melds it served, "
                                     "e.g. table:KS@kings or table:KS@marriage+pinochle")
        try:
            return PlayCard(Card.from_text(face), from_table=True, copy=copy.lower() if at else None)
        except ValueError as e:
            raise IllegalActionError(f"{token!r}: {e}") from None
    if ":" in token:
        name, _, rest = token.partition(":")
        try:
            kind, mult = parse_type_name(name.lower())
            hand = tuple(Card.from_text(t) for t in rest.split(",")) if rest else ()
        except ValueError as e:
            raise IllegalActionError(f"{token!r}: {e}") from None
        return Meld(kind, mult, tuple(sort_cards(hand)))
    try:
        return PlayCard(Card.from_text(token))
    except ValueError:
        raise IllegalActionError(f"{token!r} is not an action (a card like AS, a meld like royal:KH,QH, pass, "
                                 "take:stock, take:turnup, claim, bid:N, trump:S, throw-in, call:AS, give:AS, bury:AS)") from None
