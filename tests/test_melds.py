"""Progressive melding in two-handed pinochle: the texts' worked examples, literally."""

import copy

from referee.rules import cards
from referee.rules.cards import Suit, sort_cards
from referee.rules.melds import Meld, MeldBoard
from referee.rules.variants import CLASSIC_MELDS, UNIT_MELDS, get_variant

H, S = Suit.HEARTS, Suit.SPADES


def meld(board, hand, name_kind, mult, from_hand, trump=H, table=CLASSIC_MELDS):
    option = Meld(name_kind, mult, tuple(sort_cards(cards(from_hand))))
    legal = board.options(hand, table, trump, table.types())
    assert option in legal, f"{option} not among {legal}"
    before = copy.deepcopy(board)
    foreseen = board.score(option, trump, table)  # (what a version-3 request says it would score)
    assert board == before
    points, used = board.make(option, trump, table)
    assert points == foreseen
    for c in used:
        hand.remove(c)
    return points


def test_royal_marriage_extended_to_run_scores_110():  # 000
    board, hand = MeldBoard(), cards("KH QH AH TH JH 9C")
    assert meld(board, hand, "royal", 1, "KH QH") == 40
    assert meld(board, hand, "run", 1, "AH TH JH") == 110


def test_fresh_run_scores_150_and_spends_the_royal_marriage():  # 001: K and Q can't be pulled out of the flush
    board, hand = MeldBoard(), cards("AH TH KH QH JH")
    assert meld(board, hand, "run", 1, "AH TH KH QH JH") == 150
    assert not [o for o in board.options(hand, CLASSIC_MELDS, H, CLASSIC_MELDS.types()) if o.kind == "royal"]


def test_pinochle_extended_to_double_pinochle_scores_260():  # 000
    board, hand = MeldBoard(), cards("JD QS JD QS")
    assert meld(board, hand, "pinochle", 1, "JD QS") == 40
    assert meld(board, hand, "pinochle", 2, "JD QS") == 260


def test_second_pinochle_after_the_first_was_broken_scores_40():  # 000
    board, hand = MeldBoard(), cards("JD QS JD QS")
    assert meld(board, hand, "pinochle", 1, "JD QS") == 40
    board.remove(cards("QS")[0])  # the queen of spades was played to a trick
    options = board.options(hand, CLASSIC_MELDS, H, CLASSIC_MELDS.types())
    assert Meld("pinochle", 1, tuple(cards("JD QS"))) in options
    assert not [o for o in options if o.multiplicity == 2]  # no double pinochle without four cards
    assert meld(board, hand, "pinochle", 1, "JD QS") == 40


def test_the_220_point_progressive_sequence():  # 002
    # Four kings and four queens cannot be melded at once as marriages: 80 + 40 + 20 + 20 + 60.
    board, hand = MeldBoard(), cards("KH KS KD KC QH QS QD QC")
    assert meld(board, hand, "kings", 1, "KH KS KD KC") == 80
    assert meld(board, hand, "royal", 1, "QH") == 40
    assert meld(board, hand, "marriage", 1, "QS") == 20
    assert meld(board, hand, "marriage", 1, "QD") == 20
    assert meld(board, hand, "queens", 1, "QC") == 60
    assert hand == []


def test_each_meld_needs_a_card_from_the_hand():
    board, hand = MeldBoard(), cards("KS QS JD")
    assert meld(board, hand, "marriage", 1, "KS QS") == 20
    assert meld(board, hand, "pinochle", 1, "JD") == 40  # reuses the queen of spades: another kind
    hand += cards("KS")
    options = board.options(hand, CLASSIC_MELDS, H, CLASSIC_MELDS.types())
    # a second marriage of spades may not reuse the melded queen (same kind)
    assert not [o for o in options if o.kind == "marriage"]


def test_a_card_on_the_table_is_reused_only_in_another_kind():  # 000's example
    board, hand = MeldBoard(), cards("KS QS KH KD KC QH QD QC JD")
    meld(board, hand, "marriage", 1, "KS QS")
    assert meld(board, hand, "kings", 1, "KH KD KC") == 80
    assert meld(board, hand, "queens", 1, "QH QD QC") == 60
    assert meld(board, hand, "pinochle", 1, "JD") == 40


def options_of(board, hand, table=CLASSIC_MELDS, trump=H):
    return [o.to_text() for o in board.options(hand, table, trump, table.types())]


def test_playing_a_melded_card_breaks_its_melds():  # 004: a broken meld "can't be added to"
    board, hand = MeldBoard(), cards("KH QH AH TH JH")
    meld(board, hand, "royal", 1, "KH QH")
    board.remove(cards("QH")[0])
    hand += cards("QH")
    # the royal marriage is broken: its king left on the table serves no run, which is built on it
    assert not [o for o in options_of(board, hand) if o.startswith("run")]
    hand += cards("KH")  # a run of cards from the hand is a new run, 150
    assert meld(board, hand, "run", 1, "AH TH KH QH JH") == 150


def test_no_double_pinochle_over_a_broken_pinochle():  # 000: "they would only score 40 points for the second one"
    board, hand = MeldBoard(), cards("JD QS JD QS QS")
    assert meld(board, hand, "pinochle", 1, "JD QS") == 40
    board.remove(cards("QS")[0])  # the queen of spades was played to a trick
    # the hand holds J D, Q S, Q S: with the table's J D that is four cards, but the broken pinochle is not
    # built on
    assert options_of(board, hand) == ["pinochle:JD,QS"]


def test_round_house_over_broken_kings_around_is_refused_as_a_second_kings_around_is():  # issue 34, item 9
    # kings around (80), a king played to a trick: neither a second kings around nor a round house (which
    # holds kings around) may be made with the three kings left; 80 + 240 would count them twice
    variant = get_variant("two-handed", {"roundhouse": "yes"})
    board, hand = MeldBoard(), cards("KC KD KH KS QC QD QH QS KS")
    assert meld(board, hand, "kings", 1, "KC KD KH KS", table=variant.melds) == 80
    board.remove(cards("KS")[0])
    assert not [o for o in options_of(board, hand, variant.melds) if o.startswith(("kings", "roundhouse"))]
    # the kings left still marry (a marriage is not built on kings around), the queens still meld
    assert meld(board, hand, "marriage", 1, "QC", table=variant.melds) == 20
    assert meld(board, hand, "queens", 1, "QD QH QS", table=variant.melds) == 60


def test_round_house_over_a_broken_marriage_is_refused():  # issue 34, item 9
    variant = get_variant("two-handed-150")
    board, hand = MeldBoard(), cards("KC QC KD QD KH QH KS QS QC")
    assert meld(board, hand, "marriage", 1, "KC QC", table=variant.melds) == 2
    board.remove(cards("QC")[0])
    # K C is left of the broken marriage: a round house would need another K C
    assert not [o for o in options_of(board, hand, variant.melds) if o.startswith("roundhouse")]
    hand += cards("KC")
    assert meld(board, hand, "roundhouse", 1, "KC QC KD QD KH QH KS QS", table=variant.melds) == 24


def test_records_of_before_issue_34_built_on_broken_melds_at_full_value():
    # the rule before (build_on_broken): the round house over broken kings scored its full 240
    variant = get_variant("two-handed", {"roundhouse": "yes"})
    board, hand = MeldBoard(build_on_broken=True), cards("KC KD KH KS QC QD QH QS KS")
    assert meld(board, hand, "kings", 1, "KC KD KH KS", table=variant.melds) == 80
    board.remove(cards("KS")[0])
    assert meld(board, hand, "roundhouse", 1, "KS QC QD QH QS", table=variant.melds) == 240


def test_unit_scale_upgrade_is_eleven():  # 004, two-player: 4 + 11 = 15
    board, hand = MeldBoard(), cards("KH QH AH TH JH")
    assert meld(board, hand, "royal", 1, "KH QH", table=UNIT_MELDS) == 4
    assert meld(board, hand, "run", 1, "AH TH JH", table=UNIT_MELDS) == 11


def test_double_meld_values_follow_the_table():
    board, hand = MeldBoard(), cards("AH AS AD AC AH AS AD AC")
    assert meld(board, hand, "aces", 2, "AH AS AD AC AH AS AD AC") == 200  # 000: double aces count 200
    board, hand = MeldBoard(), cards("AH AS AD AC AH AS AD AC")
    assert meld(board, hand, "aces", 2, "AH AS AD AC AH AS AD AC", table=UNIT_MELDS) == 100  # 004's 2x column


def test_double_pinochle_option_twice():
    variant = get_variant("two-handed", {"double-pinochle": "twice"})
    board, hand = MeldBoard(), cards("JD QS JD QS")
    assert meld(board, hand, "pinochle", 2, "JD QS JD QS", table=variant.melds) == 80


def test_roundhouse_option_is_the_sum_of_its_parts():
    variant = get_variant("two-handed", {"roundhouse": "yes"})
    board, hand = MeldBoard(), cards("KH KS KD KC QH QS QD QC")
    assert meld(board, hand, "roundhouse", 1, "KH KS KD KC QH QS QD QC", table=variant.melds) == 240
    # its kings and queens are spent for kings, queens and marriages
    hand += cards("KS")
    options = board.options(hand, variant.melds, H, variant.melds.types())
    assert not [o for o in options if o.kind in ("kings", "marriage")]


def test_marriage_suit_follows_trump():
    board, hand = MeldBoard(), cards("KS QS")
    options = board.options(hand, CLASSIC_MELDS, S, CLASSIC_MELDS.types())
    assert [o.kind for o in options] == ["royal"]


def test_round_house_over_kings_on_the_table_scores_only_what_it_adds():  # issue 13, item 1
    # kings around (80) then the four queens: the round house is 240 in all, not 80 + 240
    variant = get_variant("two-handed", {"roundhouse": "yes"})
    board, hand = MeldBoard(), cards("KC KD KH KS QC QD QH QS AS AS TS TS")
    assert meld(board, hand, "kings", 1, "KC KD KH KS", table=variant.melds) == 80
    assert meld(board, hand, "roundhouse", 1, "QC QD QH QS", table=variant.melds) == 160


def test_round_house_from_queens_and_marriages_on_the_table_adds_only_the_kings_and_last_marriage():
    # two-handed-150: queens 6, two marriages 2 + 2 and the royal marriage 4 are down; the king of
    # spades from the hand completes the round house (24): it adds kings around (8) and the marriage
    # of spades (2), so the eight cards score 24 in all, the round house's value
    variant = get_variant("two-handed-150")
    board, hand = MeldBoard(), cards("KC KD KH KS QC QD QH QS")
    assert meld(board, hand, "queens", 1, "QC QD QH QS", table=variant.melds) == 6
    assert meld(board, hand, "marriage", 1, "KC", table=variant.melds) == 2
    assert meld(board, hand, "marriage", 1, "KD", table=variant.melds) == 2
    assert meld(board, hand, "royal", 1, "KH", table=variant.melds) == 4
    assert meld(board, hand, "roundhouse", 1, "KS", table=variant.melds) == 10


def test_a_runs_king_and_queen_cannot_complete_a_round_house():
    # the round house holds a royal marriage, and a run's royal marriage is never counted again
    variant = get_variant("two-handed", {"roundhouse": "yes"})
    board, hand = MeldBoard(), cards("AH TH KH QH JH KS QS KD QD KC QC")
    assert meld(board, hand, "run", 1, "AH TH KH QH JH", table=variant.melds) == 150
    options = board.options(hand, variant.melds, H, variant.melds.types())
    assert not [o for o in options if o.kind == "roundhouse"]
    hand += cards("KH QH")  # a spare king and queen of trump make it possible
    assert meld(board, hand, "roundhouse", 1, "KH QH KS QS KD QD KC QC", table=variant.melds) == 240
