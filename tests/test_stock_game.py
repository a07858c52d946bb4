"""Two-handed pinochle with a stock: whole-game rules through the state machine's API."""

import pytest
from helpers import stacked_deck

from referee.rules import (
    IllegalActionError,
    Meld,
    Pass,
    PlayCard,
    StockPick,
    TakeLast,
    action_from_text,
    card,
    cards,
    get_variant,
    new_game,
)
from referee.rules import events as ev
from referee.rules.cards import sort_cards
from referee.rules.events import DecisionKind

V = get_variant("two-handed")

# Hand 1: seat 0 deals, seat 1 leads. Trump is hearts (turn-up KH).
SEAT1 = "9H QH AS TS KS AC TC KC QC JC 9C 9S"
SEAT0 = "JS JS QD QD 9D 9D JD JD KD KD TD TD"


def game_with(non_dealer=SEAT1, dealer=SEAT0, turnup="KH", stock="", variant=V):
    deck = stacked_deck(variant, non_dealer, dealer, turnup, stock)
    return new_game(variant, seed=0, decks=[deck])


def act(game, text):
    return game.apply(action_from_text(text))


def events(notices, kind, seat=None):
    return [n.event for n in notices if isinstance(n.event, kind) and (seat is None or seat in n.seats)]


def test_deal_gives_twelve_each_turnup_and_stock():
    game, notices = game_with()
    assert sorted(map(str, game.hands[1])) == sorted(SEAT1.split())
    assert sorted(map(str, game.hands[0])) == sorted(SEAT0.split())
    assert game.turnup == card("KH") and game.trump.value == "H"
    assert len(game.stock) == 23
    dealt = events(notices, ev.HandDealt)
    assert [n.seats for n in notices if isinstance(n.event, ev.HandDealt)] == [(0,), (1,)]
    assert dealt[0].dealer == 0
    d = game.decision()
    assert (d.seat, d.kind) == (1, DecisionKind.LEAD)


def test_dix_exchanged_for_turnup_then_melded_with_it_earns_50():  # 002's example
    game, _ = game_with()
    act(game, "AS")
    act(game, "JS")  # seat 0 cannot win: spade ace led
    d = game.decision()
    assert (d.seat, d.kind) == (1, DecisionKind.MELD)
    assert action_from_text("dix:9H") in d.legal
    notices = act(game, "dix:9H")
    assert events(notices, ev.Exchanged)[0] == ev.Exchanged(1, card("9H"), card("KH"))
    assert game.turnup == card("9H") and card("KH") in game.hands[1]
    d = game.decision()  # a dix may go with another meld: the king taken is usable at once
    assert d.kind is DecisionKind.MELD and action_from_text("royal:KH,QH") in d.legal
    assert not [a for a in d.legal if isinstance(a, Meld) and a.kind == "dix"]
    act(game, "royal:KH,QH")
    assert game.meld_points[1] == 50
    assert game.decision().kind is DecisionKind.LEAD  # one meld per trick: the turn is over


def test_after_another_meld_the_turn_offers_only_a_dix_then_ends():  # the other order (PROTOCOL.md, section 6)
    game, _ = game_with()
    act(game, "AS")
    act(game, "JS")
    act(game, "marriage:KC,QC")
    d = game.decision()
    assert (d.seat, d.kind) == (1, DecisionKind.MELD)
    assert [a for a in d.legal if isinstance(a, Meld)] == [action_from_text("dix:9H")]
    act(game, "dix:9H")
    assert game.meld_points[1] == 20 + 10
    assert game.decision().kind is DecisionKind.LEAD  # a dix and one other meld: the turn is over


def test_without_dix_with_meld_a_dix_ends_the_turn():
    game, _ = game_with(variant=get_variant("two-handed", {"dix-with-meld": "no"}))
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")
    assert game.decision().kind is DecisionKind.LEAD


def test_002s_kings_and_queens_one_meld_at_a_time_make_220_and_as_a_round_house_240():
    """002's worked example: kings 80, royal 40, two marriages 20 each, queens 60 (each meld a new card from the
    hand, so the fourth marriage never scores); the round house (option) melds the eight cards at once for 240."""
    hands = dict(non_dealer="KS KH KD KC QS QH QD QC AS AC AD TS", dealer="9S 9C 9D JS JC JD 9S 9C 9D JS JC JD",
                 turnup="JH", stock="AS 9H AC 9H AD TH")  # hearts trump; seat 1 leads an ace and wins each trick
    game, _ = game_with(**hands)
    tricks = [("AS", "9C"), ("AC", "9D"), ("AD", "9S"), ("AS", "JC"), ("AC", "JD")]
    melds = ["kings:KS,KH,KD,KC", "royal:QH", "marriage:QS", "marriage:QD", "queens:QC"]
    for (lead, follow), meld in zip(tricks, melds, strict=True):
        act(game, lead)
        act(game, follow)
        act(game, meld)
    assert game.meld_points[1] == 80 + 40 + 20 + 20 + 60 == 220
    game, _ = game_with(**hands, variant=get_variant("two-handed", {"roundhouse": "yes"}))
    act(game, "AS")
    act(game, "9C")
    act(game, "roundhouse:KC,QC,KD,QD,KH,QH,KS,QS")
    assert game.meld_points[1] == 240


def test_second_dix_is_only_shown():
    game, _ = game_with(dealer="9H JS QD QD 9D 9D JD JD KD KD TD TD", non_dealer="9H QH AS TS KS AC TC KC QC JC 9C 9S")
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")
    act(game, "pass")
    act(game, "9S")  # seat 1 leads a spade; seat 0 trumps with its dix... no: plays the dix to win
    act(game, "9H")
    d = game.decision()
    assert d.seat == 0 and d.kind is DecisionKind.MELD
    # seat 0 has no dix left (played it); melds nothing with a dix
    assert not [a for a in d.legal if isinstance(a, Meld) and a.kind == "dix"]


def test_meld_only_after_winning_and_needs_a_hand_card():
    game, _ = game_with()
    with pytest.raises(IllegalActionError, match="melding is only allowed right after winning a trick"):
        game.check(action_from_text("dix:9H"))
    act(game, "AS")
    act(game, "JS")
    with pytest.raises(IllegalActionError, match="not a legal meld"):
        game.check(action_from_text("royal:KH,QH"))  # KH is still the turn-up


def test_loser_cannot_meld_and_winner_draws_first():
    game, _ = game_with(stock="AH 9C")
    act(game, "AS")
    notices = act(game, "JS")
    draws = [(n.seats, n.event) for n in notices if isinstance(n.event, ev.Drew)]
    # the winner (seat 1) draws the top card, privately; the loser the next
    assert draws == [((1,), ev.Drew(1, card("AH"))), ((0,), ev.Drew(1, None)),
                     ((0,), ev.Drew(0, card("9C"))), ((1,), ev.Drew(0, None))]
    assert game.decision().seat == 1


def test_table_card_can_be_played_and_breaks_its_meld():
    game, _ = game_with()
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")
    act(game, "royal:KH,QH")
    d = game.decision()
    assert PlayCard(card("KH"), from_table=True) in d.legal
    with pytest.raises(IllegalActionError, match="play it as table:KH"):
        game.check(PlayCard(card("KH")))
    act(game, "table:KH")
    assert game.boards[1].cards() == [card("QH")]
    assert not game.boards[1].melds[0].intact


def run_to_last_two(game):
    """Play first-phase tricks (lead the first legal card, follow with the first, never meld)
    until the last two stock cards are reached."""
    while game.phase == 1:
        d = game.decision()
        if d.kind is DecisionKind.MELD:
            game.apply(Pass())
        elif d.kind is DecisionKind.TAKE_LAST:
            return d
        else:
            game.apply([a for a in d.legal if isinstance(a, PlayCard)][0])
    return None


def test_last_two_stock_cards_winner_chooses():  # 000, 004
    game, _ = game_with()
    d = run_to_last_two(game)
    assert d.kind is DecisionKind.TAKE_LAST
    assert set(d.legal) == {TakeLast(StockPick.STOCK), TakeLast(StockPick.TURNUP)}
    winner, turnup, face_down = d.seat, game.turnup, game.stock[0]
    notices = game.apply(TakeLast(StockPick.TURNUP))
    assert turnup in game.hands[winner] and face_down in game.hands[1 - winner]
    draws = [(n.seats, n.event) for n in notices if isinstance(n.event, ev.Drew)]
    assert ((0, 1), ev.Drew(winner, turnup)) in draws  # the turn-up is face up: public
    assert ((winner,), ev.Drew(1 - winner, None)) in draws  # the face-down card stays hidden
    # after drawing, the winner may still meld; then the second phase begins
    while game.phase == 1:
        game.apply(Pass())
    assert game.decision().seat == winner and game.decision().kind is DecisionKind.LEAD


def test_last_stock_card_shown_in_hoyle():  # 001
    variant = get_variant("two-handed-hoyle")
    game, _ = game_with(variant=variant)
    seen = []
    while game.phase == 1:
        d = game.decision()
        if d.kind is DecisionKind.MELD:
            notices = game.apply(Pass())
        else:
            notices = game.apply([a for a in d.legal if isinstance(a, PlayCard)][0])
        seen += [(n.seats, n.event) for n in notices if isinstance(n.event, ev.Drew)]
    last_two = seen[-2:]
    assert all(seats == (0, 1) for seats, _ in last_two)  # both shown to both players
    assert all(e.card is not None for _, e in last_two)


def test_melds_return_to_hands_in_phase_two_and_play_gets_strict():
    game, _ = game_with()
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")
    act(game, "royal:KH,QH")
    while game.phase == 1:
        d = game.decision()
        if d.kind is DecisionKind.MELD:
            game.apply(Pass())
        elif d.kind is DecisionKind.TAKE_LAST:
            game.apply(d.legal[0])
        else:
            hand_plays = [a for a in d.legal if isinstance(a, PlayCard) and not a.from_table]
            game.apply(hand_plays[0] if hand_plays else d.legal[0])
    assert game.boards[1].cards() == []
    assert card("QH") in game.hands[1]  # the melded queen went back to the hand
    assert len(game.hands[0]) == len(game.hands[1]) == 12
    d = game.decision()
    game.apply(d.legal[0])
    follower = game.decision()
    led = game.trick[0][1].card
    hand = game.hands[follower.seat]
    if any(c.suit == led.suit for c in hand):
        assert all(a.card.suit == led.suit for a in follower.legal)


def test_hand_scores_250_trick_points_and_game_continues():
    game, _ = game_with()
    tricks, melds, hand_end = 0, 0, None
    while hand_end is None:
        notices = game.apply(game.decision().legal[-1])
        tricks += sum(e.points for e in events(notices, ev.TrickWon))
        melds += sum(e.points for e in events(notices, ev.Melded))
        found = events(notices, ev.HandEnded)
        hand_end = found[0] if found else None
    assert tricks == 240  # 11-10-4-3-2 over the whole deck
    assert sum(hand_end.points) == 240 + 10 + melds  # plus ten for the last trick
    assert hand_end.totals == hand_end.points
    assert game.hand_number == 2 and game.dealer == 1  # the deal alternates
    assert game.decision().seat == 0  # the new non-dealer leads


def test_dealer_scores_dix_turnup_when_option_on():  # 002
    variant = get_variant("two-handed", {"dix-turnup-bonus": "yes"})
    game, notices = game_with(turnup="9H", non_dealer="KH QH AS TS KS AC TC KC QC JC 9C 9S", variant=variant)
    assert events(notices, ev.Scored) == [ev.Scored(0, 10, "dix-turnup")]
    assert game.meld_points[0] == 10
    game2, notices2 = game_with(turnup="9H", non_dealer="KH QH AS TS KS AC TC KC QC JC 9C 9S")
    assert not events(notices2, ev.Scored)


def test_play_on_when_both_reach_the_target():  # 001: 1000 -> 1250 -> ...
    game, _ = game_with()
    game.totals = [990, 995]
    game.last_hand_points, game.last_hand_tricks = (0, 0), (0, 0)
    game.totals = [1100, 1260]
    assert game._game_outcome() == (0.0, 1.0)  # both past 1000; only seat 1 past 1250
    assert game.target == 1250
    game.target = 1000
    game.totals = [1100, 1200]
    assert game._game_outcome() is None and game.target == 1250  # play on to 1250


def test_highest_score_tiebreaks_of_004():
    variant = get_variant("two-handed-150")
    game, _ = game_with(variant=variant)
    game.totals = [160, 155]
    game.last_hand_points, game.last_hand_tricks = (40, 60), (10, 14)
    assert game._game_outcome() == (1.0, 0.0)  # higher score
    game.totals = [160, 160]
    assert game._game_outcome() == (0.0, 1.0)  # tie: more points in the last hand
    game.last_hand_points = (50, 50)
    assert game._game_outcome() == (0.0, 1.0)  # still tied: more tricks
    game.last_hand_tricks = (12, 12)
    assert game._game_outcome() == (0.5, 0.5)  # a draw


def test_claim_wins_when_right_and_loses_when_wrong():  # 001
    variant = get_variant("two-handed-hoyle")
    game, _ = game_with(variant=variant)
    game.totals = [0, 990]
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")  # seat 1 now has 1000 with the dix
    game.apply(action_from_text("claim"))
    assert game.is_terminal() and game.returns() == (0.0, 1.0)
    game, _ = game_with(variant=variant)
    game.totals = [0, 900]
    game.apply(action_from_text("claim"))
    assert game.returns() == (1.0, 0.0)


def test_claim_is_illegal_unless_the_variant_allows_it():
    game, _ = game_with()
    with pytest.raises(IllegalActionError, match="does not allow a claim"):
        game.check(action_from_text("claim"))


def test_illegal_actions_are_rejected_with_reasons_and_change_nothing():
    game, _ = game_with()
    before = game.observation(1)
    with pytest.raises(IllegalActionError, match="not in your hand"):
        game.apply(action_from_text("AH"))
    with pytest.raises(IllegalActionError, match="to play a card"):
        game.apply(action_from_text("pass"))
    with pytest.raises(IllegalActionError, match="not an action"):
        action_from_text("hello")
    assert game.observation(1) == before


def test_observation_shows_own_hand_and_public_tables_only():
    game, _ = game_with()
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")
    act(game, "royal:KH,QH")
    view0 = game.observation(0)
    assert view0.hand == tuple(sort_cards(game.hands[0]))
    assert view0.tables[1] == tuple(cards("KH QH"))
    assert view0.turnup == card("9H")


def test_same_seed_same_game():
    a, _ = new_game(V, 42)
    b, _ = new_game(V, 42)
    assert a.deals == b.deals
    c, _ = new_game(V, 43)
    assert a.deals != c.deals


def test_an_exchanged_dix_drawn_again_does_not_score_twice():
    game, _ = game_with()
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")  # seat 1 exchanges: 9H is now the turn-up, already scored
    act(game, "pass")
    d = run_to_last_two(game)
    taker = d.seat
    game.apply(TakeLast(StockPick.TURNUP))
    assert card("9H") in game.hands[taker]
    d = game.decision()
    if d is not None and d.kind is DecisionKind.MELD:
        held = sum(1 for c in game.hands[taker] if c == card("9H"))
        dix_options = [a for a in d.legal if isinstance(a, Meld) and a.kind == "dix"]
        assert len(dix_options) == (1 if held == 2 else 0)  # only an unscored second nine may score
    assert game.dix_spent[taker] == 1
    held = sum(1 for c in game.hands[taker] if c == card("9H"))
    assert game._unscored_dix(taker) == held - 1
    if held == 1:
        assert not [o for o in game._meld_options(taker) if o.kind == "dix"]


def two_kings_of_spades_on_the_table():
    """Seat 1 melds kings around (one KS) and then a marriage of spades (the other KS): two copies of
    KS on the table with different histories. Clubs are trump."""
    game, _ = game_with(non_dealer="KS KS QS KC KD KH AS AS AC AD TH TH",
                        dealer="JS JS QD QD 9D 9D JD JD TD TD 9H 9H", turnup="9C", stock="JC JC JH JH")
    for text in ("AS", "9H", "kings:KC,KD,KH,KS", "AS", "9H", "marriage:KS,QS"):
        act(game, text)
    return game


def test_the_player_names_which_table_copy_to_play_when_their_histories_differ():  # issue 13, item 8
    game = two_kings_of_spades_on_the_table()
    d = game.decision()
    assert (d.seat, d.kind) == (1, DecisionKind.LEAD)
    tokens = [a.to_text() for a in d.legal]
    assert {"table:KS", "table:KS@kings", "table:KS@marriage"} <= set(tokens)
    assert "table:KC@kings" not in tokens  # one copy of KC on the table: nothing to choose
    act(game, "table:KS@marriage")
    board = game.boards[1]
    assert board.histories(card("KS")) == ["kings"]
    assert [(m.name, m.intact) for m in board.melds] == [("kings", True), ("marriage", False)]


def test_the_copy_chosen_decides_which_melds_remain_possible():
    # keeping the KS of the kings, the seat can marry it again with its second queen of spades
    game = two_kings_of_spades_on_the_table()
    act(game, "table:KS@marriage")
    assert Meld("marriage", 1, (card("QS"),)) in game.boards[1].options(
        cards("QS"), V.melds, game.trump, V.melds.types())
    # keeping the KS of the marriage instead, it cannot: that king has served a marriage already
    game = two_kings_of_spades_on_the_table()
    act(game, "table:KS@kings")
    assert Meld("marriage", 1, (card("QS"),)) not in game.boards[1].options(
        cards("QS"), V.melds, game.trump, V.melds.types())


def test_naming_a_copy_that_is_not_there_is_refused_with_the_copies():
    game = two_kings_of_spades_on_the_table()
    with pytest.raises(IllegalActionError, match=r"its copies: table:KS@kings, table:KS@marriage"):
        game.check(action_from_text("table:KS@pinochle"))
    with pytest.raises(IllegalActionError, match=r"no copies of KC on the table to choose between: play it as table:KC"):
        game.check(action_from_text("table:KC@kings"))
    with pytest.raises(IllegalActionError, match="named by the melds it served"):
        action_from_text("table:KS@")


def test_without_a_name_the_copy_in_the_fewest_intact_melds_goes_then_the_first_melded():
    game = two_kings_of_spades_on_the_table()
    act(game, "table:KS")  # both in one intact meld: the first to reach the table (the KS of the kings) goes
    assert game.boards[1].histories(card("KS")) == ["marriage"]


def test_version_2_bots_see_neither_named_copies_nor_names_in_play_lines():
    from referee.match.wire import event_text, request_message
    game = two_kings_of_spades_on_the_table()
    request = request_message(game.decision(), 1000, 1000).to_text()
    assert "table:KS" in request.split() and "@" not in request
    played = act(game, "table:KS@marriage")
    assert "play 1 table:KS" in [event_text(n.event) for n in played]


def test_events_say_which_table_copy_was_played_and_which_completed_a_meld():  # issue 13, rules API
    game = two_kings_of_spades_on_the_table()
    played = events(act(game, "table:KS"), ev.Played)
    assert played == [ev.Played(1, PlayCard(card("KS"), True, "kings"))]  # unnamed: the engine's choice, told
    game, _ = game_with()
    act(game, "AS")
    act(game, "JS")
    act(game, "dix:9H")
    notices = act(game, "royal:KH,QH")
    assert events(notices, ev.Melded)[0].table == ()  # all from the hand


def test_a_meld_completed_from_the_table_names_those_copies():
    game, _ = game_with(non_dealer="KS KS QS KC KD KH AS AS AC AD TH TH",
                        dealer="JS JS QD QD 9D 9D JD JD TD TD 9H 9H", turnup="9C", stock="JC JC JH JH")
    act(game, "AS")
    act(game, "9H")
    act(game, "kings:KC,KD,KH,KS")
    act(game, "AS")
    act(game, "9H")
    melded = events(act(game, "marriage:QS"), ev.Melded)[0]
    assert melded.cards == (card("QS"),) and melded.table == ((card("KS"), "kings"),)


def test_each_hand_reports_meld_and_trick_points_per_seat():
    game, _ = game_with()
    ended = []
    while not game.is_terminal() and not ended:
        ended = events(game.apply(game.decision().legal[0]), ev.HandEnded)
    [hand] = ended
    assert game.hands_ended == [hand]
    assert hand.points == tuple(m + t for m, t in zip(hand.meld, hand.tricks))
    assert sum(hand.tricks) == V.trick_points_per_hand
