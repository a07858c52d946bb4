"""Where the cards of each deal come from (a shuffle seeded from the game's seed, or a fixed deck) and how they are dealt."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import attrs

from .cards import Card, make_deck, sort_cards
from .variants import Variant


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from a base seed and labels (game number, pairing...)."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def shuffled_deck(variant: Variant, seed: int, deal: int) -> list[Card]:
    """The deck of deal number ``deal`` of the game with this seed.

    Each deal's shuffle is seeded from (seed, deal) through SHA-256, so deals
    do not depend on how many random numbers earlier deals consumed and a
    duplicate game with the same seed gets the same cards deal by deal.
    """
    digest = hashlib.sha256(f"pinochle-arena:{seed}:{deal}".encode()).digest()
    deck = list(make_deck(variant.deck_copies, variant.deck_ranks))
    random.Random(int.from_bytes(digest[:16], "big")).shuffle(deck)
    return deck


def deck_for(variant: Variant, seed: int, deal: int, fixed: Sequence[Sequence[Card]] = ()) -> list[Card]:
    """Deal ``deal``'s deck (numbered from 1): ``fixed[deal - 1]`` if given (tests, worked examples), else shuffled."""
    if deal > len(fixed):
        return shuffled_deck(variant, seed, deal)
    deck = list(fixed[deal - 1])
    full = make_deck(variant.deck_copies, variant.deck_ranks)
    if sort_cards(deck) != sort_cards(full):
        raise ValueError(f"fixed deck for deal {deal} is not a full {variant.deck_size}-card deck")
    return deck


def _cards(items: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(items)


def _hands(hands: Iterable[Iterable[Card]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(h) for h in hands)


@attrs.frozen
class Deal:
    """The cards of one deal: every seat's hand, and where the rest lies.

    Two-handed with a stock: the ``turnup`` and the face-down ``stock``
    (next to draw first). The bidding games: the ``kitty`` and 003's
    ``dummy`` (its top card first). A game can start from any deal
    (:func:`referee.rules.new_game`'s ``deal``), not only from a seed.
    """

    hands: tuple[tuple[Card, ...], ...] = attrs.field(converter=_hands)
    turnup: Card | None = None
    stock: tuple[Card, ...] = attrs.field(default=(), converter=_cards)
    kitty: tuple[Card, ...] = attrs.field(default=(), converter=_cards)
    dummy: tuple[Card, ...] = attrs.field(default=(), converter=_cards)

    def check(self, variant: Variant) -> None:
        """Raise ValueError unless this is a whole deck dealt as ``variant`` deals."""
        sizes = [len(h) for h in self.hands]
        if sizes != [variant.hand_size] * variant.players:
            raise ValueError(f"{variant.name} deals {variant.players} hands of {variant.hand_size}, not {sizes}")
        if variant.family == "stock" and self.turnup is None:
            raise ValueError(f"{variant.name} turns up a card for trump: the deal needs a turnup")
        if variant.family != "stock" and (self.turnup is not None or self.stock):
            raise ValueError(f"{variant.name} has no turn-up or stock")
        if len(self.kitty) != variant.kitty or len(self.dummy) != variant.dummy:
            raise ValueError(f"{variant.name} has a kitty of {variant.kitty} and a dummy of {variant.dummy}")
        everything = [c for h in self.hands for c in h] + ([self.turnup] if self.turnup else [])
        everything += [*self.stock, *self.kitty, *self.dummy]
        if sort_cards(everything) != sort_cards(make_deck(variant.deck_copies, variant.deck_ranks)):
            raise ValueError(f"the deal's cards are not one {variant.deck_size}-card deck of {variant.name}")


def _packets(variant: Variant, dealer: int) -> Iterator[tuple[int | str, int]]:
    """(receiver, how many) for each packet dealt, in order: a seat number, or "dummy"."""
    n = variant.players
    receivers: list[int | str] = [(dealer + 1 + i) % n for i in range(n)] + (["dummy"] if variant.dummy else [])
    size = {r: variant.dummy if r == "dummy" else variant.hand_size for r in receivers}
    given = dict.fromkeys(receivers, 0)
    dealt = n * variant.hand_size + variant.dummy
    pos = 0
    while pos < dealt:
        for r in receivers:
            take = min(variant.deal_packet, size[r] - given[r])
            if take:
                yield r, take
            given[r] += take
            pos += take


def deal_out(variant: Variant, deck: Sequence[Card], dealer: int) -> Deal:
    """Deal ``deck`` as the variant deals, in packets from the dealer's left.

    Two-handed: packets of ``deal_packet`` to the non-dealer, then the
    dealer, until both have their hand; the next card is the turn-up, the
    rest the stock. The bidding games: packets to each seat from the
    dealer's left (and to the dummy last), then the kitty is what is left.
    """
    n = variant.players
    piles: dict[int | str, list[Card]] = {s: [] for s in range(n)}
    piles["dummy"] = []
    pos = 0
    for receiver, take in _packets(variant, dealer):
        piles[receiver].extend(deck[pos:pos + take])
        pos += take
    dealt = pos
    hands = [piles[s] for s in range(n)]
    if variant.family == "stock":
        return Deal(hands, turnup=deck[dealt], stock=deck[dealt + 1:])
    return Deal(hands, kitty=deck[dealt:], dummy=piles["dummy"])


def deck_of(variant: Variant, deal: Deal, dealer: int) -> list[Card]:
    """The deck that :func:`deal_out` deals as ``deal`` from ``dealer`` (its inverse)."""
    piles: dict[int | str, list[Card]] = {s: list(h) for s, h in enumerate(deal.hands)}
    piles["dummy"] = list(deal.dummy)
    deck: list[Card] = []
    for receiver, take in _packets(variant, dealer):
        deck.extend(piles[receiver][:take])
        del piles[receiver][:take]
    if variant.family == "stock":
        if deal.turnup is None:
            raise ValueError(f"{variant.name} turns up a card for trump: the deal needs a turnup")
        return deck + [deal.turnup, *deal.stock]
    return deck + list(deal.kitty)


def recorded_deal(entry: dict[str, Any]) -> tuple[Deal, int]:
    """A game record's entry of ``deals`` (the cards of one deal, as text) -> (the deal, its dealer)."""
    def read(texts: Iterable[str]) -> list[Card]:
        return [Card.from_text(t) for t in texts]

    turnup = entry.get("turnup")
    return Deal([read(h) for h in entry["hands"]], turnup=Card.from_text(turnup) if turnup else None,
                stock=read(entry.get("stock", ())), kitty=read(entry.get("kitty", ())),
                dummy=read(entry.get("dummy", ()))), entry["dealer"]
