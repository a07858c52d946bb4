"""The auction of the bidding games: legal amounts and who wins the bid."""

import pytest

from referee.rules.bidding import (
    DOUBLE_DECK_LADDER,
    AllPass,
    Auction,
    BidLadder,
    ranges_text,
)


def amounts(ranges):
    return [a for r in ranges for a in r]


def test_double_deck_ladder_of_004():
    ladder = DOUBLE_DECK_LADDER
    for ok in (50, 51, 59, 60, 65, 95, 100, 110, 150):
        assert ladder.is_amount(ok), ok
    for bad in (49, 61, 64, 101, 105, 115):
        assert not ladder.is_amount(bad), bad
    assert amounts(ladder.ranges(None))[:14] == [50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 65, 70, 75]
    assert amounts(ladder.ranges(58))[:6] == [59, 60, 65, 70, 75, 80]
    assert amounts(ladder.ranges(100))[:3] == [110, 120, 130]
    assert ranges_text(ladder.ranges(97)) == "100, 110..1000/10"
    assert all(ladder.is_amount(a) for a in amounts(ladder.ranges(None)))


def test_single_step_ladder():
    ladder = BidLadder(20, maximum=40)
    assert amounts(ladder.ranges(None)) == list(range(20, 41))
    assert amounts(ladder.ranges(25)) == list(range(26, 41))


def test_auction_until_one_bidder_is_left():
    a = Auction(3, dealer=0, ladder=BidLadder(20, maximum=100))
    assert a.to_act == 1  # left of the dealer opens
    a.bid(20)
    a.bid(21)  # seat 2
    a.pass_()  # seat 0
    assert a.to_act == 1
    with pytest.raises(ValueError, match="not a legal bid"):
        a.bid(21)
    a.bid(25)
    a.pass_()  # seat 2 drops out; seat 1 wins
    assert a.result == (1, 25)


def test_everyone_passes_dealer_stuck():
    a = Auction(4, dealer=2, ladder=DOUBLE_DECK_LADDER, all_pass=AllPass.DEALER_STUCK)
    for _ in range(4):
        a.pass_()
    assert a.result == (2, 50)


def test_everyone_passes_dealer_may_take_or_redeal():
    a = Auction(3, dealer=0, ladder=BidLadder(20), all_pass=AllPass.DEALER_MAY_TAKE)
    for _ in range(3):
        a.pass_()
    assert a.awaiting_dealer and a.to_act == 0
    assert a.legal() == (True, [range(20, 21)])
    a.bid(20)
    assert a.result == (0, 20)
    b = Auction(3, dealer=0, ladder=BidLadder(20), all_pass=AllPass.DEALER_MAY_TAKE)
    for _ in range(4):
        b.pass_()
    assert b.redeal and b.result is None


def test_single_round():
    a = Auction(2, dealer=0, ladder=BidLadder(20), single_round=True)
    a.bid(22)  # seat 1
    a.bid(30)  # seat 0 (dealer) speaks last
    assert a.result == (0, 30)
