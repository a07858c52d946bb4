"""The bidding games (003 and 004) as one pure state machine, configured by the variant.

A hand goes: deal -> auction (kitty cards turned between its rounds) ->
(kitty shown and taken) -> trump declared (or the hand thrown in, which ends
it) -> (a partner card called) -> (cards passed between partners, one
request per card) -> (cards buried, one request per card) -> every hand's
meld counted and shown -> tricks -> scoring. Which of the bracketed steps
happen, and how, is data in :class:`~referee.rules.variants.Variant`:
``kitty``, ``kitty_auction``, ``throw_in``, ``dummy``, ``partners``,
``give``, ``bury``, the bid ladder, ``all_pass``, ``first_lead_trump``,
``save_meld``, ``scoring``, ``tiebreak``.

The trick-taking rules are :mod:`.tricks` (follow suit, head the trick,
else trump); meld counting is :func:`.melds.count_hand_meld`; the auction
is :class:`.bidding.Auction`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from .actions import (
    Action,
    AuctionChoices,
    Bid,
    BuryCard,
    CallCard,
    DeclareTrump,
    GiveCard,
    Pass,
    PlayCard,
    ThrowIn,
)
from .bidding import Auction, ranges_text
from .cards import Card, IdentityEnum, Suit, make_deck, sort_cards
from .dealing import Deal, deal_out, deck_for
from .events import (
    AuctionWon,
    BidMade,
    Buried,
    CardCalled,
    ContractResult,
    Decision,
    DecisionKind,
    DummyTaken,
    GameEnded,
    Given,
    HandDealt,
    HandEnded,
    KittyCardTurned,
    KittyShown,
    Melded,
    Notice,
    PartnerKnown,
    PlayBegins,
    Played,
    Redeal,
    SetAside,
    ThrownIn,
    TrickWon,
    TrumpDeclared,
)
from .melds import count_hand_meld, type_name
from .observation import World
from .state import GameState, known
from .tricks import FollowDuty, legal_plays, trick_winner
from .variants import CallOwnCard, Partners, SaveMeld, Scoring, Tiebreak, Variant

MAX_DEALS_PER_HAND = 5  # with max_hands: how many deals (redeals included) a game may take before it is scored as it stands


class AuctionStage(IdentityEnum):
    """Where a hand of a bidding game stands, in the order the hand goes through them."""

    BID = "bid"  # the auction
    TRUMP = "trump"  # the bid winner names trump (or throws the hand in)
    CALL = "call"  # call-for-partner: the bid winner calls a card
    GIVE = "give"  # partners pass cards, one by one (the partner first, then the bid winner back)
    BURY = "bury"  # the bid winner buries cards, one by one
    PLAY = "play"  # meld counted; the tricks


@attrs.define(eq=False)
class AuctionGame(GameState):
    variant: Variant
    seed: int
    totals: list[int]
    hand_number: int = 0
    dealer: int = 0
    hands: list[list[Card]] = attrs.Factory(list)
    kitty: list[Card] = attrs.Factory(list)
    kitty_turned: int = 0  # kitty cards turned face up during the auction (003's kitty auction)
    dummy: list[Card] = attrs.Factory(list)
    buried: list[Card] = attrs.Factory(list)
    trump: Suit | None = None
    auction: Auction | None = None
    bidder: int | None = None
    bid: int | None = None
    partner: int | None = None
    stage: AuctionStage = AuctionStage.BID
    giver: int | None = None
    receiver: int | None = None
    give_left: int = 0
    giving: list[Card] = attrs.Factory(list)
    given_back: bool = False
    meld_points: list[int] = attrs.Factory(list)
    trick: list[tuple[int, PlayCard]] = attrs.Factory(list)
    leader: int = 0
    tricks_played: int = 0
    trick_points: list[int] = attrs.Factory(list)
    tricks_won: list[int] = attrs.Factory(list)
    captured: list[list[Card]] = attrs.Factory(list)
    decision_cache: Decision | None = None
    checked: tuple[Decision, Action] | None = None  # (decision, action) that check() has just passed
    result: GameEnded | None = None
    deals: list[dict[str, Any]] = attrs.Factory(list)
    fixed_decks: tuple[tuple[Card, ...], ...] = ()
    last_hand_points: tuple[int, ...] = ()
    hands_ended: list[HandEnded] = attrs.Factory(list)  # every hand's result, meld and trick points per seat
    log: list[Notice] = attrs.Factory(list)  # this hand's notices (from the action that dealt it), for observations
    last_hand_tricks: tuple[int, ...] = ()
    last_trick_points: tuple[int, ...] = ()  # counters (with last trick and buried cards) of the last hand, per seat
    deal_count: int = 0  # deals made, redeals included (each deal has its own shuffle)

    @property
    def target(self) -> int:
        """The score that wins the game: the variant's (the bidding games never raise it)."""
        return self.variant.target

    # ---------------------------------------------------------------- set-up
    @classmethod
    def new(cls, variant: Variant, seed: int, decks: Sequence[Sequence[Card]] = (), deal: Deal | None = None,
            dealer: int = 0, totals: Sequence[int] | None = None) -> tuple[AuctionGame, list[Notice]]:
        """A new game (see :func:`referee.rules.new_game`)."""
        n = variant.players
        if n * variant.hand_size + variant.kitty + variant.dummy != variant.deck_size:
            raise ValueError(f"{variant.name}: {n} x {variant.hand_size} + kitty + dummy is not the deck")
        game = cls(variant=variant, seed=seed, totals=list(totals or [0] * n),
                   fixed_decks=tuple(tuple(d) for d in decks), dealer=dealer)
        notices: list[Notice] = []
        game._deal(notices, next_dealer=False, deal=deal)
        game.log += notices
        return game, notices

    @property
    def seats(self) -> int:
        return self.variant.players

    @property
    def everyone(self) -> tuple[int, ...]:
        return tuple(range(self.seats))

    def _deal(self, notices: list[Notice], next_dealer: bool = True, deal: Deal | None = None) -> None:
        v, n = self.variant, self.seats
        self.log = []
        self.deal_count += 1
        if next_dealer:
            self.hand_number += 1
            self.dealer = (self.dealer + 1) % n
        elif self.hand_number == 0:
            self.hand_number = 1
        if deal is None:  # a whole deck by construction (deck_for checks fixed decks)
            deal = deal_out(v, deck_for(v, self.seed, self.deal_count, self.fixed_decks), self.dealer)
        else:
            deal.check(v)
        self.hands = [list(h) for h in deal.hands]
        self.dummy = list(deal.dummy)
        self.kitty = list(deal.kitty)
        self.deals.append({"hand": self.hand_number, "dealer": self.dealer,
                           "hands": [[c.to_text() for c in h] for h in self.hands],
                           "kitty": [c.to_text() for c in self.kitty], "dummy": [c.to_text() for c in self.dummy]})
        self.buried, self.trump, self.bidder, self.bid, self.partner = [], None, None, None, None
        self.kitty_turned = 0
        self.auction = Auction(n, self.dealer, v.bids, v.all_pass, v.single_round)
        self.stage = AuctionStage.BID
        self.giving, self.given_back = [], False
        self.meld_points = [0] * n
        self.trick, self.tricks_played = [], 0
        self.trick_points, self.tricks_won = [0] * n, [0] * n
        self.captured = [[] for _ in range(n)]
        self.decision_cache = None
        for seat in range(n):
            notices.append(Notice((seat,), HandDealt(self.hand_number, self.dealer, None, tuple(self.hands[seat]))))

    # ------------------------------------------------------------- questions
    def _decide(self) -> Decision:
        if self.stage is AuctionStage.BID:
            a = known(self.auction)
            return Decision(a.to_act, DecisionKind.BID, AuctionChoices(*a.legal()))
        if self.stage is AuctionStage.TRUMP:
            throw_in = (ThrowIn(),) if self.variant.throw_in else ()
            return Decision(known(self.bidder), DecisionKind.TRUMP, tuple(DeclareTrump(s) for s in Suit) + throw_in)
        if self.stage is AuctionStage.CALL:
            faces = sort_cards(make_deck(1, self.variant.deck_ranks))
            if self.variant.call_own_card is CallOwnCard.FORBIDDEN:
                held = self.hands[known(self.bidder)]
                faces = [c for c in faces if held.count(c) < self.variant.deck_copies]
            return Decision(known(self.bidder), DecisionKind.CALL, tuple(CallCard(c) for c in faces))
        if self.stage is AuctionStage.GIVE:
            cards = sort_cards(dict.fromkeys(self.hands[known(self.giver)]))
            return Decision(known(self.giver), DecisionKind.GIVE, tuple(GiveCard(c) for c in cards))
        if self.stage is AuctionStage.BURY:
            cards = sort_cards(dict.fromkeys(self.hands[known(self.bidder)]))
            return Decision(known(self.bidder), DecisionKind.BURY, tuple(BuryCard(c) for c in cards))
        seat = (self.leader + len(self.trick)) % self.seats
        played = [p.card for _, p in self.trick]
        duty = FollowDuty(must_follow=True, must_trump=True, must_win=self.variant.phase2_must_win)
        cards = legal_plays(self.hands[seat], played, known(self.trump), duty)
        if not self.trick and self.tricks_played == 0 and self.variant.first_lead_trump:
            trumps = [c for c in cards if c.suit == known(self.trump)]
            cards = trumps or cards
        kind = DecisionKind.FOLLOW if self.trick else DecisionKind.LEAD
        return Decision(seat, kind, tuple(PlayCard(c) for c in sort_cards(cards)))

    def _place(self, world: World, seat: int, rng: random.Random) -> None:
        """Put a world's hidden cards where they belong (see GameState.determinize).

        Cards another seat is passing or burying one by one are still in its
        hand as far as ``seat`` knows; some of the world's cards of that hand
        take their place.
        """
        for s in self.everyone:
            if s == seat:
                continue
            hand = list(world.hands[s])
            rng.shuffle(hand)
            if self.stage is AuctionStage.GIVE and s == self.giver:
                self.giving, hand = hand[:len(self.giving)], hand[len(self.giving):]
            if self.stage is AuctionStage.BURY and s == self.bidder:
                self.buried, hand = hand[:len(self.buried)], hand[len(self.buried):]
            self.hands[s] = hand
        if self.kitty:
            self.kitty = list(world.kitty)
        if self.bidder != seat and self.stage is not AuctionStage.BURY:
            self.buried = list(world.buried)
        self.dummy = list(world.dummy)

    # ---------------------------------------------------------------- acting
    def _why_illegal(self, d: Decision, action: Action) -> str:
        expected = {
            DecisionKind.BID: "a bid such as bid:25, or pass",
            DecisionKind.TRUMP: "trump:C, trump:D, trump:H or trump:S",
            DecisionKind.CALL: "a card to call, such as call:AS",
            DecisionKind.GIVE: "one card of your hand to pass, such as give:AS",
            DecisionKind.BURY: "one card of your hand to bury, such as bury:AS",
            DecisionKind.LEAD: "a card to lead",
            DecisionKind.FOLLOW: "a card to play to the trick",
        }[d.kind]
        if d.kind is DecisionKind.BID and isinstance(action, Bid):
            return f"bid {action.amount} is not legal now; legal bids: {self._bid_text(d)}"
        if isinstance(d.legal, AuctionChoices) and isinstance(action, Pass) and not d.legal.may_pass:
            return f"every other seat passed, so the dealer is stuck and must bid; legal bids: {self._bid_text(d)}"
        if isinstance(action, (GiveCard, BuryCard)) and action.card not in self.hands[d.seat]:
            return f"{action.card} is not in your hand"
        if isinstance(action, PlayCard) and d.kind in (DecisionKind.LEAD, DecisionKind.FOLLOW):
            if action.card not in self.hands[d.seat]:
                return f"{action.card} is not in your hand"
            legal = ", ".join(a.to_text() for a in d.legal)
            if not self.trick and self.tricks_played == 0 and self.variant.first_lead_trump:
                return f"the first lead must be a trump if you hold one; legal: {legal}"
            return f"{action.card} breaks the duty to follow suit, head the trick or trump; legal: {legal}"
        return f"{action.to_text()} is not legal now: expected {expected}"

    @staticmethod
    def _bid_text(d: Decision) -> str:
        return (ranges_text(d.legal.ranges) if isinstance(d.legal, AuctionChoices) else "") or "none"

    def _act(self, d: Decision, action: Action) -> list[Notice]:
        notices: list[Notice] = []
        # each kind of decision offers its own kinds of action (a legal action: check() passed it)
        if isinstance(action, (Pass, Bid)):
            self._bid(d.seat, action, notices)
        elif isinstance(action, ThrowIn):
            notices.append(Notice(self.everyone, ThrownIn(d.seat)))
            self._end_hand(notices, thrown_in=True)
        elif isinstance(action, DeclareTrump):
            self.trump = action.suit
            notices.append(Notice(self.everyone, TrumpDeclared(d.seat, action.suit.value)))
            self._after_trump(notices)
        elif isinstance(action, CallCard):
            self._call(action.card, notices)
        elif isinstance(action, GiveCard):
            self._give(action.card, notices)
        elif isinstance(action, BuryCard):
            self._bury(action.card, notices)
        elif isinstance(action, PlayCard):
            self._play(d.seat, action, notices)
        return notices

    # ------------------------------------------------------------ mechanics
    def _bid(self, seat: int, action: Pass | Bid, notices: list[Notice]) -> None:
        a = known(self.auction)
        if isinstance(action, Pass):
            a.pass_()
            notices.append(Notice(self.everyone, BidMade(seat, None)))
        else:
            a.bid(action.amount)
            notices.append(Notice(self.everyone, BidMade(seat, action.amount)))
        if a.redeal:
            notices.append(Notice(self.everyone, Redeal(self.dealer)))
            if self.deal_count >= MAX_DEALS_PER_HAND * self.variant.max_hands:
                # the safety net: seats that pass every deal would otherwise redeal for ever
                units = self._units()
                self.result = GameEnded(tuple(self.totals), self._share(self._best(units)))
                notices.append(Notice(self.everyone, self.result))
                return
            self._deal(notices, next_dealer=False)
        elif a.result is None:
            if self.variant.kitty_auction and self.kitty_turned < min(a.rounds, len(self.kitty)):
                notices.append(Notice(self.everyone, KittyCardTurned(self.kitty[self.kitty_turned])))
                self.kitty_turned += 1
        else:
            self.bidder, self.bid = a.result
            notices.append(Notice(self.everyone, AuctionWon(self.bidder, self.bid)))
            if self.kitty:
                notices.append(Notice(self.everyone, KittyShown(tuple(self.kitty))))
                self.hands[self.bidder].extend(self.kitty)
                self.kitty = []
            self.stage = AuctionStage.TRUMP

    def _after_trump(self, notices: list[Notice]) -> None:
        v = self.variant
        if v.partners is Partners.CALLED:
            self.stage = AuctionStage.CALL
        elif v.partners is Partners.OPPOSITE and v.give:
            self.partner = (known(self.bidder) + 2) % 4
            self._start_giving(self.partner, known(self.bidder), v.give)
        else:
            self._after_passing(notices)

    def _call(self, card: Card, notices: list[Notice]) -> None:
        bidder = known(self.bidder)
        notices.append(Notice(self.everyone, CardCalled(bidder, card)))
        holders = [(bidder + i) % self.seats for i in range(1, self.seats)]
        self.partner = next((s for s in holders if card in self.hands[s]), None)
        notices.append(Notice(self.everyone, PartnerKnown(bidder, self.partner)))
        if self.partner is None:
            self._after_passing(notices)
            return
        # the called card is passed face up; the rest of the passing is face down
        self.hands[self.partner].remove(card)
        self.hands[bidder].append(card)
        notices.append(Notice(self.everyone, Given(self.partner, bidder, (card,))))
        self._start_giving(self.partner, bidder, self.variant.give - 1)
        if self.give_left == 0:
            self._finish_giving(notices)

    def _start_giving(self, giver: int, receiver: int, count: int) -> None:
        self.stage, self.giver, self.receiver = AuctionStage.GIVE, giver, receiver
        self.give_left, self.giving = count, []

    def _give(self, card: Card, notices: list[Notice]) -> None:
        giver = known(self.giver)
        self.hands[giver].remove(card)
        notices.append(Notice((giver,), SetAside(giver, card)))
        self.giving.append(card)
        self.give_left -= 1
        if self.give_left == 0:
            self._finish_giving(notices)

    def _finish_giving(self, notices: list[Notice]) -> None:
        giver, receiver, cards = known(self.giver), known(self.receiver), tuple(self.giving)
        self.giving = []
        if cards:
            self.hands[receiver].extend(cards)
            pair = (giver, receiver)
            notices.append(Notice(pair, Given(giver, receiver, cards)))
            others = tuple(s for s in self.everyone if s not in pair)
            if others:
                notices.append(Notice(others, Given(giver, receiver, (None,) * len(cards))))
        if not self.given_back:
            self.given_back = True
            self._start_giving(known(self.bidder), known(self.partner), self.variant.give)
            return
        self._after_passing(notices)

    def _after_passing(self, notices: list[Notice]) -> None:
        if self.variant.bury:
            self.stage, self.giving = AuctionStage.BURY, []
            return
        self._meld_and_play(notices)

    def _bury(self, card: Card, notices: list[Notice]) -> None:
        bidder = known(self.bidder)
        self.hands[bidder].remove(card)
        notices.append(Notice((bidder,), SetAside(bidder, card)))
        self.buried.append(card)
        if len(self.buried) == self.variant.bury:
            notices.append(Notice((bidder,), Buried(bidder, tuple(self.buried))))
            others = tuple(s for s in self.everyone if s != bidder)
            notices.append(Notice(others, Buried(bidder, (None,) * len(self.buried))))
            self._meld_and_play(notices)

    def _meld_and_play(self, notices: list[Notice]) -> None:
        for seat in self._meld_order():
            for line in count_hand_meld(self.hands[seat], known(self.trump), self.variant.melds):
                self.meld_points[seat] += line.points
                notices.append(Notice(self.everyone, Melded(seat, type_name(line.kind, line.multiplicity),
                                                            line.points, line.cards)))
        self.stage = AuctionStage.PLAY
        self.leader = known(self.bidder)
        notices.append(Notice(self.everyone, PlayBegins(self.leader)))

    def _meld_order(self) -> list[int]:
        return [(known(self.bidder) + i) % self.seats for i in range(self.seats)]

    def _play(self, seat: int, action: PlayCard, notices: list[Notice]) -> None:
        self.hands[seat].remove(action.card)
        self.trick.append((seat, action))
        notices.append(Notice(self.everyone, Played(seat, action)))
        if len(self.trick) < self.seats:
            return
        cards = [p.card for _, p in self.trick]
        winner = trick_winner(self.leader, cards, known(self.trump), self.seats)
        values = self.variant.counter_values
        points = sum(values[c.rank] for c in cards)
        self.trick_points[winner] += points
        self.tricks_won[winner] += 1
        self.captured[winner].extend(cards)
        self.trick, self.leader = [], winner
        self.tricks_played += 1
        last = not any(self.hands)
        bonus = self.variant.last_trick if last else 0
        notices.append(Notice(self.everyone, TrickWon(winner, points, bonus)))
        if self.dummy:
            card = self.dummy.pop(0)
            self.captured[winner].append(card)
            self.trick_points[winner] += values[card.rank]
            notices.append(Notice(self.everyone, DummyTaken(winner, card)))
        if last:
            self.trick_points[winner] += bonus
            bidder = known(self.bidder)
            self.trick_points[bidder] += sum(values[c.rank] for c in self.buried)
            self.captured[bidder].extend(self.buried)
            self._end_hand(notices)

    # --------------------------------------------------------------- scoring
    def sides(self) -> list[tuple[int, ...]]:
        """The sides of this hand: who scores together."""
        p = self.variant.partners
        if p is Partners.OPPOSITE:
            return [(0, 2), (1, 3)]
        if p is Partners.CALLED and self.bidder is not None:
            team = tuple(sorted({self.bidder} | ({self.partner} if self.partner is not None else set())))
            return [team, tuple(s for s in self.everyone if s not in team)]
        return [(s,) for s in self.everyone]

    def _end_hand(self, notices: list[Notice], thrown_in: bool = False) -> None:
        """Score the hand (a hand thrown in scores as set: nothing was played) and deal the next one."""
        v = self.variant
        points = [0] * self.seats
        bidder, bid = known(self.bidder), known(self.bid)
        bidder_side = next(side for side in self.sides() if bidder in side)
        contract = 0
        for side in self.sides():
            tricks = sum(self.trick_points[s] for s in side)
            saved = (sum(self.tricks_won[s] for s in side) > 0 if v.save_meld is SaveMeld.TRICK else tricks > 0)
            total = tricks + (sum(self.meld_points[s] for s in side) if saved else 0)
            if side == bidder_side:
                contract = total
                made = total >= bid
                score = total if made else -bid
            else:
                score = total
            for s in side:
                points[s] = score
        made = contract >= bid and not thrown_in
        if v.scoring is Scoring.TWO_ONE:
            points = [0] * self.seats
            for s in self.everyone:
                if s in bidder_side:
                    points[s] = 2 if made else -1
                else:
                    points[s] = 0 if made else 1
        notices.append(Notice(self.everyone, ContractResult(bidder, bid, made, contract)))
        for s in self.everyone:
            self.totals[s] += points[s]
        self.last_hand_points, self.last_hand_tricks = tuple(points), tuple(self.tricks_won)
        self.last_trick_points = tuple(self.trick_points)
        self._hand_ended(points, notices)
        returns = self._game_outcome(bidder_side)
        if returns is not None:
            self.result = GameEnded(tuple(self.totals), returns)
            notices.append(Notice(self.everyone, self.result))
        else:
            self._deal(notices)

    def _game_outcome(self, bidder_side: tuple[int, ...]) -> tuple[float, ...] | None:
        """Who won, once somebody has reached the target (or the safety net of max_hands is hit).

        Fixed sides (cutthroat seats, partnerships) win as sides; with a called partner the
        sides change every hand, so seats win on their own totals. When several reach the target
        on one hand and the bid decides (004: "the team that won the bid wins"), the bidding side
        wins. With a called partner the teams are those of the hand: the bidding team if a seat of
        it reached the target, else the defending team, and every seat of that team that reached
        the target wins (the bid winner and its partner both, when both reached it; two defenders
        alike), no other seat. (``defenders_win_together=False``, the rule before: the best
        defender alone.)
        """
        v = self.variant
        units = self._units()
        reached = [u for u in units if any(self.totals[s] >= v.target for s in u)]
        if not reached:
            return self._share(self._best(units)) if self.hand_number >= v.max_hands else None
        if v.tiebreak is Tiebreak.BIDDER:
            preferred = [u for u in reached if any(s in bidder_side for s in u)]
            if v.partners is Partners.CALLED and (preferred or v.defenders_win_together):
                return self._share([tuple(s for u in preferred or reached for s in u)])  # one team: each wins
            reached = preferred or reached
        return self._share(self._best(reached))

    def _units(self) -> list[tuple[int, ...]]:
        """Who wins together: each seat alone with a called partner (the sides change every hand), else the sides."""
        if self.variant.partners is Partners.CALLED:
            return [(s,) for s in self.everyone]
        return self.sides()

    def _best(self, units: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """The best of ``units`` by total, then last hand's points, then last hand's tricks."""

        def key(unit: tuple[int, ...]) -> tuple[int, ...]:
            if not self.last_hand_points:  # no hand played yet (only redeals): all equal
                return (self.totals[unit[0]],)
            s = unit[0]
            return (self.totals[s], self.last_hand_points[s], sum(self.last_hand_tricks[x] for x in unit))

        top = max(key(u) for u in units)
        return [u for u in units if key(u) == top]

    def _share(self, winning_sides: list[tuple[int, ...]]) -> tuple[float, ...]:
        share = 1.0 / len(winning_sides)
        out = [0.0] * self.seats
        for side in winning_sides:
            for s in side:
                out[s] = share
        return tuple(out)

