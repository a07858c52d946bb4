"""A game record as a film for the replay viewer: each step's events, each with the seats that saw it.

A film is the notices each step made, every event with the seats the
rules showed it to, written down as they come. Where several games are
played at once, each hands them over as it is played (the game loop
keeps them for its lane's ``seen``: see :class:`viewer.film_maker.FilmsSeen`),
so its film costs their writing and no rules at all; a record made
elsewhere, or read back later, or played while a core was left idle for
a film maker, is played again through the rules (as ``replay`` does) for
the same notices. The viewer's script (``viewer/static/film.js``) then keeps
each seat's table from the events it was shown, as a bot keeps its model
from the lines the referee sends it: its hand, what lies on the table,
the auction, the scores. Nothing here knows a rule (the rules engine
decides what each seat sees), and nothing here takes a view: a view of
every seat after every step cost four times the replay, and the replay
four times the writing of what play showed.

A film is JSON::

    {"id", "variant", "players", "names", "result", "totals", "termination", "culprit", "detail",
     "table": {"hand_size", "piles", "stock", "target"},
     "steps": [[SEAT, ACTION, EVENTS], ...]}

``table`` is what the script needs of the variant: each seat's cards and
the face-down piles at a deal, whether it is the stock game (a turn-up,
melds laid on the table) and the score that wins. A step is a list: the
seat that acted and its action in the protocol's text (the viewer says
"NAME: ACTION"), then the events it made. Two kinds of step say other
words, as a fourth element: the first, the deal (no seat, no action: "the
cards are dealt"), and the last of a game that ended on a fault, which
says the fault and has a fifth element, ``true``. An event is a list: a
bit mask of the seats that saw it, a short kind (``"play"``, ``"deal"``,
...: :data:`KINDS` lists them with their fields) and its fields, cards in
the protocol's text (``null`` for a card a seat saw face down). Events that
change nothing the viewer shows (a claim, a redeal, a contract's result)
are left out, as is each action's time (the record has it). Steps are
lists, not objects with named fields, as events are: a game has hundreds,
and their names and words were a third of a film's writing (FORMAT 2).

The viewer loads game N's film as a script, ``films/N.js``
(:func:`film_script`), that hands it over gzipped, in base64.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Callable, Sequence
from typing import Any

from referee.records.deals import record_decks
from referee.records.record import GameRecord, Termination
from referee.rules import IllegalActionError, get_variant, new_game, recorded_action
from referee.rules import events as e
from referee.rules.cards import Card
from referee.rules.variants import Variant

Steps = Sequence[Sequence[e.Notice]]  # a game's notices, step by step: the deal's, then each action's

FORMAT = 3  # a film's layout, as the viewer reads it: raise it when it changes (films made ahead are named by it)


def _card(c: Card | None) -> str | None:
    return None if c is None else c.to_text()


def _cards(cards: Sequence[Card | None]) -> list[str | None]:
    return [None if c is None else c.to_text() for c in cards]


# Each kind of event the viewer keeps, as a list after its seats: the kind, then its fields (film.js reads them in
# this order). A table keyed by type, which the type checker cannot pair with each function's event: hence Any.
KINDS: dict[type, Callable[[Any], list]] = {
    e.HandDealt: lambda ev: ["deal", ev.hand, ev.dealer, _card(ev.turnup), _cards(ev.cards)],
    e.Scored: lambda ev: ["score", ev.seat, ev.points],
    e.Played: lambda ev: ["play", ev.seat, ev.action.card.to_text(), ev.action.from_table],
    e.TrickWon: lambda ev: ["trick", ev.seat, ev.points],
    e.Drew: lambda ev: ["draw", ev.seat, _card(ev.card)],
    e.Melded: lambda ev: ["meld", ev.seat, ev.name, ev.points, _cards(ev.cards)],
    e.Exchanged: lambda ev: ["exchange", ev.seat, ev.dix.to_text(), ev.taken.to_text()],
    e.PhaseTwo: lambda ev: ["phase2"],
    e.PlayBegins: lambda ev: ["playbegins"],
    e.HandEnded: lambda ev: ["totals", list(ev.totals)],
    e.GameEnded: lambda ev: ["totals", list(ev.totals)],
    e.TargetRaised: lambda ev: ["target", ev.target],
    e.BidMade: lambda ev: ["bid", ev.seat, ev.amount],
    e.AuctionWon: lambda ev: ["bidwon", ev.seat, ev.amount],
    e.KittyCardTurned: lambda ev: ["kittycard", ev.card.to_text()],
    e.KittyShown: lambda ev: ["kitty", _cards(ev.cards)],
    e.TrumpDeclared: lambda ev: ["trump", ev.suit],
    e.CardCalled: lambda ev: ["call", ev.card.to_text()],
    e.PartnerKnown: lambda ev: ["partner", ev.partner],
    e.SetAside: lambda ev: ["aside", ev.card.to_text()],
    e.Given: lambda ev: ["give", ev.giver, ev.receiver, _cards(ev.cards)],
    e.Buried: lambda ev: ["bury", ev.seat, _cards(ev.cards)],
    e.DummyTaken: lambda ev: ["dummy", ev.seat, ev.card.to_text()],
}
_KEPT = (e.Played, e.TrickWon, e.Drew)  # the commonest events, few distinct values: each written once (_WRITTEN)
_WRITTEN: dict[tuple[tuple[int, ...], e.Event], list] = {}


def notice_fields(notice: e.Notice) -> list | None:
    """A notice as the film writes it: its seats as a bit mask, then its event's kind and fields; None for an
    event the viewer does not keep. The same list each time for the commonest (a film is written out before
    the next is made, and never changed)."""
    event = notice.event
    kept = type(event) in _KEPT
    if kept:
        fields = _WRITTEN.get((notice.seats, event))
        if fields is not None:
            return fields
    make = KINDS.get(type(event))
    if make is None:
        return None
    mask = 0
    for seat in notice.seats:
        mask |= 1 << seat
    fields = [mask, *make(event)]
    if kept:
        _WRITTEN[(notice.seats, event)] = fields
    return fields


def _events(notices: Sequence[e.Notice]) -> list[list]:
    return [fields for fields in map(notice_fields, notices) if fields is not None]


def table_rules(variant: Variant) -> dict:
    """What film.js needs of the variant to keep a seat's table (see the module's docstring)."""
    stock = variant.family == "stock"
    if stock:
        piles = {"stock": variant.deck_size - variant.players * variant.hand_size - 1}
    else:
        piles = {name: n for name, n in (("kitty", variant.kitty), ("dummy", variant.dummy)) if n}
    return {"hand_size": variant.hand_size, "piles": piles, "stock": stock, "target": variant.target}


def film(record: GameRecord, seen: Steps | None = None) -> dict:
    """The film of one record (see the module's docstring). A record that does not replay ends where it
    stops agreeing with the rules, with a step that says so.

    ``seen``: the notices the game made, step by step, as the game loop kept them while it was played (the
    deal's, then each action's: :data:`referee.match.lane.Seen`). A film is made from them, without playing
    the record through the rules again, when there is one for the deal and one for each recorded action; a
    record without them (one made elsewhere, or read back later) or whose last action the rules refused is
    replayed. Either way it is the same film: the notices are the ones a replay makes."""
    variant = get_variant(record.variant, record.options)
    names = [s.entrant for s in record.seats] or [f"seat {i}" for i in range(variant.players)]
    if seen is not None and len(seen) == len(record.actions) + 1:
        steps, faulted = _steps_seen(record, seen), False
    else:
        steps, faulted = _steps_replayed(record, variant, names)
    if record.termination is not Termination.COMPLETED and not faulted:
        culprit = names[record.culprit] if record.culprit is not None and record.culprit < len(names) else "?"
        steps.append([record.culprit, None, [], f"{culprit}: {record.termination.value}: {record.detail}", True])
    return {
        "id": record.game_id,
        "variant": record.variant,
        "players": variant.players,
        "names": names,
        "result": list(record.result),
        "totals": list(record.totals),
        "termination": record.termination.value,
        "culprit": record.culprit,
        "detail": record.detail,
        "table": table_rules(variant),
        "steps": steps,
    }


def _opening(record: GameRecord, notices: Sequence[e.Notice]) -> list:
    """The film's first step: the deal."""
    words = "the cards are dealt" if record.actions or record.deals else "the game did not start"
    return [None, None, _events(notices), words]


def _steps_seen(record: GameRecord, seen: Steps) -> list[list]:
    """The steps of a game from the notices it made as it was played (one more than its actions)."""
    return [_opening(record, seen[0]),
            *([entry.seat, entry.action, _events(notices)] for entry, notices in zip(record.actions, seen[1:]))]


def _steps_replayed(record: GameRecord, variant: Variant, names: Sequence[str]) -> tuple[list[list], bool]:
    """The steps of a record played through the rules again, and whether they end on an action the rules
    refuse (then the last step says so)."""
    game, notices = new_game(variant, record.seed, record_decks(record, variant))
    steps = [_opening(record, notices)]
    for entry in record.actions:
        try:
            action = recorded_action(game, entry.action, last=entry is record.actions[-1])
            game.check(action)
        except IllegalActionError as error:
            who = names[entry.seat] if entry.seat < len(names) else f"seat {entry.seat}"
            steps.append([entry.seat, entry.action, [], f"{who}: {entry.action} (illegal: {error})", True])
            return steps, True
        steps.append([entry.seat, entry.action, _events(game.apply(action))])
        if game.is_terminal():
            break
    return steps, False


def film_script(number: int, record: GameRecord) -> str:
    """Game ``number``'s film as the viewer loads it."""
    return film_script_of(number, packed_film(record))


def packed_film(record: GameRecord, seen: Steps | None = None) -> str:
    """A record's film (from the notices ``seen`` while it was played, if given: see :func:`film`), gzipped (the
    fastest level: a film of events is small, and a third of the cost of the default level's packing), in base64."""
    data = json.dumps(film(record, seen), separators=(",", ":"), check_circular=False).encode()  # (a tree: no cycle
    # to look for, and the look is a sixth of the encoding's cost)
    return base64.b64encode(gzip.compress(data, compresslevel=1, mtime=0)).decode()


def film_script_of(number: int, packed: str) -> str:
    """The script that hands a packed film (:func:`packed_film`) to the viewer as game ``number``'s."""
    return f'pinochleFilm({number}, "{packed}");\n'
