"""Melds: what they are, what they score, and how progressive melding works.

A *meld kind* is a pattern of cards (a run in trump, a marriage in one
suit, aces around...). A *meld type* is a kind at a multiplicity: the
double pinochle is the pinochle kind twice, the double run the run twice.
A variant's :class:`MeldTable` gives each kind its value at every
multiplicity it allows; the names and patterns live here.

Two-handed pinochle with a stock melds *progressively*: one meld after a
won trick, at least one card from the hand, table cards reusable only in a
meld of another type and not built on a broken meld. :class:`MeldBoard`
keeps one seat's table and enumerates and applies those melds.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Iterable, Mapping, Sequence

import attrs

from .cards import Card, Rank, Suit, sort_cards

MULTIPLICITY_PREFIX = {1: "", 2: "double-", 3: "triple-", 4: "quadruple-"}

_RUN_RANKS = (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK)

# Kind name -> human name. Order is the order of the meld tables in the texts.
KIND_NAMES = {
    "run": "run (A T K Q J of trump)",
    "royal": "royal marriage (K Q of trump)",
    "marriage": "marriage (K Q of a plain suit)",
    "dix": "dix (9 of trump)",
    "aces": "aces around",
    "kings": "kings around",
    "queens": "queens around",
    "jacks": "jacks around",
    "pinochle": "pinochle (J of diamonds, Q of spades)",
    "roundhouse": "round house (K Q in every suit)",
}
KINDS = tuple(KIND_NAMES)
# The melds a round house is made of (004: "the sum of eighty kings, sixty queens, and a marriage in each suit").
ROUND_HOUSE_PARTS = ("kings", "queens", "marriage", "royal")
_AROUND = {"aces": Rank.ACE, "kings": Rank.KING, "queens": Rank.QUEEN, "jacks": Rank.JACK}


@functools.cache
def kind_patterns(kind: str, trump: Suit) -> tuple[tuple[Card, ...], ...]:
    """The single (multiplicity 1) card patterns of a kind under ``trump``, each in card order."""
    return tuple(tuple(sort_cards(p)) for p in _patterns(kind, trump))


def _patterns(kind: str, trump: Suit) -> tuple[tuple[Card, ...], ...]:
    if kind == "run":
        return (tuple(Card(r, trump) for r in _RUN_RANKS),)
    if kind == "royal":
        return ((Card(Rank.KING, trump), Card(Rank.QUEEN, trump)),)
    if kind == "marriage":
        return tuple((Card(Rank.KING, s), Card(Rank.QUEEN, s)) for s in Suit if s != trump)
    if kind == "dix":
        return ((Card(Rank.NINE, trump),),)
    if kind in _AROUND:
        return (tuple(Card(_AROUND[kind], s) for s in Suit),)
    if kind == "pinochle":
        return ((Card(Rank.JACK, Suit.DIAMONDS), Card(Rank.QUEEN, Suit.SPADES)),)
    if kind == "roundhouse":
        return (tuple(Card(r, s) for s in Suit for r in (Rank.KING, Rank.QUEEN)),)
    raise ValueError(f"unknown meld kind {kind!r}")


_Candidate = tuple[int, str, int, str, tuple[Card, ...]]  # (position in kinds, kind, multiplicity, type name, pattern)


@functools.cache
def _candidates(kinds: tuple[tuple[str, int], ...], trump: Suit) -> tuple[tuple[int, tuple[_Candidate, ...]], ...]:
    """Every pattern of every type, grouped by the faces the pattern needs.

    Each group is (those faces as a bit mask, ((position in ``kinds``, kind,
    multiplicity, type name, pattern), ...)): the double aces share their
    faces with the aces, so one test of the mask rules out both.
    """
    groups: dict[int, list[_Candidate]] = {}
    index = 0  # the options are listed in the order of ``kinds``
    for kind, mult in kinds:
        for pattern in kind_patterns(kind, trump):
            groups.setdefault(_mask(pattern), []).append((index, kind, mult, type_name(kind, mult), pattern))
            index += 1
    return tuple((mask, tuple(types)) for mask, types in groups.items())


@functools.cache
def _meld_taking(kind: str, mult: int, pattern: tuple[Card, ...], counts: tuple[int, ...]) -> Meld:
    """The meld that takes ``counts[i]`` copies of ``pattern[i]`` from the hand (made once: it is a value)."""
    return Meld(kind, mult, tuple(c for c, k in zip(pattern, counts) for _ in range(k)))


@functools.cache  # asked for every meld a request offers (its points), of a few thousand melds in all
def _from_table(option: Meld, trump: Suit) -> tuple[tuple[Card, int], ...]:
    """The cards ``option`` takes from the table, and how many of each: those of its pattern (under ``trump``)
    that the hand does not give ``multiplicity`` times; none when the hand gives them all."""
    mult = option.multiplicity
    taken = _counts(option.from_hand)
    for pattern in kind_patterns(option.kind, trump):
        if all(c in pattern and n <= mult for c, n in taken.items()):
            return tuple((c, mult - taken.get(c, 0)) for c in pattern if taken.get(c, 0) < mult)
    return ()


_FIRST = operator.itemgetter(0)


def _mask(faces: Iterable[Card]) -> int:
    """The set of distinct faces as an int, one bit per face (bit ``order``)."""
    mask = 0
    for c in faces:
        mask |= 1 << c.order
    return mask


def _counts(items: Iterable[Card]) -> dict[Card, int]:
    counts: dict[Card, int] = {}
    for c in items:
        counts[c] = counts.get(c, 0) + 1
    return counts


def type_name(kind: str, multiplicity: int) -> str:
    return MULTIPLICITY_PREFIX[multiplicity] + kind


def parse_type_name(name: str) -> tuple[str, int]:
    """``double-pinochle`` -> ("pinochle", 2). Raises ValueError."""
    for mult in (4, 3, 2):
        prefix = MULTIPLICITY_PREFIX[mult]
        if name.startswith(prefix):
            kind = name[len(prefix):]
            if kind in KIND_NAMES:
                return kind, mult
    if name in KIND_NAMES:
        return name, 1
    raise ValueError(f"unknown meld {name!r}")


def _meld_rows(rows: Mapping[str, Iterable[int | None]] | Iterable[tuple[str, Iterable[int | None]]],
               ) -> tuple[tuple[str, tuple[int | None, ...]], ...]:
    return tuple((k, tuple(v)) for k, v in dict(rows).items())


@attrs.frozen(cache_hash=True)  # a key of the rules engine's caches, looked up after every trick
class MeldTable:
    """Meld values of one variant: kind -> values at multiplicity 1, 2, 3, 4.

    A kind missing from the table is not a meld in that variant; a value of
    None means that multiplicity is not a meld ("N/A" in the texts).
    """

    rows: tuple[tuple[str, tuple[int | None, ...]], ...] = attrs.field(converter=_meld_rows)

    @property
    def values(self) -> dict[str, tuple[int | None, ...]]:
        return dict(self.rows)

    def value(self, kind: str, multiplicity: int = 1) -> int | None:
        for k, row in self.rows:
            if k == kind:
                return row[multiplicity - 1] if multiplicity <= len(row) else None
        return None

    def points(self, kind: str, multiplicity: int = 1) -> int:
        """:meth:`value` of a meld this table has; ValueError if it has none."""
        value = self.value(kind, multiplicity)
        if value is None:
            raise ValueError(f"the meld table has no {kind} at multiplicity {multiplicity}")
        return value

    def types(self) -> list[tuple[str, int]]:
        """Every (kind, multiplicity) that is a meld in this table."""
        return [(k, m) for k, row in self.rows for m, v in enumerate(row, 1) if v is not None]

    def evolve(self, **changes: tuple[int | None, ...] | None) -> MeldTable:
        values = self.values
        for kind, row in changes.items():
            if row is None:
                values.pop(kind, None)
            else:
                values[kind] = row
        return MeldTable(values)


@functools.cache  # asked at every deal
def most_points(table: MeldTable, copies: int) -> int:
    """More than any one hand can meld from a deck with ``copies`` of each card.

    Every meld of the table, each pattern (each plain suit's marriage) as
    many times as the deck holds it, at the best split into the levels the
    table prices: the sum ignores the hand's size, so it is a bound no hand
    reaches, used to cap the bids.
    """

    def best(kind: str, sets: int) -> int:
        values = [table.value(kind, m) for m in range(1, sets + 1)]
        most = [0] * (sets + 1)
        for n in range(1, sets + 1):
            most[n] = max((v + most[n - m] for m, v in enumerate(values[:n], 1) if v is not None), default=0)
        return most[sets]

    return sum(best(kind, copies) * len(kind_patterns(kind, Suit.HEARTS)) for kind, _ in table.rows)


@functools.cache
def covered_types(kind: str, multiplicity: int) -> frozenset[str]:
    """Types a table card can no longer be used in once used in this type.

    A card melded in a type is spent for that type and for the smaller
    multiplicities of the same kind; a run spends its king and queen for the
    royal marriage (Hoyle: "the king and queen can't be pulled out of the
    flush to form a royal marriage") and so for the round house, which holds
    a royal marriage; a round house spends its cards for the kinds it is made
    of.
    """
    spent = {type_name(kind, m) for m in range(1, multiplicity + 1)}
    if kind == "run":
        spent |= {type_name(k, m) for k in ("royal", "roundhouse") for m in range(1, multiplicity + 1)}
    if kind == "roundhouse":
        spent |= {type_name(k, m) for k in ROUND_HOUSE_PARTS for m in range(1, multiplicity + 1)}
    return frozenset(spent)


@functools.cache
def contained_types(kind: str, multiplicity: int) -> frozenset[str]:
    """Smaller types whose intact meld on the table this type upgrades.

    Upgrading scores only the difference: a royal marriage extended to a run
    (150 - 40 = +110), a pinochle extended to a double pinochle
    (300 - 40 = +260), kings around completed to a round house with four
    queens from the hand (240 - 80 = +160). So cards on the table never
    score more, in all, than the biggest meld they end up in.
    """
    inner = {type_name(kind, m) for m in range(1, multiplicity)}
    if kind == "run":
        inner |= {type_name("royal", m) for m in range(1, multiplicity + 1)}
    if kind == "roundhouse":
        inner |= {type_name(k, m) for k in ROUND_HOUSE_PARTS for m in range(1, multiplicity + 1)}
    return frozenset(inner)


@functools.cache
def built_on(name: str) -> frozenset[str]:
    """The types that would be built on a meld of type ``name``: those that absorb it while it is intact (a
    run on a royal marriage, a double pinochle on a pinochle, a round house on kings around, queens around
    or a marriage). Once the meld is broken its cards left on the table serve none of them (004)."""
    return frozenset(type_name(kind, mult) for kind in KINDS for mult in MULTIPLICITY_PREFIX
                     if name in contained_types(kind, mult))


@attrs.define
class TableCard:
    card: Card
    spent: set[str] = attrs.field(factory=set)
    used_in: list[str] = attrs.field(factory=list)  # the meld types it served, in order

    @property
    def history(self) -> str:
        """How a player names this copy: ``kings``, ``marriage+pinochle``."""
        return "+".join(self.used_in)


@attrs.frozen
class Meld:
    """A meld as an action: its type and the cards it takes from the hand (text ``royal:KH,QH``)."""

    kind: str
    multiplicity: int
    from_hand: tuple[Card, ...]
    # its text, made once: a meld offered in a request is the same object at every turn it is offered (see
    # _meld_taking), and is written into every request that offers it
    _text: str = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_text", self.name + ":" + ",".join(c.to_text() for c in self.from_hand))

    @property
    def name(self) -> str:
        return type_name(self.kind, self.multiplicity)

    def to_text(self) -> str:
        return self._text


@attrs.define
class MeldRecord:
    name: str
    cards: list[int]  # ids of TableCard slots
    points: int
    intact: bool = True
    from_table: int = 0  # the first this many of ``cards`` were on the table already


@attrs.define
class MeldBoard:
    """One seat's melded cards on the table (two-handed progressive melding).

    A table card played to a trick breaks every meld it was counted in, and
    a broken meld "can't be added to in order to build more valuable meld
    combinations" (004; 000: a second pinochle beside a broken one is a
    pinochle, not a double pinochle): the cards it leaves on the table serve
    no meld built on it (:func:`built_on`), as they serve no second meld of
    its own type. ``build_on_broken`` is the rule before that (records
    written then replay under it): they did, at full value.
    """

    slots: dict[int, TableCard] = attrs.field(factory=dict)
    melds: list[MeldRecord] = attrs.field(factory=list)
    next_id: int = 0
    build_on_broken: bool = False

    def cards(self) -> list[Card]:
        return [s.card for s in self.slots.values()]

    def eligible(self, name: str) -> list[int]:
        """Slots that may still be used in a meld of type ``name``."""
        return [i for i, s in self.slots.items() if name not in s.spent]

    def options(self, hand: Sequence[Card], table: MeldTable, trump: Suit, kinds: Iterable[tuple[str, int]]) -> list[Meld]:
        """Every distinct legal meld of the given types, identified by the cards it takes from the hand."""
        slots = list(self.slots.values())
        held = _mask(hand)
        on_table = [s.card for s in slots]
        nowhere = ~(held | _mask(on_table))
        found: list[tuple[int, Meld]] = []
        eligible_by_name: dict[str, dict[Card, int]] = {}
        for faces, types in _candidates(tuple(kinds), trump):
            if not faces & held or faces & nowhere:
                continue  # at least one card from the hand, and every card somewhere
            for index, kind, mult, name, pattern in types:
                if not slots:  # everything from the hand: one way to make it, if the hand holds enough copies
                    if mult == 1 or all(hand.count(c) >= mult for c in pattern):
                        found.append((index, _meld_taking(kind, mult, pattern, (mult,) * len(pattern))))
                    continue
                if mult > 1 and any(hand.count(c) + on_table.count(c) < mult for c in pattern):
                    continue
                eligible = eligible_by_name.get(name)
                if eligible is None:
                    eligible = eligible_by_name[name] = _counts(s.card for s in slots if name not in s.spent)
                ranges = []
                for c in pattern:
                    lo, hi = max(0, mult - eligible.get(c, 0)), min(mult, hand.count(c))
                    if lo > hi:
                        break
                    ranges.append(range(lo, hi + 1))
                else:
                    for counts in itertools.product(*ranges):
                        if any(counts):
                            found.append((index, _meld_taking(kind, mult, pattern, counts)))
        found.sort(key=_FIRST)  # stable: the order of ``kinds``, then of the counts
        return [meld for _, meld in found]

    def make(self, option: Meld, trump: Suit, table: MeldTable) -> tuple[int, list[Card]]:
        """Put ``option`` on the table; return (points scored, cards taken from the hand).

        Table cards completing the meld are taken from eligible slots, those
        in no intact smaller meld first, so an upgrade is only charged when
        it cannot be avoided.
        """
        points, full, chosen, absorbed = self._plan(option, trump, table)
        for m in absorbed:
            m.intact = False  # absorbed into the bigger meld
        spent = covered_types(option.kind, option.multiplicity)
        ids = list(chosen)
        for c in option.from_hand:
            ids.append(self.next_id)
            self.slots[self.next_id] = TableCard(c)
            self.next_id += 1
        for i in ids:
            self.slots[i].spent |= spent
            self.slots[i].used_in.append(option.name)
        self.melds.append(MeldRecord(option.name, ids, full, from_table=len(chosen)))
        return points, list(option.from_hand)

    def score(self, option: Meld, trump: Suit, table: MeldTable) -> int:
        """The points :meth:`make` would score for ``option``, the board left as it is."""
        return self._plan(option, trump, table)[0]

    def _plan(self, option: Meld, trump: Suit, table: MeldTable) -> tuple[int, int, list[int], list[MeldRecord]]:
        """How :meth:`make` would put ``option`` on the table: (points scored, the meld's full value, the table
        slots that complete it, the intact smaller melds it absorbs, whose points it is not paid again)."""
        name = option.name
        mult = option.multiplicity
        from_table = _from_table(option, trump)
        chosen = self._completing(name, from_table, contained_types(option.kind, mult)) if from_table else []
        full = table.value(option.kind, mult)
        if full is None:
            raise ValueError(f"{name} is not a meld in this variant")
        absorbed = self._absorbed(chosen, contained_types(option.kind, mult)) if chosen else []
        return max(full - sum(m.points for m in absorbed), 0), full, chosen, absorbed

    def _completing(self, name: str, from_table: tuple[tuple[Card, int], ...], inner: frozenset[str]) -> list[int]:
        """The table slots that complete a meld of type ``name`` (``from_table``: how many of each card it takes
        there), those in no intact meld of the ``inner`` types first, then the earliest."""
        in_inner = {i for m in self.melds if m.intact and m.name in inner for i in m.cards}
        eligible = self.eligible(name)
        chosen: list[int] = []
        for c, n in from_table:
            slots = sorted((i for i in eligible if self.slots[i].card == c), key=lambda i: (i in in_inner, i))
            if len(slots) < n:
                raise ValueError(f"{name} needs {n} x {c} on the table")
            chosen.extend(slots[:n])
        return chosen

    def _absorbed(self, chosen: list[int], inner: frozenset[str]) -> list[MeldRecord]:
        """The intact melds of the ``inner`` types that share a slot with ``chosen``: the new meld absorbs them."""
        used = set(chosen)
        return [m for m in self.melds if m.intact and m.name in inner and not used.isdisjoint(m.cards)]

    def histories(self, c: Card) -> list[str]:
        """The different histories of the copies of ``c`` on the table (one entry when they are alike)."""
        return list(dict.fromkeys(s.history for s in self.slots.values() if s.card is c))

    def copies(self) -> dict[Card, list[str]]:
        """Every card on the table, with the :meth:`histories` of its copies: one pass over the table for all."""
        found: dict[Card, dict[str, None]] = {}
        for s in self.slots.values():
            found.setdefault(s.card, {})[s.history] = None
        return {c: list(histories) for c, histories in found.items()}

    def remove(self, c: Card, history: str | None = None) -> str:
        """A table card was played to a trick: it leaves, breaking its melds.

        ``history`` names the copy (see :meth:`histories`); without it, or
        among copies with the same history, the copy in the fewest intact
        melds goes, then the one that came to the table first.
        """
        copies = [i for i, s in self.slots.items() if s.card is c and history in (None, s.history)]
        if not copies:
            raise ValueError(f"{c} is not on the table" + ("" if history is None else f" with history {history}"))
        i = min(copies, key=lambda j: (sum(1 for m in self.melds if m.intact and j in m.cards), j))
        gone = self.slots.pop(i)
        for m in self.melds:
            if i in m.cards:
                self._break(m)
        return gone.history

    def _break(self, meld: MeldRecord) -> None:
        """``meld`` lost a card: it is no longer intact, and (unless ``build_on_broken``) nothing is built on it."""
        meld.intact = False
        if self.build_on_broken:
            return
        closed = built_on(meld.name)
        for i in meld.cards:
            if i in self.slots:
                self.slots[i].spent |= closed

    def last_from_table(self) -> tuple[tuple[Card, str], ...]:
        """The table cards that completed the last meld, each with its history before that meld."""
        last = self.melds[-1]
        return tuple((self.slots[i].card, "+".join(self.slots[i].used_in[:-1])) for i in last.cards[:last.from_table])

    def clear(self) -> list[Card]:
        cards = self.cards()
        self.slots.clear()
        self.melds.clear()
        return cards


# ------------------------------------------------------------------ auction games
@attrs.frozen
class MeldCount:
    """One line of a hand's meld in the bidding games: a kind, how many times, the points."""

    kind: str
    multiplicity: int
    points: int
    cards: tuple[Card, ...]


def count_hand_meld(hand: Sequence[Card], trump: Suit, table: MeldTable) -> list[MeldCount]:
    """Everything a hand melds at once, as the bidding games count it (004).

    * each kind counts once, at the highest multiplicity the hand holds
      (two full sets of aces are "double aces", not two "aces");
    * a card counts once per kind but may serve several kinds (a king in
      kings around and in a marriage);
    * K K Q is one marriage: marriages in a suit are as many as its pairs;
    * the royal marriage inside a run is not counted again, but a spare king
      and queen of trump are;
    * where the table prices a round house (K Q in every suit: 24, and 240
      for the double one in the double deck), it replaces the kings around,
      queens around and the marriage in each suit it is made of. Its trump
      K Q is a royal marriage, so it cannot be the K Q of a run. A hand is
      counted with as many round houses as score the most (in the single
      deck the round house is exactly the sum of its parts, and the parts
      are listed).

    A multiplicity the table prices as N/A scores as the largest smaller
    multiplicity that has a value plus the rest counted again (a triple round
    house where only single and double exist: double plus single).
    """
    held = _counts(hand)
    run = kind_patterns("run", trump)[0]
    runs = _sets(run, held) if table.value("run") is not None else 0
    house = kind_patterns("roundhouse", trump)[0]
    free = {c: held.get(c, 0) - (runs if c in run else 0) for c in house}  # not inside a run
    houses = _sets(house, free) if table.value("roundhouse") is not None else 0
    counts = [_count_with_round_houses(held, trump, table, runs, r) for r in range(houses + 1)]
    return max(counts, key=lambda lines: sum(m.points for m in lines))  # the first of equals: fewest round houses


def _count_with_round_houses(held: dict[Card, int], trump: Suit, table: MeldTable, runs: int,
                             houses: int) -> list[MeldCount]:
    """A hand's meld counted with ``runs`` runs and ``houses`` round houses (see :func:`count_hand_meld`)."""
    found: list[MeldCount] = []

    def add(kind: str, times: int, pattern: tuple[Card, ...]) -> None:
        while times > 0:
            m = times
            value = table.value(kind, m)
            while value is None:
                m -= 1
                if m == 0:
                    return
                value = table.value(kind, m)
            found.append(MeldCount(kind, m, value, tuple(c for c in pattern for _ in range(m))))
            times -= m

    house = kind_patterns("roundhouse", trump)[0]
    rest = {c: n - (houses if c in house else 0) for c, n in held.items()}  # what the round houses leave
    add("run", runs, kind_patterns("run", trump)[0])
    add("roundhouse", houses, house)
    royal = kind_patterns("royal", trump)[0]
    add("royal", _sets(royal, rest) - runs, royal)
    for pattern in kind_patterns("marriage", trump):
        add("marriage", _sets(pattern, rest), pattern)
    for kind in ("dix", "aces", "kings", "queens", "jacks", "pinochle"):
        for pattern in kind_patterns(kind, trump):
            add(kind, _sets(pattern, rest if kind in ROUND_HOUSE_PARTS else held), pattern)
    return found


def fewest_cards(lines: Iterable[tuple[str, Sequence[Card]]]) -> dict[Card, int]:
    """The fewest copies of each card a hand holds that melds these lines, as :func:`count_hand_meld` counts.

    ``lines`` are (type name, cards) pairs, as a seat shows them. A card
    may serve several kinds, so most kinds only say "at least this many".
    But the lines counted from what the round houses leave (see
    :data:`ROUND_HOUSE_PARTS`) need their cards beside the round houses',
    and a royal marriage beside the runs': a hand showing a run and a
    royal marriage holds two kings and two queens of trump.
    """
    per_kind: dict[str, dict[Card, int]] = {}
    for name, cards in lines:
        kind, _ = parse_type_name(name)
        counts = per_kind.setdefault(kind, {})
        for c in cards:
            counts[c] = counts.get(c, 0) + 1
    runs, houses = per_kind.get("run", {}), per_kind.get("roundhouse", {})
    need: dict[Card, int] = {}
    for kind, counts in per_kind.items():
        for c, n in counts.items():
            if kind in ROUND_HOUSE_PARTS:
                n += houses.get(c, 0) + (runs.get(c, 0) if kind == "royal" else 0)
            need[c] = max(need.get(c, 0), n)
    for c, n in houses.items():  # a round house's trump K Q is not inside a run
        need[c] = max(need[c], n + runs.get(c, 0))
    return need


def _sets(pattern: tuple[Card, ...], counts: dict[Card, int]) -> int:
    """How many whole copies of ``pattern`` ``counts`` holds."""
    return min(counts.get(c, 0) for c in pattern)


def hand_meld_points(hand: Sequence[Card], trump: Suit, table: MeldTable) -> int:
    return sum(m.points for m in count_hand_meld(hand, trump, table))
