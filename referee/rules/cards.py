"""Cards, suits, ranks and decks.

A card is a value: the two aces of spades in a pinochle deck are equal and
interchangeable, exactly as they are at the table. Text form is two
characters, rank then suit: ``AS TD KH QC JD 9S``.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable

import attrs


class Suit(enum.Enum):
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


class Rank(enum.Enum):
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


@attrs.frozen(order=False, cache_hash=True)
class Card:
    rank: Rank
    suit: Suit

    @classmethod
    def from_text(cls, text: str) -> Card:
        if len(text) != 2:
            raise ValueError(f"not a card: {text!r} (expected rank then suit, like AS or 9D)")
        return _BY_TEXT.get(text.upper()) or cls(Rank.from_text(text[0]), Suit.from_text(text[1]))

    def to_text(self) -> str:
        return self.rank.value + self.suit.value

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Card({self.to_text()})"

    @property
    def sort_key(self) -> tuple[str, int]:
        return (self.suit.value, -self.rank.strength)


ALL_FACES: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in Rank)
_BY_TEXT = {c.to_text(): c for c in ALL_FACES}


def card(text: str) -> Card:
    return Card.from_text(text)


def cards(text: str) -> list[Card]:
    """``cards("AS TS KS")`` -> three cards. Handy in tests and bots."""
    return [Card.from_text(t) for t in text.split()]


def cards_to_text(items: Iterable[Card]) -> str:
    return " ".join(c.to_text() for c in items)


def sort_cards(items: Iterable[Card]) -> list[Card]:
    return sorted(items, key=lambda c: c.sort_key)


def make_deck(copies: int, ranks: Iterable[Rank]) -> tuple[Card, ...]:
    """A deck with ``copies`` of every card of the given ranks in every suit."""
    ranks = tuple(ranks)
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
