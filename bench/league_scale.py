#!/usr/bin/env python3
"""The league at thousands of entrants: ladder page, round choice, fit and the runner's memory on a made-up league.

For each size (``--sizes``, entrants; 3 versions each, played one after the
other) it makes a league whose games are written straight into the database,
``GAMES_PER_ENTRANT`` games an entrant (2,000 entrants: 5 million games), two
seats a game, two games a table (the seatings of one deal); each entrant
enters its next version at moments of its own, so versions of different
generations meet. Opponents are
mostly near on the ladder, as the matchmaker seats them, a tenth drawn at
random; results follow made-up strengths. Then it counts the working fit's
tally in SQL (what an upgrade to schema 8, or ``league void``, does) and
measures, each the best of ``--repeat`` runs:

* ``fit``: the working fit from nothing (the first page or round after the
  tally was counted again) and from the ratings stored (``warm``, after one
  more game);
* ``ladder``: what the ladder page asks every two seconds (its rows and bots,
  as ``viewer.site.ladder_shown``) with the ratings stored, and ``/ladder.json``;
  the entrant page of the strongest entrant;
* ``round``: a round of the runner (``LeagueRunner._new_units``: the fit from
  the database's tally, warm, ``--tables`` tables chosen and allocated);
* ``void``: ``league void`` of the strongest entrant's newest version (its
  games taken out of the tally);
* ``sigma``: beyond ``league.ratings.EXACT`` versions the uncertainties are
  approximated; where the exact inverse is still affordable here (up to
  ``CHECKED`` versions) the median and the lowest ratio of the approximated
  sigma to the exact one, over the ladder's versions;
* ``rss``: the peak resident memory of a fresh process that loads what
  ``league run`` loads (the tables' counts and the tally) and chooses three
  rounds.

On SQLite, and on PostgreSQL where a throwaway server can be started
(``/usr/lib/postgresql/*/bin``, as root; ``--databases`` chooses). With
``--most-games`` a size whose games would exceed it is made at that many and
the figures are marked as such (the build's rate is printed, to extrapolate).

    python bench/league_scale.py --sizes 100 500 2000 [--databases sqlite postgresql]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import summary  # noqa: E402
from league import ratings, standing  # noqa: E402
from league.db import LeagueDB, game_seats, games, tally_state, units  # noqa: E402
from league.ladder import entrant_view, ladder, ladder_json  # noqa: E402
from tournaments.elo import score_from_elo  # noqa: E402

GAMES_PER_ENTRANT = 2500  # 2,000 entrants: 5 million games
VERSIONS = 3
NEAR = 15  # ranks on either side an opponent is usually drawn from
BATCH = 20_000  # games written in one statement
CHECKED = 1500  # versions up to which the approximated uncertainties are compared with the exact ones


def strengths(entrants: int, rng: random.Random) -> list[float]:
    return sorted(rng.gauss(0, 300) for _ in range(entrants))


def made_games(entrants: int, total: int, rng: random.Random):
    """(game index, (entrant a, entrant b), a's share) for ``total`` games: each entrant's version k plays the
    k-th part of the league; two games a deal, the second with the seats swapped."""
    elo = strengths(entrants, rng)
    for k in range(0, total, 2):
        a = rng.randrange(entrants)
        b = rng.randrange(entrants) if rng.random() < 0.1 else min(entrants - 1, max(0, a + rng.randint(-NEAR, NEAR)))
        if a == b:
            b = (a + 1) % entrants
        p = score_from_elo(elo[a] - elo[b])
        for turn in range(min(2, total - k)):
            share = 1.0 if rng.random() < p else 0.0
            yield k + turn, (a, b) if turn == 0 else (b, a), share if turn == 0 else 1 - share


def build(url: str, entrants: int, total: int, seed: int) -> tuple[LeagueDB, float]:
    """A league of ``entrants`` (``VERSIONS`` each) and ``total`` games written straight into the database; the
    seconds the writing took (the tally not counted yet)."""
    db = LeagueDB.create(url, {"tournament": {}})
    version_ids: list[list[int]] = []
    for e in range(entrants):
        ids = [db.add(f"e{e}", {"sample": "random"}, "sha256:x").id]
        for _ in range(VERSIONS - 1):
            ids.append(db.update(f"e{e}", {"sample": "random"}, "sha256:x").id)
        version_ids.append(ids)
    rng = random.Random(seed)
    switches = [sorted(rng.randrange(total) for _ in range(VERSIONS - 1)) for _ in range(entrants)]
    began = time.perf_counter()
    unit_rows, game_rows, seat_rows = [], [], []
    now = time.time()

    def flush() -> None:
        with db.engine.begin() as c:
            if unit_rows:
                c.execute(units.insert(), unit_rows)
            c.execute(games.insert(), game_rows)
            c.execute(game_seats.insert(), seat_rows)
        unit_rows.clear(), game_rows.clear(), seat_rows.clear()

    for n, (a, b), share in made_games(entrants, total, rng):
        va, vb = (version_ids[e][sum(n >= moment for moment in switches[e])] for e in (a, b))
        unit = n // 2 + 1
        if n % 2 == 0:
            unit_rows.append({"id": unit, "versions": json.dumps([va, vb]), "seed": unit, "games": 2,
                              "created": now, "finished": now})
        game_rows.append({"id": n + 1, "unit_id": unit, "game_id": f"u{unit}{'ab'[n % 2]}", "record": "{}",
                          "finished": now})
        seat_rows += [{"game": n + 1, "seat": 0, "version_id": va, "share": share},
                      {"game": n + 1, "seat": 1, "version_id": vb, "share": 1 - share}]
        if len(game_rows) >= BATCH and n % 2 == 1:
            flush()
    if game_rows:
        flush()
    if db.engine.dialect.name == "postgresql":  # (rows written with their ids leave the sequences behind)
        with db.engine.begin() as c:
            for table in ("units", "games"):
                c.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                  f"(SELECT max(id) FROM {table}))")
    return db, time.perf_counter() - began


def best(repeat: int, action) -> float:
    """The fewest milliseconds ``action`` took in ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        times.append((time.perf_counter() - began) * 1000)
    return min(times)


def sigma_ratios(db: LeagueDB) -> str:
    """"median (lowest)" of the approximated sigma over the exact one, for the ladder's versions."""
    _, _, counted = db.tally()
    wanted = standing.ladder_versions(db)
    if len(counted.games) > CHECKED:
        return "-"
    exact = ratings.EXACT
    try:
        ratings.EXACT = 10**9
        right = ratings.fit_pool(counted, wanted).estimates
        ratings.EXACT = 0
        near = ratings.fit_pool(counted, wanted).estimates
    finally:
        ratings.EXACT = exact
    ratios = sorted(near[v].sigma / right[v].sigma for v in wanted)
    return f"{ratios[len(ratios) // 2]:.2f} ({ratios[0]:.2f})"


def one_more_game(db: LeagueDB) -> None:
    a, b = [v.id for v in db.players()[:2]]
    unit, = db.new_units([(a, b)], 1)
    db.save_games([(unit.id, f"extra{unit.id}", "{}", [(0, a, 1.0), (1, b, 0.0)])])


def runner_round(db: LeagueDB, folder: Path, tables: int):
    """A round of ``league run`` as it chooses one (its ``_new_units``), with ``tables`` tables."""
    from types import SimpleNamespace

    from league.runner import LeagueRunner, _History

    runner = LeagueRunner(folder, db, rng=random.Random(1))
    runner._history = _History.of(db)
    active = db.players()
    config = SimpleNamespace(concurrency=max(1, tables // 2))
    return lambda: runner._new_units(active, 2, config, None)


RSS_CHILD = """
import random, resource, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from types import SimpleNamespace
from league.db import LeagueDB
from league.runner import LeagueRunner, _History
db = LeagueDB.open(sys.argv[1])
runner = LeagueRunner(Path(sys.argv[2]), db, rng=random.Random(1))
runner._history = _History.of(db)
active = db.players()
for _ in range(3):
    runner._new_units(active, 2, SimpleNamespace(concurrency=4), None)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def runner_rss(url: str, folder: Path) -> float:
    """MiB: the peak RSS of a process that loads what ``league run`` loads and chooses three rounds."""
    done = subprocess.run([sys.executable, "-c", RSS_CHILD, url, str(folder), str(Path(__file__).parent.parent)],
                          capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1]) / 1024


def measure(url: str, entrants: int, total: int, folder: Path, repeat: int, tables: int) -> dict:
    db, writing = build(url, entrants, total, seed=entrants)
    began = time.perf_counter()
    db.retally()
    counting = time.perf_counter() - began
    pairs = len(db.tally()[2].pairs)
    cold = best(1, lambda: standing.refit(db))

    def warm() -> None:
        one_more_game(db)
        standing.refit(db)

    out = {"entrants": entrants, "games": total, "pairs": pairs, "write s": writing, "tally s": counting,
           "fit ms": cold, "warm fit ms": best(repeat, warm) }
    from viewer.site import ladder_shown

    out["ladder ms"] = best(repeat, lambda: ladder_shown(db))
    out["json ms"] = best(repeat, lambda: ladder_json(ladder(db)))
    top = ladder(db)[0].entrant
    out["entrant ms"] = best(repeat, lambda: entrant_view(db, top))
    one_more_game(db)
    with db.engine.begin() as c:  # as if no runner had stored the ratings for a while
        c.execute(tally_state.update().values(rated_at=0.0))
    out["stale ladder ms"] = best(1, lambda: ladder_shown(db))
    out["round ms"] = best(repeat, runner_round(db, folder, tables))
    out["void ms"] = best(1, lambda: db.void(top, VERSIONS))  # (its newest version: the tally loses its games)
    out["sigma"] = sigma_ratios(db)
    db.close()
    out["runner MiB"] = runner_rss(url, folder)
    return out


def postgres_server(root: Path):
    """A throwaway PostgreSQL server (as tests/conftest.py starts one): (a URL maker, stop), or None."""
    import glob
    import os
    import shutil

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found or os.geteuid() != 0 or not shutil.which("runuser"):
        return None
    bin_dir = os.path.dirname(found[-1])
    os.chmod(root, 0o755)
    shutil.chown(root, "postgres")

    def as_postgres(*argv):
        return subprocess.run(["runuser", "-u", "postgres", "--", *argv], capture_output=True, text=True, timeout=300)

    if as_postgres(f"{bin_dir}/initdb", "-D", str(root / "data"), "-A", "trust", "-U", "postgres").returncode:
        return None
    if as_postgres(f"{bin_dir}/pg_ctl", "-D", str(root / "data"), "-l", str(root / "log"), "-w", "-o",
                   f"-k {root} -p 54339 -c listen_addresses='' -c fsync=off", "start").returncode:
        return None

    def database(name: str) -> str:
        as_postgres(f"{bin_dir}/createdb", "-h", str(root), "-p", "54339", name)
        return f"postgresql://postgres@/{name}?host={root}&port=54339"

    def stop() -> None:
        as_postgres(f"{bin_dir}/pg_ctl", "-D", str(root / "data"), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)

    return database, stop


COLUMNS = ["entrants", "games", "pairs", "write s", "tally s", "fit ms", "warm fit ms", "ladder ms", "json ms",
           "entrant ms", "stale ladder ms", "round ms", "void ms", "runner MiB", "sigma"]


def show(store: str, row: dict, reached: bool) -> None:
    cells = [f"{row[k]:.0f}" if isinstance(row[k], float) and row[k] >= 10 else
             f"{row[k]:.2f}" if isinstance(row[k], float) else str(row[k]) for k in COLUMNS]
    print(f"{store:10} " + " | ".join(cells) + ("" if reached else "  (fewer games than the size's)"), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 2000], help="entrants")
    parser.add_argument("--most-games", type=int, default=None, help="make no league of more games than this")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tables", type=int, default=8, help="tables a round chooses (league run: 2 a slot)")
    parser.add_argument("--databases", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"])
    args = parser.parse_args()
    stores = [("sqlite", None)] if "sqlite" in args.databases else []
    server = None
    if "postgresql" in args.databases:
        server = postgres_server(Path(tempfile.mkdtemp(prefix="pa-bench-pg-")))
        if server:
            stores.append(("postgresql", server[0]))
        else:
            print("(no PostgreSQL server could be started here)")
    print(f"{'database':10} " + " | ".join(COLUMNS))
    results = []
    try:
        for entrants in args.sizes:
            wanted = entrants * GAMES_PER_ENTRANT
            total = min(wanted, args.most_games or wanted)
            for store, maker in stores:
                with tempfile.TemporaryDirectory(prefix="pa-bench-league-") as folder:
                    url = f"sqlite:///{folder}/league.db" if maker is None else maker(f"scale{entrants}")
                    row = measure(url, entrants, total, Path(folder), args.repeat, args.tables)
                show(store, row, total == wanted)
                results.append((store, row))
    finally:
        if server:
            server[1]()
    largest = max(results, key=lambda r: r[1]["games"])
    store, row = largest
    summary(f"league of {row['entrants']} entrants, {row['games']:,} games ({store}): ladder page "
            f"{row['ladder ms']:.0f} ms, round {row['round ms']:.0f} ms, fit {row['fit ms']:.0f} ms cold / "
            f"{row['warm fit ms']:.0f} warm, runner {row['runner MiB']:.0f} MiB")


if __name__ == "__main__":
    main()
