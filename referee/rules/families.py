"""Which state machine plays each family of variants, and starting a game of any variant."""

from __future__ import annotations

from collections.abc import Sequence

from .auction_game import AuctionGame
from .cards import Card
from .dealing import Deal
from .events import Notice
from .state import GameState
from .stock_game import StockGame
from .variants import Variant

# Which state machine plays a variant's family. A new family of games (the
# bidding games, say) registers its class here; a new variant of an existing
# family is only a preset in variants.py.
FAMILIES: dict[str, type[GameState]] = {"stock": StockGame, "auction": AuctionGame}


def new_game(variant: Variant, seed: int = 0, decks: Sequence[Sequence[Card]] = (), deal: Deal | None = None,
             dealer: int = 0, totals: Sequence[int] | None = None) -> tuple[GameState, list[Notice]]:
    """Start a game: returns (state, notices of the first deal).

    The first hand is dealt by ``dealer`` from ``deal`` if given (any
    position: the hands, turn-up and stock order, or kitty and dummy), else
    from the shuffle of ``seed``; later hands come from the seed. ``totals``
    starts the game at those scores (a position late in a game). ``decks``
    fixes the shuffled deck of the first hands (tests, worked examples).
    """
    return FAMILIES[variant.family].new(variant, seed, decks, deal=deal, dealer=dealer, totals=totals)
