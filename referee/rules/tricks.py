"""The rules of trick-taking, for every variant, in one place.

Two questions are answered here and nowhere else:

* who wins a trick (``trick_winner``), and
* which cards a seat may play to a trick (``legal_plays``).

The duties of a follower are data (:class:`FollowDuty`), so the free play
of the first phase of two-handed pinochle, its strict second phase and the
"follow, head the trick, else trump" of the bidding games are the same code
with different settings.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .cards import Card, IdentityEnum, Suit


class MustWin(IdentityEnum):
    """When a follower must try to win (head) the trick."""

    NEVER = "never"
    ALWAYS = "always"
    TRUMP_LED = "trump-led"


@attrs.frozen
class FollowDuty:
    """What a follower owes the trick."""

    must_follow: bool = True
    must_trump: bool = True
    must_win: MustWin = MustWin.ALWAYS


FREE_PLAY = FollowDuty(must_follow=False, must_trump=False, must_win=MustWin.NEVER)


def beats(challenger: Card, best: Card, led: Suit, trump: Suit) -> bool:
    """Does ``challenger``, played later, beat ``best``, the card winning so far?

    Trump beats non-trump; within a suit the higher rank wins; a card of
    another suit never wins; of two identical cards the first one played
    wins, so an equal card does not beat.
    """
    if challenger.suit is best.suit:
        return challenger.strength > best.strength
    return challenger.suit is trump


def winning_index(played: Sequence[Card], trump: Suit) -> int:
    """Index into ``played`` (in order of play) of the card winning so far.

    The test of :func:`beats`, written out: this runs for every trick of
    every game, and a call per card costs more than the comparison.
    """
    best = 0
    top = played[0]
    for i in range(1, len(played)):
        c = played[i]
        if (c.strength > top.strength) if c.suit is top.suit else (c.suit is trump):
            best, top = i, c
    return best


def trick_winner(leader: int, played: Sequence[Card], trump: Suit, seats: int) -> int:
    """Seat that wins a trick led by ``leader``; seats play in increasing order."""
    return (leader + winning_index(played, trump)) % seats


def legal_plays(hand: Sequence[Card], played: Sequence[Card], trump: Suit, duty: FollowDuty) -> list[Card]:
    """The distinct cards of ``hand`` that may be played to the trick so far.

    ``played`` is empty for a lead: any card may be led. Otherwise the follower
    must follow suit if able (``must_follow``), else trump if able
    (``must_trump``); and, when ``must_win`` applies, must beat the card
    winning so far if the cards it is obliged to play include one that does.
    A follower who follows suit after the trick has been trumped cannot win
    and may play any card of the suit led.
    """
    distinct = list(dict.fromkeys(hand))
    if not played:
        return distinct
    led = played[0].suit
    candidates = distinct
    if duty.must_follow:
        same = [c for c in distinct if c.suit is led]
        if same:
            candidates = same
        elif duty.must_trump:
            trumps = [c for c in distinct if c.suit is trump]
            if trumps:
                candidates = trumps
    elif duty.must_trump:
        trumps = [c for c in distinct if c.suit is trump]
        if trumps and not any(c.suit is led for c in distinct):
            candidates = trumps
    if _must_win_now(duty.must_win, led, trump):
        best = played[winning_index(played, trump)]
        # beats(c, best, led, trump), written out as in winning_index
        winners = [c for c in candidates
                   if ((c.strength > best.strength) if c.suit is best.suit else (c.suit is trump))]
        if winners:
            candidates = winners
    return candidates


def _must_win_now(rule: MustWin, led: Suit, trump: Suit) -> bool:
    if rule is _ALWAYS:
        return True
    if rule is _TRUMP_LED:
        return led is trump
    return False


# Enum members as module constants: on Python 3.11 ``MustWin.ALWAYS`` costs ten times a global's lookup.
_ALWAYS, _TRUMP_LED = MustWin.ALWAYS, MustWin.TRUMP_LED
