"""Where the cards of each deal come from: a shuffle seeded from the game's seed, or a fixed deck."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from .cards import Card, make_deck, sort_cards
from .variants import Variant


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
