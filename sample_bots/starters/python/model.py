"""The game as your bot sees it, kept up to date from the referee's messages.

``Model.update(message)`` takes in every message; the fields below are what
you read when deciding. With ``want state`` (bot.py asks for it) the
referee also restates what you may know before every request, and
``update`` copies that over the model's own bookkeeping, so a mistake here
never lasts longer than one request.

Add whatever your strategy needs (cards seen, voids, who may hold what...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import messages as m
from messages import Card


@dataclass
class Rules:
    """From the 'game' line and the 'rule' lines that follow it (protocol 3)."""

    variant: str = ""
    options: dict[str, str] = field(default_factory=dict)  # every rule option of the 'game' line
    ranks: tuple[str, ...] = tuple(m.DEFAULT_RANKS)  # high to low
    copies: int = 2
    points: dict[str, int] = field(default_factory=dict)  # counter points per rank
    last_trick: int = 0
    target: int = 0
    melds: dict[str, tuple[int, ...]] = field(default_factory=dict)  # kind -> value once, twice, ...
    follow: dict[int, tuple[str, ...]] = field(default_factory=dict)  # phase -> duties
    first_lead_trump: bool = False


@dataclass
class Model:
    seat: int = 0
    players: int = 2
    rules: Rules = field(default_factory=Rules)
    options: dict[str, str] = field(default_factory=dict)  # your own options (setoption)

    # this hand
    hand_number: int = 0
    dealer: int = 0
    stock_game: bool = True  # two-handed with a stock (a turn-up), else a bidding game
    phase: int = 1
    trump: str | None = None
    turnup: Card | None = None
    hand: list[Card] = field(default_factory=list)  # your concealed cards
    tables: list[list[Card]] = field(default_factory=list)  # per seat, melded cards on the table (stock games)
    trick: list[tuple[int, Card]] = field(default_factory=list)  # (seat, card) played to the trick so far
    won: list[int] = field(default_factory=list)  # tricks won per seat
    meld_points: list[int] = field(default_factory=list)  # per seat, this hand
    trick_points: list[int] = field(default_factory=list)  # per seat, this hand
    bids: list[tuple[int, int | None]] = field(default_factory=list)  # the auction: (seat, amount or None)
    bidder: int | None = None
    bid: int | None = None
    partner: int | None = None  # five players: the bid winner's called partner (four: see is_partner)
    stock: int = 0  # face-down cards left in the stock (stock games)
    set_aside: list[Card] = field(default_factory=list)  # cards we chose to give or bury, not yet shown
    # the game
    totals: list[int] = field(default_factory=list)  # before this hand
    target: int = 0  # the current target (it may rise under tiebreak=play-on)
    state: m.State | None = None  # the last state line, for fields the model does not keep

    # ------------------------------------------------------------- questions
    def is_partner(self, seat: int) -> bool:
        """Is ``seat`` on our side this hand? (Four-handed: opposite seats; five: the bid winner and its partner.)"""
        if seat == self.seat:
            return True
        if self.players == 4:
            return seat % 2 == self.seat % 2
        if self.players == 5 and self.bidder is not None and self.partner is not None:
            return {seat, self.seat} <= {self.bidder, self.partner}
        return False

    def my_points(self) -> int:
        """Game total plus this hand's meld and trick points so far (what a claim is judged on)."""
        return self.totals[self.seat] + self.meld_points[self.seat] + self.trick_points[self.seat]

    # --------------------------------------------------------------- events
    def update(self, msg) -> None:
        """Take in one message from the referee."""
        n = self.players
        match msg:
            case m.Game(variant=variant, seat=seat, players=players, options=options):
                self.seat, self.players = seat, players
                self.rules = Rules(variant=variant, options=options)
                self.totals = [0] * players
                self.target = int(options.get("target", 0))
                self.hand_number = 0
                self._new_hand()
            case m.RuleRanks(ranks=ranks):
                self.rules.ranks = ranks
            case m.RuleCopies(copies=copies):
                self.rules.copies = copies
            case m.RulePoints(points=points):
                self.rules.points = points
            case m.RuleLastTrick(points=points):
                self.rules.last_trick = points
            case m.RuleTarget(target=target):
                self.rules.target = self.target = target
            case m.RuleMeld(kind=kind, values=values):
                levels = []
                for v in values:  # up to the first level that is no meld ('-')
                    if v is None:
                        break
                    levels.append(v)
                self.rules.melds[kind] = tuple(levels)
            case m.RuleFollow(phase=phase, duties=duties):
                self.rules.follow[phase] = duties
            case m.RuleFirstLead(what=what):
                self.rules.first_lead_trump = what == "trump"
            case m.SetOption(name=name, value=value):
                self.options[name] = value
            case m.Deal(hand=hand, dealer=dealer, turnup=turnup, cards=cards):
                self._new_hand()
                self.hand_number, self.dealer = hand, dealer
                self.stock_game = turnup is not None
                self.turnup, self.trump = turnup, (turnup.suit if turnup else None)
                self.hand = list(cards)
                deck = len(self.rules.ranks) * 4 * self.rules.copies
                self.stock = deck - n * len(cards) - 1 if self.stock_game else 0
            case m.Bonus(seat=seat, points=points):
                self.meld_points[seat] += points
            case m.Play(seat=seat, card=card, from_table=from_table):
                if seat == self.seat:
                    _remove(self.tables[seat] if from_table else self.hand, card)
                elif from_table:
                    _remove(self.tables[seat], card)
                self.trick.append((seat, card))
                if not self.stock_game:
                    self.phase = 2  # the bidding games: phase 2 from the first card led
            case m.Trick(winner=winner, points=points):
                self.trick_points[winner] += points
                self.won[winner] += 1
                self.trick = []
            case m.Draw(seat=seat, card=card):
                if seat == self.seat and card is not None:
                    self.hand.append(card)
                if self.stock == 0 or (self.stock == 1 and card is not None and card == self.turnup):
                    self.turnup = None  # the last two cards: the turn-up went (to one seat or the other)
                else:
                    self.stock -= 1
            case m.Meld(seat=seat, points=points, cards=cards):
                self.meld_points[seat] += points
                if self.stock_game:  # melded cards go to the table; in the bidding games they stay in the hand
                    if seat == self.seat:
                        for c in cards:
                            _remove(self.hand, c)
                    self.tables[seat].extend(cards)
            case m.Exchange(seat=seat, dix=dix, taken=taken):
                _remove(self.tables[seat], dix)  # the dix goes under the stock, the old turn-up to the hand
                self.turnup = dix
                if seat == self.seat:
                    self.hand.append(taken)
            case m.Phase2():
                self.phase = 2
                self.hand += self.tables[self.seat]
                self.tables = [[] for _ in range(n)]
                self.turnup = None
            case m.Bid(seat=seat, amount=amount):
                self.bids.append((seat, amount))
            case m.BidWon(seat=seat, amount=amount):
                self.bidder, self.bid = seat, amount
            case m.Kitty(cards=cards):
                if self.bidder == self.seat:
                    self.hand += cards
            case m.Trump(suit=suit):
                self.trump = suit
            case m.Partner(partner=partner):
                self.partner = partner
            case m.Give(giver=giver, receiver=receiver, cards=cards):
                if giver == self.seat:
                    self._gone(cards)
                if receiver == self.seat:
                    self.hand += [c for c in cards if c is not None]
            case m.Bury(seat=seat, cards=cards):
                if seat == self.seat:
                    self._gone(cards)
            case m.HandEnd(totals=totals):
                self.totals = list(totals)
            case m.Target(target=target):
                self.target = target
            case m.Go(decision="lead" | "follow") if not self.stock_game:
                self.phase = 2  # the bidding games: the tricks have begun
            case m.State():
                self._restate(msg)

    def put_aside(self, card: Card) -> None:
        """We chose to give or bury ``card``: it leaves our hand now (as the state line counts it)."""
        _remove(self.hand, card)
        self.set_aside.append(card)

    def _gone(self, cards: list[Card | None]) -> None:
        """Our cards were given or buried: those we chose are gone already, others (a called card) go now."""
        for c in cards:
            if c in self.set_aside:
                self.set_aside.remove(c)
            elif c is not None:
                _remove(self.hand, c)

    def _new_hand(self) -> None:
        n = self.players
        self.phase, self.trump, self.turnup = 1, None, None
        self.hand, self.trick, self.bids, self.set_aside = [], [], [], []
        self.tables = [[] for _ in range(n)]
        self.won, self.meld_points, self.trick_points = [0] * n, [0] * n, [0] * n
        self.bidder = self.bid = self.partner = None
        self.stock = 0

    def _restate(self, s: m.State) -> None:
        """Copy what the state line says over our own bookkeeping (absent keys change nothing)."""
        self.state = s
        if s.hand is not None:
            self.hand_number = s.hand
        if s.dealer is not None:
            self.dealer = s.dealer
        if s.phase is not None:
            self.phase = s.phase
        if "trump" in s.fields:
            self.trump = s.trump
        if "turnup" in s.fields:
            self.turnup = s.turnup
        if s.cards is not None:
            self.hand = s.cards
        if s.tables is not None and len(s.tables) == self.players:
            self.tables = s.tables
        if s.trick is not None:
            leader = s.leader if s.leader is not None else 0
            self.trick = [((leader + i) % self.players, c) for i, c in enumerate(s.trick)]
        if s.bid is not None:
            self.bidder, self.bid = s.bid
        if s.partner is not None:
            self.partner = s.partner
        if s.stock is not None:
            self.stock = s.stock
        for name in ("meld", "tricks", "totals", "won"):
            values = getattr(s, name)
            if values is not None and len(values) == self.players:
                setattr(self, {"meld": "meld_points", "tricks": "trick_points"}.get(name, name), values)
        if s.bids is not None:
            self.bids = s.bids
        if s.target is not None:
            self.target = s.target


def _remove(cards: list[Card], card: Card) -> None:
    if card in cards:
        cards.remove(card)
