"""Cards, suits, ranks and decks.

A card is a value: the two aces of spades in a pinochle deck are equal and
interchangeable, exactly as they are at the table. Text form is two
characters, rank then suit: ``AS TD KH QC JD 9S``.
"""

from __future__ import annotations

import enum
import functools
import operator
from collections import Counter
from collections.abc import Iterable
from typing import Any, ClassVar, Self


class IdentityEnum(enum.Enum):
    """An enum whose members hash by identity, as they compare.

    Enum's own ``__hash__`` is a Python function, paid on every dict lookup
    keyed by a member (counter values by rank, caches keyed by trump); for the
    enums the rules engine looks up in its inner loops, identity is enough,
    since members are singletons.
    """

    __hash__ = object.__hash__


class Suit(IdentityEnum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @classmethod
    def from_text(cls, text: str) -> Suit:
        try:
            return cls(text.upper())
        except ValueError:
            raise ValueError(f"not a suit: {text!r} (expected one of C D H S)") from None

    def to_text(self) -> str:
        return self.value


class Rank(IdentityEnum):
    """Ranks in trick-taking order, highest first (pinochle: the ten beats the king)."""

    ACE = "A"
    TEN = "T"
    KING = "K"
    QUEEN = "Q"
    JACK = "J"
    NINE = "9"

    @property
    def strength(self) -> int:
        """Higher is stronger within a suit."""
        return _STRENGTH[self]

    @classmethod
    def from_text(cls, text: str) -> Rank:
        try:
            return cls(text.upper())
        except ValueError:
            raise ValueError(f"not a rank: {text!r} (expected one of A T K Q J 9)") from None


_STRENGTH = {Rank.ACE: 6, Rank.TEN: 5, Rank.KING: 4, Rank.QUEEN: 3, Rank.JACK: 2, Rank.NINE: 1}


class Interned:
    """Base of the value classes made once per value (cards, card plays).

    Equality and hashing are by identity, so at C speed: there is only one
    object per value. Instances behave as frozen values: no attribute can be
    set after construction, and copies are the object itself.
    """

    __slots__ = ()
    _interned: ClassVar[dict[Any, Any]]  # value key -> the one object, in each subclass

    @classmethod
    def _made(cls, key: object, **values: object) -> Self:
        """The one object for ``key``, made with these attribute values (its __new__ looked first)."""
        self = object.__new__(cls)
        for name, value in values.items():
            object.__setattr__(self, name, value)
        cls._interned[key] = self
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} values are immutable")

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self


class Card(Interned):
    """One card face, e.g. the ace of spades. Immutable and interned.

    There is exactly one ``Card`` object per face: ``Card(Rank.ACE,
    Suit.SPADES) is card("AS")``. Equality and hashing are therefore by
    identity, which keeps the rules engine's hot loops (hand counting, meld
    search) fast. It behaves as a frozen value: attributes cannot be set.
    """

    __slots__ = ("rank", "suit", "strength", "order", "_text")
    _interned: ClassVar[dict[tuple[Rank, Suit], Card]] = {}

    rank: Rank
    suit: Suit
    strength: int  # higher is stronger within a suit
    order: int  # position in card order: suit (C, D, H, S), then rank high to low; sort_cards sorts by it
    _text: str

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        found = cls._interned.get((rank, suit))
        if found is not None:
            return found
        if not isinstance(rank, Rank) or not isinstance(suit, Suit):
            raise TypeError(f"Card(rank, suit) takes a Rank and a Suit, got {rank!r}, {suit!r}")
        order = sorted(Suit, key=lambda s: s.value).index(suit) * 8 + 6 - rank.strength
        return cls._made((rank, suit), rank=rank, suit=suit, strength=rank.strength,
                         order=order, _text=rank.value + suit.value)

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))

    @classmethod
    def from_text(cls, text: str) -> Card:
        found = _BY_TEXT.get(text.upper()) if len(text) == 2 else None
        if found is not None:
            return found
        if len(text) != 2:
            raise ValueError(f"not a card: {text!r} (expected rank then suit, like AS or 9D)")
        return cls(Rank.from_text(text[0]), Suit.from_text(text[1]))

    def to_text(self) -> str:
        return self._text

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card({self._text})"


ALL_FACES: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in Rank)
_BY_TEXT = {c.to_text(): c for c in ALL_FACES}


def card(text: str) -> Card:
    return Card.from_text(text)


def cards(text: str) -> list[Card]:
    """``cards("AS TS KS")`` -> three cards. Handy in tests and bots."""
    return [Card.from_text(t) for t in text.split()]


def cards_to_text(items: Iterable[Card]) -> str:
    """``"AS TS KS"``: the cards' texts, a space between them."""
    return " ".join([c._text for c in items])


def sort_cards(items: Iterable[Card]) -> list[Card]:
    return sorted(items, key=_ORDER)


_ORDER = operator.attrgetter("order")


def make_deck(copies: int, ranks: Iterable[Rank]) -> tuple[Card, ...]:
    """A deck with ``copies`` of every card of the given ranks in every suit."""
    return _deck(copies, tuple(ranks))


@functools.cache
def _deck(copies: int, ranks: tuple[Rank, ...]) -> tuple[Card, ...]:
    return tuple(Card(r, s) for _ in range(copies) for s in Suit for r in ranks)


def multiset_contains(big: Iterable[Card], small: Iterable[Card]) -> bool:
    have = Counter(big)
    need = Counter(small)
    return all(have[c] >= n for c, n in need.items())


def remove_cards(hand: list[Card], gone: Iterable[Card]) -> list[Card]:
    """A copy of ``hand`` without ``gone`` (one copy removed per card named)."""
    rest = list(hand)
    for c in gone:
        rest.remove(c)
    return rest
