"""Which games a tournament plays: pairings, duplicate deals, seatings, seeds.

Deterministic from the configuration alone, so an interrupted tournament
resumes by skipping the game ids already in its results file.

With duplicate deals, deal pair ``k`` of every pairing is dealt from the same
seed, once with each seating: each bot holds each hand, and every pairing
plays the same cards, so luck cancels across the whole table, not only
within a pairing. Pairs are interleaved across pairings, so a tournament
stopped early is still balanced.
"""

from __future__ import annotations

import itertools

import attrs

from referee.match import derive_seed

from .config import TournamentConfig


@attrs.frozen
class GameSpec:
    game_id: str
    seating: tuple[str, ...]  # entrant name per seat
    seed: int
    pairing: tuple[str, ...]  # the entrants, in configuration order
    pair: int  # deal pair number (duplicate) or game number within the pairing


def pairings(config: TournamentConfig) -> list[tuple[str, ...]]:
    names = [e.name for e in config.entrants]
    if config.format == "gauntlet":
        return [(config.candidate, n) for n in names if n != config.candidate]
    return list(itertools.combinations(names, 2))


def schedule(config: TournamentConfig) -> list[GameSpec]:
    games: list[GameSpec] = []
    pairs = pairings(config)
    if config.duplicate:
        for k in range(config.games_per_pairing // 2):
            seed = derive_seed(config.seed, "deal", k)
            for a, b in pairs:
                games.append(GameSpec(f"{a}-{b}-{k + 1}a", (a, b), seed, (a, b), k + 1))
                games.append(GameSpec(f"{a}-{b}-{k + 1}b", (b, a), seed, (a, b), k + 1))
    else:
        for k in range(config.games_per_pairing):
            for a, b in pairs:
                seating = (a, b) if k % 2 == 0 else (b, a)
                games.append(GameSpec(f"{a}-{b}-{k + 1}", seating, derive_seed(config.seed, "game", a, b, k), (a, b), k + 1))
    return games
