"""The league at scale, on small leagues: the sparse, warm-started fit equals the dense formula it replaced; the tally
the database keeps, and its memory-bounded queries, equal what reading every game gives; the stored ladder
follows new games and voids; its approximation beyond ``EXACT`` versions stays near the exact uncertainties.
(``bench/league_scale.py`` measures the speed at thousands of entrants.)"""

from __future__ import annotations

import math
import random
import sqlite3

import pytest

from league import ladder as ladder_module
from league import standing
from league.db import SCHEMA_VERSION, LeagueDB
from league.ladder import entrant_view, ladder
from league.matchmaking import ALL_PAIRS, Candidate, next_table
from league.ratings import SCALE, PRIOR, comparisons, fit, fit_pool, result_letter, tally


def old_fit(games, players=()):
    """The working fit as it was before it was made sparse: Newton's method on the dense Hessian, the Laplace
    uncertainties from its inverse, in plain Python. Returns {version: (rating, sigma, games)}."""
    pairs, played = {}, {}
    for seats in games:
        compared = comparisons(seats)
        for (a, share_a), (b, share_b) in compared:
            score = 1.0 if share_a > share_b else 0.0 if share_a < share_b else 0.5
            key, score = ((a, b), score) if a < b else ((b, a), 1 - score)
            p = pairs.setdefault(key, [0.0, 0.0])
            p[0] += score / len(compared)
            p[1] += 1 / len(compared)
        for v in {v for v, _ in seats}:
            played[v] = played.get(v, 0) + 1
    ids = sorted({v for pair in pairs for v in pair} | set(players))
    index = {v: i for i, v in enumerate(ids)}
    n, prior = len(ids), (PRIOR / SCALE) ** -2
    r = [0.0] * n

    def curvature():
        grad, hess = [-prior * x for x in r], [[prior if i == j else 0.0 for j in range(n)] for i in range(n)]
        for (a, b), (points, weight) in pairs.items():
            i, j = index[a], index[b]
            p = 1 / (1 + math.exp(r[j] - r[i]))
            grad[i] += points - weight * p
            grad[j] -= points - weight * p
            h = weight * p * (1 - p)
            hess[i][i] += h
            hess[j][j] += h
            hess[i][j] -= h
            hess[j][i] -= h
        return grad, hess

    for _ in range(50):
        grad, hess = curvature()
        step = solve(hess, [grad])[0]
        r = [x + s for x, s in zip(r, step, strict=True)]
        if max(map(abs, step), default=0) < 1e-10:
            break
    _, hess = curvature()
    cov = solve(hess, [[1.0 if k == i else 0.0 for k in range(n)] for i in range(n)])
    pool = [index[v] for v in ids if played.get(v)] or list(range(n))
    mean = sum(r[k] for k in pool) / len(pool)
    to_pool = [sum(cov[i][k] for k in pool) / len(pool) for i in range(n)]
    within = sum(to_pool[k] for k in pool) / len(pool)
    return {v: ((r[index[v]] - mean) * SCALE,
                math.sqrt(cov[index[v]][index[v]] - 2 * to_pool[index[v]] + within) * SCALE, played.get(v, 0))
            for v in ids}


def solve(matrix, vectors):
    """x with ``matrix`` x = v for each of ``vectors`` (Gaussian elimination with partial pivoting)."""
    n = len(matrix)
    m = [row[:] + [v[i] for v in vectors] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda k: abs(m[k][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for k in range(col + 1, n):
            f = m[k][col] / m[col][col]
            for c in range(col, len(m[k])):
                m[k][c] -= f * m[col][c]
    out = []
    for j in range(n, n + len(vectors)):
        x = [0.0] * n
        for k in range(n - 1, -1, -1):
            x[k] = (m[k][j] - sum(m[k][c] * x[c] for c in range(k + 1, n))) / m[k][k]
        out.append(x)
    return out


def random_games(rng: random.Random, versions: int, count: int) -> list[list[tuple[int, float]]]:
    """Games of two, three and four seats (a partnership's two teams as two versions, each twice), with wins,
    draws and split shares."""
    games = []
    for _ in range(count):
        seats = rng.choice([2, 3, 4])
        if seats == 4:
            a, b = rng.sample(range(versions), 2)
            share = rng.choice([0.0, 0.5, 1.0])
            games.append([(a, share), (b, 1 - share), (a, share), (b, 1 - share)])
        else:
            shares = [rng.choice([0.0, 0.5, 1.0, round(rng.random(), 3)]) for _ in range(seats)]
            games.append([(rng.randrange(versions), s) for s in shares])
    return games


@pytest.mark.parametrize("seed", range(12))
def test_the_sparse_fit_equals_the_old_dense_formula(seed):
    rng = random.Random(seed)
    games = random_games(rng, rng.randint(2, 9), rng.randint(1, 50))
    unplayed = 100
    old, new = old_fit(games, [unplayed]), fit_pool(games, [unplayed])
    assert set(old) == set(new.estimates)
    for v, (rating, sigma, played) in old.items():
        assert new.estimates[v].rating == pytest.approx(rating, abs=0.1)
        assert new.estimates[v].sigma == pytest.approx(sigma, abs=0.1)
        assert new.estimates[v].games == played
    start = {v: e.rating + rng.uniform(-200, 200) for v, e in new.estimates.items()}  # a warm start far off
    for v, e in fit(games, [unplayed], start).items():
        assert e.rating == pytest.approx(new.estimates[v].rating, abs=0.01)


def make_league(url: str, versions: int, rng: random.Random) -> tuple[LeagueDB, list[int]]:
    db = LeagueDB.create(url, {"tournament": {}})
    return db, [db.add(f"e{k}", {"sample": "random"}, f"sha256:{k}").id for k in range(versions)]


def save(db: LeagueDB, ids: list[int], games: list[list[tuple[int, float]]], batch: int = 5) -> None:
    """``games`` (of versions 0..n as indexes of ``ids``) saved as league run saves them: a unit a game, a few
    games a transaction."""
    for start in range(0, len(games), batch):
        chunk = games[start:start + batch]
        made = db.new_units([sorted({ids[v] for v, _ in seats}) for seats in chunk], 1)
        db.save_games([(unit.id, f"g{unit.id}", "{}", [(s, ids[v], share) for s, (v, share) in enumerate(seats)])
                       for unit, seats in zip(made, chunk, strict=True)])


def assert_tally_of_every_game(db: LeagueDB) -> None:
    """The tally the database keeps equals the tally of every counted game; each version's games and latest
    results too."""
    results = db.results()
    _, counted, kept = db.tally()
    every = tally(seats for _, seats in results)
    assert counted == len(results)
    assert set(kept.pairs) == {pair for pair, (_, weight) in every.pairs.items() if weight}
    for pair, (points, weight) in kept.pairs.items():
        assert (points, weight) == pytest.approx(every.pairs[pair])
    assert dict(kept.games) == dict(every.games)
    tallies = db.version_tallies()
    for version, games in every.games.items():
        mine = [seats for _, seats in results if version in {v for v, _ in seats}]
        assert tallies[version][0] == games
        assert tallies[version][2] == "".join(result_letter(seats, version) for seats in mine[-5:])


def test_the_tally_in_the_database_is_that_of_every_game_through_voids(tmp_path):
    rng = random.Random(7)
    db, ids = make_league(f"sqlite:///{tmp_path / 'l.db'}", 6, rng)
    save(db, ids, random_games(rng, 6, 60))
    assert_tally_of_every_game(db)
    db.void("e2", 1)  # (its games are taken out of the tally, the others' pairs at them too)
    assert_tally_of_every_game(db)
    save(db, ids, random_games(rng, 6, 20))  # (games at which e2 sat are not counted as they are saved either)
    assert_tally_of_every_game(db)
    db.void("e4", 1)  # (a game of both is taken out once, and put back only when neither is voided)
    db.void("e4", 1)
    assert_tally_of_every_game(db)
    db.void("e2", 1, undo=True)
    assert_tally_of_every_game(db)
    db.void("e4", 1, undo=True)
    assert_tally_of_every_game(db)
    db.retally()
    assert_tally_of_every_game(db)


def test_the_tally_in_a_postgresql_database_is_that_of_every_game(postgres):
    rng = random.Random(8)
    db, ids = make_league(postgres("scale_tally"), 5, rng)
    save(db, ids, random_games(rng, 5, 40))
    assert_tally_of_every_game(db)
    db.void("e1", 1)
    assert_tally_of_every_game(db)
    db.retally()  # (as an upgrade counts it: the units read a few at a time, then the tally written)
    assert_tally_of_every_game(db)
    assert db.meetings()[0] == {v: sum(v in t for t in db.tables()) for v in ids}
    assert [row.entrant for row in ladder(db)] == [row.entrant for row in ladder_of_every_game(db)]
    db.close()


def ladder_of_every_game(db: LeagueDB):
    """The ladder's (entrant, Elo, games) as the old code made it: a fit of every counted game."""
    void = db.voided()
    current = [e for e in db.entrants() if e.status != "removed" and e.version and e.version.id not in void]
    estimates = old_fit([seats for _, seats in db.results()], [e.version.id for e in current])
    ranked = sorted(current, key=lambda e: -estimates[e.version.id][0])

    class Row:
        def __init__(self, e):
            self.entrant, self.elo, self.games = e.name, round(estimates[e.version.id][0]), estimates[e.version.id][2]

    return [Row(e) for e in ranked]


def assert_ladder_is_that_of_every_game(db: LeagueDB) -> None:
    """The ladder shown is the old code's, and every rating it rests on the old formula's to 0.1 Elo."""
    shown = [(row.entrant, row.elo, row.games) for row in ladder(db)]
    assert shown == [(row.entrant, row.elo, row.games) for row in ladder_of_every_game(db)]
    _, estimates = standing.ratings(db)
    for version, (rating, sigma, games) in old_fit([seats for _, seats in db.results()],
                                                  standing.ladder_versions(db)).items():
        assert (estimates[version].rating, estimates[version].sigma) == pytest.approx((rating, sigma), abs=0.1)
        assert estimates[version].games == games


def test_the_stored_ladder_follows_new_games_and_voids(tmp_path):
    rng = random.Random(9)
    db, ids = make_league(f"sqlite:///{tmp_path / 'l.db'}", 5, rng)
    save(db, ids, random_games(rng, 5, 30))
    assert_ladder_is_that_of_every_game(db)
    stored = db.standing()
    assert stored.rated == stored.generation  # the page stored what it fitted

    save(db, ids, [[(0, 1.0), (4, 0.0)]] * 12)
    assert_ladder_is_that_of_every_game(db)
    db.void("e0", 1)
    assert "e0" not in [row.entrant for row in ladder(db)]
    assert_ladder_is_that_of_every_game(db)
    db.void("e0", 1, undo=True)
    assert_ladder_is_that_of_every_game(db)

    # A running league's stored ratings are shown for FRESH seconds even as games arrive; then refitted.
    standing.refit(db, running=True)
    before = [(row.entrant, row.elo) for row in ladder(db)]
    save(db, ids, [[(4, 1.0), (0, 0.0)]] * 12)
    assert [(row.entrant, row.elo) for row in ladder(db)] == before
    with db.engine.begin() as c:
        c.exec_driver_sql("update tally_state set rated_at = 0")
    assert_ladder_is_that_of_every_game(db)
    db.close()


def test_a_new_process_reads_the_stored_ladder_and_refits_only_from_the_changed_pairs(tmp_path):
    rng = random.Random(10)
    url = f"sqlite:///{tmp_path / 'l.db'}"
    db, ids = make_league(url, 5, rng)
    save(db, ids, random_games(rng, 5, 30))
    first = standing.refit(db)
    stamp, _, changed = db.tally(db.tally()[0])
    assert not changed.pairs and not changed.games  # nothing changed since
    save(db, ids, [[(1, 1.0), (3, 0.0)]])
    _, _, changed = db.tally(stamp)
    assert set(changed.pairs) == {(ids[1], ids[3])} and set(changed.games) == {ids[1], ids[3]}
    again = LeagueDB.open(url)  # another process's view: the ratings stored by the first
    assert_ladder_is_that_of_every_game(again)
    assert first.estimates != standing.refit(again).estimates
    again.close()
    db.close()


def test_the_entrant_pages_queries_give_what_reading_every_game_gave(tmp_path):
    rng = random.Random(11)
    db, ids = make_league(f"sqlite:///{tmp_path / 'l.db'}", 6, rng)
    save(db, ids, random_games(rng, 6, 80))
    db.void("e5", 1)
    results = db.results()
    mine = {ids[0]}
    played = [(n, seats) for n, seats in results if mine & {v for v, _ in seats}]
    assert db.recent_games(sorted(mine), 20) == list(reversed(played[-20:]))
    counts = {}
    for _, seats in results:
        for v, share in seats:
            for other, theirs in seats:
                if v in mine and other not in mine:
                    c = counts.setdefault(other, [0, 0, 0, 0])
                    c[0] += 1
                    c[1 if share > theirs else 3 if share < theirs else 2] += 1
    assert db.meetings_of(sorted(mine)) == {v: tuple(c) for v, c in counts.items()}
    tables, pairs = db.meetings()
    every = db.tables()
    assert tables == {v: sum(v in t for t in every) for v in {v for t in every for v in t}}
    assert pairs == {frozenset((a, b)): sum(a in t and b in t for t in every)
                     for t0 in every for a in t0 for b in t0 if a != b}
    db.close()


def test_a_large_leagues_history_is_the_stored_points_ending_at_the_rating_now(tmp_path, monkeypatch):
    monkeypatch.setattr(ladder_module, "REPLAY", 0)  # as beyond REPLAY games: no refits of the past
    rng = random.Random(12)
    db, ids = make_league(f"sqlite:///{tmp_path / 'l.db'}", 4, rng)
    for _ in range(40):
        save(db, ids, random_games(rng, 4, 5))
        standing.refit(db, running=True)  # as league run does every round
    view = entrant_view(db, "e0")
    points = view.versions[0].history
    counted, estimates = standing.ratings(db)
    assert 2 < len(points) <= ladder_module.HISTORY_POINTS
    assert [p[0] for p in points] == sorted({p[0] for p in points})
    assert points[-1] == (counted, round(estimates[ids[0]].rating, 1))
    assert view.versions[0].games == estimates[ids[0]].games
    db.close()


def test_an_older_leagues_tally_is_counted_when_it_is_upgraded(tmp_path):
    rng = random.Random(13)
    path = tmp_path / "l.db"
    db, ids = make_league(f"sqlite:///{path}", 4, rng)
    save(db, ids, random_games(rng, 4, 30))
    db.void("e3", 1)
    db.close()
    with sqlite3.connect(path) as c:  # as schema 7 left it
        for table in ("pair_tally", "version_tally", "tally_state", "standing", "rating_history"):
            c.execute(f"drop table {table}")
        c.execute("update league_meta set value = '7' where key = 'schema'")
    db = LeagueDB.open(f"sqlite:///{path}")
    assert SCHEMA_VERSION >= 8
    assert_tally_of_every_game(db)
    assert_ladder_is_that_of_every_game(db)
    assert db.version_tallies()[ids[0]][1] == sum(ids[0] in t for t in db.tables())
    db.close()


def test_beyond_exact_the_uncertainties_are_approximated_near_the_exact_ones(monkeypatch):
    """On a league like a chain (each version meets only its three nearest on either side, the hardest case for
    it): each sigma within 0.5-1.05 of the exact one (the approximation leaves out the longer paths through the
    games, so it errs low), the gap between two versions that met within 15%."""
    rng = random.Random(14)
    n = 60
    strength = [rng.gauss(0, 300) for _ in range(n)]
    order = sorted(range(n), key=lambda v: strength[v])
    games = []
    for _ in range(3000):
        k = rng.randrange(n)
        a, b = order[k], order[min(n - 1, max(0, k + rng.choice([-3, -2, -1, 1, 2, 3])))]
        if a != b:
            won = rng.random() < 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
            games.append([(a, float(won)), (b, float(not won))])
    exact = fit_pool(games)
    monkeypatch.setattr("league.ratings.EXACT", 10)
    approximate = fit_pool(games)
    for v, e in exact.estimates.items():
        assert approximate.estimates[v].rating == pytest.approx(e.rating, abs=0.01)
        assert 0.5 * e.sigma < approximate.estimates[v].sigma < 1.05 * e.sigma
    met = {tuple(sorted((seats[0][0], seats[1][0]))) for seats in games}
    for a, b in met:
        assert approximate.gap_sigma(a, b) == pytest.approx(exact.gap_sigma(a, b), rel=0.15)
    assert approximate.gap_sigma(order[0], order[-1]) > approximate.gap_sigma(*min(met))  # far apart: less sure


def test_beyond_all_pairs_the_matchmaker_still_seats_the_pair_most_in_doubt():
    rng = random.Random(15)
    count = ALL_PAIRS * 3
    candidates = [Candidate(k, 400.0 * k, 5.0, 10) for k in range(count)]  # far apart and sure: nothing in doubt
    candidates[100] = Candidate(100, 40000.0, 80.0, 10)  # ... but for two neighbours, level and unsure
    candidates[101] = Candidate(101, 40005.0, 80.0, 10)
    meetings = {frozenset((k, k + 1)): 3 for k in range(count - 1)}
    assert set(next_table(candidates, meetings, 2, rng, explore=0.0)) == {100, 101}
    table = next_table(candidates, meetings, 3, rng, explore=0.0)
    assert len(set(table)) == 3 and {100, 101} <= set(table)
