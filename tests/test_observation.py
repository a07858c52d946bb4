"""A seat's observation and the worlds sampled from it.

The property tests play random games of every preset to a random point and
check each sampled world against the rules themselves, not against the
sampler's own bookkeeping: every card is somewhere exactly once, every seat
holds what it is known to hold, every card another seat played to a trick
would have been legal from the hand the world gives it, and in the bidding
games every hand melds exactly what its seat showed. The true position
passes the same checks, so they ask nothing the rules do not.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import attrs
import pytest
from helpers import sensible
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.match.wire import state_message
from referee.rules import PRESETS, Game, card, cards, get_variant
from referee.rules import events as ev
from referee.rules.auction_game import AuctionStage
from referee.rules.cards import Suit, make_deck, sort_cards
from referee.rules.dealing import Deal
from referee.rules.melds import count_hand_meld, type_name
from referee.rules.observation import World, _Placement
from referee.rules.tricks import FollowDuty, legal_plays

VARIANTS = [(name, {}) for name in PRESETS] + [("three-handed", {"bidding": "kitty-auction"}),
                                              ("two-handed", {"must-win": "never"})]


def play_to(variant: str, options: dict, seed: int, steps: int):
    game = Game.new(variant, seed, options=options)
    choose = sensible(random.Random(seed))
    for _ in range(steps):
        if game.is_terminal():
            break
        game.apply(choose(game.decision()))
    return game


@st.composite
def positions(draw):
    """(game, seat, seed): a game of some variant played some way into it, and a seat to look from."""
    name, options = draw(st.sampled_from(VARIANTS))
    seed = draw(st.integers(0, 10**6))
    game = play_to(name, options, seed, draw(st.integers(0, 160)))
    return game, draw(st.integers(0, 4)) % game.variant.players, seed


def true_world(game, seat: int) -> World:
    """Where the hidden cards really are, as ``seat`` would have them (cards another seat is passing
    or burying one by one are still in its hand as far as ``seat`` knows)."""
    hands = [list(h) for h in game.hands]
    if game.variant.family == "stock":
        return World(tuple(tuple(sort_cards(h)) for h in hands), stock=tuple(game.stock))
    if game.stage is AuctionStage.GIVE and game.giver != seat:
        hands[game.giver] += game.giving
    buried = list(game.buried)
    if game.stage is AuctionStage.BURY:  # the bidder's own choices so far are set aside (Observation.set_aside)
        if game.bidder != seat:
            hands[game.bidder] += buried
        buried = []
    return World(tuple(tuple(sort_cards(h)) for h in hands), kitty=tuple(game.kitty), buried=tuple(buried),
                 dummy=tuple(game.dummy))


def strict_plays_from(game) -> int:
    """How many of this hand's plays were free (the stock game's first phase)."""
    if game.variant.family != "stock":
        return 0
    plays = 0
    log = game.log
    dealt = max(i for i, n in enumerate(log) if isinstance(n.event, ev.HandDealt))
    for notice in log[dealt:]:
        if isinstance(notice.event, ev.PhaseTwo):
            return plays
        plays += isinstance(notice.event, ev.Played) and notice.seats == (0, 1)
    return plays


def problems(obs, world: World, strict_from: int) -> list[str]:
    """What in ``world`` disagrees with the rules and with what the observing seat saw."""
    v, me, found = obs.variant, obs.seat, []
    piles = dict(obs.piles)
    if world.hands[me] != obs.hand:
        found.append("the observer's hand changed")
    for s, hand in enumerate(world.hands):
        if s == me:
            continue
        if len(hand) != obs.held[s]:
            found.append(f"seat {s} holds {len(hand)} cards, not {obs.held[s]}")
        if Counter(obs.known[s]) - Counter(hand):
            found.append(f"seat {s} lacks known cards {Counter(obs.known[s]) - Counter(hand)}")
        if any(c in obs.excluded[s] for c in hand):
            found.append(f"seat {s} holds an excluded card")
    if len(world.stock) != piles.get("stock", 0) or len(world.dummy) != piles.get("dummy", 0):
        found.append("a pile has the wrong size")
    if "kitty" in piles and (len(world.kitty) != piles["kitty"] + len(obs.kitty)
                             or world.kitty[:len(obs.kitty)] != obs.kitty):
        found.append("the kitty has the wrong size or lost its turned cards")
    if len(world.buried) != (len(obs.buried) if obs.buried else piles.get("buried", 0)):
        found.append("the buried cards have the wrong size")
    if obs.buried and world.buried != obs.buried:
        found.append("the observer's buried cards changed")
    everything = Counter(c for h in world.hands for c in h)
    everything.update([*world.stock, *world.kitty, *world.buried, *world.dummy, *obs.set_aside, *obs.dummy])
    everything.update([*(c for t in obs.tables for c in t), *(c for _, c in obs.played)])
    everything.update([obs.turnup] if obs.turnup is not None else [])
    if everything != Counter(make_deck(v.deck_copies, v.deck_ranks)):
        found.append("the cards are not the deck")
    # every strict play of another seat was legal from the hand the world gives it
    duty = FollowDuty(must_follow=True, must_trump=True, must_win=v.phase2_must_win)
    n = v.players
    for i, (s, c) in enumerate(obs.played):
        if s == me or i < strict_from:
            continue
        holding = list(world.hands[s]) + [x for t, x in obs.played[i:] if t == s]
        start = strict_from + (i - strict_from) // n * n
        trick = [x for _, x in obs.played[start:i]]
        legal = legal_plays(holding, trick, obs.trump, duty)
        if not trick and v.family == "auction" and v.first_lead_trump and i == 0:
            legal = [x for x in legal if x.suit is obs.trump] or legal
        if c not in legal:
            found.append(f"seat {s} could not have played {c} from {holding}")
    if obs.melds_complete:
        for s in range(n):
            if s == me:
                continue
            at_meld = list(world.hands[s]) + [x for t, x in obs.played if t == s]
            lines = [(type_name(m.kind, m.multiplicity), m.points, m.cards)
                     for m in count_hand_meld(at_meld, obs.trump, v.melds)]
            if lines != [(m.name, m.points, m.cards) for m in obs.melds[s]]:
                found.append(f"seat {s}'s hand would meld {lines}")
    return found


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_every_sampled_world_agrees_with_the_rules_and_with_what_the_seat_saw(position):
    game, seat, seed = position
    obs = game.observation(seat)
    strict_from = strict_plays_from(game)
    assert problems(obs, true_world(game, seat), strict_from) == []  # the checks ask nothing the rules do not
    sampler = obs.sampler()
    rng = random.Random(seed)
    for _ in range(3):
        assert problems(obs, sampler.sample(rng), strict_from) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_a_determinized_game_looks_the_same_to_its_seat_and_plays_the_hand_out(position):
    game, seat, seed = position
    if game.is_terminal():
        return
    rng = random.Random(seed)
    copy = game.determinize(seat, rng)
    assert copy.observation(seat) == game.observation(seat)
    assert copy.decision().seat == game.decision().seat and copy.decision().kind is game.decision().kind
    if game.current_seat() == seat:
        assert copy.legal_actions() == game.legal_actions()
    choose = sensible(rng)
    for _ in range(2000):  # to the end of the hand, as a Monte Carlo playout goes
        if copy.is_terminal() or len(copy.hands_ended) > len(game.hands_ended):
            break
        copy.apply(choose(copy.decision()))
    assert copy.is_terminal() or len(copy.hands_ended) > len(game.hands_ended)


def test_a_determinized_game_keeps_nothing_of_the_true_hidden_cards():
    game = play_to("four-handed", {}, seed=5, steps=30)
    copy = game.determinize(0, random.Random(1))
    assert copy.deals == [] and copy.seed != game.seed
    assert all(0 in n.seats for n in copy.log)


def test_unconstrained_cards_spread_evenly_over_the_hidden_places():
    """At the deal of two-handed, each unseen card is in the other hand 12 times in 35 (else in the stock)."""
    game = Game.new("two-handed", seed=11)
    obs = game.observation(0)
    sampler = obs.sampler()
    rng = random.Random(3)
    draws = 4000
    in_hand = Counter()
    for _ in range(draws):
        in_hand.update(sampler.sample(rng).hands[1])
    unseen = obs.unseen()
    assert sum(unseen.values()) == 35
    for c, copies in unseen.items():
        share = in_hand[c] / (draws * copies)
        assert abs(share - 12 / 35) < 0.04, (c, share)


def test_constrained_worlds_are_drawn_uniformly():
    """A small case counted by hand: every allowed way to place six cards comes up equally often."""
    a, b, c, d, e_, f = cards("AS TS KS QS JS 9S")
    groups = {frozenset({1, 2}): [a, b], frozenset({"stock", 2}): [c], frozenset({1, 2, "stock"}): [d, e_, f]}
    capacity = {1: 2, 2: 2, "stock": 2}
    placement = _Placement(capacity, groups)
    allowed = {x: places for places, xs in groups.items() for x in xs}
    worlds = []
    for order in itertools.permutations([a, b, c, d, e_, f]):
        world = {1: frozenset(order[:2]), 2: frozenset(order[2:4]), "stock": frozenset(order[4:])}
        if all(p in allowed[x] for p, xs in world.items() for x in xs) and world not in worlds:
            worlds.append(world)
    assert placement._count(0, placement.start) == len(worlds)
    rng = random.Random(7)
    draws = 200 * len(worlds)
    seen = Counter()
    for _ in range(draws):
        placed = placement.draw(rng)
        seen[worlds.index({p: frozenset(c for _, c in xs) for p, xs in placed.items()})] += 1
    assert len(seen) == len(worlds)
    chi2 = sum((n - 200) ** 2 / 200 for n in seen.values())
    assert chi2 < len(worlds) + 6 * (2 * len(worlds)) ** 0.5  # far out in the tail if not uniform


def four_handed(hands: str, dealer: int = 3):
    """A four-handed game from four hands given as text (seat 0 first)."""
    return Game.new("four-handed", deal=Deal([cards(h) for h in hands.split("/")]), dealer=dealer)


HANDS = ("AS AS TS KS QS JS AH TH KH QH 9C 9C / 9S 9S JS TS KS QS AD AD TD KD QD JD / "
         "AC AC TC TC KC KC QC QC JC JC 9D 9D / AH TH KH QH JH JH 9H 9H TD KD QD JD")


def win_auction(game, amount: int, trump: str) -> None:
    """Seat 0, first to speak, bids ``amount``, the others pass; it names trump."""
    while game.decision().kind.value == "bid":
        act(game, f"bid:{amount}" if game.decision().seat == 0 and not game.observation(0).bids else "pass")
    act(game, f"trump:{trump}")


def play_out_auction(game, amount: int, trump: str) -> None:
    """win_auction, then the partners pass each other the first cards offered."""
    win_auction(game, amount, trump)
    while game.decision().kind.value == "give":
        game.apply(game.legal_actions()[0])


def act(game, text: str) -> None:
    game.apply(next(a for a in game.legal_actions() if a.to_text() == text))


def test_failing_to_follow_shows_a_void_and_trumping_low_shows_no_higher_trump():
    game = four_handed(HANDS)
    play_out_auction(game, 50, "S")
    obs = game.observation(0)
    assert obs.melds_complete and obs.bidder == 0 and obs.trump is Suit.SPADES
    first = game.decision()
    assert first.seat == 0
    act(game, "AH")  # seat 1 holds no heart and must trump
    spades = [a.to_text() for a in game.legal_actions()]
    assert spades and all(t.endswith("S") for t in spades)
    act(game, "9S")
    view = game.observation(0)
    assert Suit.HEARTS in view.voids(1)
    # it trumped with its lowest spade although it held higher ones: nothing is learnt beyond the void,
    # since any trump beats a heart; seat 2 (no heart, no spade) shows both voids
    act(game, game.legal_actions()[0].to_text())
    view = game.observation(0)
    assert {Suit.HEARTS, Suit.SPADES} <= view.voids(2)
    for world in (view.sample(random.Random(i)) for i in range(20)):
        assert not any(c.suit in (Suit.HEARTS, Suit.SPADES) for c in world.hands[2])
        assert not any(c.suit is Suit.HEARTS for c in world.hands[1])


def test_a_follower_that_does_not_head_the_trick_holds_nothing_that_would():
    game = four_handed(HANDS)
    play_out_auction(game, 50, "C")
    act(game, "TS")  # seat 1 holds spades but no ace: it may play any spade
    act(game, "9S")
    view = game.observation(2)
    assert view.excluded[1] == {card("AS")}  # an ace would have had to head the ten
    assert view.voids(1) == frozenset()


def test_passed_cards_are_known_to_the_two_partners_and_unknown_to_the_others():
    game = four_handed(HANDS)
    win_auction(game, 50, "S")
    for _ in range(4):
        game.apply(game.legal_actions()[0])  # the partner's four
    for text in ("9C", "9C", "QH", "KH"):
        act(game, "give:" + text)  # and the bid winner's four back
    bidder, partner, opponent = game.observation(0), game.observation(2), game.observation(1)
    assert Counter(bidder.gave) == Counter(cards("9C 9C QH KH"))
    assert Counter(bidder.received) == Counter(partner.gave) == Counter(cards("AC AC TC TC"))
    assert Counter(bidder.known[2]) >= Counter(cards("9C 9C QH KH"))
    assert Counter(partner.known[0]) >= Counter(cards("AC AC TC TC"))
    assert opponent.gave == opponent.received == () and opponent.held == (12, 0, 12, 12)


def test_a_card_passed_on_face_down_may_be_in_either_partner_hand():
    """Call-for-partner: the called card goes to the bid winner face up; what it passes back is face down."""
    for seed in range(40):
        game = play_to("call-for-partner", {}, seed, 0)
        while not game.is_terminal() and not any(isinstance(n.event, ev.PlayBegins) for n in game.log):
            game.apply(sensible(random.Random(seed))(game.decision()))
        obs = game.observation(0)
        if game.is_terminal() or obs.partner is None or 0 in (obs.bidder, obs.partner):
            continue
        pair = frozenset((obs.bidder, obs.partner))
        assert ((obs.called, pair) in obs.uncertain or obs.called in obs.known[obs.bidder]
                or obs.called in obs.known[obs.partner])
        return
    pytest.fail("no hand with a partner found")


def test_the_kitty_auction_keeps_turned_cards_in_their_place():
    game = Game.new("three-handed", seed=4, options={"bidding": "kitty-auction"})
    while not any(isinstance(n.event, ev.KittyCardTurned) for n in game.log):
        d = game.decision()
        game.apply(next(a for a in d.legal if a.to_text() != "pass"))
    obs = game.observation(1)
    turned = [n.event.card for n in game.log if isinstance(n.event, ev.KittyCardTurned)]
    assert list(obs.kitty) == turned and dict(obs.piles)["kitty"] == 3 - len(turned)
    world = obs.sample(random.Random(0))
    assert list(world.kitty[:len(turned)]) == turned and len(world.kitty) == 3


def test_an_inconsistent_observation_is_refused_with_a_reason():
    obs = Game.new("two-handed", seed=1).observation(0)
    broken = attrs.evolve(obs, held=(0, 13))
    with pytest.raises(ValueError, match="inconsistent"):
        broken.sample(random.Random(0))


def test_the_meld_shown_is_a_constraint_of_the_bidding_games():
    """A seat that showed no aces around never holds all four aces in a sampled world."""
    game = four_handed(HANDS)
    play_out_auction(game, 50, "S")
    obs = game.observation(0)
    aces = cards("AC AD AH AS")
    for s in (1, 2, 3):
        showed_aces = any("aces" in m.name for m in obs.melds[s])
        for i in range(20):
            world = obs.sample(random.Random(i))
            assert showed_aces or not all(a in world.hands[s] for a in aces)
    variant = get_variant("four-handed")
    assert variant.family == "auction"


def test_a_run_beside_a_royal_marriage_shows_two_kings_and_queens_of_trump():
    """Seat 2 shows a run and a royal marriage in spades: both K Q of spades are known to be in its hand."""
    game = play_to("four-handed-double", {}, seed=22, steps=120)
    obs = game.observation(0)
    assert obs.trump is Suit.SPADES
    assert [m.name for m in obs.melds[2]][:2] == ["run", "royal"]
    assert Counter(obs.known[2])[card("KS")] + Counter(c for s, c in obs.played if s == 2)[card("KS")] == 2
    assert problems(obs, true_world(game, 0), strict_plays_from(game)) == []


def test_worlds_are_found_late_in_a_double_deck_hand_where_the_melds_leave_little_room():
    """Found by CI: every other seat's hidden cards must meld nothing more than it showed."""
    game = play_to("four-handed-double", {}, seed=142, steps=140)
    rng = random.Random(142)
    copy = game.determinize(0, rng)
    assert copy.observation(0) == game.observation(0)


@settings(max_examples=80, deadline=None)
@given(positions())
def test_the_state_line_restates_the_seat_s_hand_the_counts_and_the_unseen_cards(position):
    """Protocol 3's state line, built from the observation, agrees with the game itself."""
    game, seat, _ = position
    if game.is_terminal():
        return
    obs = game.observation(seat)
    fields = dict(state_message(obs).fields)
    cards = [] if fields["cards"] == "-" else fields["cards"].split(",")
    assert sorted(cards) == sorted(c.to_text() for c in game.hands[seat])
    held = [int(n) for n in fields["held"].split("/")]
    world = true_world(game, seat)  # cards another seat is passing or burying are still in its hand to us
    assert [h for s, h in enumerate(held) if s != seat] == [len(h) for s, h in enumerate(world.hands) if s != seat]
    trick = [] if fields["trick"] == "-" else fields["trick"].split(",")
    assert trick == [c.to_text() for _, c in obs.trick]
    unseen = 0 if fields["unseen"] == "-" else sum(int(x.split(":")[1]) for x in fields["unseen"].split(","))
    face_down = sum(int(fields[p]) for p in ("stock", "kitty", "buried", "dummy") if p in fields)
    # every card not in sight: the other hands (known cards too) and the face-down piles
    assert unseen == sum(h for s, h in enumerate(held) if s != seat) + face_down
    assert fields["totals"] == "/".join(str(t) for t in game.totals)
