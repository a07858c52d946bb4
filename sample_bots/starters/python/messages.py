"""The pinochle-arena protocol (version 3), read into Python types.

``parse_line(line)`` turns one line from the referee into one message object:
a small frozen dataclass per message (``Play``, ``Trick``, ``Go``...). A line
this module does not know, or cannot make sense of, becomes ``Unknown``:
a bot must ignore what it does not understand, because the referee adds
messages over time (protocol/PROTOCOL.md, section 1).

You should not need to change this file: your thinking goes in ``bot.py``,
the game model in ``model.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HIDDEN = "??"  # a card you may not see
SUITS = "CDHS"
DEFAULT_RANKS = "ATKQJ9"  # high to low; the game's 'rule ranks' line says which ranks the deck has


# ----------------------------------------------------------------- cards
@dataclass(frozen=True, slots=True, repr=False)
class Card:
    """One card: ``Card("A", "S")`` is the ace of spades, written ``AS`` (ten is ``T``)."""

    rank: str  # A T K Q J 9
    suit: str  # C D H S

    @classmethod
    def parse(cls, text: str) -> Card:
        text = text.upper()
        if len(text) != 2 or text[0] not in DEFAULT_RANKS or text[1] not in SUITS:
            raise ValueError(f"not a card: {text!r}")
        return cls(text[0], text[1])

    @property
    def strength(self) -> int:
        """Higher beats lower within a suit: A=6, T=5, K=4, Q=3, J=2, 9=1 (the ten beats the king)."""
        return len(DEFAULT_RANKS) - DEFAULT_RANKS.index(self.rank)

    def __str__(self) -> str:
        return self.rank + self.suit

    __repr__ = __str__  # debug output shows AS, not Card(rank='A', suit='S')


def card_or_hidden(text: str) -> Card | None:
    """A card, or None for ``??`` (a card you are not allowed to see)."""
    return None if text == HIDDEN else Card.parse(text)


def cards_list(text: str, sep: str = ",") -> list[Card]:
    """``AS,TD,9C`` (or ``-`` for none) -> cards."""
    return [] if text in ("-", "") else [Card.parse(t) for t in text.split(sep)]


def seat_or_none(text: str) -> int | None:
    return None if text == "-" else int(text)


# ---------------------------------------------------------------- actions
@dataclass(frozen=True, slots=True, repr=False)
class Action:
    """One legal action of a ``go`` request.

    ``token`` is exactly what you reply (``AS``, ``table:KS``, ``royal:KH,QH=40``,
    ``bid:25``, ``pass``...). The other fields take it apart:

    kind    card | table | meld | pass | take | claim | bid | trump | throw-in | call | give | bury
            (or the word before ``:`` of an action this kit does not know yet)
    card    the card played, called, given or buried (card, table, call, give, bury)
    cards   the hand cards a meld takes
    meld    the meld's kind (``royal``, ``double-aces``...)
    points  what a meld would score now (version 3 gives it after ``=``)
    amount  a bid's amount
    suit    the suit of ``trump:H``
    what    ``stock`` or ``turnup`` for ``take:``
    """

    token: str
    kind: str
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    meld: str | None = None
    points: int | None = None
    amount: int | None = None
    suit: str | None = None
    what: str | None = None

    def __str__(self) -> str:
        return self.token

    def __repr__(self) -> str:
        return f"Action({self.token!r})"


_SIMPLE = {"pass", "claim", "throw-in"}


def parse_action(token: str) -> Action:
    """One (non-range) action token -> Action. Tokens this kit does not know keep ``kind`` = their prefix."""
    try:
        return _parse_action(token)
    except ValueError:  # a shape this kit does not know: keep the token, it is still a legal reply
        return Action(token, token.partition(":")[0].lower())


def _parse_action(token: str) -> Action:
    low = token.lower()
    if low in _SIMPLE:
        return Action(token, low)
    if len(token) == 2:
        return Action(token, "card", card=Card.parse(token))
    head, _, rest = token.partition(":")
    head = head.lower()
    if head == "table":  # table:KS or table:KS@kings (a named copy)
        return Action(token, "table", card=Card.parse(rest.split("@")[0]))
    if head == "bid":
        return Action(token, "bid", amount=int(rest))
    if head == "trump":
        return Action(token, "trump", suit=rest.upper())
    if head in ("call", "give", "bury"):
        return Action(token, head, card=Card.parse(rest))
    if head == "take":
        return Action(token, "take", what=rest.lower())
    if rest and all(len(c) == 2 for c in rest.split("=")[0].split(",")):  # a meld: KIND:CARDS[=POINTS]
        cards_text, _, points = rest.partition("=")
        return Action(token, "meld", cards=tuple(cards_list(cards_text)), meld=head,
                      points=int(points) if points else None)
    return Action(token, head)


def expand(token: str) -> list[str]:
    """A range token into its bids: ``bid:20..23`` -> bid:20 bid:21 bid:22 bid:23; ``bid:65..80/5`` -> 65 70 75 80.

    Never reply with a range token itself (PROTOCOL.md, section 4). Any other token comes back as it is.
    """
    if ".." not in token:
        return [token]
    head, _, span = token.partition(":")
    low, _, rest = span.partition("..")
    high, _, step = rest.partition("/")
    return [f"{head}:{n}" for n in range(int(low), int(high) + 1, int(step) if step else 1)]


# --------------------------------------------------------------- messages
# One class per message the referee sends, named after it. Seats are ints from 0.

@dataclass(frozen=True, slots=True)
class Hello:  # pinochle <version>
    version: int


@dataclass(frozen=True, slots=True)
class SetOption:  # setoption <name> <value>
    name: str
    value: str


# rule <key> <value>...: one class per rule key, RuleOther for keys added later
@dataclass(frozen=True, slots=True)
class RuleRanks:  # rule ranks A T K Q J 9   (high to low)
    ranks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RuleCopies:  # rule copies 2
    copies: int


@dataclass(frozen=True, slots=True)
class RulePoints:  # rule points A=11 T=10 K=4 Q=3 J=2 9=0
    points: dict[str, int]


@dataclass(frozen=True, slots=True)
class RuleLastTrick:  # rule last-trick 10
    points: int


@dataclass(frozen=True, slots=True)
class RuleTarget:  # rule target 1000
    target: int


@dataclass(frozen=True, slots=True)
class RuleMeld:  # rule meld run 150 300 [- -]: value made once, twice, ... (None: no such meld)
    kind: str
    values: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class RuleFollow:  # rule follow 1 free / rule follow 2 suit trump head
    phase: int
    duties: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RuleFirstLead:  # rule first-lead trump
    what: str


@dataclass(frozen=True, slots=True)
class RuleOther:  # a rule key this kit does not know yet
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class State:
    """``state key=value ...``: what you may know now, sent before each request (with ``want state``).

    ``fields`` holds every key as text, unknown keys included (later versions
    add keys at the end). The properties read the documented ones; each is
    None when its key is absent.
    """

    fields: dict[str, str]

    def get(self, key: str) -> str | None:
        return self.fields.get(key)

    def _int(self, key: str) -> int | None:
        v = self.fields.get(key)
        return None if v is None or v == "-" else int(v)

    def _ints(self, key: str) -> list[int] | None:
        v = self.fields.get(key)
        return None if v is None else [int(x) for x in v.split("/")]

    def _per_seat_cards(self, key: str) -> list[list[Card]] | None:
        v = self.fields.get(key)
        return None if v is None else [cards_list(x) for x in v.split("/")]

    hand = property(lambda self: self._int("hand"), doc="hand number")
    dealer = property(lambda self: self._int("dealer"))
    phase = property(lambda self: self._int("phase"), doc="1 or 2")
    trump = property(lambda self: None if self.fields.get("trump", "-") == "-" else self.fields["trump"])
    turnup = property(lambda self: None if self.fields.get("turnup", "-") == "-" else Card.parse(self.fields["turnup"]))
    cards = property(lambda self: None if "cards" not in self.fields else cards_list(self.fields["cards"]),
                     doc="your concealed hand")
    tables = property(lambda self: self._per_seat_cards("tables"), doc="per seat, melded cards on the table")
    leader = property(lambda self: self._int("leader"), doc="who led the trick in play (None: no trick)")
    trick = property(lambda self: None if "trick" not in self.fields else cards_list(self.fields["trick"]),
                     doc="cards played to the trick so far, in order")
    held = property(lambda self: self._ints("held"), doc="concealed cards per seat")
    stock = property(lambda self: self._int("stock"))
    kitty = property(lambda self: self._int("kitty"))
    buried = property(lambda self: self._int("buried"))
    dummy = property(lambda self: self._int("dummy"))
    partner = property(lambda self: self._int("partner"))
    meld = property(lambda self: self._ints("meld"), doc="meld points per seat this hand")
    tricks = property(lambda self: self._ints("tricks"), doc="trick points per seat this hand")
    totals = property(lambda self: self._ints("totals"), doc="game totals before this hand")
    target = property(lambda self: self._int("target"), doc="the current target (newer referees)")
    won = property(lambda self: self._ints("won"), doc="tricks won per seat this hand (newer referees)")
    known = property(lambda self: self._per_seat_cards("known"),
                     doc="per seat, concealed cards you know it holds (newer referees)")

    @property
    def bid(self) -> tuple[int, int] | None:
        """(bid winner, amount), or None before the auction is won."""
        v = self.fields.get("bid", "-")
        if v == "-":
            return None
        seat, _, amount = v.partition(":")
        return int(seat), int(amount)

    @property
    def bids(self) -> list[tuple[int, int | None]] | None:
        """This hand's auction so far: (seat, amount or None for a pass), in order (newer referees)."""
        v = self.fields.get("bids")
        if v is None:
            return None
        out = []
        for item in ([] if v == "-" else v.split(",")):
            seat, _, amount = item.partition(":")
            out.append((int(seat), None if amount == "pass" else int(amount)))
        return out

    @property
    def unseen(self) -> dict[Card, int] | None:
        """Every card you have not seen, with how many copies."""
        v = self.fields.get("unseen")
        if v is None:
            return None
        out = {}
        for item in ([] if v == "-" else v.split(",")):
            card, _, n = item.partition(":")
            out[Card.parse(card)] = int(n)
        return out


@dataclass(frozen=True, slots=True)
class Game:  # game <id> <variant> <seat> <players> <key=value>...
    game_id: str
    variant: str
    seat: int
    players: int
    options: dict[str, str]


@dataclass(frozen=True, slots=True)
class Deal:  # deal <hand> <dealer> <turnup|-> <card>...
    hand: int
    dealer: int
    turnup: Card | None  # None in the bidding games
    cards: list[Card]


@dataclass(frozen=True, slots=True)
class Bonus:  # bonus <seat> <points> <reason>
    seat: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class Play:  # play <seat> <AS|table:AS>
    seat: int
    card: Card
    from_table: bool


@dataclass(frozen=True, slots=True)
class Trick:  # trick <winner> <points>
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class Draw:  # draw <seat> <card|??>
    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class Meld:  # meld <seat> <kind> <points> <card>...
    seat: int
    kind: str
    points: int
    cards: list[Card]


@dataclass(frozen=True, slots=True)
class Exchange:  # exchange <seat> <dix> <taken>
    seat: int
    dix: Card
    taken: Card


@dataclass(frozen=True, slots=True)
class Phase2:  # phase2 <leader>
    leader: int


@dataclass(frozen=True, slots=True)
class ClaimMade:  # claim <seat> yes|no
    seat: int
    success: bool


@dataclass(frozen=True, slots=True)
class HandEnd:  # handend <hand> points <p>... totals <t>...
    hand: int
    points: list[int]
    totals: list[int]


@dataclass(frozen=True, slots=True)
class Go:
    """``go <decision> <time-left-ms> <bank-ms> <action>...``: a request; reply with one of ``actions``.

    ``tokens`` are the raw tokens; ``actions`` the concrete actions, range
    tokens (``bid:21..555``) already expanded into one Action per bid.
    """

    decision: str  # lead follow meld take bid trump call give bury
    time_left_ms: int
    bank_ms: int
    tokens: list[str]
    actions: list[Action] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Error:  # error <text>
    text: str


@dataclass(frozen=True, slots=True)
class GameOver:  # gameover <termination> <seat|-> result <r>... totals <t>...
    termination: str  # completed timeout illegal-action protocol-error crash
    culprit: int | None
    result: list[float]  # 1 win, 0 loss, 0.5 draw
    totals: list[int]


@dataclass(frozen=True, slots=True)
class Bid:  # bid <seat> <amount|pass>
    seat: int
    amount: int | None  # None: passed


@dataclass(frozen=True, slots=True)
class BidWon:  # bidwon <seat> <amount>
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Redeal:  # redeal <dealer>
    dealer: int


@dataclass(frozen=True, slots=True)
class Kitty:  # kitty <card>...
    cards: list[Card]


@dataclass(frozen=True, slots=True)
class KittyCard:  # kittycard <card>
    card: Card


@dataclass(frozen=True, slots=True)
class ThrowIn:  # throwin <seat>
    seat: int


@dataclass(frozen=True, slots=True)
class Trump:  # trump <seat> <suit>
    seat: int
    suit: str


@dataclass(frozen=True, slots=True)
class Call:  # call <seat> <card>
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Partner:  # partner <bidder> <seat|->
    bidder: int
    partner: int | None  # None: the bid winner plays alone


@dataclass(frozen=True, slots=True)
class Give:  # give <from> <to> <card|??>...
    giver: int
    receiver: int
    cards: list[Card | None]


@dataclass(frozen=True, slots=True)
class Bury:  # bury <seat> <card|??>...
    seat: int
    cards: list[Card | None]


@dataclass(frozen=True, slots=True)
class Dummy:  # dummy <seat> <card>
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Contract:  # contract <bidder> <bid> made|set <points>
    bidder: int
    bid: int
    made: bool
    points: int


@dataclass(frozen=True, slots=True)
class Target:  # target <n>: the target score rose to n (tiebreak=play-on)
    target: int


@dataclass(frozen=True, slots=True)
class Ping:  # ping <token>: reply pong <token>
    token: str


@dataclass(frozen=True, slots=True)
class MatchEnd:  # matchend
    pass


@dataclass(frozen=True, slots=True)
class Quit:  # quit: exit now
    pass


@dataclass(frozen=True, slots=True)
class Unknown:  # anything else: ignore it
    words: list[str]


# ---------------------------------------------------------------- parsing
def _section(words: list[str], start: str, stop: str | None = None) -> list[str]:
    """The words after ``start`` up to ``stop``: 'points 1 2 totals 3 4' -> ['1', '2']."""
    i = words.index(start) + 1
    j = words.index(stop, i) if stop else len(words)
    return words[i:j]


def _rule(w: list[str]):
    key, v = w[1], w[2:]
    if key == "ranks":
        return RuleRanks(tuple(v))
    if key == "copies":
        return RuleCopies(int(v[0]))
    if key == "points":
        return RulePoints({r: int(n) for r, _, n in (x.partition("=") for x in v)})
    if key == "last-trick":
        return RuleLastTrick(int(v[0]))
    if key == "target":
        return RuleTarget(int(v[0]))
    if key == "meld":
        return RuleMeld(v[0], tuple(None if x == "-" else int(x) for x in v[1:]))
    if key == "follow":
        return RuleFollow(int(v[0]), tuple(v[1:]))
    if key == "first-lead":
        return RuleFirstLead(v[0])
    return RuleOther(key, tuple(v))


def _go(w: list[str]) -> Go:
    w = w + ["0"] * (4 - len(w))  # never drop a request, however odd: it must be answered
    tokens = w[4:]
    actions = []
    for token in tokens:
        try:
            concrete = expand(token)
        except ValueError:  # a range of a shape this kit does not know: not a reply, skip it
            continue
        actions += [parse_action(t) for t in concrete]
    return Go(w[1], _int_or(w[2], 0), _int_or(w[3], 0), tokens, actions)


def _int_or(text: str, default: int) -> int:
    try:
        return int(text)
    except ValueError:
        return default


def _play(w: list[str]) -> Play:
    text = w[2]
    from_table = text.lower().startswith("table:")
    return Play(int(w[1]), Card.parse(text.split(":")[-1].split("@")[0]), from_table)


_PARSERS = {
    "pinochle": lambda w: Hello(int(w[1])),
    "setoption": lambda w: SetOption(w[1], w[2] if len(w) > 2 else ""),
    "rule": _rule,
    "state": lambda w: State(dict(x.split("=", 1) for x in w[1:] if "=" in x)),
    "game": lambda w: Game(w[1], w[2], int(w[3]), int(w[4]), dict(x.split("=", 1) for x in w[5:] if "=" in x)),
    "deal": lambda w: Deal(int(w[1]), int(w[2]), None if w[3] == "-" else Card.parse(w[3]),
                           [Card.parse(c) for c in w[4:]]),
    "bonus": lambda w: Bonus(int(w[1]), int(w[2]), w[3] if len(w) > 3 else ""),
    "play": _play,
    "trick": lambda w: Trick(int(w[1]), int(w[2])),
    "draw": lambda w: Draw(int(w[1]), card_or_hidden(w[2])),
    "meld": lambda w: Meld(int(w[1]), w[2], int(w[3]), [Card.parse(c) for c in w[4:]]),
    "exchange": lambda w: Exchange(int(w[1]), Card.parse(w[2]), Card.parse(w[3])),
    "phase2": lambda w: Phase2(int(w[1])),
    "claim": lambda w: ClaimMade(int(w[1]), w[2] == "yes"),
    "handend": lambda w: HandEnd(int(w[1]), [int(x) for x in _section(w, "points", "totals")],
                                 [int(x) for x in _section(w, "totals")]),
    "go": _go,
    "error": lambda w: Error(" ".join(w[1:])),
    "gameover": lambda w: GameOver(w[1], seat_or_none(w[2]), [float(x) for x in _section(w, "result", "totals")],
                                   [int(x) for x in _section(w, "totals")]),
    "bid": lambda w: Bid(int(w[1]), None if w[2] == "pass" else int(w[2])),
    "bidwon": lambda w: BidWon(int(w[1]), int(w[2])),
    "redeal": lambda w: Redeal(int(w[1])),
    "kitty": lambda w: Kitty([Card.parse(c) for c in w[1:]]),
    "kittycard": lambda w: KittyCard(Card.parse(w[1])),
    "throwin": lambda w: ThrowIn(int(w[1])),
    "trump": lambda w: Trump(int(w[1]), w[2]),
    "call": lambda w: Call(int(w[1]), Card.parse(w[2])),
    "partner": lambda w: Partner(int(w[1]), seat_or_none(w[2])),
    "give": lambda w: Give(int(w[1]), int(w[2]), [card_or_hidden(c) for c in w[3:]]),
    "bury": lambda w: Bury(int(w[1]), [card_or_hidden(c) for c in w[2:]]),
    "dummy": lambda w: Dummy(int(w[1]), Card.parse(w[2])),
    "contract": lambda w: Contract(int(w[1]), int(w[2]), w[3] == "made", int(w[4])),
    "target": lambda w: Target(int(w[1])),
    "ping": lambda w: Ping(w[1] if len(w) > 1 else ""),
    "matchend": lambda w: MatchEnd(),
    "quit": lambda w: Quit(),
}


def parse_line(line: str):
    """One line from the referee -> one message (``Unknown`` for what this kit cannot read)."""
    words = line.split()
    if not words:
        return Unknown([])
    parser = _PARSERS.get(words[0])
    if parser is None:
        return Unknown(words)
    try:
        return parser(words)
    except (ValueError, IndexError, KeyError):  # a line of a shape this kit does not know: ignore it
        return Unknown(words)
