"""What seats get to see: events, each addressed to the seats that may see it.

The rules engine decides visibility, nowhere else: ``apply`` returns a list of
:class:`Notice`, each an event and the seats it is shown to. A card drawn
face down is one notice with the card for the drawer and another without it
for everybody else.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .actions import Action, PlayCard
from .cards import Card, IdentityEnum


class DecisionKind(IdentityEnum):
    LEAD = "lead"
    FOLLOW = "follow"
    MELD = "meld"
    TAKE_LAST = "take"
    BID = "bid"
    TRUMP = "trump"
    CALL = "call"
    GIVE = "give"
    BURY = "bury"


@attrs.frozen
class Decision:
    """Whose turn it is, to do what, and every legal action (a tuple; in the auction an AuctionChoices)."""

    seat: int
    kind: DecisionKind
    legal: Sequence[Action]


@attrs.frozen
class HandDealt:
    hand: int
    dealer: int
    turnup: Card | None  # the stock game's turn-up; None in the bidding games
    cards: tuple[Card, ...]  # the receiving seat's own cards


@attrs.frozen
class Scored:
    """Points not tied to a meld or trick (002: dealer's dix turn-up)."""

    seat: int
    points: int
    reason: str


@attrs.frozen(cache_hash=True)  # a key of the wire text cache (referee/match/wire.py)
class Played:
    seat: int
    action: PlayCard  # with where the card came from


@attrs.frozen(cache_hash=True)  # a key of the wire text cache (referee/match/wire.py)
class TrickWon:
    """``seat`` won the trick: ``points`` are the counters of its cards, ``bonus`` the last-trick bonus (the
    variant's ``last_trick``) on the last trick of a hand, else 0. The protocol's ``trick`` line carries
    ``points`` alone."""

    seat: int
    points: int
    bonus: int = 0


@attrs.frozen(cache_hash=True)  # a key of the wire text cache (referee/match/wire.py)
class Drew:
    seat: int
    card: Card | None  # None: drawn face down, not shown to this audience


@attrs.frozen
class Melded:
    seat: int
    name: str
    points: int
    cards: tuple[Card, ...]  # the cards taken from the hand
    # two-handed: the table cards that completed it, each with its history before this meld ("" for none yet)
    table: tuple[tuple[Card, str], ...] = ()


@attrs.frozen
class Exchanged:
    """The first dix melded was exchanged for the turn-up."""

    seat: int
    dix: Card
    taken: Card


@attrs.frozen
class PhaseTwo:
    """The stock is exhausted: melds go back to the hands; strict play from now on."""

    leader: int


@attrs.frozen
class PlayBegins:
    """The bidding games: every hand's meld has been shown; the tricks begin, led by ``leader``."""

    leader: int


@attrs.frozen
class Claimed:
    seat: int
    success: bool


@attrs.frozen
class HandEnded:
    """A hand is over: per seat, what it scored (``points``), the game totals, and the two parts of the hand.

    ``meld`` is the meld each seat showed and ``tricks`` the counters it took
    (with the last trick, and buried cards for the bid winner); ``points``
    is what counted: in the bidding games meld is lost without a trick, a
    side that is set loses its bid, and partners share the side's score.
    """

    hand: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    meld: tuple[int, ...] = ()
    tricks: tuple[int, ...] = ()


@attrs.frozen
class TargetRaised:
    """``tiebreak=play-on``: both seats reached the target in the same hand, so the game goes on to ``target``."""

    target: int


@attrs.frozen
class GameEnded:
    totals: tuple[int, ...]
    returns: tuple[float, ...]  # 1 win, 0 loss, 0.5 each for a two-way draw


@attrs.frozen
class BidMade:
    seat: int
    amount: int | None  # None: passed


@attrs.frozen
class AuctionWon:
    seat: int
    amount: int


@attrs.frozen
class Redeal:
    """Everyone passed and the deal is thrown in."""

    dealer: int


@attrs.frozen
class KittyShown:
    cards: tuple[Card, ...]


@attrs.frozen
class KittyCardTurned:
    """003's kitty auction: after a round of bids one kitty card is turned face up for everybody."""

    card: Card


@attrs.frozen
class ThrownIn:
    """003, alternate scoring: the bid winner concedes the hand instead of declaring trump and playing."""

    seat: int


@attrs.frozen
class TrumpDeclared:
    seat: int
    suit: str


@attrs.frozen
class CardCalled:
    seat: int
    card: Card


@attrs.frozen
class PartnerKnown:
    """Who plays with the bidder this hand (call-for-partner): the called card's first holder."""

    bidder: int
    partner: int | None  # None: the bidder holds every copy and plays alone


@attrs.frozen
class Given:
    """Cards passed between partners: the two of them see the cards, the others only their number."""

    giver: int
    receiver: int
    cards: tuple[Card | None, ...]  # None: face down, not shown to this audience


@attrs.frozen
class Buried:
    seat: int
    cards: tuple[Card | None, ...]


@attrs.frozen
class DummyTaken:
    """003: after a trick the top card of the dummy is turned and goes to the trick's winner."""

    seat: int
    card: Card


@attrs.frozen
class ContractResult:
    bidder: int
    bid: int
    made: bool
    points: int  # what the bidder's side scored towards the bid (meld if saved, and tricks)


@attrs.frozen
class SetAside:
    """A card the seat chose to pass or bury: out of its hand now, shown as Given or Buried once all are chosen.

    Shown to that seat alone; no protocol line (a bot knows its own replies).
    """

    seat: int
    card: Card


Event = (
    HandDealt | Scored | Played | TrickWon | Drew | Melded | Exchanged | PhaseTwo | PlayBegins | Claimed | HandEnded
    | TargetRaised | GameEnded
    | BidMade | AuctionWon | Redeal | KittyShown | KittyCardTurned | ThrownIn | TrumpDeclared | CardCalled | PartnerKnown | SetAside
    | Given | Buried
    | DummyTaken | ContractResult
)


@attrs.frozen
class Notice:
    seats: tuple[int, ...]
    event: Event

    def __deepcopy__(self, memo: dict[int, object]) -> Notice:
        return self  # a value: a copied game's log shares it
