"""The montecarlo bot's compiled search core, loaded with ctypes (the standard library only).

The library is built from this folder's Rust crate on first use of the
sample bot (``build_core`` in referee/bots/samples.py): in a checkout it is
copied to ``target/libmontecarlo_core.so``; in an installed package, to a
folder of the user's cache, which the referee names in the environment
variable ``MONTECARLO_CORE_LIBRARY`` (and shows to the jailed bot). This
module knows the C ABI (lib.rs) and the card numbers; it knows nothing of
games: the bot hands it plain numbers and lists of cards. ``load()``
returns a ``Core`` or raises ``CoreMissing`` with the reason, which the bot
prints once before playing on without it.
"""

from __future__ import annotations

import ctypes
import math
import os
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
LIBRARY = FOLDER / "target" / "libmontecarlo_core.so"
FAILED = FOLDER / "target" / "build-failed.txt"  # why the last build failed, written by the referee's build_core
FAILED_NAME = FAILED.name  # beside a library the referee names: the same file, in that library's folder
VARIABLE = "MONTECARLO_CORE_LIBRARY"  # where the referee built the library, when not at LIBRARY
ABI_VERSION = 4
SUITS = "CDHS"
RANKS = "ATKQJ9"
MUST_WIN = {"never": 0, "always": 1, "trump-led": 2}
PLACE_KINDS = {"dummy": -1, "buried": -2, "stock": -4}  # any other pile: -3 (plays no part in the tricks)
MELD_KINDS = ("run", "royal", "marriage", "dix", "aces", "kings", "queens", "jacks", "pinochle")  # as stock.rs
AROUNDS = ("aces", "kings", "queens", "jacks")
TAKES = {"turnup": 2, "stock": 3}  # a first-phase choice other than a card: which of the last two cards to take


class CoreMissing(Exception):
    """The compiled core cannot be used: not built, built for another ABI, or not loadable."""


_NUMBERS: dict = {}  # card -> its number, filled as cards come (the rules library's cards are interned)


def number(card) -> int:
    """A card of the rules library as the core's number: suit (C D H S) times six plus rank (A T K Q J 9)."""
    found = _NUMBERS.get(card)
    if found is None:
        text = card.to_text()
        found = _NUMBERS[card] = SUITS.index(text[1]) * 6 + RANKS.index(text[0])
    return found


def numbers(cards) -> list[int]:
    return [_NUMBERS[c] if c in _NUMBERS else number(c) for c in cards]


def duty_words(duty) -> list[int]:
    return [int(duty.must_follow), int(duty.must_trump), MUST_WIN[duty.must_win.value]]


def _seconds(seconds: float | None) -> float:
    """A time limit as the core takes it: None is no limit (0 to the core), and a limit is never 0."""
    return 0.0 if seconds is None else max(seconds, 1e-6)


def _bytes(cards) -> tuple[ctypes.Array, int]:
    data = bytes(numbers(cards))
    return (ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(data or b"\0"), len(data)


class Core:
    """The library's functions, typed."""

    def __init__(self, path: Path | None = None, failed: Path | None = None) -> None:
        path, failed = path or LIBRARY, failed or FAILED
        if not path.exists():
            reason = failed.read_text().strip() if failed.exists() else "it has not been built"
            raise CoreMissing(f"no compiled core at {path}: {reason}")
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as error:
            raise CoreMissing(f"cannot load {path}: {error}") from None
        version = getattr(lib, "mc_version", None)
        if version is None or version() != ABI_VERSION:
            raise CoreMissing(f"{path} is not version {ABI_VERSION} of the core: rebuild it")
        try:
            self._declare(lib)
        except AttributeError as error:
            raise CoreMissing(f"{path} lacks a function of the core ({error}): rebuild it") from None
        self.lib = lib

    @staticmethod
    def _declare(lib) -> None:
        words, u8 = ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_uint8)
        lib.mc_play.argtypes = [words, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_int64, ctypes.c_double,
                                ctypes.POINTER(ctypes.c_double)]
        lib.mc_play.restype = ctypes.c_int64
        lib.mc_stock.argtypes = lib.mc_play.argtypes
        lib.mc_stock.restype = ctypes.c_int64
        lib.mc_play_out.argtypes = [words, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int32),
                                    ctypes.POINTER(ctypes.c_int32)]
        lib.mc_play_out.restype = ctypes.c_int64
        lib.mc_legal_plays.argtypes = [u8, ctypes.c_size_t, u8, ctypes.c_size_t] + [ctypes.c_int32] * 4
        lib.mc_legal_plays.restype = ctypes.c_uint32
        lib.mc_winning_index.argtypes = [u8, ctypes.c_size_t, ctypes.c_int32]
        lib.mc_winning_index.restype = ctypes.c_int32
        lib.mc_endgame_new.argtypes = [ctypes.c_int32] * 4 + [ctypes.POINTER(ctypes.c_int32), ctypes.c_int32]
        lib.mc_endgame_new.restype = ctypes.c_void_p
        lib.mc_endgame_best.argtypes = [ctypes.c_void_p, u8, ctypes.c_size_t, u8, ctypes.c_size_t, ctypes.c_int32,
                                        ctypes.c_int64, ctypes.c_double, ctypes.POINTER(ctypes.c_int32),
                                        ctypes.POINTER(ctypes.c_int32)]
        lib.mc_endgame_best.restype = ctypes.c_int32
        lib.mc_endgame_free.argtypes = [ctypes.c_void_p]
        lib.mc_endgame_free.restype = None

    def play(self, words: list[int], candidates: int, seed: int, worlds: int, seconds: float | None):
        """Each candidate's mean result over ``worlds`` worlds (0: as many as ``seconds`` allows; with both,
        whichever ends first; None: no time limit) and how many were done; None if no world was found.
        Raises ValueError if the core cannot read the decision (a bug of ``decision_words``' caller)."""
        return self._search(self.lib.mc_play, words, candidates, seed, worlds, seconds)

    def stock(self, words: list[int], candidates: int, seed: int, worlds: int, seconds: float | None):
        """``play`` for a two-handed first-phase decision (``stock_words``)."""
        return self._search(self.lib.mc_stock, words, candidates, seed, worlds, seconds)

    @staticmethod
    def _search(function, words, candidates, seed, worlds, seconds):
        array = (ctypes.c_int32 * len(words))(*words)
        means = (ctypes.c_double * max(candidates, 1))()
        done = function(array, len(words), seed & (2**64 - 1), worlds, _seconds(seconds), means)
        if done == -1:
            raise ValueError("the core could not read the decision")
        if done < 0:
            return None
        return list(means[:candidates]), done

    def play_out(self, words: list[int], seats: int) -> tuple[list[int], list[int], float]:
        """The decision played out by the policy with every card placed: trick points and tricks per seat,
        and the seat's result."""
        array = (ctypes.c_int32 * len(words))(*words)
        points, won = (ctypes.c_int32 * seats)(), (ctypes.c_int32 * seats)()
        result = self.lib.mc_play_out(array, len(words), points, won)
        if result == -(2**63):
            raise ValueError("the core could not read the decision")
        return list(points), list(won), result / 1000

    def legal_plays(self, hand, played, trump, duty) -> set[int]:
        """The card numbers ``hand`` may play to the trick ``played``."""
        mask = self.lib.mc_legal_plays(*_bytes(hand), *_bytes(played), SUITS.index(trump.value), *duty_words(duty))
        return {n for n in range(24) if mask >> n & 1}

    def winning_index(self, played, trump) -> int:
        return self.lib.mc_winning_index(*_bytes(played), SUITS.index(trump.value))

    def endgame(self, trump, duty, values, last_trick: int) -> Endgame:
        return Endgame(self, trump, duty, values, last_trick)


class Endgame:
    """The exact search of the two-handed second phase, its table of bounds kept for a whole hand."""

    def __init__(self, core: Core, trump, duty, values, last_trick: int) -> None:
        self.lib = core.lib
        self.trump = trump
        self.handle = self.lib.mc_endgame_new(SUITS.index(trump.value), *duty_words(duty),
                                              (ctypes.c_int32 * 6)(*values), last_trick)
        if not self.handle:
            raise ValueError("the core refused the endgame's rules")

    def best(self, mine, theirs, led, budget: int, seconds: float | None):
        """(card number, value) of the best play, or None if the search met its budget (positions) or time
        (None: no limit) first."""
        card, value = ctypes.c_int32(), ctypes.c_int32()
        budget = min(budget, 2**62) if math.isfinite(budget) else 2**62
        status = self.lib.mc_endgame_best(self.handle, *_bytes(mine), *_bytes(theirs),
                                          -1 if led is None else number(led), budget, _seconds(seconds),
                                          ctypes.byref(card), ctypes.byref(value))
        return (card.value, value.value) if status == 0 else None

    def __del__(self) -> None:
        if getattr(self, "handle", None):
            self.lib.mc_endgame_free(self.handle)
            self.handle = None


def decision_words(*, seats, seat, trump, duty, first_lead_trump, last_trick, values, leader, tricks_played,
                   stock_game, bidder, bid, save_by_point, two_one, buried, sides, meld, points, won, trick, hand,
                   candidates, places) -> list[int]:
    """A decision as the core reads it (lib.rs, ``decode``). ``values``: counter points of A T K Q J 9;
    ``buried``: their points if known, else None; ``trick``: (seat, card) pairs; ``places``: a pair of lists,
    (kind, room, cards known there) per place, kind a seat number or a pile's name, and (the indexes of the
    places its cards may go to, the cards) per group of unseen cards."""
    words = [seats, seat, SUITS.index(trump.value), *duty_words(duty), int(first_lead_trump), last_trick, *values,
             leader, tricks_played, int(stock_game), -1 if bidder is None else bidder, bid or 0, int(save_by_point),
             int(two_one), -1 if buried is None else buried, *sides, *meld, *points, *won, len(trick)]
    for s, c in trick:
        words += [s, number(c)]
    words += [len(hand), *numbers(hand), len(candidates), *numbers(candidates)]
    return words + places_words(places)


def places_words(places) -> list[int]:
    """The places and groups of unseen cards (see ``decision_words``) as the core reads them."""
    kinds, groups = places
    words = [len(kinds)]
    for kind, room, fixed in kinds:
        kind = kind if isinstance(kind, int) else PLACE_KINDS.get(kind, -3)
        words += [kind, room, len(fixed), *numbers(fixed)]
    words.append(len(groups))
    for allowed, cards in groups:
        words += [sum(1 << i for i in allowed), len(cards), *numbers(cards)]
    return words


def meld_kind(kind: str, suit) -> int | None:
    """A meld kind of the rules library as stock.rs numbers it (a marriage by its suit); None: not modelled."""
    if kind in ("run", "royal"):
        return MELD_KINDS.index(kind)
    if kind == "marriage":
        return 2 + SUITS.index(suit.value)
    if kind == "dix":
        return 6
    if kind in AROUNDS:
        return 7 + AROUNDS.index(kind)
    if kind == "pinochle":
        return 11
    return None


def stock_words(*, seat, trump, must_win, last_trick, values, meld_values, meld_before_draw, dix_with_other_meld,
                face_down_to_winner, leader, led, points, meld, scored, dixes, hand, boards, turnup, candidates, places) -> list[int]:
    """A two-handed first-phase decision as the core reads it (lib.rs, ``decode_stock``): ``meld_values`` by
    MELD_KINDS, ``scored`` the bit masks of the kinds each seat scored, ``boards`` (this seat's table, the
    other's), ``candidates`` (card, from the table?) pairs, or (None, "turnup" or "stock") for the last
    stock card to take."""
    words = [seat, SUITS.index(trump.value), MUST_WIN[must_win.value], last_trick, *values, *meld_values,
             int(meld_before_draw), int(dix_with_other_meld), int(face_down_to_winner), leader, -1 if led is None else number(led),
             *points, *meld, *scored, *dixes, len(hand), *numbers(hand)]
    for board in boards:
        words += [len(board), *numbers(board)]
    words += [-1 if turnup is None else number(turnup), len(candidates)]
    for card, how in candidates:
        words += [0 if card is None else number(card), TAKES[how] if how in TAKES else int(how)]
    return words + places_words(places)


def load() -> Core:
    """The core at the library the referee names (``VARIABLE``), else at LIBRARY (a checkout's own build)."""
    named = os.environ.get(VARIABLE)
    if named:
        return Core(Path(named), Path(named).parent / FAILED_NAME)
    return Core()
