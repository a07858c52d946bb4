"""Variants are data: one frozen :class:`Variant` per preset, options as named changes.

To add a variant, write a preset: a ``Variant(...)`` with a name, the text
and section it follows, and its settings, and add it to ``PRESETS``. Options
(``--option key=value`` on the command line) are named edits of a preset,
listed in ``OPTIONS`` with their legal values, so ``pinochle-arena
variants`` can show every one of them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .bidding import DOUBLE_DECK_LADDER, AllPass, BidLadder, ranges_text
from .cards import Rank
from .melds import MeldTable, most_points
from .tricks import MustWin


class MeldTiming(enum.Enum):
    """When the winner of a first-phase trick may meld."""

    AFTER_DRAW = "after-draw"  # 000, 002, 004: draw, then meld
    BEFORE_DRAW = "before-draw"  # 001 (Hoyle): meld, then draw


class LastStockCard(enum.Enum):
    """Who gets what when one face-down card and the turn-up remain."""

    WINNER_CHOOSES = "winner-chooses"  # 000, 004
    WINNER_TAKES_FACE_DOWN = "shown"  # 001: winner takes the face-down card and shows it


class Tiebreak(enum.Enum):
    """What happens when several seats reach the target on the same hand."""

    PLAY_ON = "play-on"  # 000/001: play on to the next threshold (+step)
    HIGHEST = "highest"  # 004: highest score, then most points in the last hand, then most tricks
    BIDDER = "bidder"  # 003/004 bidding games: the side that won the last bid; else as HIGHEST


class Partners(enum.Enum):
    NONE = "none"  # every seat for itself
    OPPOSITE = "opposite"  # four players: seats 0 and 2 against 1 and 3
    CALLED = "called"  # five players: the bid winner calls a card; its first holder is the partner


class Scoring(enum.Enum):
    STANDARD = "standard"  # points as taken; a bidder who falls short loses the bid
    TWO_ONE = "two-one"  # 003's alternate: bid made +2; set -1 and +1 to the opponent


class CallOwnCard(enum.Enum):
    ALONE = "alone"  # the bid winner plays alone, one against four
    FORBIDDEN = "forbidden"  # such a card cannot be called


class SaveMeld(enum.Enum):
    TRICK = "trick"  # 004: a side must win a trick to keep its meld
    POINT = "point"  # 003: a side must take a counter point


# Point values of cards captured in tricks.
COUNTING = {
    "11-10-4-3-2": {Rank.ACE: 11, Rank.TEN: 10, Rank.KING: 4, Rank.QUEEN: 3, Rank.JACK: 2, Rank.NINE: 0},
    "10-10-5-5": {Rank.ACE: 10, Rank.TEN: 10, Rank.KING: 5, Rank.QUEEN: 5, Rank.JACK: 0, Rank.NINE: 0},
    "10-10-10": {Rank.ACE: 10, Rank.TEN: 10, Rank.KING: 10, Rank.QUEEN: 0, Rank.JACK: 0, Rank.NINE: 0},
    "1-1-1": {Rank.ACE: 1, Rank.TEN: 1, Rank.KING: 1, Rank.QUEEN: 0, Rank.JACK: 0, Rank.NINE: 0},
}

# 000's meld values. Only the double pinochle earns a bonus; every other
# double meld counts twice its single value.
CLASSIC_MELDS = MeldTable(
    {
        "run": (150, 300),
        "royal": (40, 80),
        "marriage": (20, 40),
        "dix": (10,),
        "aces": (100, 200),
        "kings": (80, 160),
        "queens": (60, 120),
        "jacks": (40, 80),
        "pinochle": (40, 300),
    }
)

# 004's two-player table ("Value" and "2x" columns), on the unit scale.
UNIT_MELDS = MeldTable(
    {
        "run": (15, 150),
        "royal": (4, 8),
        "marriage": (2, 4),
        "dix": (1,),
        "aces": (10, 100),
        "kings": (8, 80),
        "queens": (6, 60),
        "jacks": (4, 40),
        "pinochle": (4, 30),
        "roundhouse": (24,),
    }
)

# 004's double-deck table (80 cards, no nines), as printed there; the bidding
# games count a hand's meld at once with melds.count_hand_meld.
DOUBLE_DECK_MELDS = MeldTable(
    {
        "run": (25, 250, 450, 500),
        "royal": (4, 8, 12, 16),
        "marriage": (2, 4, 6, 8),
        "aces": (10, 100, 300, 500),
        "kings": (8, 80, 240, 500),
        "queens": (6, 60, 180, 500),
        "jacks": (4, 40, 120, 500),
        "pinochle": (15, 30, 90, 500),
        "roundhouse": (24, 240),  # triple and quadruple: N/A
    }
)


# The rule texts the presets cite by number ("000" ...), by title: see docs/rules-sources.md.
RULE_TEXTS = {
    "000": "Two-player Pinochle (with a stock; rules after George Klemic and Andrew Lipscomb)",
    "001": "Rules for Pinochle the Card Game (two-handed, Hoyle's lineage)",
    "002": "Two-Handed Pinochle (progressive melds one at a time; round house option)",
    "003": "Two-Handed Single-Deck Pinochle Rules (Power Pinochle Forums: dummy and kitty)",
    "004": "Pinochle for two to five (two-player, three-player cutthroat, partnerships, double deck, "
           "call-for-partner)",
}


@attrs.frozen
class Variant:
    """Every setting of a game. Presets are instances; options are edits."""

    name: str
    summary: str
    source: str
    players: int = 2
    family: str = "stock"  # which state machine plays it (rules.FAMILIES): "stock" (two-handed with a stock) or "auction"
    deck_copies: int = 2
    deck_ranks: tuple[Rank, ...] = (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE)
    hand_size: int = 12
    deal_packet: int = 3
    melds: MeldTable = CLASSIC_MELDS
    counting: str = "11-10-4-3-2"
    last_trick: int = 10
    target: int = 1000
    target_step: int = 250
    tiebreak: Tiebreak = Tiebreak.PLAY_ON
    meld_timing: MeldTiming = MeldTiming.AFTER_DRAW
    last_stock_card: LastStockCard = LastStockCard.WINNER_CHOOSES
    phase2_must_win: MustWin = MustWin.ALWAYS
    dix_turnup_bonus: bool = False
    dix_with_other_meld: bool = True
    claim: bool = False
    max_hands: int = 200  # a safety net: a game that has not ended by then is scored as it stands
    # --- the bidding games (family "auction") ---
    kitty: int = 0  # cards dealt to the kitty, shown and taken by the bid winner
    dummy: int = 0  # 003: a face-down dummy hand; its top card goes to each trick's winner
    bid_ladder: BidLadder = BidLadder(20)  # up to Variant.bids' highest bid
    all_pass: AllPass = AllPass.DEALER_STUCK
    single_round: bool = False  # one round of bidding (003's default) instead of an auction
    kitty_auction: bool = False  # 003: after each round of bids one kitty card is turned face up
    throw_in: bool = False  # 003, alternate scoring: the bid winner may concede the hand instead of playing it
    partners: Partners = Partners.NONE
    give: int = 0  # cards the partner passes to the bid winner (and the bid winner passes back)
    bury: int = 0  # cards the bid winner buries after taking the kitty
    first_lead_trump: bool = False  # 003: the first card led must be a trump
    save_meld: SaveMeld = SaveMeld.TRICK
    scoring: Scoring = Scoring.STANDARD
    call_own_card: CallOwnCard = CallOwnCard.ALONE
    # --- rules the referee has changed since it first wrote records (RULE_CHANGES: their values before) ---
    build_on_broken: bool = False  # two-handed: a broken meld's cards left on the table serve melds built on it
    defenders_win_together: bool = True  # call-for-partner: defenders reaching the target together win as a team

    @property
    def counter_values(self) -> Mapping[Rank, int]:
        return COUNTING[self.counting]

    @property
    def deck_size(self) -> int:
        return self.deck_copies * 4 * len(self.deck_ranks)

    @property
    def trick_points_per_hand(self) -> int:
        """Counter points in the deck plus the last trick: constant for every hand."""
        per_copy = sum(self.counter_values[r] for r in self.deck_ranks) * 4
        return per_copy * self.deck_copies + self.last_trick

    @property
    def bids(self) -> BidLadder:
        """The bid ladder up to the highest bid: more than the bidding side could score in one hand.

        The texts set no highest bid; this one refuses no bid that could be
        made: every meld of the table at its best, as often as the deck
        holds it, for each seat of the side, plus every trick point.
        """
        side = 1 if self.partners is Partners.NONE else 2
        highest = side * most_points(self.melds, self.deck_copies) + self.trick_points_per_hand
        return attrs.evolve(self.bid_ladder, maximum=highest)

    def settings(self, complete: bool = False) -> dict[str, str]:
        """The option values of this variant, as text (what the protocol and records carry; ``complete``: also
        the options at their quiet default, for showing a user every option)."""
        settings = {key: opt.read(self) for key, opt in OPTIONS.items() if opt.applies(self)}
        return {key: value for key, value in settings.items() if complete or value != OPTIONS[key].quiet_default}


@attrs.frozen
class Option:
    key: str
    help: str
    choices: tuple[str, ...] | None  # None: a whole number
    read: Callable[[Variant], str]
    write: Callable[[Variant, str], Variant]
    families: tuple[str, ...] = ("stock",)
    # an option added after records were first written: left out of settings() at this value, so the records,
    # schedules and game lines of games that never change it stay as they were
    quiet_default: str | None = None

    def applies(self, variant: Variant) -> bool:
        return variant.family in self.families


STOCK = ("stock",)
AUCTION = ("auction",)
BOTH = ("stock", "auction")


def _write_min_bid(v: Variant, text: str) -> Variant:
    """A new minimum bid, which must itself be a bid: else nobody could open with it, yet the dealer who is
    stuck when everyone passes would be held to it."""
    changed = attrs.evolve(v, bid_ladder=attrs.evolve(v.bid_ladder, minimum=int(text)))
    opening = changed.bids.ranges(None)
    if not opening or opening[0].start != changed.bid_ladder.minimum:
        raise VariantError(f"min-bid={text} is not an amount anyone may bid in {v.name} (its bids: "
                           f"{ranges_text(v.bids.ranges(None))}): choose one of those amounts, or a lower one "
                           "on the first step")
    return changed


def _read_bidding(v: Variant) -> str:
    return "single" if v.single_round else "kitty-auction" if v.kitty_auction else "auction"


def _write_bidding(v: Variant, text: str) -> Variant:
    if text == "kitty-auction" and not v.kitty:
        raise VariantError(f"bidding=kitty-auction turns kitty cards during the auction, and {v.name} has no kitty")
    return attrs.evolve(v, single_round=text == "single", kitty_auction=text == "kitty-auction")


def _enum_option(key: str, field: str, enum_type: type[enum.Enum], help: str,
                 families: tuple[str, ...] = STOCK) -> Option:
    return Option(
        key,
        help,
        tuple(e.value for e in enum_type),
        lambda v: getattr(v, field).value,
        lambda v, text: _evolve(v, field, enum_type(text)),
        families,
    )


def _bool_option(key: str, field: str, help: str, families: tuple[str, ...] = STOCK) -> Option:
    return Option(
        key,
        help,
        ("yes", "no"),
        lambda v: "yes" if getattr(v, field) else "no",
        lambda v, text: _evolve(v, field, text == "yes"),
        families,
    )


def _int_option(key: str, field: str, help: str, families: tuple[str, ...] = STOCK) -> Option:
    return Option(key, help, None, lambda v: str(getattr(v, field)), lambda v, text: _evolve(v, field, int(text)),
                  families)


def _evolve(v: Variant, field: str, value: object) -> Variant:
    """``v`` with the field named ``field`` set to ``value`` (an option's field, named by a string: its type is
    the option's to get right, not the type checker's)."""
    changes: dict[str, Any] = {field: value}
    return attrs.evolve(v, **changes)


def _write_max_hands(v: Variant, text: str) -> Variant:
    if int(text) < 1:
        raise VariantError("max-hands must be at least 1")
    return attrs.evolve(v, max_hands=int(text))


def _read_double_pinochle(v: Variant) -> str:
    single, double = v.melds.points("pinochle", 1), v.melds.value("pinochle", 2)
    return "bonus" if double != 2 * single else "twice"


def _write_double_pinochle(v: Variant, text: str) -> Variant:
    single = v.melds.points("pinochle", 1)
    bonus = 300 if _read_scale(v) == "classic" else 30
    double = bonus if text == "bonus" else 2 * single
    return attrs.evolve(v, melds=v.melds.evolve(pinochle=(single, double)))


def _read_roundhouse(v: Variant) -> str:
    return "yes" if v.melds.value("roundhouse") else "no"


def _write_roundhouse(v: Variant, text: str) -> Variant:
    kings, queens = v.melds.points("kings"), v.melds.points("queens")
    royal, marriage = v.melds.points("royal"), v.melds.points("marriage")
    sum_of_parts = kings + queens + royal + 3 * marriage
    return attrs.evolve(v, melds=v.melds.evolve(roundhouse=(sum_of_parts,) if text == "yes" else None))


def _read_scale(v: Variant) -> str:
    return "unit" if v.melds.points("run") < 100 else "classic"


def _write_scale(v: Variant, text: str) -> Variant:
    if text == _read_scale(v):
        return v
    if text == "unit":
        return attrs.evolve(v, melds=UNIT_MELDS, counting="1-1-1", last_trick=1, target=150, target_step=25)
    return attrs.evolve(v, melds=CLASSIC_MELDS, counting="11-10-4-3-2", last_trick=10, target=1000, target_step=250)


OPTIONS: dict[str, Option] = {
    o.key: o
    for o in (
        Option(
            "scale",
            "meld and card values: classic (000: run 150, game 1000) or unit (004: run 15, 25 trick points, game 150); "
            "sets melds, counting, last-trick and target together",
            ("classic", "unit"),
            _read_scale,
            _write_scale,
        ),
        Option(
            "counting",
            "points for captured cards, A-T-K-Q-J (000's three countings, and 004's unit scale)",
            tuple(COUNTING),
            lambda v: v.counting,
            lambda v, text: attrs.evolve(v, counting=text),
            BOTH,
        ),
        _int_option("last-trick", "last_trick", "points for the last trick of a hand", BOTH),
        _int_option("target", "target", "points that win the game (000: 1000, 1200 or 1500; 004: 150 or 500)", BOTH),
        _int_option("target-step", "target_step", "when several seats reach the target together, the next threshold is this much higher"),
        _enum_option("tiebreak", "tiebreak", Tiebreak, "several seats reach the target on one hand: play on (000/001), "
                     "highest score (004 two-player), or the side that won the bid (003, 004 bidding games)", BOTH),
        _enum_option("meld-timing", "meld_timing", MeldTiming, "the trick winner melds after drawing (000) or before (001)"),
        _enum_option("last-stock-card", "last_stock_card", LastStockCard, "last two stock cards: winner chooses (000, 004) or takes the face-down one and shows it (001)"),
        _enum_option("must-win", "phase2_must_win", MustWin, "strict tricks (two-handed: the second phase): a follower must "
                     "win (head) the trick always (000, 004) or only when trump is led (001, 003)", BOTH),
        Option("bidding", "one round of bids (003's default), an auction until one bidder is left, or an auction "
               "that turns one kitty card face up after each round of bids (003's kitty auction)",
               ("single", "auction", "kitty-auction"), _read_bidding, _write_bidding, AUCTION),
        Option("min-bid", "the lowest opening bid (an amount the bidding ladder allows)", None,
               lambda v: str(v.bid_ladder.minimum), _write_min_bid, AUCTION),
        _enum_option("all-pass", "all_pass", AllPass, "everyone passes: the dealer is stuck at the minimum (004 double "
                     "deck), may take it or redeal (004 three- and four-handed), or the cards are redealt", AUCTION),
        _enum_option("scoring", "scoring", Scoring, "standard, or 003's alternate: bid made +2, set -1 and +1 to the "
                     "opponent (the target then becomes 15, 003's usual one, unless target is given)", AUCTION),
        _enum_option("save-meld", "save_meld", SaveMeld, "a side keeps its meld only if it wins a trick (004) or takes a "
                     "counter point (003)", AUCTION),
        _bool_option("throw-in", "throw_in", "with scoring=two-one the bid winner may throw the hand in instead "
                     "of declaring trump: scored as set, without play (003)", AUCTION),
        _bool_option("first-lead-trump", "first_lead_trump", "the first card led must be a trump (003)", AUCTION),
        _enum_option("call-own-card", "call_own_card", CallOwnCard, "call-for-partner: calling a card the bid winner "
                     "holds every copy of means playing alone (default), or is not allowed", AUCTION),
        _bool_option("dix-turnup-bonus", "dix_turnup_bonus", "the dealer scores a dix when the turn-up is a dix (002)"),
        _bool_option("dix-with-meld", "dix_with_other_meld", "a dix may be melded together with another meld after one trick (002, 001)"),
        Option(
            "double-pinochle",
            "double pinochle scores a bonus (000: 300) or twice a pinochle (002: 'most players now')",
            ("bonus", "twice"),
            _read_double_pinochle,
            _write_double_pinochle,
        ),
        Option("roundhouse", "round house (K Q in every suit) as one meld (002)", ("yes", "no"), _read_roundhouse, _write_roundhouse),
        _bool_option("claim", "claim", "a player may claim to have reached the target, winning if right and losing if wrong (001)"),
        Option("max-hands", "the game ends after this many hands at most and is scored as it stands (a safety net; "
               "a board is a game of one hand: max-hands=1)", None, lambda v: str(v.max_hands), _write_max_hands, BOTH,
               quiet_default="200"),
    )
}


TWO_HANDED = Variant(
    name="two-handed",
    summary="Two-handed with a stock, progressive melding after won tricks (000's rules).",
    source="000 (primary); 002 for the dix with another meld; game to 1000 (000 also names 1200 and 1500)",
)

TWO_HANDED_HOYLE = attrs.evolve(
    TWO_HANDED,
    name="two-handed-hoyle",
    summary="Two-handed, Hoyle's choices: meld before drawing, last stock card shown, must win only on a trump lead, claim.",
    source="001 (Hoyle): melds before drawing, shows the last face-down stock card, claim of 1000, play on to 1250/1500/1750",
    meld_timing=MeldTiming.BEFORE_DRAW,
    last_stock_card=LastStockCard.WINNER_TAKES_FACE_DOWN,
    phase2_must_win=MustWin.TRUMP_LED,
    melds=CLASSIC_MELDS.evolve(pinochle=(40, 80)),
    claim=True,
)

TWO_HANDED_150 = attrs.evolve(
    TWO_HANDED,
    name="two-handed-150",
    summary="Two-handed on 004's unit scale: run 15, 25 trick points, game to 150, highest score wins ties.",
    source="004, two-player section: unit meld table with its 2x column, A/T/K count 1, last trick 1, game to 150, its tiebreaks",
    melds=UNIT_MELDS,
    counting="1-1-1",
    last_trick=1,
    target=150,
    target_step=25,
    tiebreak=Tiebreak.HIGHEST,
)

# 003 counts no bonus for doubles: a double meld is twice the single.
LINEAR_UNIT_MELDS = MeldTable(
    {
        "run": (15, 30),
        "royal": (4, 8),
        "marriage": (2, 4),
        "dix": (1, 2),
        "aces": (10, 20),
        "kings": (8, 16),
        "queens": (6, 12),
        "jacks": (4, 8),
        "pinochle": (4, 8),
    }
)

_AUCTION: dict[str, Any] = dict(family="auction", melds=UNIT_MELDS, counting="1-1-1", last_trick=1, target=150,
                tiebreak=Tiebreak.BIDDER, phase2_must_win=MustWin.ALWAYS)

TWO_HANDED_DUMMY = Variant(
    name="two-handed-dummy",
    summary="Two-handed with a dummy and a kitty: bid, take the kitty, bury 3; the dummy's top card goes to each trick's winner.",
    source="003: 15 cards each, 15 to the dummy, 3 to the kitty; single round of bidding (auction as an option); "
           "first lead trump; must win only when trump is led; a counter point saves meld; standard scoring to 120 "
           "(bidder wins a tie-out), alternate 2/1 scoring to 15 as an option. The minimum bid (20) and what "
           "happens when both pass (the dealer may take the bid at 20 or redeal; all-pass=dealer-stuck as an "
           "option) are not in 003: taken from 004's three-handed game",
    players=2, hand_size=15, dummy=15, kitty=3, bury=3, single_round=True,
    **{**_AUCTION, "melds": LINEAR_UNIT_MELDS, "target": 120, "phase2_must_win": MustWin.TRUMP_LED},
    bid_ladder=BidLadder(20), all_pass=AllPass.DEALER_MAY_TAKE, first_lead_trump=True,
    save_meld=SaveMeld.POINT,
)

THREE_HANDED = Variant(
    name="three-handed",
    summary="Three-handed cutthroat: 15 cards each and a kitty of 3; the bid winner takes the kitty and buries 3.",
    source="004, three-player section: minimum bid 20, raises of 1, dealer may take the bid at 20 or redeal when all "
           "pass; must follow, head the trick, else trump; a trick saves meld; game to 150, the bidder wins a "
           "tie-out, then highest score, points of the last hand, tricks",
    players=3, hand_size=15, kitty=3, bury=3, **_AUCTION,
    bid_ladder=BidLadder(20), all_pass=AllPass.DEALER_MAY_TAKE,
)

FOUR_HANDED = Variant(
    name="four-handed",
    summary="Four-handed partnership, single deck: partners opposite, 12 cards each, pass 4 and 4.",
    source="004, four-player single-deck section: minimum bid 25, dealer may take it or redeal when all pass; the "
           "bid winner's partner passes 4 cards, the bid winner passes 4 back; meld by player, scored by team; "
           "game to 150, the bidding team wins a tie-out",
    players=4, hand_size=12, partners=Partners.OPPOSITE, give=4, **_AUCTION,
    bid_ladder=BidLadder(25), all_pass=AllPass.DEALER_MAY_TAKE,
)

_DOUBLE_DECK: dict[str, Any] = dict(deck_copies=4, deck_ranks=(Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK), deal_packet=4,
                    bid_ladder=DOUBLE_DECK_LADDER,
                    all_pass=AllPass.DEALER_STUCK, give=4, **{**_AUCTION, "melds": DOUBLE_DECK_MELDS,
                                                               "last_trick": 2, "target": 500})

FOUR_HANDED_DOUBLE = Variant(
    name="four-handed-double",
    summary="Four-handed partnership, double deck (80 cards, no nines): 20 each, bids from 50, game to 500.",
    source="004, double-deck partnership section: deal by fours; minimum bid 50, steps of 1 to 60, 5 to 100, 10 "
           "above; the dealer is stuck at 50 when all pass; pass 4 and 4; the double-deck meld table; last trick "
           "2, 50 trick points; game to 500, the bidding team wins a tie-out",
    players=4, hand_size=20, partners=Partners.OPPOSITE, **_DOUBLE_DECK,
)

CALL_FOR_PARTNER = Variant(
    name="call-for-partner",
    summary="Five players, double deck: the bid winner names trump and a card; its first holder is the partner.",
    source="004, call-for-partner section: 16 cards each; bidding as the double deck; the first holder of the called "
           "card (from the bid winner's left) passes it face up and 3 more, and gets 4 back. 004 leaves open a "
           "called card the bid winner holds every copy of: the bid winner then plays alone, one against four. "
           "Each seat keeps its own total; when several reach 500 on one hand, the team that won the bid wins: "
           "the bid winner and its partner, each if it reached 500; if neither did, the defenders' team: each "
           "defender that reached 500",
    players=5, hand_size=16, partners=Partners.CALLED, **_DOUBLE_DECK,
)

PRESETS: dict[str, Variant] = {
    v.name: v
    for v in (TWO_HANDED, TWO_HANDED_HOYLE, TWO_HANDED_150, TWO_HANDED_DUMMY, THREE_HANDED, FOUR_HANDED,
              FOUR_HANDED_DOUBLE, CALL_FOR_PARTNER)
}


# The rules version, written in every record: a record replays under the rules of its version. Each change of
# the rules after records were first written raises it, and RULE_CHANGES keeps the fields as games played before.
RULES_VERSION = 2
RULE_CHANGES: tuple[tuple[int, dict[str, Any]], ...] = (  # (the version that brought it, the fields before)
    # 004: a broken meld "can't be added to in order to build more valuable meld combinations"
    (2, {"build_on_broken": True}),
    # 004: "the team that won the bid wins"; so when only defenders reach the target, their team wins
    (2, {"defenders_win_together": False}),
)


def rules_of_version(variant: Variant, version: int) -> Variant:
    """``variant`` as the referee played it under rules version ``version`` (1: records that carry none)."""
    for since, before in reversed(RULE_CHANGES):
        if version < since:
            variant = attrs.evolve(variant, **before)
    return variant


class VariantError(ValueError):
    """A bad preset name or option, with a message fit for a user."""


# The target that goes with a scoring, when the scoring is chosen and the target is not (003: alternate scoring
# plays to 15 points, where standard scoring's 120 would take some 60 hands to reach).
SCORING_TARGETS = {Scoring.TWO_ONE: 15}


def get_variant(name: str, options: Mapping[str, str] | None = None) -> Variant:
    """A preset with options applied; raises VariantError naming the problem."""
    try:
        variant = PRESETS[name]
    except KeyError:
        raise VariantError(f"unknown variant {name!r}; known: {', '.join(PRESETS)}") from None
    for key, value in (options or {}).items():
        variant = apply_option(variant, key, value)
    if "target" not in (options or {}) and variant.scoring is not PRESETS[name].scoring:
        variant = attrs.evolve(variant, target=SCORING_TARGETS.get(variant.scoring, PRESETS[name].target))
    if variant.throw_in and variant.scoring is not Scoring.TWO_ONE:
        raise VariantError("throw-in=yes needs scoring=two-one: 003 lets the bid winner throw a hand in under its "
                           "alternate scoring only")
    return variant


def apply_option(variant: Variant, key: str, value: str) -> Variant:
    opt = OPTIONS.get(key)
    if opt is None or not opt.applies(variant):
        known = ", ".join(k for k, o in OPTIONS.items() if o.applies(variant))
        raise VariantError(f"variant {variant.name} has no option {key!r}; its options: {known}")
    value = str(value).strip().lower()
    if opt.choices is not None and value not in opt.choices:
        raise VariantError(f"option {key}={value!r} is not one of: {', '.join(opt.choices)}")
    if opt.choices is None:
        try:
            number = int(value)
        except ValueError:
            raise VariantError(f"option {key}={value!r} must be a whole number") from None
        if number < 0:
            raise VariantError(f"option {key}={value!r} must not be negative")
    return opt.write(variant, value)


def parse_option_text(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        raise VariantError(f"option {text!r} should look like key=value, e.g. target=1200")
    return key.strip(), value.strip()
