#!/usr/bin/env python3
"""montecarlo: perfect-information Monte Carlo play for every pinochle variant.

How it decides
--------------
For a card to play, it deals the cards it has not seen into the places it
cannot see, many times over, each time consistently with everything it was
shown: its own hand, the melds on the table, the cards played, the suits a
seat has shown out of, the kitty, the cards passed and buried. In each such
world it tries every legal card and plays the rest of the hand out with a
fast policy (lead an ace, else the least useful card; to a trick the
cheapest winner, else the cheapest card; smear points on a partner's
trick); it plays the card with the best mean result for its side
at the end of the hand. Bids and trump are chosen by the same simulation:
the expected points of each trump suit (its meld and the tricks played
out) decide whether the next bid is worth making.

Why perfect-information Monte Carlo and not information-set MCTS (Cowling,
Powley and Whitehouse 2012): in pinochle most of the value of a hand is in
its meld and in which seat holds the trumps and aces, which sampling gets
right; the known weakness of PIMC, "strategy fusion" (a plan that needs to
know the hidden cards), costs little in a game where every trick is
followed under strict duties and half the deck is seen by the end. PIMC's
worlds are independent, so the sampling of the public rules library is
used as it is, and the search is a plain loop a reader can follow. ISMCTS
would spend its budget on a tree over information sets that, at 100 ms a
decision, stays shallow.

The two-handed game is played on a real game of the rules library (the
``Shadow``), whose hidden cards are put right whenever the referee shows
otherwise. While the stock lasts, every card it may play is played out to
the end of the hand in sampled worlds, draws and melds included. Once the
stock is gone every card is known, and the second phase is searched
exactly (``Endgame``), with the simulation as the fallback while the search
of a long ending does not finish in time.

The compiled core
-----------------
The inner loops run in Rust when they can: sample_bots/montecarlo_core is
a small library (its README says what it does and how it is checked
against the rules library) that samples worlds and plays them out some
hundred times faster than Python, so a decision weighs a thousand worlds
or more where the Python search weighed a few dozen (in the two-handed
first phase, a handful). It plays the cards: trick play in every variant
(``choose_card``), the two-handed first phase (``choose_in_stock``: a
card, or the last stock card to take; there the simulated melds are a
model of the common melds, and the bot makes the meld worth the most when
asked) and the exact second phase from twelve cards (``solve``); and it
plays out the worlds that value bids and trump (``suit_values``). The
referee builds it with cargo on the bot's first use; without it (no cargo,
a failed build) the bot says so once on stderr and its pure-Python search
plays every decision. ``option.core=python`` (``--core python``) asks for
that pure-Python search on purpose: the montecarlo of before the core,
which the benchmark measures it against.

The called card (call-for-partner) is tried in sampled worlds: the ace and
ten of trump and the cards that add the most to its meld. What it does not
simulate: the cards passed to a partner are the heuristics of the
``greedy`` sample bot, which it runs beside itself. Burying, and the cards
the bid winner passes back, keep the most meld and bury counters.

Claims (Hoyle's two-handed game): it claims exactly when the claim wins,
its total with the hand's meld and trick points so far reaching the
target; the pure-Python baseline (``option.core=python``) never claims, as
before.

It needs the pinochle-arena package (the rules library ``referee.rules``
and the protocol parser ``protocol``): run it with the Python that
pinochle-arena is installed in, as ``pinochle-arena match montecarlo ...``
does.

Usage: montecarlo_bot.py [--think MS] [--worlds N] [--seed S] [--core native|python]

* ``--think MS`` (default 100): the time it may spend on a decision, cut
  further when the clock the request reports runs short;
* ``--worlds N``: sample exactly N worlds a decision (the clock
  permitting) instead of as many as fit in the time: its moves are then
  the same on any machine;
* ``--seed S`` (default 0): with the game id, seeds every random choice,
  so a game replays the same way given the same worlds;
* ``--core python``: the pure-Python search only (default ``native``: the
  compiled core where it can be loaded).

The organiser may set them per bot instead: ``option.think=50``,
``option.worlds=200``, ``option.seed=7``, ``option.core=python``.
"""

from __future__ import annotations

import copy
import random
import sys
import time
from pathlib import Path

try:
    import attrs
    from protocol import HIDDEN, codec, split_points
    from protocol import messages as m
except ImportError:  # run from a checkout with another Python: the checkout's own packages
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    try:
        import attrs
        from protocol import HIDDEN, codec, split_points
        from protocol import messages as m
    except ImportError as error:
        sys.exit(f"montecarlo needs the pinochle-arena package (its rules library and attrs): run it with the "
                 f"Python pinochle-arena is installed in ({error})")

from referee.rules import Card, Claim, Deal, Meld, Pass, PlayCard, Rank, StockGame, StockPick, Suit, TakeLast, \
    action_from_text, get_variant, new_game
from referee.rules import events as e
from referee.rules.events import DecisionKind
from referee.rules.cards import make_deck, sort_cards
from referee.rules.melds import count_hand_meld, parse_type_name
from referee.rules.observation import Observation, Observer
from referee.rules.tricks import FollowDuty, legal_plays, winning_index
from referee.rules.variants import LastStockCard, MeldTiming, Partners, SaveMeld, Scoring

from greedy_bot import Bot as Greedy
from greedy_bot import serve
from montecarlo_core import native

THINK_MS = 100
EXACT_NODES = 25_000  # two-handed, second phase, with --worlds: positions an exact search may visit (~0.1 s)
CORE_EXACT_NODES = 2_000_000  # and the same for the compiled core's search (~0.2 s)
CORE_EXACT_SHARE = 0.9  # the core's search may take more: its fallback, the policy in the one world there is, is weak
EXACT_SHARE = 0.6  # and without --worlds, the share of a decision's time it may take before simulation decides
SAFETY = 0.3  # of the time a reply may take, the most a decision spends: the rest covers the process's delays
MARGIN_S = 0.02  # and this much is never spent


# ------------------------------------------------------------------ the lines, as the rules' events
def _card(text):
    return Card.from_text(text)


def _cards(texts):
    return tuple(None if t == HIDDEN else Card.from_text(t) for t in texts)


# One entry per message that tells of an event: the inverse of the referee's wire.py.
EVENT_OF = {
    m.Deal: lambda x: e.HandDealt(x.hand, x.dealer, None if x.turnup == m.NO_CARD else _card(x.turnup),
                                  tuple(_card(c) for c in x.cards)),
    m.BidEvent: lambda x: e.BidMade(x.seat, x.amount),
    m.BidWon: lambda x: e.AuctionWon(x.seat, x.amount),
    m.RedealEvent: lambda x: e.Redeal(x.dealer),
    m.Kitty: lambda x: e.KittyShown(_cards(x.cards)),
    m.KittyCard: lambda x: e.KittyCardTurned(_card(x.card)),
    m.ThrowIn: lambda x: e.ThrownIn(x.seat),
    m.Trump: lambda x: e.TrumpDeclared(x.seat, x.suit),
    m.Call: lambda x: e.CardCalled(x.seat, _card(x.card)),
    m.PartnerEvent: lambda x: e.PartnerKnown(x.bidder, x.partner),
    m.Give: lambda x: e.Given(x.giver, x.receiver, _cards(x.cards)),
    m.Bury: lambda x: e.Buried(x.seat, _cards(x.cards)),
    m.Dummy: lambda x: e.DummyTaken(x.seat, _card(x.card)),
    m.Play: lambda x: e.Played(x.seat, _play_of(x.action)),
    m.Trick: lambda x: e.TrickWon(x.winner, x.points),
    m.Draw: lambda x: e.Drew(x.seat, None if x.card == HIDDEN else _card(x.card)),
    m.MeldShown: lambda x: e.Melded(x.seat, x.name, x.points, tuple(_card(c) for c in x.cards)),
    m.Exchange: lambda x: e.Exchanged(x.seat, _card(x.dix), _card(x.taken)),
    m.PhaseTwo: lambda x: e.PhaseTwo(x.leader),
    m.Bonus: lambda x: e.Scored(x.seat, x.points, x.reason),
    m.ClaimMade: lambda x: e.Claimed(x.seat, x.success),
    m.HandEnd: lambda x: e.HandEnded(x.hand, x.points, x.totals),
}


class Table:
    """The facts of a variant that the trick simulation needs, worked out once a game."""

    def __init__(self, variant):
        self.variant = variant
        self.seats = variant.players
        self.stock_game = variant.family == "stock"
        self.values = {c: variant.counter_values[c.rank] for c in make_deck(1, variant.deck_ranks)}
        self.duty = FollowDuty(must_follow=True, must_trump=True, must_win=variant.phase2_must_win)
        self.rank_values = [variant.counter_values[r] for r in Rank]  # A T K Q J 9, as the core takes them

    def sides(self, obs: Observation) -> list[int]:
        """Which side each seat plays for this hand (seats of a side score together)."""
        n, v = self.seats, self.variant
        if v.partners is Partners.OPPOSITE:
            return [s % 2 for s in range(n)]
        if v.partners is Partners.CALLED and obs.bidder is not None:
            team = {obs.bidder, obs.partner}
            return [0 if s in team else 1 for s in range(n)]
        return list(range(n))


# ------------------------------------------------------------------ simulation
def rollout_card(table: Table, legal, trick, seat, side, trump):
    """The fast policy a simulated seat plays by: lead an ace of a plain suit, else the least useful card
    (no trump, no counter, low); to a trick, smear points on a partner's card, else win as cheaply as it
    can, else throw its cheapest card. It has no random choice, so every candidate of a world is played
    out against the same replies."""
    if len(legal) == 1:
        return legal[0]
    values = table.values
    if not trick:
        return min(legal, key=lambda c: (c.rank is not Rank.ACE or c.suit is trump, c.suit is trump,
                                         values[c] >= 10, c.strength))
    cards = [c for _, c in trick]
    at = winning_index(cards, trump)
    best = cards[at]
    if side[trick[at][0]] == side[seat]:
        return max(legal, key=lambda c: (values[c], -c.strength))
    winners = [c for c in legal if ((c.strength > best.strength) if c.suit is best.suit else (c.suit is trump))]
    if winners:
        return min(winners, key=lambda c: (c.suit is trump, c.strength))
    return min(legal, key=lambda c: (values[c], c.suit is trump, c.strength))


def play_out(table: Table, trump, hands, trick, leader, played_tricks, points, won, dummy, side, first=None):
    """Play the hand's remaining tricks by the fast policy (``first``: the card the seat to act plays now).

    ``hands``, ``points`` (trick points per seat) and ``won`` (tricks per
    seat) are changed in place; ``dummy`` is the dummy's cards, top first.
    """
    seats, values, duty = table.seats, table.values, table.duty
    first_lead_trump = table.variant.first_lead_trump and not table.stock_game
    trick = list(trick)
    dummy = list(dummy)
    while True:
        seat = (leader + len(trick)) % seats
        hand = hands[seat]
        if not hand:
            return
        played = [c for _, c in trick]
        if first is not None:
            card, first = first, None
        else:
            legal = legal_plays(hand, played, trump, duty)
            if first_lead_trump and played_tricks == 0 and not played:
                legal = [c for c in legal if c.suit is trump] or legal
            card = rollout_card(table, legal, trick, seat, side, trump)
        hand.remove(card)
        trick.append((seat, card))
        if len(trick) < seats:
            continue
        cards = [c for _, c in trick]
        leader = (leader + winning_index(cards, trump)) % seats
        points[leader] += sum(values[c] for c in cards)
        if dummy:
            points[leader] += values[dummy.pop(0)]
        won[leader] += 1
        played_tricks += 1
        trick = []
        if not hands[leader]:
            points[leader] += table.variant.last_trick
            return


CALL_CANDIDATES = 4  # cards tried as the call for the most they add to our meld (beside the ace and ten of trump)


def meld_points(cards, trump, variant) -> int:
    return sum(x.points for x in count_hand_meld(cards, trump, variant.melds))


def call_candidates(hand, trump, callable_cards, variant) -> list:
    """The cards worth trying as call-for-partner's call, of those someone else holds a copy of: the ones that
    add the most to our meld once handed to us, and the ace and ten of trump (greedy's first calls). The
    likeliest call comes first: the most meld added, the ace or ten of trump among equals."""
    others = [c for c in callable_cards if hand.count(c) < variant.deck_copies]
    base = meld_points(hand, trump, variant)
    gains = {c: meld_points([*hand, c], trump, variant) - base for c in others}
    greedy = [c for c in others if c.suit is trump and c.rank in (Rank.ACE, Rank.TEN)]
    tried = dict.fromkeys([*greedy, *sorted(others, key=lambda c: -gains[c])[:CALL_CANDIDATES]])
    return sorted(tried, key=lambda c: -gains[c])


def first_holder(hands, seat: int, card) -> int | None:
    """The first seat after ``seat`` holding ``card``: the partner a call of it brings (None: nobody else)."""
    seats = len(hands)
    return next((s for s in ((seat + i) % seats for i in range(1, seats)) if card in hands[s]), None)


def hand_over(hands, seat: int, partner: int, card, back) -> None:
    """call-for-partner's passing, in short: ``partner`` hands ``seat`` the called card and takes ``back`` back
    (``hands`` changed in place, each kept in the rules library's order, as the worlds deal them: the fast
    policy's ties go by that order, as in the compiled core)."""
    hands[partner].remove(card)
    hands[seat].append(card)
    hands[seat].remove(back)
    hands[partner].append(back)
    for s in (seat, partner):
        hands[s][:] = sort_cards(hands[s])


class OutOfBudget(Exception):
    """An exact search met its node budget or the clock."""


LOSS = 10**9  # beyond any margin of a hand


class Endgame:
    """The two-handed second phase searched exactly: every card is known once the stock is gone.

    A negamax over whole tricks: the value of a position is the margin (its
    trick points less the other seat's, the last trick's bonus included) the
    seat to lead makes of the rest of the hand against the best defence. The
    leader's card is a maximum over the follower's replies' minimum, with
    alpha-beta cut-offs. Positions are keyed by the two hands alone (the
    points already taken do not change what is best from here), and the
    table of bounds lives for the whole hand: a search cut short by the clock
    keeps what it solved, so the next decision of the hand starts from it.
    """

    def __init__(self, table: Table, trump):
        self.values, self.duty, self.last = table.values, table.duty, table.variant.last_trick
        self.trump = trump
        self.solved: dict = {}  # (leader's hand, follower's hand) -> (lower bound, upper bound, best lead)
        self.nodes, self.budget, self.limit = 0, 0, 0.0

    @staticmethod
    def key(hand) -> int:
        """A hand as one number: three bits of count per card."""
        return sum(1 << 3 * c.order for c in hand)

    def best(self, mine, theirs, led, budget: int, limit: float):
        """The card to play holding ``mine`` against ``theirs``, to lead (``led`` None) or to follow ``led``.
        Raises OutOfBudget past ``budget`` positions or the time ``limit``."""
        self.nodes, self.budget, self.limit = 0, budget, limit
        mine, theirs = tuple(mine), tuple(theirs)
        choice, best = None, -LOSS
        if led is None:
            for card in self.leads(mine):
                v = self.after_lead(_without(mine, card), theirs, card, best, LOSS)
                if v > best:
                    choice, best = card, v
            return choice
        for card in self.replies(mine, led):
            v = -self.after_lead(theirs, mine, led, -LOSS, -best, follower_played=card)
            if v > best:
                choice, best = card, v
        return choice

    def leads(self, hand, first=None):
        cards = sorted(set(hand), key=lambda c: -c.strength)
        if first in cards:
            cards.remove(first)
            cards.insert(0, first)
        return cards

    def replies(self, hand, led):
        return sorted(legal_plays(hand, (led,), self.trump, self.duty), key=lambda c: -c.strength)

    def to_lead(self, leader, follower, alpha, beta) -> int:
        """The margin for the seat holding ``leader`` of the rest of the hand, it to lead."""
        if not leader:
            return 0
        self.nodes += 1
        if self.nodes > self.budget or (self.nodes & 1023 == 0 and time.perf_counter() > self.limit):
            raise OutOfBudget
        key = (self.key(leader), self.key(follower))
        known = self.solved.get(key)
        first = None
        if known is not None:
            low, high, first = known
            if low >= beta:
                return low
            if high <= alpha:
                return high
            alpha, beta = max(alpha, low), min(beta, high)
        window = alpha, beta
        best, best_card = -LOSS, None
        for card in self.leads(leader, first):
            v = self.after_lead(_without(leader, card), follower, card, alpha, beta)
            if v > best:
                best, best_card = v, card
                alpha = max(alpha, v)
                if alpha >= beta:
                    break
        low, high = (best, LOSS) if best >= window[1] else (-LOSS, best) if best <= window[0] else (best, best)
        if known is not None:
            low, high = max(low, known[0]), min(high, known[1])
        self.solved[key] = (low, high, best_card)
        return best

    def after_lead(self, leader, follower, led, alpha, beta, follower_played=None) -> int:
        """The leader's margin once it has led ``led`` (its hand now ``leader``): the follower replies with the
        card that makes it least (or with ``follower_played``, if given)."""
        values, trump = self.values, self.trump
        worst = LOSS
        for card in (follower_played,) if follower_played is not None else self.replies(follower, led):
            rest = _without(follower, card)
            points = values[led] + values[card] + (self.last if not rest else 0)
            if (card.strength > led.strength) if card.suit is led.suit else (card.suit is trump):  # follower wins
                v = -(points + self.to_lead(rest, leader, -beta - points, -alpha - points))
            else:
                v = points + self.to_lead(leader, rest, alpha - points, beta - points)
            if v < worst:
                worst = v
                beta = min(beta, v)
                if worst <= alpha:
                    break
        return worst


def _without(hand: tuple, card) -> tuple:
    i = hand.index(card)
    return hand[:i] + hand[i + 1:]


# ------------------------------------------------------------------ two-handed: the game itself, in a world
class Shadow:
    """The two-handed game as this seat has seen it, kept as a real game of the rules library.

    Its hidden cards (the other hand and the stock) are a guess, put right
    whenever the referee's lines show otherwise: a card the other seat
    plays or melds is swapped into its hand, a card this seat draws into
    the place in the stock it is drawn from. So the game's notices to this
    seat are the referee's lines, its ``observation`` is the seat's, and
    ``determinize`` samples worlds from it like the referee's own game.
    """

    def __init__(self, variant, seat: int, dealt: e.HandDealt, totals, rng: random.Random):
        self.seat, self.other = seat, 1 - seat
        mine = list(dealt.cards)
        unseen = list(make_deck(variant.deck_copies, variant.deck_ranks))
        if dealt.turnup is None:
            raise ValueError("two-handed turns up a card for trump: the deal shows none")
        for c in [*mine, dealt.turnup]:
            unseen.remove(c)
        rng.shuffle(unseen)
        hands: list[list[Card]] = [[], []]
        hands[seat], hands[self.other] = mine, unseen[:len(mine)]
        deal = Deal(hands, dealt.turnup, unseen[len(mine):])
        self.game, notices = StockGame.new(variant, seed=rng.getrandbits(32), deal=deal, dealer=dealt.dealer,
                                           totals=totals)
        self.game.hand_number = dealt.hand  # the game's log says which hand it is, as the referee's does
        self.game.log = [attrs.evolve(n, event=attrs.evolve(n.event, hand=dealt.hand))
                         if type(n.event) is e.HandDealt else n for n in self.game.log]
        self.opening = [n.event for n in notices if seat in n.seats][1:]  # what follows the deal (002's dix bonus)

    def follow(self, events: list, mine: list) -> None:
        """Apply the actions behind ``events`` (what the referee showed this seat, in order; used up as they
        are explained) and ``mine`` (this seat's own replies), up to this seat's decision now. Raises
        ValueError if they cannot be."""
        while True:
            self.into_hand(self.shown(events), events)  # before a trick is won: the meld it allows
            d = self.game.decision()
            if d is None:
                raise ValueError("the game is over in the shadow")
            if d.seat == self.seat and mine:
                action = mine.pop(0)
            elif d.seat == self.seat and events:
                raise ValueError(f"the shadow waits for our {d.kind.value}, the referee shows {events[0]}")
            elif events:
                action = self.decode(d, events)
            else:
                break
            self.arrange(action, events)
            shown = [n.event for n in self.game.apply(action) if self.seat in n.seats]
            shown = shown[:next((i + 1 for i, x in enumerate(shown) if type(x) is e.HandEnded), len(shown))]
            if [_plain(x) for x in shown] != [_plain(x) for x in events[:len(shown)]]:
                raise ValueError(f"the shadow shows {shown}, the referee {events[:len(shown)]}")
            del events[:len(shown)]
        d = self.game.decision()
        while d is not None and d.seat == self.other and d.kind is DecisionKind.MELD:
            self.game.apply(Pass())  # it could meld here and did not (or, holding other cards, could not)
            d = self.game.decision()

    def shown(self, events: list) -> list:
        """The cards the other seat will show from its hand in ``events``: played, or melded."""
        return [c for x in events if getattr(x, "seat", None) == self.other
                for c in (x.cards if type(x) is e.Melded else (x.action.card,)
                          if type(x) is e.Played and not x.action.from_table else ())]

    def decode(self, d, events: list):
        """The other seat's action that the next events show."""
        first = events[0]
        if d.kind in (DecisionKind.LEAD, DecisionKind.FOLLOW):
            if type(first) is not e.Played:
                raise ValueError(f"the other seat was to play, the referee shows {first}")
            same = [a for a in self.game.legal_actions()
                    if type(a) is PlayCard and a.card == first.action.card and a.from_table == first.action.from_table]
            if not same:
                raise ValueError(f"{first.action.to_text()} cannot be played in the shadow")
            return same[0]
        if d.kind is DecisionKind.MELD:
            if type(first) is not e.Melded or first.seat != self.other:
                return Pass()
            return action_from_text(f"{first.name}:{','.join(c.to_text() for c in first.cards)}")
        if d.kind is DecisionKind.TAKE_LAST:
            drew = next(x for x in events if type(x) is e.Drew)
            return TakeLast(StockPick.TURNUP if drew.seat == self.other and drew.card is not None else StockPick.STOCK)
        raise ValueError(f"no decision {d.kind.value} in two-handed")

    def into_hand(self, cards, events: list) -> None:
        """Put ``cards`` in the other hand, from the stock, each taking the place of a card of that hand the
        events to come do not show it holding."""
        g = self.game
        hand = g.hands[self.other]
        for c in cards:
            if hand.count(c) >= cards.count(c) or c not in g.stock:
                continue  # there already, or it comes by another way (the turn-up): decode finds out
            spare = next((x for x in hand if x not in cards), None)
            if spare is None:
                raise ValueError("no card of the other hand to swap")
            i = g.stock.index(c)
            g.stock[i], hand[hand.index(spare)] = spare, c
        g.decision_cache = None

    def arrange(self, action, events: list) -> None:
        """Make the cards drawn after ``action`` that this seat sees (its own, and the last stock card) the
        ones the referee shows."""
        g = self.game
        for _ in range(4):
            trial = copy.deepcopy(g)
            shown = [n.event for n in trial.apply(action) if self.seat in n.seats]
            wrong = next(((x.card, y.card) for x, y in zip(shown, events)
                          if type(x) is e.Drew and type(y) is e.Drew and x.card != y.card), None)
            if wrong is None:
                return
            drawn, real = wrong
            if drawn is None:
                raise ValueError("the shadow drew face down a card this seat is shown")
            i = g.stock.index(drawn)
            if real in g.stock:
                j = g.stock.index(real)
                g.stock[i], g.stock[j] = g.stock[j], g.stock[i]
            elif real in g.hands[self.other]:
                hand = g.hands[self.other]
                hand[hand.index(real)], g.stock[i] = g.stock[i], real
            else:
                raise ValueError(f"we draw {real}, which the shadow has nowhere hidden")
        raise ValueError("the draws cannot be arranged")


def _contract(obs: Observation) -> tuple[int, int]:
    """The auction's winner and its bid (asked once the auction is won)."""
    if obs.bidder is None or obs.bid is None:
        raise ValueError("the auction is not won yet")
    return obs.bidder, obs.bid


def _play_of(text: str) -> PlayCard:
    """The card play a token names (a 'play' line's, a legal card's)."""
    action = action_from_text(text)
    if not isinstance(action, PlayCard):
        raise ValueError(f"not a card play: {text!r}")
    return action


def _plain(event):
    """An event as the referee's lines tell it (they leave out which table cards a meld reused, the copy
    of a table card played, and the last-trick bonus)."""
    if type(event) is e.TrickWon:
        return ("trick", event.seat, event.points)
    if type(event) is e.Melded:
        return ("meld", event.seat, event.name, event.points, event.cards)
    if type(event) is e.Played:
        return ("play", event.seat, event.action.plain())
    if type(event) is e.HandEnded:
        return ("handend", event.hand, event.points, event.totals)
    return event


def stock_rollout(game, me: int, values, rng: random.Random) -> float:
    """Play the two-handed hand out by a fast policy; our hand's points less the other seat's."""
    start = len(game.hands_ended)
    while not game.is_terminal() and len(game.hands_ended) == start:
        game.apply(stock_policy(game, values, rng))
    points = game.hands_ended[-1].points
    return points[me] - points[1 - me]


def stock_policy(game, values, rng):
    """The simulated seats of two-handed: the best meld; take the turn-up if it is a trump or an ace; while
    the stock lasts lead the least useful card, then a random one; win as cheaply as possible a trick worth
    10 or more, one with any points that a card of the suit led wins, and any trick once the stock is gone;
    else throw the cheapest card."""
    d = game.decision()
    legal = [a for a in d.legal if type(a) is not Claim]
    trump = game.trump
    if d.kind is DecisionKind.MELD:
        melds = [a for a in legal if type(a) is Meld]
        return max(melds, key=game.meld_value) if melds else legal[0]
    if d.kind is DecisionKind.TAKE_LAST:
        t = game.turnup
        return TakeLast(StockPick.TURNUP if t.suit is trump or t.rank is Rank.ACE else StockPick.STOCK)
    if d.kind is DecisionKind.LEAD:
        if game.phase == 1:  # the least useful card: no trump, no ace or ten, not meld on the table, low
            return min(legal, key=lambda a: (a.card.suit is trump, values[a.card] >= 10, a.from_table, a.card.strength))
        return legal[rng.randrange(len(legal))]
    led = game.trick[0][1].card
    winners = [a for a in legal if ((a.card.strength > led.strength) if a.card.suit is led.suit else (a.card.suit is trump))]
    if winners and (game.phase == 2 or values[led] >= 10
                    or (values[led] > 0 and any(a.card.suit is led.suit for a in winners))):
        return min(winners, key=lambda a: (a.card.suit is trump, a.card.strength))
    return min(legal, key=lambda a: (values[a.card], a.card.suit is trump, a.card.strength))


def hand_scores(table: Table, obs: Observation, points, won, buried_points: int, side) -> list[float]:
    """Each seat's score for the hand, as the rules count it, given the trick points it ends with."""
    v, n = table.variant, table.seats
    if table.stock_game:
        return [obs.meld_points[s] + points[s] for s in range(n)]
    points = list(points)
    bidder, bid = _contract(obs)
    points[bidder] += buried_points
    scores = [0.0] * n
    bidder_side = side[bidder]
    for which in set(side):
        members = [s for s in range(n) if side[s] == which]
        tricks = sum(points[s] for s in members)
        saved = sum(won[s] for s in members) > 0 if v.save_meld is SaveMeld.TRICK else tricks > 0
        total = tricks + (sum(obs.meld_points[s] for s in members) if saved else 0)
        if which == bidder_side:
            made = total >= bid
            score = (2 if made else -1) if v.scoring is Scoring.TWO_ONE else (total if made else -bid)
        else:
            score = total
        for s in members:
            scores[s] = score
    if v.scoring is Scoring.TWO_ONE:  # the defenders score 1 for a set, nothing for a made bid
        made = scores[bidder] > 0
        for s in range(n):
            if side[s] != bidder_side:
                scores[s] = 0 if made else 1
    return scores


def core_decision(table: Table, obs: Observation, seat: int, side, won, cards, sampler) -> list[int]:
    """A card to choose as the compiled core reads it: the hand as it stands, and from ``sampler`` (the rules
    library's) what is known of where each unseen card may lie."""
    v = table.variant
    trick = list(obs.trick)
    return native.decision_words(
        seats=table.seats, seat=seat, trump=obs.trump, duty=table.duty,
        first_lead_trump=v.first_lead_trump and not table.stock_game, last_trick=v.last_trick,
        values=table.rank_values, leader=trick[0][0] if trick else seat,
        tricks_played=(len(obs.played) - len(trick)) // table.seats, stock_game=table.stock_game,
        bidder=obs.bidder, bid=obs.bid, save_by_point=v.save_meld is SaveMeld.POINT,
        two_one=v.scoring is Scoring.TWO_ONE,
        buried=sum(table.values[c] for c in obs.buried) if obs.buried else None,
        sides=side, meld=obs.meld_points, points=obs.trick_points, won=won, trick=trick, hand=obs.hand,
        candidates=cards, places=core_places(sampler))


def core_places(sampler) -> tuple[list, list]:
    """What the rules library's ``sampler`` knows of where each unseen card may lie, as the core takes it:
    (place, room, cards known there) per place, and the groups of cards with the places each may go to."""
    room, fixed = sampler.placement.room, sampler.fixed
    order = list(room) + [p for p in fixed if p not in room]
    index = {p: i for i, p in enumerate(order)}
    kinds = [(p, room.get(p, 0), fixed.get(p, [])) for p in order]
    groups = [([index[p] for p in allowed], list(group)) for allowed, group in sampler.placement.by_places.items()]
    return kinds, groups


def core_play_out(core: native.Core, table: Table, trump, hands, seat: int, side, dummy) -> list[int]:
    """The trick points each seat takes when the hand is played out by the fast policy from its start, every
    card known and ``seat`` to lead (``play_out``, in the compiled core)."""
    v, n = table.variant, table.seats
    words = native.decision_words(
        seats=n, seat=seat, trump=trump, duty=table.duty, first_lead_trump=v.first_lead_trump, last_trick=v.last_trick,
        values=table.rank_values, leader=seat, tricks_played=0, stock_game=False, bidder=None, bid=0,
        save_by_point=False, two_one=False, buried=None, sides=side, meld=[0] * n, points=[0] * n, won=[0] * n,
        trick=[], hand=hands[seat], candidates=[],
        places=([*[(s, 0, hands[s]) for s in range(n) if s != seat], *([("dummy", 0, dummy)] if dummy else [])], []))
    return core.play_out(words, n)[0]


def core_stock_decision(table: Table, obs: Observation, seat: int, actions, sampler) -> list[int]:
    """A two-handed first-phase card to choose (or the last stock card to take), as the compiled core reads it."""
    v = table.variant
    scored, dixes = [0, 0], [0, 0]
    for s in (0, 1):
        for x in obs.melds[s]:
            kind = native.meld_kind(parse_type_name(x.name)[0], x.cards[0].suit if x.cards else None)
            if kind == native.meld_kind("dix", None):
                dixes[s] += 1
            elif kind is not None:
                scored[s] |= 1 << kind
    trick = list(obs.trick)
    return native.stock_words(
        seat=seat, trump=obs.trump, must_win=v.phase2_must_win, last_trick=v.last_trick, values=table.rank_values,
        meld_values=[v.melds.value(k) or 0 for k in native.MELD_KINDS],
        meld_before_draw=v.meld_timing is MeldTiming.BEFORE_DRAW, dix_with_other_meld=v.dix_with_other_meld,
        face_down_to_winner=v.last_stock_card is LastStockCard.WINNER_TAKES_FACE_DOWN,
        leader=trick[0][0] if trick else seat, led=trick[0][1] if trick else None, points=obs.trick_points,
        meld=obs.meld_points, scored=scored, dixes=dixes, hand=obs.hand,
        boards=(obs.tables[seat], obs.tables[1 - seat]), turnup=obs.turnup,
        candidates=[(a.card, a.from_table) if type(a) is PlayCard else (None, a.pick.value) for a in actions],
        places=core_places(sampler))


_CORE: list = []  # the compiled core once loaded (or None once it could not be)


def compiled_core() -> native.Core | None:
    """The compiled search core, loaded on first use; if it cannot be, None, and why is said once on stderr."""
    if not _CORE:
        try:
            _CORE.append(native.load())
        except native.CoreMissing as why:
            print(f"montecarlo: playing without its compiled core ({why}); the pure-Python search decides",
                  file=sys.stderr, flush=True)
            _CORE.append(None)
    return _CORE[0]


def utility(scores, seat, side) -> float:
    """How good an end of the hand is for ``seat``: its side's score less the other sides' mean."""
    mine = side[seat]
    others = {side[s]: scores[s] for s in range(len(scores)) if side[s] != mine}
    return scores[seat] - (sum(others.values()) / len(others) if others else 0.0)


# ------------------------------------------------------------------ the bot
class MonteCarlo:
    def __init__(self, think_ms: int = THINK_MS, worlds: int = 0, seed: int = 0, core: str = "native") -> None:
        self.think_ms, self.worlds, self.seed = think_ms, worlds, seed
        self.use_core = core == "native"  # "python": the pure-Python search only (the baseline for measuring)
        self.greedy = Greedy()
        self.game_id, self.seat, self.decisions = "", 0, 0
        # the game in play, from its 'game' line (new_game) on: no event or request comes before one
        self.playing = False
        self.table: Table
        self.observer: Observer
        self.won: list[int] = []
        self.started = 0.0  # when the request in hand arrived
        # two-handed: the hand as a game of the rules library (Shadow), and what it has yet to follow
        self.shadow: Shadow | None = None
        self.events: list = []  # events shown to us since the shadow last caught up
        self.replies: list = []  # our actions since then
        self.endgame: Endgame | None = None  # the second phase's exact search, kept for the whole hand

    # -------------------------------------------------------------- protocol
    def on_line(self, line: str):
        """Take in one line from the referee; return our reply (text ending in a newline), "quit", or None."""
        line = line.rstrip("\r\n")
        words = line.split()
        if not words:
            return None
        verb = words[0]
        if verb == "pinochle":
            return (f"id name montecarlo\nid author pinochle-arena sample bots\nprotocol 3\n"
                    f"option think int {self.think_ms} 1 60000\noption worlds int {self.worlds} 0 1000000\n"
                    f"option seed int {self.seed} 0 2147483647\n"
                    f"option core choice {'native' if self.use_core else 'python'} native python\nready\n")
        if verb == "setoption":
            if words[1] in ("think", "worlds", "seed"):
                setattr(self, "think_ms" if words[1] == "think" else words[1], int(words[2]))
            elif words[1] == "core":
                self.use_core = words[2] == "native"
            return None
        if verb == "go":
            self.started = time.perf_counter()
        advice = self.greedy.on_line(line)  # greedy follows the game too, for the decisions it makes
        if verb in ("ping", "quit"):
            return advice
        try:
            message = codec.parse_referee_line(line)
        except codec.ProtocolError:
            return None
        if isinstance(message, m.NewGame):
            self.new_game(message)
        elif isinstance(message, m.Request):
            return self.decide(message, advice) + "\n"
        elif type(message) in EVENT_OF and self.playing:
            self.see(EVENT_OF[type(message)](message))
        return None

    def new_game(self, message: m.NewGame) -> None:
        variant = get_variant(message.variant, dict(message.options))
        self.game_id, self.seat, self.decisions = message.game_id, message.seat, 0
        self.table = Table(variant)
        self.observer = Observer(variant, message.seat)
        self.playing = True
        self.won = [0] * variant.players

    def see(self, event) -> None:
        if type(event) is e.HandDealt:
            self.won = [0] * self.table.seats
            self.endgame = None
            if self.table.stock_game:
                rng = random.Random(f"{self.seed}:{self.game_id}:shadow:{event.hand}")
                self.shadow = Shadow(self.table.variant, self.seat, event, self.observer.totals, rng)
                self.events, self.replies = [], []
                self.opening = list(self.shadow.opening)  # the deal's own events, which the shadow has seen
                self.observer.see(event)
                return
        elif self.table.stock_game and self.shadow is not None:
            if self.opening and _plain(event) == _plain(self.opening[0]):
                self.opening.pop(0)
            else:
                self.events.append(event)
        elif type(event) is e.TrickWon:
            self.won[event.seat] += 1
        elif type(event) is e.Played and not self.table.stock_game:
            self.begin_play()
        self.observer.see(event)

    def begin_play(self) -> None:
        """The bidding games' tricks begin: the referee's lines have no word for it (the first lead says it)."""
        if self.observer.phase == 1:
            assert self.observer.bidder is not None, "the tricks begin once the auction is won"
            self.observer.see(e.PlayBegins(self.observer.bidder))

    # -------------------------------------------------------------- deciding
    def decide(self, request: m.Request, advice: str | None) -> str:
        self.decisions += 1
        self.rng = random.Random(f"{self.seed}:{self.game_id}:{self.decisions}")
        legal = [t for t in request.legal if t != "claim"] or list(request.legal)
        spare = SAFETY * request.time_left_ms / 1000 - MARGIN_S
        self.limit = self.started + max(spare, 0.0)  # never later than this, whatever --worlds says
        self.deadline = self.started + max(min(self.think_ms / 1000, spare), 0.0)
        kind = request.decision
        reply = advice.strip() if advice else legal[0]
        if kind in ("lead", "follow") and not self.table.stock_game:
            self.begin_play()
        if self.use_core and "claim" in request.legal and self.claim_wins():
            reply = "claim"
        elif spare > 0 and (len(legal) > 1 or ".." in legal[0]):
            try:
                reply = self.simulate(kind, legal) or reply
            except ValueError as error:  # a world that cannot be: our bookkeeping is wrong; greedy's choice
                print(f"montecarlo: no simulation for this {kind} ({error}); playing greedy's choice",
                      file=sys.stderr, flush=True)
        if kind in ("give", "bury"):  # our card leaves the hand before the referee shows the passing
            self.observer.see(e.SetAside(self.seat, Card.from_text(reply.split(":", 1)[1])))
        if self.shadow is not None:
            self.replies.append(action_from_text(split_points(reply)[0]))
        return reply

    def claim_wins(self) -> bool:
        """Would a claim win the game now (Hoyle's claim): does this seat's total, with this hand's meld and
        trick points so far, reach the target? Everything in it is public, so the test is exact."""
        obs = self.observer.observation()
        return obs.totals[self.seat] + obs.meld_points[self.seat] + obs.trick_points[self.seat] >= obs.target

    def simulate(self, kind: str, legal: list[str]) -> str | None:
        """The simulated choice for this decision; None where greedy's heuristics decide."""
        if kind in ("lead", "follow") and self.table.stock_game and self.observer.phase == 2:
            return self.solve(legal) or self.choose_card(legal)
        if self.table.stock_game:
            return self.choose_in_stock(legal)
        if kind in ("lead", "follow"):
            return self.choose_card(legal)
        if kind == "bid":
            return self.choose_bid(legal)
        if kind == "trump":
            return self.choose_trump(legal)
        if kind == "call":
            return self.choose_call(legal)
        if kind == "bury" or (kind == "give" and self.observer.bidder == self.seat):
            return self.choose_discard(kind, legal)
        return None

    def core(self) -> native.Core | None:
        """The compiled search core, if this bot uses it and it could be loaded."""
        return compiled_core() if self.use_core else None

    def core_seconds(self) -> float:
        """The time the core may take now: up to the deadline, or with --worlds up to the limit (never 0,
        which the core reads as no limit)."""
        end = self.limit if self.worlds else self.deadline
        return max(end - time.perf_counter(), 1e-6)

    def enough(self, worlds: int) -> bool:
        """Has this decision sampled enough worlds (by count with --worlds, else by the clock)?"""
        if worlds == 0:
            return False
        now = time.perf_counter()
        if self.worlds:
            return worlds >= self.worlds or now >= self.limit
        return now >= self.deadline

    def caught_up(self) -> Shadow | None:
        """The two-handed shadow, brought up to now; None (greedy decides) if it could not follow the game."""
        if self.shadow is None:
            return None
        try:
            self.shadow.follow(self.events, self.replies)
        except (ValueError, StopIteration) as error:
            print(f"montecarlo: lost track of the hand ({error}); greedy plays it out", file=sys.stderr, flush=True)
            self.shadow = None
        return self.shadow

    def choose_in_stock(self, legal: list[str]) -> str | None:
        """Two-handed, while the stock lasts: every legal action tried in sampled worlds, each played out to
        the end of the hand by the fast policy (the same random choices for every action of a world)."""
        shadow = self.caught_up()
        if shadow is None:
            return None
        actions = [action_from_text(split_points(t)[0]) for t in legal]
        core = self.core()
        if core is not None and all(type(a) in (Meld, Pass) for a in actions):  # the best meld, as the core's
            return max(legal, key=lambda t: split_points(t)[1] or 0)            # playouts meld
        plays = all(type(a) is PlayCard for a in actions) or all(type(a) is TakeLast for a in actions)
        if core is not None and plays:
            obs = self.observer.observation()
            words = core_stock_decision(self.table, obs, self.seat, actions, obs.sampler())
            found = core.stock(words, len(actions), self.rng.getrandbits(64), self.worlds, self.core_seconds())
            if found is not None:
                means = found[0]
                return legal[max(range(len(actions)), key=lambda i: means[i])]
        values = self.table.values
        totals = [0.0] * len(actions)
        worlds = 0
        while not self.enough(worlds):
            world = shadow.game.determinize(self.seat, self.rng)
            world.log, world.deals = [], []  # not needed to play on; cheaper to copy
            seed = self.rng.getrandbits(32)
            for i, action in enumerate(actions):
                trial = copy.deepcopy(world)
                trial.apply(action)
                totals[i] += stock_rollout(trial, self.seat, values, random.Random(seed))
            worlds += 1
        return legal[max(range(len(actions)), key=lambda i: totals[i])]

    def solve(self, legal: list[str]) -> str | None:
        """The two-handed second phase: every card is known, so search it exactly. None if the search does not
        end in time (with ``--worlds``, within EXACT_NODES positions, so the moves do not depend on the
        machine): it gets EXACT_SHARE of the decision's time and keeps what it solved for the next decision."""
        obs = self.observer.observation()
        world = obs.sample(self.rng)  # the only world there is: the other hand is every card not seen
        theirs = world.hands[1 - self.seat]
        led = obs.trick[0][1] if obs.trick else None
        core = self.core()
        if core is not None:
            return self.solve_in_core(core, obs, theirs, led, legal)
        if not isinstance(self.endgame, Endgame) or self.endgame.trump is not obs.trump:
            self.endgame = Endgame(self.table, obs.trump)
        if self.worlds:
            budget, limit = EXACT_NODES, self.limit
        else:
            budget, limit = LOSS, self.started + EXACT_SHARE * (self.deadline - self.started)
        try:
            card = self.endgame.best(obs.hand, theirs, led, budget, limit)
        except OutOfBudget:
            return None
        return next(t for t in legal if _play_of(t).card == card)

    def solve_in_core(self, core: native.Core, obs: Observation, theirs, led, legal: list[str]) -> str | None:
        """``solve``, by the compiled core's search (within CORE_EXACT_NODES positions with --worlds, else in
        CORE_EXACT_SHARE of the decision's time)."""
        table = self.table
        if not isinstance(self.endgame, native.Endgame) or self.endgame.trump is not obs.trump:
            self.endgame = core.endgame(obs.trump, table.duty, table.rank_values, table.variant.last_trick)
        if self.worlds:
            budget, seconds = CORE_EXACT_NODES, self.limit - time.perf_counter()
        else:
            budget = LOSS
            seconds = self.started + CORE_EXACT_SHARE * (self.deadline - self.started) - time.perf_counter()
        found = self.endgame.best(obs.hand, theirs, led, budget, max(seconds, 1e-6))
        if found is None:
            return None
        return next(t for t in legal if native.number(_play_of(t).card) == found[0])

    def choose_card(self, legal: list[str]) -> str:
        obs = self.observer.observation()
        table, seat, rng = self.table, self.seat, self.rng
        cards = [_play_of(t).card for t in legal]
        side = table.sides(obs)
        trick = list(obs.trick)
        leader = trick[0][0] if trick else seat
        played_tricks = (len(obs.played) - len(trick)) // table.seats
        sampler = obs.sampler()
        core = self.core()
        if core is not None:
            words = core_decision(table, obs, seat, side, self.won, cards, sampler)
            found = core.play(words, len(cards), rng.getrandbits(64), self.worlds, self.core_seconds())
            if found is not None:
                means = found[0]
                return legal[max(range(len(cards)), key=lambda i: means[i])]
        totals = [0.0] * len(cards)
        worlds = 0
        while not self.enough(worlds):
            world = sampler.sample(rng)
            buried = sum(table.values[c] for c in (obs.buried or world.buried))
            for i, card in enumerate(cards):
                hands = [list(h) for h in world.hands]
                hands[seat] = list(obs.hand)
                points, won = list(obs.trick_points), list(self.won)
                play_out(table, obs.trump, hands, trick, leader, played_tricks, points, won, world.dummy, side,
                         first=card)
                totals[i] += utility(hand_scores(table, obs, points, won, buried, side), seat, side)
            worlds += 1
        best = max(range(len(cards)), key=lambda i: totals[i])
        return legal[best]

    def suit_values(self, obs: Observation, trumps, bidding: bool) -> list[list[float]]:
        """Per sampled world, for each suit in ``trumps``: the points this seat's side would make with it as
        trump, were this seat to win the bid now (with the kitty, if there is one; in call-for-partner with its
        likeliest call handed over by its holder, beside it) and lead."""
        table, seat, rng, v = self.table, self.seat, self.rng, self.table.variant
        side = table.sides(obs)  # before the auction is won: partners sit opposite, else each seat alone
        partner = (seat + 2) % 4 if v.partners is Partners.OPPOSITE else None
        sampler = obs.sampler()
        core = self.core()
        rows: list[list[float]] = []
        own_meld: dict[tuple, int] = {}  # (our cards, trump) -> their meld: the same in every world without a kitty
        calls: dict[tuple, tuple] = {}  # (our cards, trump) -> the call we would make, and what we would pass back
        while not self.enough(len(rows)):
            world = sampler.sample(rng)
            mine = list(obs.hand) + (list(world.kitty) if bidding else [])
            ours = tuple(sort_cards(mine))
            row: list[float] = []
            for suit in trumps:
                hands = [list(h) for h in world.hands]
                hands[seat] = list(mine)
                if len(mine) > v.hand_size:  # the kitty's cards: bury (or pass back) the least useful
                    hands[seat] = sorted(mine, key=lambda c: (c.suit is suit, c.strength))[len(mine) - v.hand_size:]
                if v.partners is Partners.CALLED:
                    if (ours, suit) not in calls:
                        calls[ours, suit] = self.likely_call(mine, suit)
                    partner = self.join_called(hands, *calls[ours, suit])
                    side = [0 if s in (seat, partner) else 1 for s in range(table.seats)]
                meld = own_meld.get((ours, suit))
                if meld is None:
                    meld = own_meld[ours, suit] = meld_points(hands[seat] if v.partners is Partners.CALLED else mine,
                                                              suit, v)  # (a kitty's cards meld before the burial)
                if partner is not None:
                    meld += meld_points(hands[partner], suit, v)
                if core is not None:
                    points = core_play_out(core, table, suit, hands, seat, side, world.dummy)
                else:
                    points, won = [0] * table.seats, [0] * table.seats
                    play_out(table, suit, hands, (), seat, 0, points, won, world.dummy, side)
                tricks = sum(points[s] for s in range(table.seats) if side[s] == side[seat])
                row.append(meld + tricks)
            rows.append(row)
        return rows

    def likely_call(self, hand, trump) -> tuple:
        """call-for-partner's likeliest call for a bid winner holding ``hand``, and the card it would then pass
        back first; (None, None) if nobody else holds a card worth calling."""
        card = next(iter(call_candidates(hand, trump, self.table.values.keys(), self.table.variant)), None)
        return (card, self.pass_back([*hand, card], trump)) if card is not None else (None, None)

    def join_called(self, hands, card, back) -> int | None:
        """call-for-partner, in a world's ``hands``: the holder of ``card`` (our call) joins us, hands it over and
        takes ``back`` (``hands`` changed in place). Returns the partner, None if nobody else holds the card."""
        partner = first_holder(hands, self.seat, card) if card is not None else None
        if partner is not None:
            hand_over(hands, self.seat, partner, card, back)
        return partner

    def choose_bid(self, legal: list[str]) -> str:
        amounts = sorted(a for t in legal if t.startswith("bid:") for a in _bid_amounts(t))
        if not amounts:
            return "pass"
        obs = self.observer.observation()
        if "pass" in legal and self.partner_has_won(obs):
            return "pass"
        rows = self.suit_values(obs, list(Suit), bidding=True)
        best = sorted(max(row) for row in rows)
        worth = best[int((1 - self.making_share()) * (len(best) - 1))]
        affordable = [a for a in amounts if a <= worth]
        if "pass" not in legal:
            return f"bid:{amounts[0]}"
        if not affordable:
            return "pass"
        if self.table.variant.single_round:
            return f"bid:{affordable[-1]}"
        return f"bid:{affordable[0]}"

    def partner_has_won(self, obs: Observation) -> bool:
        """Does our partner hold the high bid with every opponent out of the auction (a pass is final)? Then a
        pass lets it win there; a bid over it would only raise our own side's contract."""
        if self.table.variant.partners is not Partners.OPPOSITE:
            return False
        amounts = [(s, a) for s, a in obs.bids if a is not None]
        passed = {s for s, a in obs.bids if a is None}
        partner = (self.seat + 2) % 4
        opponents = {(self.seat + 1) % 4, (self.seat + 3) % 4}
        return bool(amounts) and amounts[-1][0] == partner and opponents <= passed

    def making_share(self) -> float:
        """A bid is the most the hand makes in this share of the sampled worlds. Each share was measured against
        the others at 100 worlds a decision, on the same deals (docs/bots.md, "Is it stronger?")."""
        v = self.table.variant
        if v.give:
            # where the bid winner's partner gives it cards, less: the worlds value the hand as dealt, and the
            # partner's best cards make it stronger. 50% with a double deck (four of each card), where the four
            # cards are a smaller part of the hand (four-handed-double: +7.8 and +8.3 points a hand over 30%, 70%
            # and 90% lost 10 and 30 to it; call-for-partner: +1.9 and +2.6), 30% in four-handed (+1.5 and +4.0
            # over 60%)
            return 0.5 if v.deck_copies == 4 else 0.3
        if v.single_round:
            # 90% with one round of bids: the bid is the contract at once, where an auction stops at what
            # outbids the others (two-handed-dummy: 74% and 66% of the games against 60%, on two seeds)
            return 0.9
        return 0.6  # (three-handed: 90% lost 1.3 points a hand to it, 30% was not clearly better)

    def choose_trump(self, legal: list[str]) -> str:
        obs = self.observer.observation()
        suits = [Suit.from_text(t[6:]) for t in legal if t.startswith("trump:")]
        rows = self.suit_values(obs, suits, bidding=False)
        means = [sum(row[i] for row in rows) / len(rows) for i in range(len(suits))]
        return f"trump:{suits[max(range(len(suits)), key=lambda i: means[i])].value}"

    def choose_call(self, legal: list[str]) -> str | None:
        """call-for-partner: the card to call. Its holder becomes our partner and hands it to us, so a card that
        completes our meld may be worth more than greedy's ace of trump: a few candidates (CALL_CANDIDATES,
        those that add the most to our meld, and the ace and ten of trump) are each tried in sampled worlds,
        scored as our side's hand less the defenders' (set if short of the bid)."""
        obs = self.observer.observation()
        v, trump, hand = self.table.variant, obs.trump, list(obs.hand)
        options = call_candidates(hand, trump, [Card.from_text(t.split(":", 1)[1]) for t in legal], v)
        if len(options) < 2:  # one card to call, or none held elsewhere (we would play alone): no choice to weigh
            return f"call:{options[0].to_text()}" if options else None
        backs = [self.pass_back([*hand, card], trump) for card in options]
        # our meld once the call is handed over and the card passed back: the same in every world
        own = [meld_points(_without((*hand, card), back), trump, v) for card, back in zip(options, backs)]
        sampler, totals, worlds = obs.sampler(), [0.0] * len(options), 0
        while not self.enough(worlds):
            world = sampler.sample(self.rng)
            hands = [list(h) for h in world.hands]
            melds = [meld_points(h, trump, v) if s != self.seat else 0 for s, h in enumerate(hands)]
            for i, card in enumerate(options):
                totals[i] += self.call_value(obs, hands, melds, (card, backs[i], own[i]))
            worlds += 1
        return f"call:{options[max(range(len(options)), key=lambda i: totals[i])].to_text()}"

    def call_value(self, obs: Observation, hands, melds, call) -> float:
        """One world's worth of a call, (card, back, own meld): the card's first holder after us joins us, hands
        it over and takes ``back`` (the passing, in short), our hand then melding ``own``; then the hand is played
        out. ``melds``: each other seat's meld in the world as dealt."""
        table, seat, trump, v = self.table, self.seat, obs.trump, self.table.variant
        card, back, own = call
        _, bid = _contract(obs)
        seats = table.seats
        hands = [list(h) for h in hands]
        partner = self.join_called(hands, card, back)
        if partner is None:  # nobody else holds it (the candidates are cards others hold: not in a dealt world)
            return float(-bid)
        side = [0 if s in (seat, partner) else 1 for s in range(seats)]
        ours = own + meld_points(hands[partner], trump, v)  # counted before the play empties the hands
        core = self.core()
        if core is not None:
            points = core_play_out(core, table, trump, hands, seat, side, ())
        else:
            points, won = [0] * seats, [0] * seats
            play_out(table, trump, hands, (), seat, 0, points, won, (), side)
        ours += sum(points[s] for s in (seat, partner))
        theirs = sum(melds[s] + points[s] for s in range(seats) if side[s])
        return (ours if ours >= bid else -bid) - theirs

    def choose_discard(self, kind: str, legal: list[str]) -> str:
        """The bid winner's bury or pass back: keep the most meld, then the trumps and aces; bury counters
        (they score for the bid winner) before blanks."""
        obs = self.observer.observation()
        hand = list(obs.hand)
        return max(legal, key=lambda t: (*self.discard_key(kind, hand, Card.from_text(t.split(":", 1)[1]), obs.trump),
                                         t))

    def discard_key(self, kind: str, hand, card, trump) -> tuple:
        """How good ``card`` is to bury or pass back from ``hand``: the most meld left, then outside trump, not an
        ace; a counter to bury (it scores for the bid winner), a blank to pass."""
        rest = list(hand)
        rest.remove(card)
        value = self.table.values[card]
        return (meld_points(rest, trump, self.table.variant), card.suit is not trump, card.rank is not Rank.ACE,
                value if kind == "bury" else -value)

    def pass_back(self, hand, trump):
        """The card the bid winner passes back first from ``hand`` (as ``choose_discard`` would)."""
        return max(hand, key=lambda c: self.discard_key("give", hand, c, trump))


def _bid_amounts(token: str) -> list[int]:
    """``bid:25`` -> [25]; ``bid:A..B`` and ``bid:A..B/S`` -> every bid of the range."""
    text = token[4:]
    if ".." not in text:
        return [int(text)]
    low, _, rest = text.partition("..")
    high, _, step = rest.partition("/")
    return list(range(int(low), int(high) + 1, int(step or 1)))


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    core = sys.argv[sys.argv.index("--core") + 1] if "--core" in sys.argv else "native"
    serve(MonteCarlo(_option("--think", THINK_MS), _option("--worlds", 0), _option("--seed", 0), core))


if __name__ == "__main__":
    main()
