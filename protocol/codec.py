"""Parse protocol lines into typed messages and format them back.

Pure functions: ``parse_referee_line`` (what a bot receives) and
``parse_bot_line`` (what the referee receives) return a message or raise
:class:`ProtocolError`; ``format_message`` is ``msg.to_text()``. For every
message ``m``, ``parse(format_message(m)) == m``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from . import messages as m

T = TypeVar("T")

MAX_LINE_BYTES = 65536

_CARD = re.compile(r"^[ATKQJ9][CDHS]$")
_TOKEN = re.compile(r"^[\x21-\x7e]+$")
# Numbers have at most 18 digits: none the protocol carries needs more, and Python's int() refuses over 4,300
# with a ValueError that is not a ProtocolError (a bot's "protocol 999...9" once crashed the referee).
_INT = re.compile(r"^-?[0-9]{1,18}$")
_NUM = re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,18})?$")
_KEY = re.compile(r"^[a-z][a-z0-9-]*$")
# What a bot may put into the records through its handshake, so that a record stays small whatever the bot
# says: keys (id keys, option names, features) and each word of an option's declaration, and its choices.
MAX_KEY = 32
MAX_OPTION_WORD = 64
MAX_CHOICES = 32


class ProtocolError(ValueError):
    """A line that is not a valid message of this protocol; the text says why."""


def format_message(msg: m.RefereeMessage | m.BotMessage) -> str:
    return msg.to_text()


def _card(tok: str) -> str:
    if not _CARD.match(tok):
        raise ProtocolError(f"not a card: {tok!r} (rank A T K Q J 9, then suit C D H S, e.g. AS or 9D)")
    return tok


def _maybe_card(tok: str) -> str:
    return tok if tok == m.HIDDEN else _card(tok)


def _int(tok: str, what: str) -> int:
    if not _INT.match(tok):
        raise ProtocolError(f"{what} should be a whole number, got {tok!r}")
    return int(tok)


def _nonneg(tok: str, what: str) -> int:
    value = _int(tok, what)
    if value < 0:
        raise ProtocolError(f"{what} must not be negative, got {tok!r}")
    return value


def _num(tok: str, what: str) -> float:
    if not _NUM.match(tok):
        raise ProtocolError(f"{what} should be a number, got {tok!r}")
    return float(tok)


def _token(tok: str, what: str) -> str:
    if not _TOKEN.match(tok):
        raise ProtocolError(f"{what} should be one printable token, got {tok!r}")
    return tok


def _arity(parts: list[str], low: int, high: int | None = None) -> None:
    n = len(parts) - 1
    high = low if high is None else high
    if n < low or (high >= 0 and n > high):
        want = str(low) if low == high else (f"at least {low}" if high < 0 else f"{low} to {high}")
        raise ProtocolError(f"'{parts[0]}' takes {want} argument(s), got {n}")


def _section(parts: list[str], start: int, word: str) -> int:
    if start >= len(parts) or parts[start] != word:
        raise ProtocolError(f"'{parts[0]}': expected '{word}' at position {start}")
    return start + 1


def _per_seat(parts: list[str], start: int, word: str, parse: Callable[[str], T]) -> tuple[tuple[T, ...], tuple[int, ...]]:
    """``WORD v0 v1 ... totals t0 t1 ...`` from position ``start``: one value and one total per seat."""
    i = _section(parts, start, word)
    j = parts.index("totals", i) if "totals" in parts[i:] else -1
    if j < 0:
        raise ProtocolError(f"'{parts[0]}': expected 'totals'")
    values = tuple(parse(t) for t in parts[i:j])
    totals = tuple(_int(t, "total") for t in parts[j + 1:])
    if len(values) != len(totals) or not values:
        raise ProtocolError(f"'{parts[0]}': as many totals as {word}, at least one")
    return values, totals


def _split_line(line: str) -> list[str]:
    if "\n" in line or "\r" in line:
        raise ProtocolError("a message is one line")
    if len(line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
        raise ProtocolError(f"line longer than {MAX_LINE_BYTES} bytes")
    parts = line.split()
    if not parts:
        raise ProtocolError("empty line")
    return parts


def _rest(line: str, word_count: int) -> str:
    """The raw text after the first ``word_count`` words (for free-text fields)."""
    rest = line.strip()
    for _ in range(word_count):
        pieces = rest.split(None, 1)
        rest = pieces[1] if len(pieces) > 1 else ""
    return rest


def _key(tok: str, what: str) -> str:
    if not _KEY.match(tok) or len(tok) > MAX_KEY:
        raise ProtocolError(f"{what} should be a lower-case name (letters, digits, '-') of at most {MAX_KEY} "
                            f"characters, got {tok[:40]!r}")
    return tok


def _option(parts: list[str]) -> m.OptionDeclared:
    """``option NAME TYPE DEFAULT [MIN MAX | CHOICE...]``, checked so that its default is one of its values."""
    usage = ("expected 'option NAME int DEFAULT MIN MAX', 'option NAME bool yes|no', "
             "'option NAME choice DEFAULT CHOICE...' or 'option NAME string DEFAULT'")
    if len(parts) < 4 or parts[2] not in m.OPTION_TYPES:
        raise ProtocolError(usage)
    name, kind, default, extra = _key(parts[1], "option name"), parts[2], parts[3], tuple(parts[4:])
    if kind == "int":
        if len(extra) != 2:
            raise ProtocolError(usage)
        low, high = (_int(t, "option bound") for t in extra)
        if low > high:
            raise ProtocolError(f"option {name}: min {low} is above max {high}")
    elif kind in ("bool", "string") and extra:
        raise ProtocolError(usage)
    elif kind == "choice" and not extra:
        raise ProtocolError(usage)
    if len(extra) > MAX_CHOICES or any(len(word) > MAX_OPTION_WORD for word in (default, *extra)):
        raise ProtocolError(f"option {name}: at most {MAX_CHOICES} choices of at most {MAX_OPTION_WORD} "
                            "characters each")
    option = m.OptionDeclared(name, kind, _token(default, "option default"), extra)
    why = option.check(default)
    if why:
        raise ProtocolError(f"option {name}: its default is not one of its values ({why})")
    return option


def split_points(reply: str) -> tuple[str, int | None]:
    """A version 3 meld reply or legal token ``royal:KH,QH=4`` -> (``royal:KH,QH``, 4); others as they are."""
    action, sep, points = reply.rpartition("=")
    if sep and action and _INT.match(points):
        return action, int(points)
    return reply, None


def parse_referee_line(line: str) -> m.RefereeMessage:
    """A line the referee sends to a bot -> typed message."""
    parts = _split_line(line)
    parse = _REFEREE_VERBS.get(parts[0])
    if parse is None:
        raise ProtocolError(f"unknown message {parts[0]!r}")
    return parse(parts, line)


def _setup_message(parts: list[str], line: str) -> m.RefereeMessage:
    """The handshake and what starts a game or a hand: pinochle, setoption, rule, game, deal, target."""
    verb, args = parts[0], parts[1:]
    if verb == "pinochle":
        _arity(parts, 1)
        return m.Hello(_nonneg(args[0], "protocol version"))
    if verb == "setoption":
        _arity(parts, 2)
        return m.SetOption(_key(args[0], "option name"), _token(args[1], "option value"))
    if verb == "rule":
        _arity(parts, 2, -1)
        return m.Rule(_key(args[0], "rule"), tuple(_token(t, "rule value") for t in args[1:]))
    if verb == "game":
        _arity(parts, 4, -1)
        options = _key_values(args[4:], "game option", lambda key, value: _token(value, f"value of {key}"))
        return m.NewGame(_token(args[0], "game id"), _token(args[1], "variant"), _nonneg(args[2], "seat"),
                         _nonneg(args[3], "players"), options)
    if verb == "deal":
        _arity(parts, 4, -1)
        turnup = args[2] if args[2] == m.NO_CARD else _card(args[2])
        return m.Deal(_nonneg(args[0], "hand"), _nonneg(args[1], "dealer"), turnup, tuple(_card(t) for t in args[3:]))
    _arity(parts, 1)  # target
    return m.TargetEvent(_nonneg(args[0], "target"))


def _auction_message(parts: list[str], line: str) -> m.RefereeMessage:
    """The bidding games' events before the play: bids, the kitty, trump, the partner, passing and burying."""
    verb, args = parts[0], parts[1:]
    if verb == "bid":
        _arity(parts, 2)
        return m.BidEvent(_nonneg(args[0], "seat"), None if args[1] == "pass" else _nonneg(args[1], "bid"))
    if verb == "bidwon":
        _arity(parts, 2)
        return m.BidWon(_nonneg(args[0], "seat"), _nonneg(args[1], "bid"))
    if verb == "redeal":
        _arity(parts, 1)
        return m.RedealEvent(_nonneg(args[0], "dealer"))
    if verb == "kitty":
        _arity(parts, 1, -1)
        return m.Kitty(tuple(_card(t) for t in args))
    if verb == "kittycard":
        _arity(parts, 1)
        return m.KittyCard(_card(args[0]))
    if verb == "throwin":
        _arity(parts, 1)
        return m.ThrowIn(_nonneg(args[0], "seat"))
    if verb == "trump":
        _arity(parts, 2)
        if args[1] not in ("C", "D", "H", "S"):
            raise ProtocolError(f"not a suit: {args[1]!r} (C D H S)")
        return m.Trump(_nonneg(args[0], "seat"), args[1])
    if verb == "call":
        _arity(parts, 2)
        return m.Call(_nonneg(args[0], "seat"), _card(args[1]))
    if verb == "partner":
        _arity(parts, 2)
        return m.PartnerEvent(_nonneg(args[0], "seat"), None if args[1] == "-" else _nonneg(args[1], "partner"))
    if verb == "give":
        _arity(parts, 3, -1)
        return m.Give(_nonneg(args[0], "seat"), _nonneg(args[1], "seat"), tuple(_maybe_card(t) for t in args[2:]))
    _arity(parts, 2, -1)  # bury
    return m.Bury(_nonneg(args[0], "seat"), tuple(_maybe_card(t) for t in args[1:]))


def _play_message(parts: list[str], line: str) -> m.RefereeMessage:
    """The events of the play of a hand: cards played and drawn, tricks, melds, claims, the bidder's contract."""
    verb, args = parts[0], parts[1:]
    if verb == "play":
        _arity(parts, 2)
        return m.Play(_nonneg(args[0], "seat"), _token(args[1], "action"))
    if verb == "trick":
        _arity(parts, 2)
        return m.Trick(_nonneg(args[0], "seat"), _int(args[1], "points"))
    if verb == "draw":
        _arity(parts, 2)
        return m.Draw(_nonneg(args[0], "seat"), _maybe_card(args[1]))
    if verb == "meld":
        _arity(parts, 4, -1)
        return m.MeldShown(_nonneg(args[0], "seat"), _token(args[1], "meld name"), _int(args[2], "points"),
                           tuple(_card(t) for t in args[3:]))
    if verb == "exchange":
        _arity(parts, 3)
        return m.Exchange(_nonneg(args[0], "seat"), _card(args[1]), _card(args[2]))
    if verb == "dummy":
        _arity(parts, 2)
        return m.Dummy(_nonneg(args[0], "seat"), _card(args[1]))
    if verb == "phase2":
        _arity(parts, 1)
        return m.PhaseTwo(_nonneg(args[0], "seat"))
    if verb == "bonus":
        _arity(parts, 3)
        return m.Bonus(_nonneg(args[0], "seat"), _int(args[1], "points"), _token(args[2], "reason"))
    if verb == "claim":
        _arity(parts, 2)
        if args[1] not in ("yes", "no"):
            raise ProtocolError(f"claim outcome should be yes or no, got {args[1]!r}")
        return m.ClaimMade(_nonneg(args[0], "seat"), args[1] == "yes")
    _arity(parts, 4)  # contract
    if args[2] not in ("made", "set"):
        raise ProtocolError(f"contract outcome should be made or set, got {args[2]!r}")
    return m.Contract(_nonneg(args[0], "seat"), _nonneg(args[1], "bid"), args[2] == "made", _int(args[3], "points"))


def _ending_message(parts: list[str], line: str) -> m.RefereeMessage:
    """The end of a hand, of a game and of the match: handend, gameover, matchend, quit."""
    verb, args = parts[0], parts[1:]
    if verb == "handend":
        _arity(parts, 5, -1)
        hand = _nonneg(args[0], "hand")
        points, totals = _per_seat(parts, 2, "points", lambda t: _int(t, "points"))
        return m.HandEnd(hand, points, totals)
    if verb == "gameover":
        _arity(parts, 6, -1)
        termination = _token(args[0], "termination")
        culprit = None if args[1] == "-" else _nonneg(args[1], "seat at fault")
        result, totals = _per_seat(parts, 3, "result", lambda t: _num(t, "result"))
        return m.GameOver(termination, culprit, result, totals)
    _arity(parts, 0)  # matchend, quit
    return m.MatchEnd() if verb == "matchend" else m.Quit()


def _request_message(parts: list[str], line: str) -> m.RefereeMessage:
    """What asks or tells a bot something outside the game's events: go, state, ping, error."""
    verb, args = parts[0], parts[1:]
    if verb == "go":
        _arity(parts, 3, -1)
        return m.Request(_token(args[0], "decision"), _nonneg(args[1], "time left"), _nonneg(args[2], "time bank"),
                         tuple(_token(t, "legal action") for t in args[3:]))
    if verb == "state":
        return m.State(_key_values(args, "state field", lambda key, value: value))
    if verb == "ping":
        _arity(parts, 1)
        return m.Ping(_token(args[0], "ping token"))
    return m.ErrorNotice(_rest(line, 1))  # error


def _key_values(tokens: list[str], what: str, value_of: Callable[[str, str], str]) -> tuple[tuple[str, str], ...]:
    """``key=value`` words (each key a lower-case name), each value checked by ``value_of(key, value)`` in turn."""
    pairs = []
    for tok in tokens:
        key, sep, value = tok.partition("=")
        if not sep or not _KEY.match(key) or not value:
            raise ProtocolError(f"{what} should be key=value, got {tok!r}")
        pairs.append((key, value_of(key, value)))
    return tuple(pairs)


_REFEREE_VERBS: dict[str, Callable[[list[str], str], m.RefereeMessage]] = {
    **dict.fromkeys(("pinochle", "setoption", "rule", "game", "deal", "target"), _setup_message),
    **dict.fromkeys(("bid", "bidwon", "redeal", "kitty", "kittycard", "throwin", "trump", "call", "partner", "give",
                     "bury"), _auction_message),
    **dict.fromkeys(("play", "trick", "draw", "meld", "exchange", "dummy", "phase2", "bonus", "claim", "contract"),
                    _play_message),
    **dict.fromkeys(("handend", "gameover", "matchend", "quit"), _ending_message),
    **dict.fromkeys(("go", "state", "ping", "error"), _request_message),
}


def parse_bot_line(line: str) -> m.BotMessage:
    """A line a bot sends to the referee -> typed message."""
    parts = _split_line(line)
    verb = parts[0]
    if verb == "id":  # any key: 'name' and 'author' are the ones the referee shows; every key is recorded
        if len(parts) < 3 or not _KEY.match(parts[1]) or len(parts[1]) > MAX_KEY:
            raise ProtocolError(f"expected 'id <key> <text>' with a lower-case key of at most {MAX_KEY} characters, "
                                "e.g. 'id name MyBot 1.2'")
        return m.Id(parts[1], _rest(line, 2))
    if verb == "ready":
        _arity(parts, 0)
        return m.Ready()
    if verb == "protocol":
        _arity(parts, 1)
        return m.ProtocolChoice(_nonneg(parts[1], "protocol version"))
    if verb == "option":
        return _option(parts)
    if verb == "want":
        _arity(parts, 1)
        return m.Want(_key(parts[1], "feature"))
    if verb == "info":
        return m.Info(_rest(line, 1))
    if verb == "pong":
        _arity(parts, 1)
        return m.Pong(_token(parts[1], "pong token"))
    if len(parts) != 1:
        raise ProtocolError(f"expected one action token, got {len(parts)} words")  # the caller quotes the line
    return m.Reply(_token(verb, "action"))
