"""Seatings apart on a cluster: the hands of one deal, for one bot, on different machines.

A bot that holds one hand of a deal on a machine, and another hand of the
same deal later (or at the same time) on the same machine, may pass what it
saw in the first seating to the second through what the kernel shares
(docs/competition.md, Running a competition: the page cache's timing). With
``--seatings-apart`` no machine ever plays a bot in two different seats of
one deal; and since seatings apart gives each pairing deals of its own
(:func:`tournaments.schedule.table_deal`), no bot meets a deal again against
another opponent either.

How: the games that share deals (one deal's games; on boards, the runs of
one stretch of boards) form a *group*. Within a group the games are
coloured, in schedule order, so that games of one colour never give a bot
two different hands; each colour of a group is pinned to one machine, and
a machine takes at most one colour of a group. So a tournament needs as
many machines as its largest number of colours (printed at the start; two
seats, with each pairing's deals its own, as seatings apart deals them: 2;
three-handed: 6; call-for-partner: 5), never deadlocks with that many, and
spreads its groups over every machine it has. A resumed run plans the whole
schedule again (the same plan) and pins each colour to the machine its
played games name (``extra.machine``).

This module is pure bookkeeping; :mod:`tournaments.cluster` asks it before
each submit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import attrs

from .schedule import GameSpec

Held = dict[tuple[int, str], frozenset[int]]  # (deal seed, bot) -> the seats whose hands it holds


def hands_held(games: Sequence[GameSpec], only: Sequence[int] | None = None) -> Held:
    """(deal, bot) -> the seats whose hands that bot holds in ``games`` (two for partners who are one bot), of the
    seats ``only`` (default all), for games that agree; ValueError if they do not."""
    held: Held = {}
    for spec in games:
        seats: dict[tuple[int, str], set[int]] = {}
        for seat, bot in enumerate(spec.bots or spec.seating):
            if only is None or seat in only:
                seats.setdefault((spec.seed, bot), set()).add(seat)
        for key, found in seats.items():
            if held.setdefault(key, frozenset(found)) != frozenset(found):
                raise ValueError(f"{spec.game_id} gives {key[1]} another hand of a deal of its unit")
    return held


def _agree(a: Held, b: Held) -> bool:
    return all(b.get(key, seats) == seats for key, seats in a.items())


@attrs.frozen
class ApartPlan:
    """The batches to send, each with its group and colour; ``machines`` is how many the plan needs."""

    batches: list[list[GameSpec]]
    colours: list[tuple[frozenset[int], int]]  # per batch: (the seeds of its block of groups, its colour)
    machines: int
    # partners apart: per batch, the (block, colour) of the seats a seat host on another machine plays
    partners: list[tuple[frozenset[int], int]] | None = None

    def only(self, game_ids: set[str]) -> ApartPlan:
        """The plan for the games of ``game_ids`` alone (the rest played already), with the colours the whole
        plan gave them, so that a resumed run's games go where their deals' first games went."""
        partners: Sequence[tuple[frozenset[int], int] | None] = self.partners or [None] * len(self.batches)
        kept = [([g for g in batch if g.game_id in game_ids], key, partner)
                for batch, key, partner in zip(self.batches, self.colours, partners, strict=True)]
        kept = [k for k in kept if k[0]]
        return ApartPlan([b for b, _, _ in kept], [k for _, k, _ in kept], self.machines,
                         None if self.partners is None else [p for _, _, p in kept if p is not None])

    def key_of(self, partners: bool = False) -> dict[str, tuple[frozenset[int], int]]:
        """Game id -> its batch's (block, colour); with ``partners``, those of its partner seats."""
        keys = self.partners if partners else self.colours
        if keys is None:
            return {}
        return {g.game_id: key for batch, key in zip(self.batches, keys, strict=True) for g in batch}


def plan_apart(units: Sequence[list[GameSpec]], size: int, halves: tuple[tuple[int, ...], ...] | None = None
               ) -> ApartPlan:
    """Colour ``units`` (games, or runs of boards, each played whole by one task), group by group, and cut the
    work into batches of one colour of a *block* of groups: as many successive groups as hold about ``size``
    games in all (at least one group; a batch never more than ``size`` games, but a run of boards stays whole).
    A block's colours are then its batches, each with the same groups, so pinning them never gets stuck, and
    a block's colours, played one after another, are about one batch of work.

    With ``halves`` (partners apart: the seats the referee's machine plays, then the seats a seat host on
    another machine plays), each half of a unit is coloured as a unit of its own, and a batch is one colour of
    each half; the plan's ``partners`` give the second."""
    parts = halves or (None,)
    group_of = _groups(units)
    by_group: dict[frozenset[int], list[int]] = {}
    for i, unit in enumerate(units):
        by_group.setdefault(group_of[unit[0].seed], []).append(i)
    colour: dict[tuple[int, int], int] = {}  # (unit, part) -> its colour
    known: dict[tuple, list[int]] = {}  # a group's shape (who sits where in each piece) -> its colours
    for members in by_group.values():
        pieces = [(i, p) for i in members for p in range(len(parts))]
        shape = tuple((tuple(spec.bots or spec.seating for spec in units[i]), p) for i, p in pieces)
        if shape not in known:
            held = [hands_held(units[i], parts[p]) for i, p in pieces]
            candidates = [_colour(held, order) for order in _orders([units[i] for i, _ in pieces])]
            candidates += [c for c in [_two_seat_codes(held)] if c is not None]
            known[shape] = min(candidates, key=max)
        colour.update(zip(pieces, known[shape], strict=True))
    largest = max(sum(len(units[i]) for i in members) for members in by_group.values())
    per_block = max(1, size // largest)  # a block's colours together: about one batch of games
    groups = list(by_group)
    block_of = {g: frozenset().union(*groups[b - b % per_block:b - b % per_block + per_block])
                for b, g in enumerate(groups)}
    batches: list[list[GameSpec]] = []
    keys: list[tuple[frozenset[int], tuple[int, ...]]] = []
    open_batch: dict[tuple, int] = {}  # (block, colour of each part) -> its batch being filled
    for i, unit in enumerate(units):
        key = (block_of[group_of[unit[0].seed]], tuple(colour[i, p] for p in range(len(parts))))
        index = open_batch.get(key)
        if index is None or len(batches[index]) + len(unit) > size:
            open_batch[key] = index = len(batches)
            batches.append([])
            keys.append(key)
        batches[index].extend(unit)
    machines = 1 + max((c for _, cs in keys for c in cs), default=0)
    colours = [(block, cs[0]) for block, cs in keys]
    partners = [(block, cs[1]) for block, cs in keys] if halves else None
    return ApartPlan(batches, colours, machines, partners)


def _orders(units: Sequence[list[GameSpec]]) -> list[list[int]]:
    """Orders to colour a group's ``units`` in (positions in the list): as scheduled, and by who sits in the first
    seat (which gives a two-handed round robin of n bots n colours, where the schedule's order may need more)."""
    positions = list(range(len(units)))
    return [positions, sorted(positions, key=lambda p: tuple(s.bots or s.seating for s in units[p]))]


def _colour(held: list[Held], order: list[int]) -> list[int]:
    """Greedy colouring in ``order``: each unit the first colour whose units agree with it on every hand."""
    merged: list[Held] = []
    colours = [0] * len(held)
    for p in order:
        colour = next((c for c, hands in enumerate(merged) if _agree(held[p], hands)), len(merged))
        if colour == len(merged):
            merged.append({})
        merged[colour].update(held[p])
        colours[p] = colour
    return colours


def _two_seat_codes(held: list[Held]) -> list[int] | None:
    """Two seats, one bot each: give every bot a different set of ``k // 2`` of ``k`` colours, and a game of x
    (first seat) against y the first colour in y's set and not in x's (one exists: neither set holds the
    other). Each colour then has its bots on fixed sides, and k machines serve n bots where C(k, k // 2) >= n:
    4 for 5 or 6 bots, 5 for up to 10, 6 for up to 20 (a colouring one unit at a time needs n)."""
    sides = []
    for hands in held:
        seats = {seat_set: bot for (_, bot), seat_set in hands.items()}
        if set(seats) != {frozenset({0}), frozenset({1})} or len(hands) != 2:
            return None
        sides.append((seats[frozenset({0})], seats[frozenset({1})]))
    bots = sorted({bot for pair in sides for bot in pair})
    k = next(k for k in itertools.count(2) if math.comb(k, k // 2) >= len(bots))
    code = dict(zip(bots, itertools.combinations(range(k), k // 2), strict=False))
    return [min(set(code[second]) - set(code[first])) for first, second in sides]


def _groups(units: Sequence[list[GameSpec]]) -> dict[int, frozenset[int]]:
    """Seed -> every seed it is played with in a unit, directly or through others (the deals that must be
    coloured together)."""
    parent: dict[int, int] = {}

    def root(seed: int) -> int:
        while parent.setdefault(seed, seed) != seed:
            seed = parent[seed]
        return seed

    for unit in units:
        first = root(unit[0].seed)
        for spec in unit[1:]:
            parent[root(spec.seed)] = first
    members: dict[int, set[int]] = {}
    for seed in list(parent):
        members.setdefault(root(seed), set()).add(seed)
    return {seed: frozenset(group) for group in members.values() for seed in group}


@attrs.define
class Placement:
    """Which machine plays each colour of each group: pinned on first use (or where a resumed run's records say
    it was played), and kept for good (a lost machine's history stays: if it comes back, it is the same
    kernel)."""

    pinned: dict[tuple[frozenset[int], int], str] = attrs.Factory(dict)
    used: dict[frozenset[int], dict[str, int]] = attrs.Factory(dict)  # group -> machine -> the colour it took

    def played(self, key: tuple[frozenset[int], int], machine: str) -> None:
        """A game of ``key`` was played on ``machine`` (by the run being resumed): its colour stays there."""
        self.pinned[key] = machine
        self.used.setdefault(key[0], {})[machine] = key[1]

    def choose(self, key: tuple[frozenset[int], int], machines: dict[str, int]) -> str | None:
        """The machine for a batch of ``key`` (group, colour), of ``machines`` (live machine -> batches it is
        playing): the one its colour is pinned to, else the least busy that took no other colour of the group;
        None when none may (the pinned one is gone and no other is free)."""
        group, colour = key
        pinned = self.pinned.get(key)
        if pinned in machines:
            return pinned
        used = self.used.get(group, {})
        free = [m for m in sorted(machines) if used.get(m, colour) == colour]
        if not free:
            return None
        machine = min(free, key=lambda m: machines[m])
        self.pinned[key] = machine
        self.used.setdefault(group, {})[machine] = colour
        return machine
