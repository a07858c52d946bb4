"""Trick-taking: who wins, and what a follower may play."""

import pytest

from referee.rules import card, cards
from referee.rules.cards import Suit
from referee.rules.tricks import (
    FREE_PLAY,
    FollowDuty,
    MustWin,
    legal_plays,
    trick_winner,
)

H, S, D, C = Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS


@pytest.mark.parametrize(
    "played, trump, winner",
    [
        ("AS TS", H, 0),  # higher card of the suit led wins; the ten is below the ace
        ("TS KS", H, 0),  # the ten beats the king
        ("9S AD", H, 0),  # a card of another suit never wins
        ("AS 9H", H, 1),  # any trump beats a plain card
        ("AS AS", H, 0),  # of two identical cards the first played wins
        ("9H TH", H, 1),
        ("KD QD AD", C, 2),  # three seats
        ("KD 9C AC", C, 2),  # overtrumping
    ],
)
def test_trick_winner(played, trump, winner):
    assert trick_winner(0, cards(played), trump, len(played.split())) == winner


def test_trick_winner_counts_from_leader():
    assert trick_winner(1, cards("AS 9H"), H, 2) == 0


def test_first_phase_is_free():
    hand = cards("AS 9H KD QC")
    assert set(legal_plays(hand, cards("TS"), H, FREE_PLAY)) == set(hand)


STRICT = FollowDuty(must_follow=True, must_trump=True, must_win=MustWin.ALWAYS)
TRUMP_LED_ONLY = FollowDuty(must_follow=True, must_trump=True, must_win=MustWin.TRUMP_LED)


def test_must_follow_and_beat_when_able():
    hand = cards("AS 9S KH QD")
    assert legal_plays(hand, cards("TS"), H, STRICT) == [card("AS")]


def test_must_follow_even_when_unable_to_beat():
    hand = cards("9S JS KH")
    assert set(legal_plays(hand, cards("TS"), H, STRICT)) == {card("9S"), card("JS")}


def test_must_trump_when_void():
    hand = cards("9H KD QC")
    assert legal_plays(hand, cards("TS"), H, STRICT) == [card("9H")]


def test_anything_when_void_in_suit_and_trump():
    hand = cards("KD QC")
    assert set(legal_plays(hand, cards("TS"), H, STRICT)) == set(hand)


def test_must_win_only_on_trump_lead():
    hand = cards("AS 9S")
    assert set(legal_plays(hand, cards("TS"), H, TRUMP_LED_ONLY)) == {card("AS"), card("9S")}
    trumps = cards("AH 9H")
    assert legal_plays(trumps, cards("TH"), H, TRUMP_LED_ONLY) == [card("AH")]


def test_must_overtrump_a_trumped_trick_when_void():
    # three seats: spade led, trumped with the queen; a void follower must beat the queen of trump
    hand = cards("KH 9H AD")
    assert legal_plays(hand, cards("TS QH"), H, STRICT) == [card("KH")]


def test_following_suit_after_a_trump_cannot_win():
    hand = cards("AS 9S")
    assert set(legal_plays(hand, cards("TS QH"), H, STRICT)) == {card("AS"), card("9S")}


def test_lead_is_free_and_distinct():
    hand = cards("AS AS 9H")
    assert legal_plays(hand, [], H, STRICT) == [card("AS"), card("9H")]
