"""The replay viewer's film as it was before films were events (viewer/film.py's FORMAT 1): the reference that the
viewer's script (viewer/static/film.js) must agree with, step by step, seat by seat.

The record is played again through the rules, and after the deal and
after every action each seat's :class:`~referee.rules.observation.Observation`
is taken and written as a flat dict of short fields (:func:`seat_view`).
A step keeps only the fields that changed since the step before
(``views[s]``). That costs about four times the replay, which is why the
report no longer makes it; the tests keep it as the rules' own account of
what each seat saw.
"""

from __future__ import annotations

from referee.records.deals import record_decks
from referee.records.record import GameRecord, Termination
from referee.rules import IllegalActionError, get_variant, new_game, recorded_action
from referee.rules.cards import cards_to_text, sort_cards
from referee.rules.observation import Observation, Observer


def seat_view(obs: Observation | Observer) -> dict:
    """One seat's view as flat JSON fields: its hand and what lies on the table, in the protocol's card text.
    From an :class:`Observation`, or straight from the :class:`Observer` that would make it (the film takes a
    view after every step, and making the whole observation each time, with what the viewer does not show,
    was most of a report's cost)."""
    cards = cards_to_text
    return {
        "hand_no": obs.hand_number,
        "dealer": obs.dealer,
        "phase": obs.phase,
        "trump": obs.trump.value if obs.trump is not None else "",
        "turnup": obs.turnup.to_text() if obs.turnup is not None else "",
        "cards": cards(sort_cards(obs.hand)),
        "tables": [cards(sort_cards(t)) for t in obs.tables],
        "trick": [[seat, card.to_text()] for seat, card in obs.trick],
        # the trick just taken, until the next lead: the cards played this hand, the last round of them
        "last_trick": [] if obs.trick or not obs.played else [[seat, card.to_text()]
                                                              for seat, card in obs.played[-len(obs.held):]],
        "held": [len(obs.hand) if s == obs.seat else n for s, n in enumerate(obs.held)],
        "piles": dict(obs.piles),
        "kitty": cards(obs.kitty),
        "dummy": cards(obs.dummy),
        "gave": cards(obs.gave),
        "received": cards(obs.received),
        "buried": cards(obs.buried),
        "melds": [[f"{m.name} {m.points}: {cards(m.cards)}" for m in seat] for seat in obs.melds],
        "bids": [[seat, amount] for seat, amount in obs.bids],
        "bidder": obs.bidder,
        "bid": obs.bid,
        "called": obs.called.to_text() if obs.called is not None else "",
        "partner": obs.partner,
        "meld_points": list(obs.meld_points),
        "trick_points": list(obs.trick_points),
        "totals": list(obs.totals),
        "target": obs.target,
    }


def _changed(view: dict, before: dict | None) -> dict:
    if before is None:
        return view
    return {key: value for key, value in view.items() if before[key] != value}  # (every view has every key)


def film(record: GameRecord) -> dict:
    """The film of one record (see the module's docstring). A record that does not replay ends where it
    stops agreeing with the rules, with a step that says so."""
    variant = get_variant(record.variant, record.options)
    names = [s.entrant for s in record.seats] or [f"seat {i}" for i in range(variant.players)]
    game, notices = new_game(variant, record.seed, record_decks(record, variant))
    observers = [Observer(variant, s, infer=False) for s in range(variant.players)]
    steps: list[dict] = []
    last: list[dict | None] = [None] * variant.players

    def snap(notices: list, seat: int | None, text: str, ms: float | None = None) -> None:
        for notice in notices:  # each seat follows what it was shown, as its bot does
            for s in notice.seats:
                observers[s].see(notice.event)
        views = [seat_view(o) for o in observers]
        steps.append({"seat": seat, "text": text, "ms": ms, "hand": views[0]["hand_no"],
                      "views": [_changed(v, b) for v, b in zip(views, last, strict=True)]})
        last[:] = views

    snap(notices, None, "the cards are dealt" if record.actions or record.deals else "the game did not start")
    for entry in record.actions:
        who = names[entry.seat] if entry.seat < len(names) else f"seat {entry.seat}"
        try:
            action = recorded_action(game, entry.action, last=entry is record.actions[-1])
            game.check(action)
        except IllegalActionError as e:
            steps.append({"seat": entry.seat, "text": f"{who}: {entry.action} (illegal: {e})", "ms": entry.ms,
                          "hand": steps[-1]["hand"], "views": [{} for _ in range(variant.players)], "fault": True})
            break
        snap(game.apply(action), entry.seat, f"{who}: {entry.action}", entry.ms)
        if game.is_terminal():
            break
    if record.termination is not Termination.COMPLETED and not steps[-1].get("fault"):
        culprit = names[record.culprit] if record.culprit is not None and record.culprit < len(names) else "?"
        steps.append({"seat": record.culprit, "text": f"{culprit}: {record.termination.value}: {record.detail}",
                      "ms": None, "hand": steps[-1]["hand"], "views": [{} for _ in range(variant.players)],
                      "fault": True})
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
        "steps": steps,
    }
