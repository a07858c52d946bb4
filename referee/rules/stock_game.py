"""Two-handed pinochle with a stock, as a pure state machine.

One :class:`StockGame` is one game (many hands, to the target). Ask it
``decision()`` for whose turn it is and the legal actions, ``apply(action)``
to play one (an illegal action raises :class:`IllegalActionError` and
changes nothing), ``observation(seat)`` for what a seat may see. All
randomness comes from the seed: the same seed and the same actions give the
same game.

The hand, following 000 with the options of :mod:`.variants`:

* deal 12 each in threes, turn up the next card for trump, the rest is the
  stock; the deal alternates;
* phase 1: the non-dealer leads, the second card is free; the winner draws
  first, then the loser; the winner may meld (before or after drawing); the
  winner of the trick that leaves one face-down card and the turn-up takes
  one of them (or the face-down one, shown);
* phase 2: the melds return to the hands; follow suit, else trump, and win
  the trick if able;
* cards captured count, the last trick adds a bonus; game to the target.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from .actions import PLAYS, Action, Claim, Meld, Pass, PlayCard, StockPick, TakeLast
from .cards import Card, IdentityEnum, Rank, Suit, sort_cards
from .dealing import Deal, deal_out, deck_for
from .events import (
    Claimed,
    Decision,
    DecisionKind,
    Drew,
    Exchanged,
    GameEnded,
    HandDealt,
    HandEnded,
    Melded,
    Notice,
    PhaseTwo,
    Played,
    Scored,
    TargetRaised,
    TrickWon,
)
from .melds import MeldBoard, MeldTable
from .observation import World
from .state import GameState, known
from .tricks import FREE_PLAY, FollowDuty, MustWin, legal_plays, trick_winner
from .variants import LastStockCard, MeldTiming, Tiebreak, Variant


class StockStage(IdentityEnum):
    """A step after a first-phase trick (:attr:`StockGame.pending` holds those left, in order)."""

    DRAW = "draw"  # winner, then loser, draw from the stock (automatic)
    MELD = "meld"  # the winner may meld
    TAKE = "take"  # one face-down card and the turn-up left: the winner chooses one (LastStockCard.WINNER_CHOOSES)


@attrs.define(eq=False)
class StockGame(GameState):
    variant: Variant
    seed: int
    totals: list[int]
    target: int
    hand_number: int = 0
    dealer: int = 0
    hands: list[list[Card]] = attrs.Factory(list)
    boards: list[MeldBoard] = attrs.Factory(list)
    stock: list[Card] = attrs.Factory(list)  # face-down cards, next to draw first
    turnup: Card | None = None
    trump: Suit = attrs.field(init=False)  # the turn-up's suit, set by each deal
    phase: int = 1
    leader: int = 0
    trick: list[tuple[int, PlayCard]] = attrs.Factory(list)
    pending: list[StockStage] = attrs.Factory(list)  # stages left after a first-phase trick
    last_winner: int = 0
    meld_points: list[int] = attrs.Factory(list)
    trick_points: list[int] = attrs.Factory(list)
    tricks_won: list[int] = attrs.Factory(list)
    captured: list[list[Card]] = attrs.Factory(list)  # cards won in tricks this hand, per seat
    dix_exchanged: bool = False
    turnup_scored: bool = False  # the turn-up is a dix that has scored already (exchanged, or 002's bonus)
    dix_spent: list[int] = attrs.Factory(list)  # per seat: nines of trump in hand that have scored already
    turn_melded: bool = False
    turn_dix: bool = False
    decision_cache: Decision | None = None
    checked: tuple[Decision, Action] | None = None  # (decision, action) that check() has just passed
    result: GameEnded | None = None
    deals: list[dict[str, Any]] = attrs.Factory(list)
    last_hand_points: tuple[int, ...] = ()
    last_hand_tricks: tuple[int, ...] = ()
    hands_ended: list[HandEnded] = attrs.Factory(list)  # every hand's result, meld and trick points per seat
    log: list[Notice] = attrs.Factory(list)  # this hand's notices (from the action that dealt it), for observations
    fixed_decks: tuple[tuple[Card, ...], ...] = ()  # tests and worked examples: the deck of each hand, in order

    # ---------------------------------------------------------------- set-up
    @classmethod
    def new(cls, variant: Variant, seed: int, decks: Sequence[Sequence[Card]] = (), deal: Deal | None = None,
            dealer: int = 0, totals: Sequence[int] | None = None) -> tuple[StockGame, list[Notice]]:
        """A new game (see :func:`referee.rules.new_game`)."""
        if variant.players != 2:
            raise ValueError("the stock game is for two players")
        game = cls(variant=variant, seed=seed, totals=list(totals or (0, 0)), target=variant.target,
                   fixed_decks=tuple(tuple(d) for d in decks), dealer=dealer)
        notices: list[Notice] = []
        game._deal(notices, deal)
        game.log += notices
        return game, notices

    @property
    def seats(self) -> int:
        return 2

    def _deal(self, notices: list[Notice], deal: Deal | None = None) -> None:
        v = self.variant
        self.log = []
        self.hand_number += 1
        if self.hand_number > 1:
            self.dealer = 1 - self.dealer
        if deal is None:  # a whole deck by construction (deck_for checks fixed decks)
            deal = deal_out(v, deck_for(v, self.seed, self.hand_number, self.fixed_decks), self.dealer)
        else:
            deal.check(v)
        self.hands = [list(h) for h in deal.hands]
        turnup = self.turnup = known(deal.turnup)  # a stock game's deal has one (deal_out, Deal.check)
        self.trump = turnup.suit
        self.stock = list(deal.stock)
        first = 1 - self.dealer
        self.deals.append(
            {
                "hand": self.hand_number,
                "dealer": self.dealer,
                "hands": [[c.to_text() for c in h] for h in self.hands],
                "turnup": turnup.to_text(),
                "stock": [c.to_text() for c in self.stock],
            }
        )
        self.boards = [MeldBoard(build_on_broken=v.build_on_broken) for _ in (0, 1)]
        self.phase = 1
        self.leader = first
        self.trick = []
        self.pending = []
        self.meld_points = [0, 0]
        self.trick_points = [0, 0]
        self.tricks_won = [0, 0]
        self.captured = [[], []]
        self.dix_exchanged = False
        self.turnup_scored = False
        self.dix_spent = [0, 0]
        self.decision_cache = None
        for seat in (0, 1):
            notices.append(Notice((seat,), HandDealt(self.hand_number, self.dealer, self.turnup, tuple(self.hands[seat]))))
        if v.dix_turnup_bonus and turnup.rank is Rank.NINE:
            points = v.melds.value("dix") or 0
            self.meld_points[self.dealer] += points
            self.turnup_scored = True
            notices.append(Notice((0, 1), Scored(self.dealer, points, "dix-turnup")))

    # ------------------------------------------------------------- questions
    def _claims(self) -> tuple[Action, ...]:
        return _CLAIM if self.variant.claim else ()

    def _decide(self) -> Decision:
        stage = self.pending[0] if self.pending else None
        if stage is _TAKE_STAGE:
            return Decision(self.last_winner, _TAKE_LAST_KIND, _TAKE_LAST)
        if stage is _MELD_STAGE:
            return self._meld_decision(self.last_winner, self._meld_options(self.last_winner))
        seat = (self.leader + len(self.trick)) % 2
        kind = _FOLLOW if self.trick else _LEAD
        return Decision(seat, kind, (*self._plays(seat), *self._claims()))

    def _meld_decision(self, seat: int, options: list[Meld]) -> Decision:
        return Decision(seat, _MELD, (_PASS, *options, *self._claims()))

    def _plays(self, seat: int) -> list[PlayCard]:
        played = [p.card for _, p in self.trick]
        if self.phase == 1:
            hand = _play_actions(legal_plays(self.hands[seat], played, self.trump, FREE_PLAY), False)
            board = self.boards[seat]
            return hand + self._table_plays(board) if board.slots else hand
        duty = _PHASE_TWO_DUTY[self.variant.phase2_must_win]
        return _play_actions(legal_plays(self.hands[seat], played, self.trump, duty), False)

    @staticmethod
    def _table_plays(board: MeldBoard) -> list[PlayCard]:
        """``table:KS`` for every melded card, and ``table:KS@HISTORY`` for each copy where copies differ."""
        plays = []
        copies = board.copies()
        for play in _play_actions(copies, True):
            plays.append(play)
            histories = copies[play.card]
            if len(histories) > 1:
                plays.extend(PlayCard(play.card, True, h) for h in histories)
        return plays

    def _meld_options(self, seat: int) -> list[Meld]:
        types = _meld_types(self.variant.melds, self.turn_dix, self.turn_melded)
        options = self.boards[seat].options(self.hands[seat], self.variant.melds, self.trump, types)
        if options and any(o.kind == "dix" for o in options) and not self._unscored_dix(seat):
            options = [o for o in options if o.kind != "dix"]
        return options

    def meld_value(self, action: Meld) -> int:
        """What ``action``, one of the legal melds now, would score (an upgrade scores only what it adds)."""
        if action.kind == "dix" and not self.dix_exchanged and self.turnup is not None:
            return self.variant.melds.value("dix") or 0  # exchanged for the turn-up (see _meld)
        return self.boards[self.last_winner].score(action, self.trump, self.variant.melds)

    def _unscored_dix(self, seat: int) -> int:
        """Nines of trump in the hand that may still score: each dix scores once per hand."""
        held = sum(1 for c in self.hands[seat] if c.suit == self.trump and c.rank is Rank.NINE)
        return held - self.dix_spent[seat]

    def _place(self, world: World, seat: int, rng: random.Random) -> None:
        """Put a world's hidden cards where they belong (see GameState.determinize)."""
        for s in (0, 1):
            if s != seat:
                self.hands[s] = list(world.hands[s])
        self.stock = list(world.stock)

    # ---------------------------------------------------------------- acting
    def _act(self, d: Decision, action: Action) -> list[Notice]:
        notices: list[Notice] = []
        if type(action) is PlayCard:  # the common case first
            self._play(d.seat, action, notices)
        elif isinstance(action, Claim):
            self._claim(d.seat, notices)
        elif isinstance(action, Meld):
            self._meld(d.seat, action, notices)
        elif isinstance(action, Pass):
            self.pending.pop(0)
            self.turn_melded = self.turn_dix = False
            self._advance(notices)
        elif isinstance(action, TakeLast):
            self.pending.pop(0)
            self._draw_last(action.pick, notices)
            self._advance(notices)
        return notices

    def _why_illegal(self, d: Decision, action: Action) -> str:
        seat = d.seat
        if isinstance(action, Claim):
            return "this variant does not allow a claim"
        if isinstance(action, Meld) and d.kind is not DecisionKind.MELD:
            return "melding is only allowed right after winning a trick in the first phase"
        if d.kind is DecisionKind.MELD and not isinstance(action, (Meld, Pass)):
            return f"seat {seat} is to meld: send a meld such as royal:KH,QH or pass"
        if d.kind is DecisionKind.TAKE_LAST and not isinstance(action, TakeLast):
            return "choose one of the last two stock cards: take:stock or take:turnup"
        if d.kind in (DecisionKind.LEAD, DecisionKind.FOLLOW):
            if not isinstance(action, PlayCard):
                return f"seat {seat} is to play a card to the trick"
            c = action.card
            if action.from_table:
                if self.phase == 2:
                    return "there are no melded cards on the table in the second phase"
                if action.copy is not None and c in self.boards[seat].cards():
                    histories = self.boards[seat].histories(c)
                    if len(histories) == 1:
                        return f"no copies of {c} on the table to choose between: play it as table:{c}"
                    copies = ", ".join(f"table:{c}@{h}" for h in histories)
                    return f"no {c} on the table served the melds {action.copy}; its copies: {copies}"
                return f"{c} is not among your melded cards on the table"
            if c not in self.hands[seat]:
                if c in self.boards[seat].cards():
                    return f"{c} is not in your hand; it lies on the table as meld: play it as table:{c}"
                return f"{c} is not in your hand"
            led = self.trick[0][1].card if self.trick else None
            legal = ", ".join(a.to_text() for a in d.legal if isinstance(a, PlayCard))
            if led is not None and c.suit != led.suit and any(x.suit == led.suit for x in self.hands[seat]):
                return f"{c} does not follow suit {led.suit.value} although you hold that suit; legal: {legal}"
            if led is not None and c.suit not in (led.suit, self.trump) and any(x.suit == self.trump for x in self.hands[seat]):
                return f"{c} neither follows suit nor trumps although you hold trump; legal: {legal}"
            return f"{c} does not win the trick although you can; legal: {legal}"
        if isinstance(action, Meld):
            if not action.from_hand:
                return "a meld must take at least one card from the hand"
            if self.variant.melds.value(action.kind, action.multiplicity) is None:
                return f"{action.name} is not a meld in variant {self.variant.name}"
            if self.turn_melded and action.kind != "dix":
                return "only one meld per won trick (a dix may go with it)"
            if self.turn_dix and action.kind == "dix":
                return "only one dix per won trick"
            return f"{action.to_text()} is not a legal meld: the cards from the hand and the unused cards on the table do not make a {action.name}"
        return f"{action.to_text()} is not legal now"

    # ------------------------------------------------------------ mechanics
    def _play(self, seat: int, action: PlayCard, notices: list[Notice]) -> None:
        c = action.card
        if action.from_table:
            action = PlayCard(c, True, self.boards[seat].remove(c, action.copy))  # events say which copy went
        else:
            self.hands[seat].remove(c)
            if c.rank is _NINE and c.suit is self.trump and self.dix_spent[seat]:
                self.dix_spent[seat] -= 1  # a scored dix goes first, keeping the one that may still score
        trick = self.trick
        trick.append((seat, action))
        notices.append(_played(seat, action))
        if len(trick) < 2:
            return
        cards = [p.card for _, p in trick]
        winner = trick_winner(self.leader, cards, self.trump, 2)
        values = self.variant.counter_values
        points = values[cards[0].rank] + values[cards[1].rank]
        self.trick_points[winner] += points
        self.tricks_won[winner] += 1
        self.captured[winner].extend(cards)
        self.trick = []
        self.leader = winner
        self.last_winner = winner
        last = self.phase == 2 and not self.hands[0] and not self.hands[1]
        bonus = self.variant.last_trick if last else 0
        notices.append(_trick_won(winner, points, bonus))
        if self.phase == 1:
            after_draw = self.variant.meld_timing is _AFTER_DRAW
            self.pending = [_DRAW_STAGE, _MELD_STAGE] if after_draw else [_MELD_STAGE, _DRAW_STAGE]
            self._advance(notices)
        elif last:
            self.trick_points[winner] += bonus
            self._end_hand(notices)

    def _advance(self, notices: list[Notice]) -> None:
        """Run the automatic stages after a first-phase trick until a seat must decide."""
        while self.pending:
            stage = self.pending[0]
            if stage is _DRAW_STAGE:
                if len(self.stock) >= 2:
                    self.pending.pop(0)
                    self._draw(self.last_winner, self.stock.pop(0), public=False, notices=notices)
                    self._draw(1 - self.last_winner, self.stock.pop(0), public=False, notices=notices)
                elif self.variant.last_stock_card is LastStockCard.WINNER_CHOOSES:
                    self.pending[0] = _TAKE_STAGE
                    return
                else:
                    self.pending.pop(0)
                    self._draw_last(StockPick.STOCK, notices, shown=True)
            elif stage is _MELD_STAGE:
                options = self._meld_options(self.last_winner)
                if options:
                    self.decision_cache = self._meld_decision(self.last_winner, options)
                    return
                self.pending.pop(0)
                self.turn_melded = self.turn_dix = False
            elif stage is _TAKE_STAGE:
                return
        if not self.stock and self.turnup is None and self.phase == 1:
            self._start_phase_two(notices)

    def _draw(self, seat: int, card: Card, public: bool, notices: list[Notice]) -> None:
        self.hands[seat].append(card)
        if public:
            notices.append(Notice((0, 1), Drew(seat, card)))
        else:
            notices.append(_drew_face_down(seat, card))
            notices.append(_DREW_FACE_DOWN[seat])

    def _draw_last(self, pick: StockPick, notices: list[Notice], shown: bool = False) -> None:
        winner = self.last_winner
        face_down, turnup = self.stock.pop(0), known(self.turnup)  # the turn-up lies there until this draw
        self.turnup = None
        taker = 1 - winner if pick is StockPick.STOCK else winner
        if self.turnup_scored:
            self.dix_spent[taker] += 1
        if pick is StockPick.STOCK:
            self._draw(winner, face_down, public=shown, notices=notices)
            self._draw(1 - winner, turnup, public=True, notices=notices)
        else:
            self._draw(winner, turnup, public=True, notices=notices)
            self._draw(1 - winner, face_down, public=False, notices=notices)

    def _meld(self, seat: int, action: Meld, notices: list[Notice]) -> None:
        if action.kind == "dix" and not self.dix_exchanged and self.turnup is not None:
            dix = action.from_hand[0]
            points = self.variant.melds.value("dix") or 0
            self.hands[seat].remove(dix)
            taken, self.turnup = self.turnup, dix
            self.hands[seat].append(taken)
            if self.turnup_scored:  # 002's bonus dix, now in this hand, has scored already
                self.dix_spent[seat] += 1
            self.turnup_scored = True
            self.dix_exchanged = True
            notices.append(Notice((0, 1), Melded(seat, "dix", points, (dix,))))
            notices.append(Notice((0, 1), Exchanged(seat, dix, taken)))
        else:
            points, from_hand = self.boards[seat].make(action, self.trump, self.variant.melds)
            for c in from_hand:
                self.hands[seat].remove(c)
            if action.kind == "dix":
                self.dix_exchanged = True
            table = self.boards[seat].last_from_table()
            notices.append(Notice((0, 1), Melded(seat, action.name, points, tuple(from_hand), table)))
        self.meld_points[seat] += points
        if action.kind == "dix":
            self.turn_dix = True
        else:
            self.turn_melded = True
        if not self.variant.dix_with_other_meld or (self.turn_dix and self.turn_melded):
            self.pending.pop(0)  # the meld turn is over
            self.turn_melded = self.turn_dix = False
        self._advance(notices)  # otherwise asks again if a second meld (a dix, or one beside it) is possible

    def _start_phase_two(self, notices: list[Notice]) -> None:
        self.phase = 2
        for seat in (0, 1):
            self.hands[seat].extend(self.boards[seat].clear())
        self.leader = self.last_winner
        notices.append(Notice((0, 1), PhaseTwo(self.leader)))

    def _hand_points(self) -> list[int]:
        return [m + t for m, t in zip(self.meld_points, self.trick_points)]

    def _end_hand(self, notices: list[Notice]) -> None:
        points = self._hand_points()
        for seat in (0, 1):
            self.totals[seat] += points[seat]
        self.last_hand_points = tuple(points)
        self.last_hand_tricks = tuple(self.tricks_won)
        self._hand_ended(points, notices)
        target = self.target
        returns = self._game_outcome()
        if self.target != target:
            notices.append(Notice((0, 1), TargetRaised(self.target)))
        if returns is not None:
            self._finish(returns, notices)
        else:
            self._deal(notices)

    def _game_outcome(self) -> tuple[float, ...] | None:
        v = self.variant
        reached = [s for s in (0, 1) if self.totals[s] >= self.target]
        if v.tiebreak is Tiebreak.PLAY_ON:
            while len(reached) > 1:
                self.target += v.target_step
                reached = [s for s in (0, 1) if self.totals[s] >= self.target]
            if len(reached) == 1:
                return _win_for(reached[0])
        elif reached:
            keys = [(self.totals[s], self.last_hand_points[s], self.last_hand_tricks[s]) for s in (0, 1)]
            return _by_keys(keys)
        if self.hand_number >= v.max_hands:
            return _by_keys([(t,) for t in self.totals])
        return None

    def _claim(self, seat: int, notices: list[Notice]) -> None:
        points = self._hand_points()
        for s in (0, 1):
            self.totals[s] += points[s]
        success = self.totals[seat] >= self.target
        notices.append(Notice((0, 1), Claimed(seat, success)))
        self._hand_ended(points, notices)
        self._finish(_win_for(seat if success else 1 - seat), notices)

    def _finish(self, returns: tuple[float, ...], notices: list[Notice]) -> None:
        self.result = GameEnded(tuple(self.totals), returns)
        self.decision_cache = None
        notices.append(Notice((0, 1), self.result))


@functools.lru_cache(maxsize=256)
def _meld_types(table: MeldTable, dix_made: bool, other_made: bool) -> tuple[tuple[str, int], ...]:
    """The meld types still open in this meld turn: no second dix, and after another meld only a dix."""
    return tuple(t for t in table.types() if not (dix_made and t[0] == "dix") and not (other_made and t[0] != "dix"))


# the actions and notices below are values, so each is made once
# Enum members as module constants: on Python 3.11 ``Rank.NINE`` costs ten times a global's lookup.
_NINE = Rank.NINE
_LEAD, _FOLLOW = DecisionKind.LEAD, DecisionKind.FOLLOW
_MELD, _TAKE_LAST_KIND = DecisionKind.MELD, DecisionKind.TAKE_LAST
_AFTER_DRAW = MeldTiming.AFTER_DRAW
_DRAW_STAGE, _MELD_STAGE, _TAKE_STAGE = StockStage.DRAW, StockStage.MELD, StockStage.TAKE
_CLAIM = (Claim(),)
_PASS = Pass()
_TAKE_LAST = (TakeLast(StockPick.STOCK), TakeLast(StockPick.TURNUP))
_PHASE_TWO_DUTY = {rule: FollowDuty(must_follow=True, must_trump=True, must_win=rule) for rule in MustWin}
_DREW_FACE_DOWN = {seat: Notice((1 - seat,), Drew(seat, None)) for seat in (0, 1)}  # what the other seat sees


# The commonest notices, made once per distinct value (a frozen attrs object costs a microsecond to make).
@functools.cache
def _played(seat: int, action: PlayCard) -> Notice:
    return Notice((0, 1), Played(seat, action))


@functools.cache
def _trick_won(seat: int, points: int, bonus: int) -> Notice:
    return Notice((0, 1), TrickWon(seat, points, bonus))


@functools.cache
def _drew_face_down(seat: int, card: Card) -> Notice:
    """What the drawing seat sees of its own face-down draw."""
    return Notice((seat,), Drew(seat, card))


def _play_actions(cards: Iterable[Card], from_table: bool) -> list[PlayCard]:
    """PlayCard actions for ``cards`` in card order."""
    made = PLAYS[from_table]
    return [made[c] for c in sort_cards(cards)]


def _win_for(seat: int) -> tuple[float, ...]:
    return (1.0, 0.0) if seat == 0 else (0.0, 1.0)


def _by_keys(keys: Sequence[tuple[int, ...]]) -> tuple[float, ...]:
    best = max(keys)
    winners = [i for i, k in enumerate(keys) if k == best]
    share = 1.0 / len(winners)
    return tuple(share if i in winners else 0.0 for i in range(len(keys)))
