"""A knockout's bracket: who meets whom, which games each match plays, and who goes through.

A knockout is decided by its own results, so its games are not known when
it starts. Its schedule names the bracket instead (:class:`Knockout`: the
contestants in seed order, the games of a match, the games of one deal),
and :meth:`Knockout.walk` works out from the results so far every match
whose two contestants are known, the games it must play and its winner.
The tournament plays the games the walk asks for until there is a champion;
the audit checks a run's records against the same walk, so a record with
the wrong seating, or a game deleted from a decided match, is found as in
any other run.

The bracket is the usual one: the number of places is the next power of
two, seed 1 meets the last seed, and seeds 1 and 2 can only meet in the
final; the places left over are byes for the best seeds. A match plays
``games`` games, a deal's seatings together (both seatings of a duplicate
deal, or one game of an independent one). If it ends level, it goes on one
deal at a time, at most as many deals again, until one contestant is
ahead after a whole deal; if it is still level, the better seed goes
through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

Result = tuple[tuple[str, ...], tuple[float, ...]]  # a game's entrant in each seat, and each seat's share
_PENDING = "\0pending"  # a place whose contestant a match still has to decide


@attrs.frozen
class KnockoutGame:
    game_id: str
    seating: tuple[str, ...]  # the entrant in each seat (a team's members in a partnership)
    round: int  # from 1
    match: int  # within its round, from 1
    pairing: tuple[str, str]  # the match's contestants, the better seed first
    deal: int  # the match's deal number, from 0 (its tie-break deals come after its own)
    turn: int  # which of the deal's seatings


@attrs.frozen
class Match:
    round: int
    number: int
    pairing: tuple[str, str]  # the better seed first
    games: tuple[KnockoutGame, ...]  # every game it has asked for so far (its own, then tie-break deals)
    score: tuple[float, float]  # from the games recorded
    winner: str | None  # None: not decided yet
    how: str = ""  # "on score", "on a tie-break deal", "on seed (level after the tie-break)", "bye"


@attrs.frozen
class Bracket:
    matches: tuple[Match, ...]  # every match whose contestants are known, round by round
    byes: tuple[tuple[int, str], ...]  # (round, contestant) for every bye
    champion: str | None

    def games(self) -> list[KnockoutGame]:
        """Every game the bracket has asked for so far, recorded or not."""
        return [g for m in self.matches for g in m.games]


@attrs.frozen
class Knockout:
    seeds: tuple[str, ...]  # the contestants, best seed first
    games: int  # games of a match (a whole number of deals)
    per_deal: int  # games of one deal: its seatings (duplicate deals), or 1
    members: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict, hash=False)  # team -> members (partnerships)

    def __attrs_post_init__(self) -> None:
        if len(self.seeds) < 2 or len(set(self.seeds)) != len(self.seeds):
            raise ValueError("a knockout needs two or more contestants, each named once")
        if self.per_deal not in (1, 2) or self.games < self.per_deal or self.games % self.per_deal:
            raise ValueError(f"a match of {self.games} games cannot be whole deals of {self.per_deal} games")

    @property
    def deals(self) -> int:
        """Deals of a match before any tie-break (as many again at most for a tie-break)."""
        return self.games // self.per_deal

    def rounds(self) -> int:
        return (len(self.seeds) - 1).bit_length()

    def places(self) -> list[str | None]:
        """The first round's places in bracket order; None is a bye."""
        order = [1]
        while len(order) < 2 ** self.rounds():
            order = [x for s in order for x in (s, 2 * len(order) + 1 - s)]
        return [self.seeds[s - 1] if s <= len(self.seeds) else None for s in order]

    def seating(self, pairing: tuple[str, str], deal: int, turn: int) -> tuple[str, ...]:
        """The seats of one game: the better seed first in the first seating of a deal, second in the other (an
        independent game's seating alternates from deal to deal); a team's members sit opposite each other."""
        flip = turn == 1 if self.per_deal == 2 else deal % 2 == 1
        a, b = pairing[::-1] if flip else pairing
        if a not in self.members:
            return (a, b)
        (a0, a1), (b0, b1) = self.members[a], self.members[b]
        return (a0, b0, a1, b1)

    def deal_games(self, round_: int, match: int, pairing: tuple[str, str], deal: int) -> list[KnockoutGame]:
        label = f"r{round_}m{match}-{pairing[0]}-{pairing[1]}-{deal + 1}"
        turns = "ab" if self.per_deal == 2 else [""]
        return [KnockoutGame(label + letter, self.seating(pairing, deal, turn), round_, match, pairing, deal, turn)
                for turn, letter in enumerate(turns)]

    def contestant_of(self, entrant: str) -> str:
        """The contestant a seat's entrant plays for: its team, or itself."""
        for team, members in self.members.items():
            if entrant in members:
                return team
        return entrant

    def walk(self, results: Mapping[str, Result]) -> Bracket:
        """The bracket as far as ``results`` decide it (game id -> the entrant in each seat and each seat's share,
        see :func:`results_of`). A result counts only for a game the bracket asks for, seated as it asks."""
        matches: list[Match] = []
        byes: list[tuple[int, str]] = []
        alive: list[str | None] = self.places()
        for round_ in range(1, self.rounds() + 1):
            ahead: list[str | None] = []
            for number, (a, b) in enumerate(zip(alive[::2], alive[1::2], strict=True), 1):
                if a is None or b is None:
                    ahead.append(a if b is None else b)
                    alone = a or b
                    if alone is not None and alone != _PENDING:
                        byes.append((round_, alone))
                    continue
                if _PENDING in (a, b):
                    ahead.append(_PENDING)
                    continue
                match = self._match(round_, number, self._by_seed(a, b), results)
                matches.append(match)
                ahead.append(match.winner or _PENDING)
            alive = ahead
        champion = alive[0] if alive[0] not in (None, _PENDING) else None
        return Bracket(tuple(matches), tuple(byes), champion)

    def _by_seed(self, a: str, b: str) -> tuple[str, str]:
        return (a, b) if self.seeds.index(a) < self.seeds.index(b) else (b, a)

    def _match(self, round_: int, number: int, pairing: tuple[str, str],
               results: Mapping[str, Result]) -> Match:
        """One match: its own deals all at once, then tie-break deals one at a time while it is level."""
        games = [g for deal in range(self.deals) for g in self.deal_games(round_, number, pairing, deal)]
        score = [0.0, 0.0]
        for deal in range(self.deals, 2 * self.deals + 1):
            if not self._add(results, games[-self.per_deal if deal > self.deals else 0:], pairing, score):
                return Match(round_, number, pairing, tuple(games), (0.0, 0.0), None)
            if score[0] != score[1]:
                how = "on score" if deal == self.deals else "on a tie-break deal"
                return Match(round_, number, pairing, tuple(games), (score[0], score[1]),
                             pairing[0] if score[0] > score[1] else pairing[1], how)
            if deal < 2 * self.deals:
                games += self.deal_games(round_, number, pairing, deal)
        return Match(round_, number, pairing, tuple(games), (score[0], score[1]), pairing[0],
                     "on seed (level after the tie-break)")

    def _add(self, results: Mapping[str, Result], games: list[KnockoutGame], pairing: tuple[str, str],
             score: list[float]) -> bool:
        """Add the results of ``games`` to ``score``; False (and nothing added) unless each is recorded as asked."""
        if any(results.get(g.game_id, ((),))[0] != g.seating for g in games):
            return False
        for g in games:
            for entrant, share in zip(*results[g.game_id], strict=True):
                score[pairing.index(self.contestant_of(entrant))] += share / (len(g.seating) // 2)
        return True

    def to_dict(self) -> dict:
        data: dict = {"seeds": list(self.seeds), "games": self.games, "per_deal": self.per_deal}
        if self.members:
            data["members"] = {team: list(m) for team, m in self.members.items()}
        return data

    @classmethod
    def from_dict(cls, data: Mapping) -> Knockout:
        """ValueError (or KeyError, TypeError) when ``data`` is not a knockout's."""
        members = {str(t): tuple(str(m) for m in ms) for t, ms in dict(data.get("members", {})).items()}
        if any(len(m) != 2 for m in members.values()):
            raise ValueError("a team of a knockout has two members")
        return cls(tuple(str(s) for s in data["seeds"]), int(data["games"]), int(data["per_deal"]), members)


def results_of(records: Iterable) -> dict[str, Result]:
    """What :meth:`Knockout.walk` needs of game records (the first record of a game, where there are two)."""
    results: dict[str, Result] = {}
    for r in records:
        if len(r.result) == len(r.seats):
            results.setdefault(r.game_id, (tuple(s.entrant for s in r.seats), tuple(r.result)))
    return results


__all__ = ["Bracket", "Knockout", "KnockoutGame", "Match", "Result", "results_of"]
