"""Which games a tournament plays: pairings, duplicate deals, seatings, seeds.

Deterministic from the configuration alone, so an interrupted tournament
resumes by skipping the game ids already in its results file.

With duplicate deals, deal pair ``k`` of every pairing is dealt from the same
seed (or is the deal file's k-th deal), once with each seating: each bot holds each hand, and every pairing
plays the same cards, so luck cancels across the whole table, not only
within a pairing (with seatings apart on a cluster, each pairing has deals of
its own: :func:`table_deal`). Pairs are interleaved across pairings, so a tournament
stopped early is still balanced.
"""

from __future__ import annotations

import itertools

import attrs

from referee.match.lane import GameSpec, duplicate_orders
from referee.records.deals import DealsOrder
from referee.rules.dealing import derive_seed

from .config import Format, TournamentConfig


def board_and_seating(spec: GameSpec) -> tuple[int, tuple]:
    """A board game's board (from 0) and seating, as :func:`referee.match.board_runs` orders them."""
    return spec.pair - 1, (spec.pairing, spec.turn)


def deal_of(config: TournamentConfig, k: int, *labels: object) -> tuple[int, tuple]:
    """(seed, fixed decks) of deal ``k``: the deal file's k-th, in turn, or a seed derived from the tournament's.
    ``labels`` give independent games (no duplicate) a deal of their own per pairing."""
    if config.deals is not None:
        deals = config.deals
        if config.deals_order is DealsOrder.RANDOM:
            deals = deals.in_random_order(derive_seed(_seed_of(config), "deal-order"))
        deal = deals.deal(k)
        return deal.seed, deal.decks
    return derive_seed(_seed_of(config), *(("game", *labels) if labels else ("deal",)), k), ()


def _seed_of(config: TournamentConfig) -> int:
    """The tournament's seed, drawn when it starts (tournaments.store): no deal is made before."""
    if config.seed is None:
        raise ValueError("the tournament's seed is drawn when it starts: no deal is made before")
    return config.seed


def table_deal(config: TournamentConfig, k: int, table: int, deals: int) -> tuple[int, tuple]:
    """(seed, fixed decks) of duplicate deal ``k`` at table number ``table`` (of ``deals`` deals a table): every
    table's k-th deal, so that the whole tournament shares its luck; or, with ``config.own_deals`` (seatings
    apart on a cluster), deals of the table's own, so that no bot meets a deal a second time against other
    opponents, where the machine it first held the deal on could remind it of the cards it saw then."""
    return deal_of(config, table * deals + k if config.own_deals else k)


def table_size(config: TournamentConfig) -> int:
    """Contestants at one table: the seats, or two teams."""
    return 2 if config.partnership else config.variant.players


def pairings(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The tables: every group of contestants that plays together."""
    names = config.contestants()
    k = table_size(config)
    if config.format is Format.GAUNTLET:
        candidate = config.candidate
        if candidate is None:
            raise ValueError("a gauntlet names its candidate (its config is checked for one)")
        others = [n for n in names if n != candidate]
        return [(candidate, *rest) for rest in itertools.combinations(others, k - 1)]
    return list(itertools.combinations(names, k))


def seatings(config: TournamentConfig, table: tuple[str, ...]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(seat entrants, seat sides) for each game of one deal at ``table``, so that every contestant
    holds every hand once: two seats: both ways; three: all six orders; five: the five rotations
    (a balanced subset of the 120 orders: each bot holds each hand and sits in each seat once);
    partnerships: each team on both sides of the table."""
    if config.partnership:
        teams = {t.name: t for t in config.teams}
        a, b = (teams[n].members() for n in table)
        return [((a[0], b[0], a[1], b[1]), (table[0], table[1], table[0], table[1])),
                ((b[0], a[0], b[1], a[1]), (table[1], table[0], table[1], table[0]))]
    return [(order, order) for order in duplicate_orders(table)]


def schedule(config: TournamentConfig) -> list[GameSpec]:
    games: list[GameSpec] = []
    pairs = pairings(config)
    if config.partnership or config.variant.players > 2:
        return _multi_seat_schedule(config, pairs)
    if config.duplicate:
        deals = config.games_per_pairing // 2
        for k in range(deals):
            for table, (a, b) in enumerate(pairs):
                seed, decks = table_deal(config, k, table, deals)
                games.append(GameSpec(f"{a}-{b}-{k + 1}a", (a, b), seed, (a, b), k + 1, decks=decks, turn=0))
                games.append(GameSpec(f"{a}-{b}-{k + 1}b", (b, a), seed, (a, b), k + 1, decks=decks, turn=1))
    else:
        for k in range(config.games_per_pairing):
            for a, b in pairs:
                seating = (a, b) if k % 2 == 0 else (b, a)
                seed, decks = deal_of(config, k, a, b)
                games.append(GameSpec(f"{a}-{b}-{k + 1}", seating, seed, (a, b), k + 1, decks=decks))
    return [attrs.evolve(g, sides=g.seating, bots=g.seating) for g in games]


def group_size(config: TournamentConfig) -> int:
    """Games per deal at one table (duplicate deals)."""
    return len(seatings(config, tuple(config.contestants()[: table_size(config)])))


def _multi_seat_schedule(config: TournamentConfig, tables: list[tuple[str, ...]]) -> list[GameSpec]:
    games: list[GameSpec] = []
    bot_of = config.member_bots()
    size = group_size(config)
    deals = max(config.games_per_pairing // size, 1) if config.duplicate else config.games_per_pairing
    for k in range(deals):
        for number, table in enumerate(tables):
            label = "-".join(table)
            orders = seatings(config, table)
            if config.duplicate:
                seed, decks = table_deal(config, k, number, deals)
                for i, (seats, sides) in enumerate(orders):
                    games.append(GameSpec(f"{label}-{k + 1}{chr(97 + i)}", seats, seed, table, k + 1, sides,
                                          tuple(bot_of.get(x, x) for x in seats), decks, turn=i))
            else:
                seats, sides = orders[k % len(orders)]
                seed, decks = deal_of(config, k, label)
                games.append(GameSpec(f"{label}-{k + 1}", seats, seed, table, k + 1, sides,
                                      tuple(bot_of.get(x, x) for x in seats), decks))
    return games
