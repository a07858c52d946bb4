"""What the league's queries return: values, never rows of the database."""

from __future__ import annotations

import attrs


@attrs.frozen
class Version:
    id: int
    entrant: str
    number: int
    bot: dict  # its [[bot]] table
    program: str

    @property
    def command(self) -> str:
        """Its bot as the organiser gave it: a sample's name or a command line, then its options as NAME=VALUE
        words (``greedy noise=0.2``), so that two versions that differ only in their options read differently."""
        program = self.bot.get("sample") or self.bot.get("command", "")
        return " ".join([program, *(f"{name}={value}" for name, value in self.bot.get("options", {}).items())])

    @property
    def label(self) -> str:
        """Its name in records and tables: the entrant's name, and the version from the second on."""
        return self.entrant if self.number == 1 else f"{self.entrant}.v{self.number}"


@attrs.frozen
class Entrant:
    name: str
    status: str
    note: str
    version: Version | None  # the newest (None: added for uploads, none built yet)


@attrs.frozen
class Build:
    id: int
    entrant: str
    status: str  # BUILD_STATUSES
    message: str
    log: str
    version: int | None  # its version's number, once it passed
    created: float
    finished: float | None


@attrs.frozen
class Holder:
    """Who holds a token: an entrant (by name) or, with ``entrant`` None, the organiser."""

    entrant: str | None

    @property
    def organiser(self) -> bool:
        return self.entrant is None


@attrs.frozen
class Unit:
    id: int
    version_ids: tuple[int, ...]
    seed: int
    games: int
    played: frozenset[str]  # game ids with a record


@attrs.frozen
class Standing:
    """The stored ratings (:mod:`league.standing`) and the tally they may lag behind."""

    generation: int  # the tally's now
    counted: int  # the games it counts
    rated: int  # the generation the ratings were fitted at (-1: none stored)
    rated_at: float  # when they were stored
    ratings: dict[int, tuple[float, float, int]]  # version -> (rating, sigma, games)
