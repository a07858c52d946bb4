"""The auction of the bidding games, as a small pure state machine.

Seats bid in turn, starting left of the dealer; a seat that passes is out.
The auction ends when one bidder is left (or, with a single round, when every
seat has spoken once). Which amounts are legal is data: a minimum and a
ladder of steps (004's double deck: 1 up to 60, 5 up to 100, 10 above, so 115
is no bid). What happens when everyone passes is data too.

The bidding games' state machine (:mod:`.auction_game`) runs one ``Auction``
per deal.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import attrs


class AllPass(enum.Enum):
    """Everyone passed without a bid."""

    DEALER_STUCK = "dealer-stuck"  # 004 double deck: the dealer takes it at the minimum
    DEALER_MAY_TAKE = "dealer-may-take"  # 004 three- and four-handed: the dealer takes it at the minimum, or redeals
    REDEAL = "redeal"


@attrs.frozen
class BidLadder:
    """Legal bid amounts: from ``minimum``, in ``steps`` of (up to and including this amount, step)."""

    minimum: int
    steps: tuple[tuple[int, int], ...] = ((10**9, 1),)
    maximum: int = 10**6  # the highest bid; a variant sets it to what a side could score (Variant.bids)

    def is_amount(self, amount: int) -> bool:
        return any(amount in r for r in self.ranges(None))

    def ranges(self, above: int | None) -> list[range]:
        """Legal amounts strictly above ``above`` (None: no bid yet), as ranges."""
        lowest = self.minimum if above is None else max(above + 1, self.minimum)
        out: list[range] = []
        start = self.minimum  # the first amount of the current segment
        for i, (upto, step) in enumerate(self.steps):
            last = min(upto, self.maximum)
            first = start
            if first < lowest:
                first += -(-(lowest - first) // step) * step  # up to the segment's grid
            if first <= last:
                out.append(range(first, last + 1, step))
            if upto >= self.maximum or i + 1 == len(self.steps):
                break
            start = upto + self.steps[i + 1][1]  # the next segment starts one of its steps above this one's top
        return out


@attrs.define
class Auction:
    seats: int
    dealer: int
    ladder: BidLadder
    all_pass: AllPass = AllPass.DEALER_STUCK
    single_round: bool = False
    to_act: int = 0
    high_bid: int | None = None
    high_bidder: int | None = None
    passed: set[int] = attrs.Factory(set)
    spoken: int = 0
    rounds: int = 0  # rounds of bidding completed: the turn went round past the dealer (003's kitty auction)
    awaiting_dealer: bool = False  # everyone passed; the dealer may take it at the minimum or redeal
    result: tuple[int, int] | None = None  # (winner, amount) when the auction is over
    redeal: bool = False

    def __attrs_post_init__(self) -> None:
        self.to_act = (self.dealer + 1) % self.seats

    @property
    def over(self) -> bool:
        return self.result is not None or self.redeal

    def legal(self) -> tuple[bool, list[range]]:
        """(may pass, ranges of legal bids) for the seat to act."""
        if self.over:
            return False, []
        if self.awaiting_dealer:
            return True, [range(self.ladder.minimum, self.ladder.minimum + 1)]
        return not self.dealer_stuck, self.ladder.ranges(self.high_bid)

    @property
    def dealer_stuck(self) -> bool:
        """``all-pass=dealer-stuck``: every other seat passed without a bid, so the dealer must bid (at least the
        minimum). It is offered no ``pass``, which would otherwise have to mean "take it at the minimum"."""
        return (self.all_pass is AllPass.DEALER_STUCK and self.high_bid is None and self.to_act == self.dealer
                and len(self.passed - {self.dealer}) == self.seats - 1)

    def bid(self, amount: int) -> None:
        may_pass, ranges = self.legal()
        if not any(amount in r for r in ranges):
            allowed = ", ".join(range_text(r) for r in ranges) or "none"
            raise ValueError(f"{amount} is not a legal bid now (legal: {allowed})")
        if self.awaiting_dealer:
            self.result = (self.dealer, amount)
            return
        self.high_bid, self.high_bidder = amount, self.to_act
        self._next()

    def pass_(self) -> None:
        if self.over:
            raise ValueError("the auction is over")
        if self.dealer_stuck:
            raise ValueError("every other seat passed: the dealer is stuck and must bid")
        if self.awaiting_dealer:
            self.redeal = True
            return
        self.passed.add(self.to_act)
        self._next()

    def _next(self) -> None:
        self.spoken += 1
        active = [s for s in range(self.seats) if s not in self.passed]
        if self.high_bidder is not None and self.high_bid is not None and (active == [self.high_bidder] or (self.single_round and self.spoken >= self.seats)):
            self.result = (self.high_bidder, self.high_bid)
            return
        if not active or (self.single_round and self.spoken >= self.seats and self.high_bidder is None):
            self._everyone_passed()
            return
        seat = self.to_act
        for _ in range(self.seats):
            seat = (seat + 1) % self.seats
            if seat not in self.passed:
                break
        if self._place(seat) <= self._place(self.to_act):
            self.rounds += 1
        self.to_act = seat

    def _place(self, seat: int) -> int:
        """Where ``seat`` speaks in a round: 0 left of the dealer, ..., the dealer last."""
        return (seat - self.dealer - 1) % self.seats

    def _everyone_passed(self) -> None:
        if self.all_pass is AllPass.DEALER_STUCK:
            self.result = (self.dealer, self.ladder.minimum)
        elif self.all_pass is AllPass.DEALER_MAY_TAKE:
            self.awaiting_dealer = True
            self.to_act = self.dealer
        else:
            self.redeal = True


def range_text(r: range) -> str:
    """``50..60``, ``65..100/5``, or one amount (the protocol's range token after ``bid:``)."""
    if len(r) == 1:
        return str(r.start)
    return f"{r.start}..{r[-1]}" + (f"/{r.step}" if r.step != 1 else "")


def ranges_text(ranges: Sequence[range]) -> str:
    return ", ".join(range_text(r) for r in ranges)


DOUBLE_DECK_LADDER = BidLadder(50, ((60, 1), (100, 5), (10**6, 10)))
