"""What one seat knows of the hand in play, and worlds of hidden cards consistent with it.

An :class:`Observer` follows the events shown to one seat, exactly as a bot
follows the lines the referee sends it, and keeps what that seat can know:

* its hand, the melds on the table, every card played this hand and the trick;
* how many concealed cards each seat holds, and which of them it knows
  (a turn-up taken, melds shown and kept in the hand, the kitty taken by the
  bid winner, cards passed to or by this seat);
* the cards a seat has shown it cannot hold, by the plays the rules did not
  let it make (:mod:`.tricks`): no card of the suit led when it failed to
  follow, no trump when it neither followed nor trumped, no card that would
  have headed the trick when it did not head it, no trump when it led
  another suit where the first lead must be a trump;
* the face-down piles (stock, kitty, buried cards, dummy) and what is known of them;
* the auction, trump, partner, points and totals.

:meth:`Observation.sample` deals the cards this seat has not seen into the
places it cannot see, uniformly among the ways that agree with everything
above (and, in the bidding games, with the meld each seat showed: a sampled
hand melds exactly what its seat showed). That is the determinization of a
Monte Carlo bot; :meth:`~.state.GameState.determinize` puts a sample into a
copy of a game.

Known limit: after cards pass face down between two other seats (or are
buried by another seat), a card known to be in the giver's hand is known to
be in one of the two places, but not how many such cards went over.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import attrs

from . import events as e
from .cards import Card, Suit, make_deck, sort_cards
from .melds import count_hand_meld, fewest_cards, type_name
from .tricks import FollowDuty, legal_plays
from .variants import Variant

Place = int | str  # a seat's concealed hand (its number) or a face-down pile: "stock", "kitty", "buried", "dummy"
PILES = ("stock", "kitty", "buried", "dummy")
HAND_TRIES = 100  # draws of one seat's hand before a world is started again (Sampler)


@attrs.frozen
class World:
    """One way the cards a seat has not seen may lie.

    ``hands`` holds every seat's concealed hand (the observer's own as it is);
    the piles are in order: the stock from the next card to draw (the
    turn-up not included), the kitty with any cards turned during the
    auction first, the dummy from its top card.
    """

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...] = ()
    kitty: tuple[Card, ...] = ()
    buried: tuple[Card, ...] = ()
    dummy: tuple[Card, ...] = ()


@attrs.frozen
class Observation:
    """Everything one seat may know now about the hand in play (see the module's docstring)."""

    variant: Variant
    seat: int
    hand_number: int
    dealer: int
    trump: Suit | None
    turnup: Card | None  # the stock game's face-up card under the stock, while it lies there
    phase: int  # the stock game: 1 while the stock lasts, then 2; the bidding games: 1 until the tricks begin
    hand: tuple[Card, ...]  # this seat's concealed hand
    tables: tuple[tuple[Card, ...], ...]  # the stock game: each seat's melded cards on the table
    trick: tuple[tuple[int, Card], ...]  # (seat, card) played to the trick so far
    played: tuple[tuple[int, Card], ...]  # every card played to a trick this hand, in order, the trick's included
    held: tuple[int, ...]  # how many concealed cards each seat holds
    known: tuple[tuple[Card, ...], ...]  # per seat, concealed cards this seat knows are there (its own: the hand)
    uncertain: tuple[tuple[Card, frozenset[Place]], ...]  # cards known to be in one of a few places
    excluded: tuple[frozenset[Card], ...]  # per seat, cards it has shown it does not hold
    piles: tuple[tuple[str, int], ...]  # face-down piles and how many unseen cards each holds
    kitty: tuple[Card, ...]  # kitty cards seen (turned during the auction, or shown)
    dummy: tuple[Card, ...]  # 003's dummy: the cards turned from it so far
    gave: tuple[Card, ...]  # cards this seat passed to its partner
    received: tuple[Card, ...]  # cards this seat received from its partner
    buried: tuple[Card, ...]  # cards this seat buried
    set_aside: tuple[Card, ...]  # cards this seat chose to pass or bury, before the passing or burial is shown
    melds: tuple[tuple[e.Melded, ...], ...]  # per seat, the melds it showed this hand
    melds_complete: bool  # the bidding games, once the tricks begin: each seat showed all it melds
    bids: tuple[tuple[int, int | None], ...]  # (seat, amount or None for a pass), in order
    bidder: int | None
    bid: int | None
    called: Card | None
    partner: int | None
    meld_points: tuple[int, ...]
    trick_points: tuple[int, ...]
    totals: tuple[int, ...]
    target: int = 0  # the score that wins the game now (it rises under tiebreak=play-on)
    tricks_won: tuple[int, ...] = ()  # how many tricks each seat has won this hand

    def voids(self, seat: int) -> frozenset[Suit]:
        """The suits ``seat`` has shown it holds none of."""
        faces = make_deck(1, self.variant.deck_ranks)
        return frozenset(s for s in Suit if all(c in self.excluded[seat] for c in faces if c.suit is s))

    def unseen(self) -> Counter[Card]:
        """The cards this seat has not seen (those a world deals), with their copies."""
        return +_unseen(self)

    def sampler(self) -> Sampler:
        """A sampler of worlds for this observation (it reuses its counting across samples)."""
        return Sampler(self)

    def sample(self, rng: random.Random) -> World:
        """One world consistent with this observation, drawn uniformly (see :class:`Sampler`)."""
        return Sampler(self).sample(rng)


class Observer:
    """Follows the events shown to one seat (:class:`~.events.Notice` addressed to it) and keeps what it knows."""

    def __init__(self, variant: Variant, seat: int, totals: Sequence[int] | None = None, infer: bool = True,
                 target: int | None = None) -> None:
        """``infer=False``: keep what the seat was shown, not what it could infer from the follow duties about
        the cards others cannot hold (``excluded`` stays empty; the replay viewer shows no inferences).
        ``totals`` and ``target``: the game's scores and target when the events begin (default 0 each, and the
        variant's target)."""
        self.variant, self.seat, self.players = variant, seat, variant.players
        self.infer = infer
        self.stock_game = variant.family == "stock"
        self.faces = make_deck(1, variant.deck_ranks)
        self.totals = tuple(totals) if totals is not None else (0,) * self.players
        self.target = target if target is not None else variant.target
        self.hand_number, self.dealer = 0, 0
        self.dealt = False  # events before the first deal belong to a hand this seat is not asked about
        self._reset()

    def _reset(self) -> None:
        n = self.players
        self.trump: Suit | None = None
        self.turnup: Card | None = None
        self.phase = 1
        self.hand: list[Card] = []
        self.tables: list[list[Card]] = [[] for _ in range(n)]
        self.trick: list[tuple[int, Card]] = []
        self.played: list[tuple[int, Card]] = []
        self.tricks_played = 0
        self.held = [0] * n
        self.known: list[list[Card]] = [[] for _ in range(n)]
        self.uncertain: list[tuple[Card, frozenset[Place]]] = []
        self.excluded: list[set[Card]] = [set() for _ in range(n)]
        self.piles: dict[str, int] = {}
        self.kitty: list[Card] = []
        self.dummy: list[Card] = []
        self.set_aside: list[Card] = []
        self.gave: list[Card] = []
        self.received: list[Card] = []
        self.buried: list[Card] = []
        self.melds: list[list[e.Melded]] = [[] for _ in range(n)]
        self.melds_complete = False
        self.bids: list[tuple[int, int | None]] = []
        self.bidder: int | None = None
        self.bid: int | None = None
        self.partner: int | None = None
        self.called: Card | None = None
        self.meld_points = [0] * n
        self.trick_points = [0] * n
        self.tricks_won = [0] * n

    # ------------------------------------------------------------- reading
    def see(self, event: e.Event) -> None:
        """Take in one event shown to this seat."""
        if not self.dealt and type(event) is not e.HandDealt:
            return
        handler = getattr(self, "_on_" + type(event).__name__, None)
        if handler is not None:
            handler(event)

    def observation(self) -> Observation:
        return Observation(
            variant=self.variant, seat=self.seat, hand_number=self.hand_number, dealer=self.dealer,
            trump=self.trump, turnup=self.turnup, phase=self.phase, hand=tuple(sort_cards(self.hand)),
            tables=tuple(tuple(sort_cards(t)) for t in self.tables), trick=tuple(self.trick),
            played=tuple(self.played), held=tuple(self.held),
            known=tuple(tuple(sort_cards(self.hand if s == self.seat else k)) for s, k in enumerate(self.known)),
            uncertain=tuple(self.uncertain), excluded=tuple(frozenset(x) for x in self.excluded),
            piles=tuple(self.piles.items()), kitty=tuple(self.kitty), dummy=tuple(self.dummy),
            gave=tuple(self.gave), received=tuple(self.received), buried=tuple(self.buried),
            set_aside=tuple(self.set_aside), melds=tuple(tuple(m) for m in self.melds),
            melds_complete=self.melds_complete, bids=tuple(self.bids), bidder=self.bidder, bid=self.bid,
            called=self.called, partner=self.partner, meld_points=tuple(self.meld_points),
            trick_points=tuple(self.trick_points), totals=self.totals, target=self.target,
            tricks_won=tuple(self.tricks_won),
        )

    # ------------------------------------------------------------ bookkeeping
    def _take(self, seat: int, cards: Iterable[Card | None]) -> None:
        """Cards come into ``seat``'s concealed hand (None: a card this seat does not see)."""
        for c in cards:
            if seat == self.seat:
                self.hand.append(_shown(c))
            else:
                self.held[seat] += 1
                if c is not None:
                    self.known[seat].append(c)

    def _lose(self, seat: int, cards: Iterable[Card | None]) -> None:
        """Cards leave ``seat``'s concealed hand (None: cards this seat does not see)."""
        for c in cards:
            if seat == self.seat:
                if c in self.set_aside:  # chosen one by one before the passing or burial was shown
                    self.set_aside.remove(c)
                else:
                    self.hand.remove(_shown(c))
                continue
            self.held[seat] -= 1
            if c is None:
                continue
            if c in self.known[seat]:
                self.known[seat].remove(c)
            else:  # a copy known to be here or elsewhere: it is accounted for now
                hit = next((i for i, (u, places) in enumerate(self.uncertain) if u == c and seat in places), None)
                if hit is not None:
                    del self.uncertain[hit]

    def _hidden_move(self, giver: int, to: Place) -> None:
        """Cards left ``giver`` face down for ``to``: what was known in the giver's hand may now be there."""
        for c in self.known[giver]:
            self.uncertain.append((c, frozenset((giver, to))))
        self.known[giver] = []
        self.uncertain = [(c, places | {to}) if giver in places else (c, places) for c, places in self.uncertain]

    # ----------------------------------------------------------------- events
    def _on_SetAside(self, ev: e.SetAside) -> None:
        self.hand.remove(ev.card)
        self.set_aside.append(ev.card)

    def _on_HandDealt(self, ev: e.HandDealt) -> None:
        v = self.variant
        self._reset()
        self.dealt = True
        self.hand_number, self.dealer = ev.hand, ev.dealer
        self.hand = list(ev.cards)
        self.held = [v.hand_size] * self.players
        self.held[self.seat] = 0  # the observer's own hand is self.hand
        if self.stock_game:
            self.turnup = _shown(ev.turnup)  # the stock game turns one up
            self.trump = self.turnup.suit
            self.piles["stock"] = v.deck_size - self.players * v.hand_size - 1
        else:
            if v.kitty:
                self.piles["kitty"] = v.kitty
            if v.dummy:
                self.piles["dummy"] = v.dummy

    def _on_Scored(self, ev: e.Scored) -> None:
        self.meld_points[ev.seat] += ev.points

    def _on_Played(self, ev: e.Played) -> None:
        seat, c = ev.seat, ev.action.card
        if seat != self.seat and self.infer:
            self._exclude(seat, c)
        if ev.action.from_table:
            self.tables[seat].remove(c)
        else:
            self._lose(seat, (c,))
        self.trick.append((seat, c))
        self.played.append((seat, c))

    def _exclude(self, seat: int, c: Card) -> None:
        """What ``seat`` cannot hold, having played ``c``: every card that would have made ``c`` illegal.

        The duties of :mod:`.tricks` rank the cards a follower may play (the
        suit led, heading the trick, then trump): ``c`` is legal in a hand
        unless the hand holds a card of a higher rank of duty, so it is
        enough to try each card beside ``c`` alone.
        """
        v = self.variant
        if self.stock_game and self.phase == 1:
            return  # free play while the stock lasts
        trick = [p for _, p in self.trick]
        assert self.trump is not None, "cards are played once trump is known"
        if trick:
            duty = FollowDuty(must_follow=True, must_trump=True, must_win=v.phase2_must_win)
            self.excluded[seat].update(x for x in self.faces
                                       if c not in legal_plays((c, x), trick, self.trump, duty))
        elif not self.stock_game and v.first_lead_trump and self.tricks_played == 0 and c.suit is not self.trump:
            self.excluded[seat].update(x for x in self.faces if x.suit is self.trump)

    def _on_TrickWon(self, ev: e.TrickWon) -> None:
        self.trick_points[ev.seat] += ev.points
        self.tricks_won[ev.seat] += 1
        self.trick = []
        self.tricks_played += 1

    def _on_Drew(self, ev: e.Drew) -> None:
        # The last pair of draws takes the stock's last card and the turn-up, in either order;
        # a card shown equal to the turn-up is taken for it (two identical cards are interchangeable).
        stock = self.piles["stock"]
        if stock == 0 or (stock == 1 and ev.card is not None and ev.card == self.turnup):
            self.turnup = None
        else:
            self.piles["stock"] = stock - 1
        self._take(ev.seat, (ev.card,))

    def _on_Melded(self, ev: e.Melded) -> None:
        self.meld_points[ev.seat] += ev.points
        self.melds[ev.seat].append(ev)
        if self.stock_game:  # the cards go on the table
            self._lose(ev.seat, ev.cards)
            self.tables[ev.seat].extend(ev.cards)
        elif ev.seat != self.seat:  # shown and kept: known to be in the hand
            have = Counter(self.known[ev.seat])
            need = fewest_cards((m.name, m.cards) for m in self.melds[ev.seat])
            for c, n in need.items():
                for _ in range(n - have[c]):
                    self._know(ev.seat, c)

    def _know(self, seat: int, c: Card) -> None:
        """``c`` is shown to be in ``seat``'s hand: a copy known to be there or elsewhere is taken to be it.

        (Whether it is that copy or another, the worlds left are the same:
        one copy here and the rest wherever else they may be.)
        """
        hit = next((i for i, (u, places) in enumerate(self.uncertain) if u == c and seat in places), None)
        if hit is not None:
            del self.uncertain[hit]
        self.known[seat].append(c)

    def _on_Exchanged(self, ev: e.Exchanged) -> None:
        self.tables[ev.seat].remove(ev.dix)  # the dix was melded; it goes under the stock instead
        self.turnup = ev.dix
        self._take(ev.seat, (ev.taken,))

    def _on_PhaseTwo(self, ev: e.PhaseTwo) -> None:
        self.phase = 2
        for seat, table in enumerate(self.tables):
            self._take(seat, table)
        self.tables = [[] for _ in range(self.players)]

    def _on_PlayBegins(self, ev: e.PlayBegins) -> None:
        self.phase = 2
        self.melds_complete = True

    def _on_HandEnded(self, ev: e.HandEnded) -> None:
        self.totals = ev.totals

    def _on_TargetRaised(self, ev: e.TargetRaised) -> None:
        self.target = ev.target

    def _on_GameEnded(self, ev: e.GameEnded) -> None:
        self.totals = ev.totals

    def _on_BidMade(self, ev: e.BidMade) -> None:
        self.bids.append((ev.seat, ev.amount))

    def _on_AuctionWon(self, ev: e.AuctionWon) -> None:
        self.bidder, self.bid = ev.seat, ev.amount

    def _on_KittyCardTurned(self, ev: e.KittyCardTurned) -> None:
        self.kitty.append(ev.card)
        self.piles["kitty"] -= 1

    def _on_KittyShown(self, ev: e.KittyShown) -> None:
        self.kitty = list(ev.cards)
        del self.piles["kitty"]
        assert self.bidder is not None, "the kitty is shown once the auction is won"
        self._take(self.bidder, ev.cards)

    def _on_TrumpDeclared(self, ev: e.TrumpDeclared) -> None:
        self.trump = Suit.from_text(ev.suit)

    def _on_CardCalled(self, ev: e.CardCalled) -> None:
        self.called = ev.card

    def _on_PartnerKnown(self, ev: e.PartnerKnown) -> None:
        self.partner = ev.partner

    def _on_Given(self, ev: e.Given) -> None:
        if ev.giver == self.seat:
            self.gave.extend(map(_shown, ev.cards))
        elif ev.receiver == self.seat:
            self.received.extend(map(_shown, ev.cards))
        elif None in ev.cards:
            self._hidden_move(ev.giver, ev.receiver)
        self._lose(ev.giver, ev.cards)
        self._take(ev.receiver, ev.cards)

    def _on_Buried(self, ev: e.Buried) -> None:
        if ev.seat == self.seat:
            self.buried = list(map(_shown, ev.cards))
        else:
            self._hidden_move(ev.seat, "buried")
            self.piles["buried"] = len(ev.cards)
        self._lose(ev.seat, ev.cards)

    def _on_DummyTaken(self, ev: e.DummyTaken) -> None:
        self.piles["dummy"] -= 1
        self.dummy.append(ev.card)


def _shown(c: Card | None) -> Card:
    """A card this seat was shown: its own, or one turned up (a None there would be a rules engine bug)."""
    if c is None:
        raise ValueError("a card this seat is shown came face down")
    return c


def _unseen(obs: Observation) -> Counter[Card]:
    """The deck less every card this seat has seen somewhere it still is or was played."""
    v = obs.variant
    left = Counter(make_deck(v.deck_copies, v.deck_ranks))
    seen = [*obs.hand, *(c for t in obs.tables for c in t), *(c for _, c in obs.played), *obs.buried,
            *obs.set_aside, *obs.dummy]
    if obs.turnup is not None:
        seen.append(obs.turnup)
    seen += obs.kitty if "kitty" in dict(obs.piles) else ()  # turned kitty cards still lie in the kitty
    left.subtract(seen)
    return left


class Sampler:
    """Worlds consistent with an observation.

    Every unseen card may lie in some places: a seat's hand unless the seat
    has shown it cannot hold it, any face-down pile, or only the places it is
    known to be in. Cards with the same places are interchangeable, so a
    world is drawn in two steps: how many cards of each such group go to each
    place, with the probability of the number of worlds that choice leaves
    (counted exactly, once per observation), then which cards, by shuffling.
    Every world that agrees with those constraints is equally likely.

    Once the bidding games' melds are shown, each other seat's hand must
    also meld exactly what the seat showed. Part of that is a constraint on
    single cards, exact like the others: a card that, beside the cards the
    seat is known to have held, would have melded more cannot be there (a
    seat that showed queens around and no marriage holds no king). The rest
    is not (a king and a queen of clubs may each be there, not both), so the
    hands are drawn one seat at a time: a hand from the worlds above, drawn
    again until it melds as shown, then kept while the next seat's is drawn
    (and the world started again when a seat finds no such hand soon).
    Every world then agrees with everything seen, but the draw is close to
    uniform rather than exactly so.
    """

    def __init__(self, obs: Observation, tries: int = 2_000) -> None:
        self.obs, self.tries = obs, tries
        pile_sizes = dict(obs.piles)
        self.kitty_turned = list(obs.kitty) if "kitty" in pile_sizes else []
        # what is placed already: known cards, and the observer's own buried cards
        self.fixed: dict[Place, list[Card]] = {s: list(k) for s, k in enumerate(obs.known) if s != obs.seat}
        if obs.buried:
            self.fixed["buried"] = list(obs.buried)
        places: list[Place] = [s for s in range(len(obs.held)) if s != obs.seat] + list(pile_sizes)
        room: dict[Place, int] = {s: obs.held[s] - len(obs.known[s]) for s in range(len(obs.held)) if s != obs.seat}
        room.update(pile_sizes)
        unseen = _unseen(obs)
        for place, cards in self.fixed.items():
            if place != "buried":
                unseen.subtract(cards)
        tokens: list[tuple[Card, frozenset[Place]]] = []
        for c, where in obs.uncertain:
            unseen[c] -= 1
            tokens.append((c, frozenset(where)))
        everywhere = frozenset(places)
        for c, n in unseen.items():
            if n < 0:
                raise ValueError(f"the observation is inconsistent: {c} is seen more often than the deck holds it")
            tokens += [(c, everywhere)] * n
        if sum(room.values()) != len(tokens):
            raise ValueError(f"the observation is inconsistent: {len(tokens)} unseen cards for "
                             f"{sum(room.values())} unseen places")
        self.meld_seats = [s for s in range(len(obs.held)) if s != obs.seat] if obs.melds_complete else []
        self.later: dict[int, list[Card]] = {s: [] for s in self.meld_seats}  # cards played since the meld
        for s, c in obs.played:
            self.later.setdefault(s, []).append(c)
        excluded = [set(x) for x in obs.excluded]
        for s in self.meld_seats:
            excluded[s] |= self._meld_excluded(s, {c for c, _ in tokens})
        groups: dict[frozenset[Place], list[Card]] = {}
        for c, where in tokens:
            allowed = frozenset(p for p in where if not (isinstance(p, int) and c in excluded[p]))
            if not allowed:
                raise ValueError(f"the observation is inconsistent: {c} can be nowhere")
            groups.setdefault(allowed, []).append(c)
        self.placement = _Placement(room, groups)
        if not self.placement.possible():
            raise ValueError("the observation is inconsistent: no world agrees with it")

    def sample(self, rng: random.Random) -> World:
        for _ in range(self.tries):
            world = self._attempt(rng)
            if world is not None:
                return world
        raise ValueError(f"no world agreeing with the melds shown was found in {self.tries} tries")

    def _attempt(self, rng: random.Random) -> World | None:
        """A world, or None when a hand agreeing with its meld is not found soon after the hands drawn before it."""
        placement = self.placement
        placed = {place: list(cards) for place, cards in self.fixed.items()}
        for s in self.meld_seats:  # one hand at a time, each agreeing with its meld
            tries = 1 if len(placement.places) == 1 else HAND_TRIES  # the last place takes what is left
            for _ in range(tries):
                drawn = placement.draw(rng)[s]
                hand = [c for _, c in drawn] + self.fixed.get(s, [])
                if self._meld_agrees(s, hand):
                    break
            else:
                return None
            placed[s] = hand
            placement = placement.without(s, drawn)
        for place, drawn in placement.draw(rng).items():
            placed.setdefault(place, []).extend(c for _, c in drawn)
        return self._world(placed, rng)

    def _meld_excluded(self, seat: int, candidates: set[Card]) -> set[Card]:
        """The cards ``seat`` cannot hold because, beside the cards known to have been in its hand, they would have melded more."""
        if self.obs.held[seat] == len(self.fixed.get(seat, ())):
            return set()  # no concealed card: nothing to exclude
        known = self.fixed.get(seat, [])
        return {c for c in candidates if not self._meld_agrees(seat, [*known, c])}

    def _meld_agrees(self, seat: int, hand: list[Card]) -> bool:
        """Does ``hand`` (with the cards the seat played since) meld what ``seat`` showed?"""
        obs = self.obs
        assert obs.trump is not None, "melds are complete once the tricks begin, under trump"
        lines = count_hand_meld(hand + self.later[seat], obs.trump, obs.variant.melds)
        shown = [(m.name, m.points, m.cards) for m in obs.melds[seat]]
        return [(type_name(m.kind, m.multiplicity), m.points, m.cards) for m in lines] == shown

    def _world(self, placed: dict[Place, list[Card]], rng: random.Random) -> World:
        obs = self.obs
        hands = tuple(obs.hand if s == obs.seat else tuple(sort_cards(placed.get(s, ())))
                      for s in range(len(obs.held)))
        piles = {}
        for name in PILES:
            cards = list(placed.get(name, ()))
            if name != "buried":
                rng.shuffle(cards)  # a face-down pile's order is as unknown as its cards
            piles[name] = tuple(cards)
        piles["kitty"] = (*self.kitty_turned, *piles["kitty"])
        return World(hands, **piles)


class _Placement:
    """How many of each group of interchangeable cards go to each place: counted, then drawn.

    ``room`` is how many cards each place takes, ``groups`` the cards by the
    places each may go to. ``_count(i, room)`` is the number of ways to deal
    the cards of groups ``i`` onwards into places with that room left. A
    group allowed in one place only is placed at once; the last group (the
    largest: the cards nobody has shown anything about) is counted by a
    multinomial, so only the splits of the few constrained groups are
    enumerated.
    """

    def __init__(self, room: dict[Place, int], groups: dict[frozenset[Place], list[Card]]) -> None:
        self.room, self.by_places = room, groups
        self.places = list(room)
        index = {p: i for i, p in enumerate(self.places)}
        left = [room[p] for p in self.places]
        self.forced: list[tuple[frozenset[Place], list[Card]]] = []
        free: list[tuple[frozenset[Place], tuple[int, ...], list[Card]]] = []
        for allowed, cards in groups.items():
            where = tuple(sorted(index[p] for p in allowed))
            if len(where) == 1:
                self.forced.append((allowed, cards))
                left[where[0]] -= len(cards)
            else:
                free.append((allowed, where, cards))
        free.sort(key=lambda g: len(g[2]))  # the largest group last
        self.groups = free
        self.start = tuple(left)
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def possible(self) -> bool:
        return self._count(0, self.start) > 0

    def _count(self, i: int, room: tuple[int, ...]) -> int:
        if any(r < 0 for r in room):
            return 0
        if i == len(self.groups):
            return int(not any(room))
        key = (i, room)
        if key not in self.memo:
            _, where, cards = self.groups[i]
            if i == len(self.groups) - 1:
                fits = sum(room) == len(cards) and all(r == 0 for j, r in enumerate(room) if j not in where)
                self.memo[key] = _multinomial([room[j] for j in where]) if fits else 0
            else:
                self.memo[key] = sum(_multinomial(split) * self._count(i + 1, _less(room, where, split))
                                     for split in splits(len(cards), [room[j] for j in where]))
        return self.memo[key]

    def draw(self, rng: random.Random) -> dict[Place, list[tuple[frozenset[Place], Card]]]:
        """One placement, uniformly: per place, the cards with the group each came from."""
        placed: dict[Place, list[tuple[frozenset[Place], Card]]] = {p: [] for p in self.places}
        for allowed, cards in self.forced:
            (place,) = allowed
            placed[place] += [(allowed, c) for c in cards]
        room = self.start
        for i, (allowed, where, cards) in enumerate(self.groups):
            if i == len(self.groups) - 1:
                split = tuple(room[j] for j in where)
            else:
                pick = rng.randrange(self._count(i, room))
                for split in splits(len(cards), [room[j] for j in where]):
                    pick -= _multinomial(split) * self._count(i + 1, _less(room, where, split))
                    if pick < 0:
                        break
            shuffled = list(cards)
            rng.shuffle(shuffled)
            at = 0
            for j, k in zip(where, split):
                placed[self.places[j]] += [(allowed, c) for c in shuffled[at:at + k]]
                at += k
            room = _less(room, where, split)
        return placed

    def without(self, place: Place, taken: list[tuple[frozenset[Place], Card]]) -> _Placement:
        """The placement of the other places, once ``place`` has been dealt ``taken``."""
        left = {allowed: list(cards) for allowed, cards in self.by_places.items()}
        for allowed, c in taken:
            left[allowed].remove(c)
        groups: dict[frozenset[Place], list[Card]] = {}
        for allowed, cards in left.items():
            if cards:
                groups.setdefault(allowed - {place}, []).extend(cards)
        return _Placement({p: r for p, r in self.room.items() if p != place}, groups)


def splits(total: int, limits: list[int]) -> Iterator[tuple[int, ...]]:
    """Every way to split ``total`` cards into parts, part i at most ``limits[i]``."""
    if len(limits) == 1:
        if total <= limits[0]:
            yield (total,)
        return
    for k in range(min(total, limits[0]) + 1):
        for rest in splits(total - k, limits[1:]):
            yield (k, *rest)


def _less(room: tuple[int, ...], where: tuple[int, ...], split: tuple[int, ...]) -> tuple[int, ...]:
    out = list(room)
    for j, k in zip(where, split):
        out[j] -= k
    return tuple(out)


def _multinomial(parts: Sequence[int]) -> int:
    """The ways to split distinct cards into parts of these sizes."""
    ways, n = 1, 0
    for k in parts:
        n += k
        ways *= math.comb(n, k)
    return ways
