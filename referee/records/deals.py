"""Deal files: a fixed list of deals to play, the card game's counterpart of a chess opening book.

A run given a deal file (``--deals FILE``) plays its deals in order, one deal
per game (every seating of a duplicate deal plays the same one), starting
again from the first when it needs more deals than the file holds. The tool
writes deal files from any results (``pinochle-arena deals OUT``), so an
organiser can publish the deals of an event after it and a user can replay
the exact deals of a regression, or generates them from a seed.

The format is text, one item per line; ``#`` starts a comment::

    pinochle-arena deals 1
    variant two-handed
    deal 1 seed 8812093
    deck 9H KD AS ...        # the first deal's 48 cards, top card first
    deck QC 9S TH ...        # the second deal's (the next hand, or a redeal)
    deal 2 seed 51

A deal is the decks of a game's first deals, in order, and a seed for the
deals after them (and for the id the bots are told). Each deck is dealt
exactly as the variant deals a shuffled one (docs/boards.md, "Deal files"). A deal
may list no decks: its seed alone then decides the cards.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from ..rules.cards import Card, cards_to_text, make_deck, sort_cards
from ..rules.dealing import deck_of, derive_seed, recorded_deal, shuffled_deck
from ..rules.variants import Variant
from .record import GameRecord

MAGIC = "pinochle-arena deals 1"


class DealsOrder(enum.StrEnum):
    """In which order a run plays a deal file's deals; the value is the configuration's and the flag's text."""

    SEQUENTIAL = "sequential"  # in turn, as the file has them
    RANDOM = "random"  # in an order drawn from the run's seed (:meth:`DealFile.in_random_order`)


class DealFileError(ValueError):
    """A deal file that cannot be used; the message names the file, the line and the problem."""


@attrs.frozen
class FixedDeal:
    seed: int
    decks: tuple[tuple[Card, ...], ...] = ()


@attrs.frozen
class DealFile:
    variant: str
    deals: tuple[FixedDeal, ...]
    order_seed: int | None = None  # None: the file's order; else a random order drawn from this seed

    def deal(self, k: int) -> FixedDeal:
        """Deal number ``k`` (from 0) of a run: the file's deals in turn, again from the first when they run out;
        in random order (:meth:`in_random_order`), each pass through the file in an order of its own."""
        passes, i = divmod(k, len(self.deals))
        if self.order_seed is None:
            return self.deals[i]
        return self.deals[_order(len(self.deals), self.order_seed, passes)[i]]

    def in_random_order(self, seed: int) -> DealFile:
        """The same deals, played in an order drawn from ``seed`` (cutechess's openings ``order=random``)."""
        return attrs.evolve(self, order_seed=seed)

    def digest(self) -> str:
        """A short hash of the deals (a run's fingerprint keeps it, so a resume with another file is refused)."""
        return hashlib.sha256(render_deals(self).encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=8)
def _order(count: int, seed: int, passes: int) -> tuple[int, ...]:
    """A random order of ``count`` deals, one per pass through the file."""
    order = list(range(count))
    random.Random(f"{seed}:{passes}").shuffle(order)
    return tuple(order)


def render_deals(deals: DealFile, comment: str = "") -> str:
    lines = [f"# {line}" for line in comment.splitlines()] + [MAGIC, f"variant {deals.variant}"]
    for number, deal in enumerate(deals.deals, 1):
        lines.append(f"deal {number} seed {deal.seed}")
        lines += ["deck " + cards_to_text(deck) for deck in deal.decks]
    return "\n".join(lines) + "\n"


def read_deals(path: Path, variant: Variant) -> DealFile:
    """Read and check a deal file for ``variant``: DealFileError with the line for anything wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DealFileError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    return parse_deals(text, variant, str(path))


def parse_deals(text: str, variant: Variant, where: str = "deal file") -> DealFile:
    full = sort_cards(make_deck(variant.deck_copies, variant.deck_ranks))
    lines = [(n, line.split("#", 1)[0].split()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, words) for n, words in lines if words]
    if not lines or " ".join(lines[0][1]) != MAGIC:
        raise DealFileError(f"{where}: not a deal file (its first line should be '{MAGIC}')")
    if len(lines) < 2 or lines[1][1][0] != "variant" or len(lines[1][1]) != 2:
        raise DealFileError(f"{where}: line {lines[1][0] if len(lines) > 1 else 1}: expected 'variant NAME'")
    name = lines[1][1][1]
    if name != variant.name:
        raise DealFileError(f"{where}: holds deals of {name}; this run plays {variant.name}")
    deals: list[FixedDeal] = []
    for number, words in lines[2:]:
        if words[0] == "deal":
            if len(words) != 4 or words[1] != str(len(deals) + 1) or words[2] != "seed" or not words[3].isdigit():
                raise DealFileError(f"{where}: line {number}: expected 'deal {len(deals) + 1} seed N' "
                                    "(deals numbered in order from 1, N a whole number)")
            deals.append(FixedDeal(int(words[3])))
        elif words[0] == "deck":
            if not deals:
                raise DealFileError(f"{where}: line {number}: a deck before the first 'deal' line")
            try:
                deck = tuple(Card.from_text(t) for t in words[1:])
            except ValueError as e:
                raise DealFileError(f"{where}: line {number}: {e}") from None
            if sort_cards(deck) != full:
                raise DealFileError(f"{where}: line {number}: not one {variant.deck_size}-card deck of "
                                    f"{variant.name} ({len(deck)} cards{_difference(deck, full)})")
            deals[-1] = attrs.evolve(deals[-1], decks=(*deals[-1].decks, deck))
        else:
            raise DealFileError(f"{where}: line {number}: unknown line {words[0]!r} (expected deal or deck)")
    if not deals:
        raise DealFileError(f"{where}: holds no deals")
    return DealFile(name, tuple(deals))


def _difference(deck: Sequence[Card], full: list[Card]) -> str:
    missing, extra = list(full), []
    for c in deck:
        if c in missing:
            missing.remove(c)
        else:
            extra.append(c)
    parts = []
    if missing:
        parts.append("missing " + " ".join(sorted({c.to_text() for c in missing})))
    if extra:
        parts.append("too many " + " ".join(sorted({c.to_text() for c in extra})))
    return "; " + ", ".join(parts) if parts else ""


def generate_deals(variant: Variant, seed: int, count: int, decks: int) -> DealFile:
    """``count`` deals of ``decks`` decks each, shuffled as the referee shuffles, from ``seed``."""
    deals = []
    for k in range(count):
        deal_seed = derive_seed(seed, "deal", k)
        deals.append(FixedDeal(deal_seed, tuple(tuple(shuffled_deck(variant, deal_seed, d)) for d in range(1, decks + 1))))
    return DealFile(variant.name, tuple(deals))


def deals_of_records(records: Iterable[GameRecord], variant: Variant) -> DealFile:
    """The deals of recorded games, in the order they were first played: the games dealt from one seed are one
    deal (the seatings of a duplicate deal), whose decks are those of its longest game."""
    longest: dict[int, GameRecord] = {}
    for r in records:
        if r.variant != variant.name:
            raise DealFileError(f"game {r.game_id} is {r.variant}, not {variant.name}: a deal file holds one variant")
        if r.seed not in longest or len(r.deals) > len(longest[r.seed].deals):
            longest[r.seed] = r
    deals = tuple(FixedDeal(seed, tuple(tuple(deck_of(variant, *recorded_deal(e))) for e in r.deals))
                  for seed, r in longest.items())
    return DealFile(variant.name, deals)


def record_decks(record: GameRecord, variant: Variant) -> list[list[Card]]:
    """The decks a record's game was given from a deal file (its first ``fixed_decks`` deals), for replay."""
    return [deck_of(variant, *recorded_deal(e)) for e in record.deals[: record.extra.get("fixed_decks", 0)]]
