"""The auction of the bidding games: legal amounts and who wins the bid."""

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules.actions import AuctionChoices, Bid, Pass, PlayCard
from referee.rules.bidding import (
    DOUBLE_DECK_LADDER,
    AllPass,
    Auction,
    BidLadder,
    ranges_text,
)
from referee.rules.cards import Rank, Suit, make_deck
from referee.rules.melds import hand_meld_points
from referee.rules.variants import PRESETS, get_variant


def amounts(ranges):
    return [a for r in ranges for a in r]


def test_double_deck_ladder_of_004():
    ladder = attrs.evolve(DOUBLE_DECK_LADDER, maximum=1000)  # the steps; a variant sets the highest bid
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
    """The stuck dealer is offered no pass (it would have to mean "take it at the minimum"): it must bid."""
    a = Auction(4, dealer=2, ladder=DOUBLE_DECK_LADDER, all_pass=AllPass.DEALER_STUCK)
    for _ in range(3):
        a.pass_()
    assert a.to_act == 2 and a.dealer_stuck
    may_pass, ranges = a.legal()
    assert not may_pass and ranges[0].start == 50
    with pytest.raises(ValueError, match="dealer is stuck and must bid"):
        a.pass_()
    a.bid(50)
    assert a.result == (2, 50)


def test_a_dealer_after_a_bid_is_not_stuck():
    a = Auction(4, dealer=2, ladder=DOUBLE_DECK_LADDER, all_pass=AllPass.DEALER_STUCK)
    a.pass_()
    a.bid(50)  # seat 0
    a.pass_()  # seat 1
    assert a.to_act == 2 and not a.dealer_stuck and a.legal()[0]


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


def test_no_bid_a_side_could_make_is_refused():  # issue 13, item 6
    # four-handed single deck: a side melding 188 and taking all 25 trick points scores 213, which the old
    # cap of 200 refused; the highest bid is now above anything a side could score in a hand
    four = get_variant("four-handed")
    assert four.bids.is_amount(213)
    assert Auction(4, dealer=0, ladder=four.bids).legal()[1][-1][-1] == four.bids.maximum


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([v for v in PRESETS.values() if v.family == "auction"]), st.randoms(use_true_random=False),
       st.sampled_from(list(Suit)))
def test_the_highest_bid_is_above_any_sides_score(variant, rnd, trump):
    deck = list(make_deck(variant.deck_copies, variant.deck_ranks))
    side = 1 if variant.partners.value == "none" else 2
    size = variant.hand_size + variant.kitty  # the bid winner sees the kitty too (and buries as many)
    rnd.shuffle(deck)
    honours = sorted(deck, key=lambda c: "KQAJT9".index(c.rank.value))  # kings and queens first: heavy in meld
    meld = max(hand_meld_points(hand, trump, variant.melds) for hand in (deck[:size], honours[:size]))
    assert side * meld + variant.trick_points_per_hand <= variant.bids.maximum


def test_auction_choices_behave_as_the_tuple_of_every_bid():
    ladder = attrs.evolve(DOUBLE_DECK_LADDER, maximum=200)
    choices = AuctionChoices(True, ladder.ranges(58))
    listed = (Pass(), *(Bid(a) for a in amounts(ladder.ranges(58))))
    assert choices == listed and tuple(choices) == listed and len(choices) == len(listed)
    assert [choices[i] for i in range(-len(listed), len(listed))] == list(listed) * 2
    assert choices[1:4] == listed[1:4]
    for action in (Pass(), Bid(59), Bid(65), Bid(200), Bid(61), Bid(105), Bid(210), PlayCard(make_deck(1, (Rank.ACE,))[0])):
        assert (action in choices) == (action in listed)
    assert Pass() not in AuctionChoices(False, [range(20, 30)])
    assert hash(choices) == hash(listed)
