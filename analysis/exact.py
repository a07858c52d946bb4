"""The bidding games' last tricks searched exactly, every world the seat's view allows enumerated.

Near the end of a hand few cards are unseen, and often the seat's view
(the suits each seat showed out of, the melds shown, the cards played)
leaves a handful of ways they may lie, or one. Then nothing is sampled:
every such world is dealt (weighted by how many deals of the unseen cards
it stands for, as the rules library's ``Sampler`` draws them), and in each
the rest of the hand is searched to its end with every card open, each seat
playing to make the most for its side (the hand's points of its side less
the other sides' mean: with two sides, a plain minimax; with three seats
alone, each for itself). A card's value is its weighted mean over the
worlds, with no noise; where the view leaves one world, it is the hand's
outcome under best play.

Searched only while cheap: a face-down pile other than the buried cards
still holds unseen cards (a dummy, a kitty: their order would count too),
or the worlds times the lines of play exceed ``MAX_LINES``, and the
decision is sampled as before.
"""

from __future__ import annotations

import copy
import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from referee.rules.actions import Action
from referee.rules.cards import Card, sort_cards
from referee.rules.observation import Place, Sampler, World, splits
from referee.rules.state import GameState

MAX_LINES = 600  # worlds times the lines of play of the rest of the hand, at most, for an exact search (~1 s)
TRIES = 20  # placements of the unseen cards looked through, per world allowed, before the search gives up


def exact_values(game: GameState, seat: int, actions: Sequence[Action]) -> list[float] | None:
    """Each action's exact value for ``seat``'s side (the mean over every world its view allows), or None where
    that search is not cheap (see the module's docstring)."""
    obs = game.observation(seat)
    if any(name != "buried" and count for name, count in obs.piles):
        return None
    lines = math.prod(math.factorial(n) for n in obs.held)
    if lines > MAX_LINES:
        return None
    sampler = obs.sampler()
    worlds = enumerate_worlds(sampler, MAX_LINES // max(lines, 1))
    if not worlds:
        return None
    totals = [0.0] * len(actions)
    weights = 0
    for weight, world in worlds:
        dealt = copy.deepcopy(game)
        dealt._place(world, seat, random.Random(0))  # the world's cards where they lie (as determinize puts them)
        dealt.log, dealt.deals, dealt.fixed_decks, dealt.seed = [], [], (), 0  # nothing of the next hand
        for i, action in enumerate(actions):
            played = copy.deepcopy(dealt)
            played.apply(action)
            totals[i] += weight * best_play(played, seat)
        weights += weight
    return [t / weights for t in totals]


def enumerate_worlds(sampler: Sampler, most: int) -> list[tuple[int, World]] | None:
    """Every world ``sampler`` may draw, with its weight (how many deals of the unseen cards, copies told apart,
    give it); None if there are more than ``most`` (or more than TRIES times as many placements of the cards to
    look through, most not melding what their seats showed)."""
    obs = sampler.obs
    placement = sampler.placement
    found: list[tuple[int, World]] = []
    every = _placements(list(placement.by_places.items()), dict(placement.room))
    for tried, (weight, placed) in enumerate(every):
        if tried > TRIES * (most + 1):
            return None
        hands = [list(obs.hand) if s == obs.seat else [*sampler.fixed.get(s, ()), *placed.get(s, ())]
                 for s in range(len(obs.held))]
        if not all(sampler._meld_agrees(s, hands[s]) for s in sampler.meld_seats):  # as the sampler checks
            continue
        buried = (*sampler.fixed.get("buried", ()), *placed.get("buried", ()))
        found.append((weight, World(tuple(tuple(sort_cards(h)) for h in hands), buried=buried)))
        if len(found) > most:
            return None
    return found


def _placements(groups: list[tuple[frozenset[Place], list[Card]]],
                room: dict[Place, int]) -> Iterator[tuple[int, dict[Place, list[Card]]]]:
    """Each distinct way to put every group's cards into its places (each place filled to its room), with the
    number of deals of distinct copies it stands for."""
    if not groups:
        if not any(room.values()):
            yield 1, {}
        return
    (allowed, cards), rest = groups[0], groups[1:]
    kinds = sorted(Counter(cards).items(), key=lambda kv: kv[0].to_text())
    for weight, put in _spread(kinds, sorted(allowed, key=str), room):
        left = {p: room[p] - len(put.get(p, ())) for p in room}
        for more, placed in _placements(rest, left):
            merged = {p: [*put.get(p, ()), *placed.get(p, ())] for p in {*put, *placed}}
            yield weight * more, merged


def _spread(kinds: list[tuple[Card, int]], places: list[Place],
            room: dict[Place, int]) -> Iterator[tuple[int, dict[Place, list[Card]]]]:
    """Each way to split the copies of each card in ``kinds`` among ``places`` within their room."""
    if not kinds:
        yield 1, {}
        return
    (card, copies), rest = kinds[0], kinds[1:]
    for split in splits(copies, [room[p] for p in places]):
        left = dict(room)
        for p, k in zip(places, split):
            left[p] -= k
        ways = math.factorial(copies) // math.prod(math.factorial(k) for k in split)
        for more, put in _spread(rest, places, left):
            merged = {p: [*([card] * k), *put.get(p, ())] for p, k in zip(places, split)}
            yield ways * more, merged


def best_play(game: Any, seat: int) -> float:
    """The rest of the hand in ``game`` (every card open) played to its end, each seat choosing the card that makes
    the most for its own side: the result for ``seat``'s side."""
    return _search(game, len(game.hands_ended), game.sides())[seat]


def _search(game: Any, ended: int, sides: Sequence[Sequence[int]]) -> list[float]:
    """Per seat, the result for its side of the hand played out best from ``game`` (``sides``: the hand's, read
    before its end deals the next hand)."""
    if len(game.hands_ended) > ended or game.is_terminal():
        return _results(game.hands_ended[ended].points, sides)
    d = game.decision()
    best: list[float] | None = None
    for action in d.legal:
        child = copy.deepcopy(game)
        child.apply(action)
        found = _search(child, ended, sides)
        if best is None or found[d.seat] > best[d.seat]:
            best = found
    assert best is not None, "a decision has a legal action"
    return best


def _results(points: Sequence[int], sides: Sequence[Sequence[int]]) -> list[float]:
    """Per seat, the hand's points of its side less the other sides' mean."""
    return [points[s] - _mean([points[o[0]] for o in sides if s not in o]) for s in range(len(points))]


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


__all__ = ["MAX_LINES", "best_play", "enumerate_worlds", "exact_values"]
