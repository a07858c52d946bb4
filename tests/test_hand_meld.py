"""Counting a whole hand's meld as the bidding games do (004's tables), worked by hand."""

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from referee.rules import cards
from referee.rules.cards import Rank, Suit, make_deck
from referee.rules.melds import count_hand_meld, fewest_cards, hand_meld_points, type_name
from referee.rules.variants import DOUBLE_DECK_MELDS, LINEAR_UNIT_MELDS, UNIT_MELDS

H, S, C = Suit.HEARTS, Suit.SPADES, Suit.CLUBS


def summary(hand, trump, table):
    return sorted((m.kind, m.multiplicity, m.points) for m in count_hand_meld(cards(hand), trump, table))


def test_run_with_a_spare_royal_marriage():
    # A T K Q J of hearts (15) and a second K Q of hearts (a royal marriage, 4): the run's own
    # royal marriage is not counted again
    assert summary("AH TH KH QH JH KH QH 9C", H, UNIT_MELDS) == [("royal", 1, 4), ("run", 1, 15)]


def test_king_king_queen_is_one_marriage():
    assert summary("KS KS QS 9C", H, UNIT_MELDS) == [("marriage", 1, 2)]
    assert summary("KS KS QS QS", H, UNIT_MELDS) == [("marriage", 2, 4)]


def test_a_king_serves_kings_around_and_a_marriage():
    # kings around 8, marriage of spades 2, pinochle (JD QS) 4, dix 1
    assert summary("KH KS KD KC QS JD 9H", H, UNIT_MELDS) == [
        ("dix", 1, 1), ("kings", 1, 8), ("marriage", 1, 2), ("pinochle", 1, 4)]


def test_double_pinochle_and_double_aces_use_the_2x_column():
    assert summary("JD JD QS QS", H, UNIT_MELDS) == [("pinochle", 2, 30)]
    assert summary("AH AS AD AC AH AS AD AC", C, UNIT_MELDS) == [("aces", 2, 100)]


def test_round_house_is_the_sum_of_its_parts():
    # K Q in every suit, hearts trump: kings 8 + queens 6 + royal 4 + three marriages of 2 = 24, 004's value
    assert hand_meld_points(cards("KH QH KS QS KD QD KC QC"), H, UNIT_MELDS) == 8 + 6 + 4 + 3 * 2  # 24


def test_double_deck_values_as_printed():
    # 80-card deck: two runs in clubs (250), a third pair K Q of clubs (royal 4),
    # triple aces (300) and a single pinochle (15)
    hand = "AC TC KC QC JC AC TC KC QC JC KC QC AH AS AD AH AS AD AH AS AD JD QS AC"
    counted = summary(hand, C, DOUBLE_DECK_MELDS)
    assert ("run", 2, 250) in counted and ("royal", 1, 4) in counted
    assert ("aces", 3, 300) in counted and ("pinochle", 1, 15) in counted
    assert hand_meld_points(cards(hand), C, DOUBLE_DECK_MELDS) == 250 + 4 + 300 + 15


def test_quadruple_values():
    hand = " ".join(["AH AS AD AC"] * 4)
    assert summary(hand, C, DOUBLE_DECK_MELDS) == [("aces", 4, 500)]


def test_nothing_to_meld():
    assert count_hand_meld(cards("9C TD JS AH"), H, UNIT_MELDS) == []


def test_double_round_house_is_240_in_the_double_deck():  # issue 13, item 2
    # two kings and two queens in every suit, hearts trump: 004's double-deck table prices the double
    # round house at 240 (the parts would give 80 + 60 + 8 + 3 x 4 = 160); with the pinochle, 255
    hand = "KC KC QC QC KD KD QD QD KH KH QH QH KS KS QS QS AC AC JD TS"
    assert summary(hand, H, DOUBLE_DECK_MELDS) == [("pinochle", 1, 15), ("roundhouse", 2, 240)]
    assert hand_meld_points(cards(hand), H, DOUBLE_DECK_MELDS) == 255


def test_a_single_round_house_is_listed_as_its_parts_when_it_scores_the_same():
    hand = "KC QC KD QD KH QH KS QS"
    assert summary(hand, H, DOUBLE_DECK_MELDS) == [
        ("kings", 1, 8), ("marriage", 1, 2), ("marriage", 1, 2), ("marriage", 1, 2), ("queens", 1, 6), ("royal", 1, 4)]


def test_a_runs_king_and_queen_do_not_count_towards_a_round_house():
    # one K Q of hearts is inside the run, so only one round house is free of it: the double round
    # house is not there, and the hand counts as its parts: run 25, the spare royal marriage 4,
    # double marriages 3 x 4, double kings 80, double queens 60
    hand = "AH TH KH QH JH KH QH KC KC QC QC KD KD QD QD KS KS QS QS"
    assert hand_meld_points(cards(hand), H, DOUBLE_DECK_MELDS) == 25 + 4 + 12 + 80 + 60
    assert "roundhouse" not in [kind for kind, _, _ in summary(hand, H, DOUBLE_DECK_MELDS)]
    # with both K Q of hearts outside the run it is a double round house
    hand = "AH TH KH QH JH KH QH KH QH KC KC QC QC KD KD QD QD KS KS QS QS"
    assert ("roundhouse", 2, 240) in summary(hand, H, DOUBLE_DECK_MELDS)


def shown(hand, trump, table):
    return [(type_name(m.kind, m.multiplicity), m.cards) for m in count_hand_meld(hand, trump, table)]


def test_a_run_beside_a_royal_marriage_needs_two_kings_and_two_queens_of_trump():
    need = fewest_cards(shown(cards("AH TH KH QH JH KH QH 9C"), H, UNIT_MELDS))
    assert need == Counter(cards("AH TH KH QH JH KH QH"))


SINGLE = make_deck(2, list(Rank))
DOUBLE = make_deck(4, [Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK])


@given(st.sampled_from([(SINGLE, UNIT_MELDS, 12), (SINGLE, LINEAR_UNIT_MELDS, 16), (DOUBLE, DOUBLE_DECK_MELDS, 20),
                        (DOUBLE, DOUBLE_DECK_MELDS, 40)]),
       st.sampled_from(list(Suit)), st.randoms(use_true_random=False))
def test_the_fewest_cards_behind_a_meld_are_in_the_hand_and_meld_the_same(game, trump, rng):
    """What an observer may conclude from melds shown: no more than the hand holds, and enough to meld them."""
    deck, table, size = game
    hand = rng.sample(deck, size)
    lines = shown(hand, trump, table)
    need = fewest_cards(lines)
    assert not Counter(need) - Counter(hand)
    assert shown(list(Counter(need).elements()), trump, table) == lines
