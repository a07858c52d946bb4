"""The tally the working fit reads (:class:`league.ratings.Tally`: each pair's points and weight, each version's
games, tables and form), kept in SQL as games are saved, a version voided or its void undone, and counted again
whole when needed."""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa

from ..ratings import Tally, result_letter
from .schema import FORM, game_seats, games, pair_tally, rating_history, tally_state, units, version_tally, voided


def _add(c: sa.Connection, table: sa.Table, keys: list[str], rows: list[dict], added: list[str],
         replaced: Sequence[str] = ()) -> None:
    """Insert ``rows`` into ``table``; where a row with the same ``keys`` is there, add the ``added`` columns to
    its own and replace the ``replaced`` ones."""
    if not rows:
        return
    from sqlalchemy.dialects import postgresql, sqlite

    dialect = postgresql if c.dialect.name == "postgresql" else sqlite  # (each its own INSERT ... ON CONFLICT)
    statement = dialect.insert(table)
    changes = {**{name: table.c[name] + statement.excluded[name] for name in added},
               **{name: statement.excluded[name] for name in replaced}}
    c.execute(statement.on_conflict_do_update(index_elements=keys, set_=changes), rows)


def count_played(c: sa.Connection, played: list[list[tuple[int, float]]]) -> None:
    """Games just saved (each [(version, share)] by seat) added to the tally, unless a voided version sat there."""
    void = set(c.execute(sa.select(voided.c.version_id)).scalars())
    played = [seats for seats in played if not void & {v for v, _ in seats}]
    if not played:
        return
    batch = Tally()
    for seats in played:
        batch.add(seats)
    forms = dict(c.execute(sa.select(version_tally.c.version_id, version_tally.c.form)
                           .where(version_tally.c.version_id.in_(list(batch.games)))).all())
    generation = c.execute(sa.select(tally_state.c.generation)).scalar_one() + 1
    for seats in played:
        for v in {v for v, _ in seats}:
            forms[v] = (forms.get(v, "") + result_letter(seats, v))[-FORM:]
    _add(c, pair_tally, ["first", "second"], [{"first": a, "second": b, "points": p, "weight": w,
                                               "changed": generation} for (a, b), (p, w) in batch.pairs.items()],
         ["points", "weight"], ["changed"])
    _add(c, version_tally, ["version_id"], [{"version_id": v, "games": n, "tables": 0, "form": forms[v],
                                             "changed": generation} for v, n in batch.games.items()],
         ["games"], ["form", "changed"])
    c.execute(tally_state.update().values(generation=generation, counted=tally_state.c.counted + len(played)))


def count_again(c: sa.Connection, version: int, sign: int) -> None:
    """The games ``version`` sat at, and no other voided version, taken out of the tally (``sign`` -1: it was
    just voided) or put back (+1: its void undone); the versions seated there have their latest results read
    again. A process that kept the tally reads it whole next time (pairs may have gone)."""
    other = game_seats.alias("other_voided")
    alone = ~sa.exists().where((other.c.game == game_seats.c.game) & (other.c.version_id != version)
                               & other.c.version_id.in_(sa.select(voided.c.version_id)))
    query = (sa.select(game_seats.c.game, game_seats.c.version_id, game_seats.c.share)
             .where(game_seats.c.game.in_(sa.select(game_seats.c.game).where(game_seats.c.version_id == version))
                    & alone)
             .order_by(game_seats.c.game, game_seats.c.seat))
    games: dict[int, list[tuple[int, float]]] = {}
    for game, v, share in c.execute(query).all():
        games.setdefault(game, []).append((v, share))
    batch = Tally()
    for seats in games.values():
        batch.add(seats)
    generation = c.execute(sa.select(tally_state.c.generation)).scalar_one() + 1
    _add(c, pair_tally, ["first", "second"], [{"first": a, "second": b, "points": sign * p, "weight": sign * w,
                                               "changed": generation} for (a, b), (p, w) in batch.pairs.items()],
         ["points", "weight"], ["changed"])
    c.execute(pair_tally.delete().where(pair_tally.c.weight < 1e-9))  # (pairs that met only at those games)
    _add(c, version_tally, ["version_id"], [{"version_id": v, "games": sign * n, "tables": 0, "form": "",
                                             "changed": generation} for v, n in batch.games.items()],
         ["games"], ["changed"])
    for v in batch.games:
        c.execute(version_tally.update().where(version_tally.c.version_id == v).values(form=_form(c, v)))
    c.execute(tally_state.update().values(generation=generation, recounted=generation, rated=-1,
                                          counted=tally_state.c.counted + sign * len(games)))


def add_tables(c: sa.Connection, tables: Sequence[Sequence[int]]) -> None:
    counts: dict[int, int] = {}
    for table in tables:
        for v in set(table):
            counts[v] = counts.get(v, 0) + 1
    _add(c, version_tally, ["version_id"], [{"version_id": v, "games": 0, "tables": n, "form": "", "changed": 0}
                                            for v, n in counts.items()], ["tables"])


def is_counted(game: sa.ColumnElement) -> sa.ColumnElement:
    """Whether the ratings count the game numbered ``game`` (a column): no voided version sat at it."""
    seat = game_seats.alias("voided_seat")
    return ~sa.exists().where((seat.c.game == game) & seat.c.version_id.in_(sa.select(voided.c.version_id)))


def recount(c: sa.Connection, tables: bool = False) -> None:
    """Count the tally again from every game the ratings count (after a void, an undo, or an upgrade), in SQL: the
    pairs' points and weights, each version's games (with ``tables``, its tables too) and form; the stored
    ratings are then out of date."""
    s1, s2 = game_seats.alias("s1"), game_seats.alias("s2")
    met = s1.join(s2, (s1.c.game == s2.c.game) & (s1.c.version_id < s2.c.version_id))
    per_game = (sa.select(s1.c.game.label("game"), sa.cast(sa.func.count(), sa.Float).label("n"))
                .select_from(met).where(is_counted(s1.c.game)).group_by(s1.c.game).subquery())
    score = sa.case((s1.c.share > s2.c.share, 1.0), (s1.c.share < s2.c.share, 0.0), else_=0.5)
    pairs = (sa.select(s1.c.version_id, s2.c.version_id, sa.func.sum(score / per_game.c.n),
                       sa.func.sum(1.0 / per_game.c.n))
             .select_from(met.join(per_game, per_game.c.game == s1.c.game))
             .group_by(s1.c.version_id, s2.c.version_id))
    generation = c.execute(sa.select(tally_state.c.generation)).scalar_one() + 1
    c.execute(pair_tally.delete())
    c.execute(pair_tally.insert().from_select(["first", "second", "points", "weight", "changed"],
                                              pairs.add_columns(sa.literal(generation))))
    counted_games = (sa.select(game_seats.c.version_id, sa.func.count(sa.distinct(game_seats.c.game)))
                     .where(is_counted(game_seats.c.game)).group_by(game_seats.c.version_id))
    played: dict[int, int] = dict(c.execute(counted_games).all())
    kept = {} if tables else {r.version_id: r.tables for r in c.execute(sa.select(version_tally))}
    if tables:
        for text in c.execute(sa.select(units.c.versions).execution_options(yield_per=10_000)).scalars():
            for v in set(json.loads(text)):
                kept[v] = kept.get(v, 0) + 1
    c.execute(version_tally.delete())
    rows = [{"version_id": v, "games": played.get(v, 0), "tables": kept.get(v, 0), "form": _form(c, v),
             "changed": generation} for v in sorted(set(played) | set(kept))]
    if rows:
        c.execute(version_tally.insert(), rows)
    total = c.execute(sa.select(sa.func.count()).select_from(games).where(is_counted(games.c.id))).scalar_one()
    c.execute(tally_state.update().values(generation=generation, recounted=generation, counted=total, rated=-1,
                                          history_at=total))


def _form(c: sa.Connection, version: int) -> str:
    """``version``'s latest ``FORM`` counted results, oldest first."""
    last = list(c.execute(sa.select(game_seats.c.game).where((game_seats.c.version_id == version)
                                                             & is_counted(game_seats.c.game))
                          .group_by(game_seats.c.game).order_by(game_seats.c.game.desc()).limit(FORM)).scalars())
    seats: dict[int, list[tuple[int, float]]] = {}
    for game, v, share in c.execute(sa.select(game_seats.c.game, game_seats.c.version_id, game_seats.c.share)
                                    .where(game_seats.c.game.in_(last))
                                    .order_by(game_seats.c.game, game_seats.c.seat)):
        seats.setdefault(game, []).append((v, share))
    return "".join(result_letter(seats[game], version) for game in sorted(last))


def history_point(c: sa.Connection, counted: int, ratings: dict[int, tuple[float, float, int]]) -> None:
    last = dict(c.execute(sa.select(rating_history.c.version_id, sa.func.max(rating_history.c.games))
                          .group_by(rating_history.c.version_id)).all())
    rows = [{"version_id": v, "counted": counted, "games": g, "rating": round(r, 1)}
            for v, (r, _, g) in ratings.items() if g and last.get(v) != g]
    c.execute(rating_history.delete().where(rating_history.c.counted == counted))
    if rows:
        c.execute(rating_history.insert(), rows)
