"""The rules of pinochle as a pure, deterministic state machine.

Nothing in this package knows about processes, time or text on a wire.

    >>> from referee.rules import get_variant, new_game
    >>> game, notices = new_game(get_variant("two-handed"), seed=1)
    >>> decision = game.decision()          # seat to act, kind, legal actions
    >>> notices = game.apply(decision.legal[0])

``game.check(action)`` raises :class:`IllegalActionError` with the reason,
``game.observation(seat)`` is what one seat knows (and its ``sample(rng)`` a
world of hidden cards consistent with it), ``game.determinize(seat, rng)`` a
copy of the game in such a world, ``game.returns()`` the result once
``game.is_terminal()``. docs/rules-api.md documents the public API.
"""

from .actions import (
    Action,
    AuctionChoices,
    Bid,
    BuryCard,
    CallCard,
    Claim,
    DeclareTrump,
    GiveCard,
    IllegalActionError,
    Meld,
    Pass,
    PlayCard,
    StockPick,
    TakeLast,
    ThrowIn,
    action_from_text,
)
from .auction_game import AuctionGame
from .cards import Card, Rank, Suit, card, cards
from .dealing import Deal
from .events import Decision, DecisionKind, Notice
from .families import FAMILIES, new_game
from .game import Game, Step, recorded_action
from .observation import Observation, Observer, World
from .stock_game import StockGame
from .variants import OPTIONS, PRESETS, Variant, VariantError, get_variant


def fault_returns(variant: Variant, seat: int) -> tuple[float, ...]:
    """The result of a game ended by ``seat``'s fault: its side loses, every other seat wins."""
    from .variants import Partners

    losers = {seat}
    if variant.partners is Partners.OPPOSITE:
        losers.add((seat + 2) % variant.players)
    return tuple(0.0 if s in losers else 1.0 for s in range(variant.players))


__all__ = [
    "Action", "AuctionChoices", "AuctionGame", "Bid", "BuryCard", "CallCard", "Card", "Claim", "Deal", "Decision",
    "DecisionKind", "DeclareTrump", "FAMILIES", "Game", "GiveCard", "IllegalActionError", "Meld", "Notice", "OPTIONS",
    "Observation", "Observer", "PRESETS", "Pass", "PlayCard", "Rank", "Step", "StockGame", "StockPick", "Suit",
    "TakeLast", "ThrowIn", "Variant", "VariantError", "action_from_text", "card", "cards", "fault_returns",
    "get_variant", "new_game", "recorded_action", "World",
]
