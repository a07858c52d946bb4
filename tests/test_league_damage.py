"""A damaged league database: ``league check`` says what is wrong (exit status 1), every other league command
says so in one line (exit status 2, no traceback), ``league serve`` answers 503 until it is repaired; ``league
backup`` copies a league while ``league run`` saves games. The damage is real: garbage written over a page in the
middle of a league's file, a table dropped, a file that is no database, a record changed behind its seal."""

from __future__ import annotations

import contextlib
import random
import shutil
import signal
import sqlite3
import urllib.error
import urllib.request

import pytest
import sqlalchemy as sa
from helpers import arena, league_serving
from test_league import FAST, add, league_folder, league_running, wait_for

from league.db import SCHEMA_VERSION, LeagueDB, database_url


GAMES = 60  # enough that the games' records fill the file from a third of its pages on, so its middle page is one


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A league of three sample bots that has played GAMES games (one hand each), its database closed."""
    folder = league_folder(tmp_path_factory.mktemp("damage"), "--boards", "--isolation", "none")
    for name in ("greedy", "random", "tactician"):
        add(folder, name, name)
    run = arena("league", "run", folder, "--games", str(GAMES), "--concurrency", "2")
    assert run.returncode == 0, run.stderr
    return folder


@pytest.fixture
def league(played, tmp_path):
    """A copy of the played league, to damage."""
    folder = tmp_path / "league"
    shutil.copytree(played, folder)
    # every page in the file itself, none left in a write-ahead log that would hide a damage
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return folder


def garbage(folder, table: str | None = None) -> int:
    """Overwrite with random bytes the page nearest the middle of the file (of ``table``'s pages, if given), as a
    torn write or a failing disk would; returns its number."""
    path = folder / "league.db"
    with contextlib.closing(sqlite3.connect(path)) as c:
        size = c.execute("PRAGMA page_size").fetchone()[0]
        count = c.execute("PRAGMA page_count").fetchone()[0]
        pages = [p for (p,) in c.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))] if table else \
            range(2, count + 1)
    page = min(pages, key=lambda p: abs(p - count / 2))
    noise = bytearray(random.Random(page).randbytes(size))
    # A kind of page SQLite does not know, so that reading it fails: garbage behind a page's intact header can
    # read as no rows at all, which only league check finds.
    noise[0] = 0xFF
    with open(path, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(noise)
    return page


def garbage_in_the_middle(folder) -> None:
    garbage(folder)


def garbage_among_the_entrants(folder) -> None:
    """Garbage over the entrants' page, which every command but check reads (list, show, run, the ladder page)."""
    garbage(folder, "entrants")


def drop(table: str):
    def damage(folder) -> None:
        with contextlib.closing(sqlite3.connect(folder / "league.db")) as c:
            c.execute(f"DROP TABLE {table}")
            c.commit()
    return damage


def not_a_database(folder) -> None:
    for journal in ("league.db-wal", "league.db-shm"):
        (folder / journal).unlink(missing_ok=True)
    (folder / "league.db").write_bytes(random.Random(1).randbytes(64 * 1024))


def tamper(folder, number: int = 7) -> None:
    """Game ``number``'s record changed behind its seal (a player's total, its seal kept)."""
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as c:
        c.execute("UPDATE games SET record = replace(record, '\"variant\"', '\"variant\" ') WHERE id = ?", (number,))
        assert c.total_changes == 1
        c.commit()


DAMAGE = {
    "garbage": (garbage_among_the_entrants, "SQLite's integrity check: "),  # (then SQLite's words, which vary)
    "game_seats": (drop("game_seats"), "table game_seats is missing"),
    "units": (drop("units"), "table units is missing"),
    "no database": (not_a_database, "the database cannot be read: file is not a database"),
}


def one_line(result) -> str:
    """The one line of a refused command, asserting it is one and no traceback."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("pinochle-arena: error:")]
    assert len(errors) == 1 and result.stderr.strip().endswith(errors[0]), result.stderr
    return errors[0]


def test_a_sound_league_is_sound(played):
    checked = arena("league", "check", played)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "is sound: schema" in checked.stdout and f"{GAMES} games whose records pass their seals" in checked.stdout


@pytest.mark.parametrize("kind", DAMAGE)
def test_check_names_the_damage_and_every_command_says_it_in_one_line(league, kind):
    damage, found = DAMAGE[kind]
    damage(league)
    checked = arena("league", "check", league)
    assert checked.returncode == 1 and "Traceback" not in checked.stdout + checked.stderr
    assert f"{league} is damaged:" in checked.stdout and found in checked.stdout, checked.stdout
    assert "restore the newest backup" in checked.stdout
    commands = [("list", league), ("show", league), ("run", league, "--games", "2", "--concurrency", "1")]
    if kind != "garbage":  # (refused as it is opened: a command that reads no entrant too)
        commands.append(("add", "first-legal", "first-legal", "--league", league))
    for command in commands:
        line = one_line(arena("league", *command))
        assert f"pinochle-arena league check {league}" in line, (command, line)


def test_garbage_in_the_middle_of_the_file_is_found_by_check_and_met_in_one_line(league):
    """The middle page holds games' records: check finds it, show (which reads every record) says so in one line,
    and the commands that do not read it go on without a traceback."""
    with contextlib.closing(sqlite3.connect(league / "league.db")) as c:
        games_pages = {p for (p,) in c.execute("SELECT pageno FROM dbstat WHERE name = 'games'")}
    assert garbage(league) in games_pages  # (the games' records fill the file's second half: see GAMES)
    checked = arena("league", "check", league)
    assert checked.returncode == 1 and "SQLite's integrity check: " in checked.stdout, checked.stdout
    assert f"pinochle-arena league check {league}" in one_line(arena("league", "show", league))
    for command in (("list", league), ("run", league, "--games", "2", "--concurrency", "1")):
        done = arena("league", *command)
        assert "Traceback" not in done.stdout + done.stderr
        assert done.returncode == 0 or f"pinochle-arena league check {league}" in one_line(done)


def test_a_dropped_units_table_is_named_with_the_games_that_lose_their_unit(league):
    drop("units")(league)
    checked = arena("league", "check", league)
    assert "rows of games name a row of units that is missing" in checked.stdout
    assert "league export" in checked.stdout  # (the games themselves can still be read)


def test_check_says_what_of_the_schema_version(league):
    def schema(value: str | None) -> None:
        with contextlib.closing(sqlite3.connect(league / "league.db")) as c:
            c.execute("DELETE FROM league_meta WHERE key = 'schema'")
            if value is not None:
                c.execute("INSERT INTO league_meta (key, value) VALUES ('schema', ?)", (value,))
            c.commit()

    schema(str(SCHEMA_VERSION - 1))  # older: no damage, the next command upgrades it (its tables are all there)
    checked = arena("league", "check", league)
    assert checked.returncode == 0 and f"note: league schema {SCHEMA_VERSION - 1} is older" in checked.stdout
    schema(str(SCHEMA_VERSION + 1))
    checked = arena("league", "check", league)
    assert checked.returncode == 1 and "was made by a newer pinochle-arena" in checked.stdout
    schema(None)
    checked = arena("league", "check", league)
    assert checked.returncode == 1 and "league_meta has no schema version" in checked.stdout


def test_a_record_changed_behind_its_seal_is_named_by_check(league):
    tamper(league, 7)
    checked = arena("league", "check", league)
    assert checked.returncode == 1
    assert "records that fail their seal: game 7 (" in checked.stdout and "its seal does not match" in checked.stdout
    assert "changed outside pinochle-arena" in checked.stdout
    for command in ("list", "show"):  # (the database itself is sound: they read it)
        assert arena("league", command, league).returncode == 0


# ------------------------------------------------------------------ serve

def get(url: str, browser: bool) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Accept": "text/html" if browser else "*/*"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def assert_unavailable(address: str, path: str = "/") -> None:
    status, page = get(address + path, browser=True)
    assert status == 503 and 'href="/static/league.css"' in page and 'id="refused"' in page, page
    assert "pinochle-arena league check" in page
    status, text = get(address + path, browser=False)
    assert status == 503 and text.count("\n") == 1 and text.startswith("the league's database cannot be read ("), text


def restore(backup, folder) -> None:
    """Copy ``backup`` into the league's live database through SQLite (its online backup API, as any writer
    writes), so that a server that has it open sees the restored pages."""
    with contextlib.closing(sqlite3.connect(backup)) as source, \
            contextlib.closing(sqlite3.connect(folder / "league.db", timeout=30)) as live:
        source.backup(live)


def test_serve_answers_503_while_the_database_fails_and_serves_again_once_restored(league, tmp_path):
    assert arena("league", "backup", league, tmp_path / "backup.db").returncode == 0
    garbage_among_the_entrants(league)
    with league_serving(league) as address:
        assert_unavailable(address)
        assert_unavailable(address, "/ladder.json")
        restore(tmp_path / "backup.db", league)
        status, page = get(address + "/", browser=True)
        assert status == 200 and 'href="/entrant/greedy"' in page
        with contextlib.closing(sqlite3.connect(league / "league.db", timeout=30)) as c:
            c.execute("DROP TABLE game_seats")  # (while it serves: through SQLite, as any writer)
            c.commit()
        assert_unavailable(address, "/entrant/greedy")
        restore(tmp_path / "backup.db", league)
        assert get(address + "/entrant/greedy", browser=True)[0] == 200
    assert arena("league", "check", league).returncode == 0


@pytest.mark.parametrize("kind", ["game_seats", "no database"])
def test_serve_on_a_database_that_cannot_be_opened_says_so_in_one_line(league, kind):
    DAMAGE[kind][0](league)
    line = one_line(arena("league", "serve", league, "--port", "0"))
    assert f"pinochle-arena league check {league}" in line


# ------------------------------------------------------------------ backup

def test_a_backup_taken_while_games_are_saved_opens_passes_check_and_holds_the_games(league, tmp_path):
    before = LeagueDB.open(database_url(league)).game_count()
    runner = league_running(league, 2)
    try:
        wait_for(lambda: LeagueDB.open(database_url(league)).game_count() >= before + 5, "five more games saved")
        copies = [tmp_path / f"copy{n}.db" for n in range(3)]
        for copy in copies:  # (while the runner goes on saving)
            backed = arena("league", "backup", league, copy)
            assert backed.returncode == 0, backed.stderr
            assert backed.stdout.startswith(f"backed up {league} to {copy}: ") and " MiB" in backed.stdout
    finally:
        runner.send_signal(signal.SIGINT)
        runner.wait(timeout=120)
    counts = []
    for copy in copies:
        checked = arena("league", "check", copy)
        assert checked.returncode == 0, checked.stdout
        with contextlib.closing(sqlite3.connect(copy)) as c:
            assert c.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # one file, ready to copy back
            counts.append(c.execute("SELECT count(*) FROM games").fetchone()[0])
        assert f"{counts[-1]} games whose records pass their seals" in checked.stdout
    assert before + 5 <= counts[0] <= counts[1] <= counts[2]
    folder = tmp_path / "restored"  # the restore docs/league.md gives: the copy as a league's league.db
    folder.mkdir()
    shutil.copyfile(copies[-1], folder / "league.db")
    assert arena("league", "list", folder).returncode == 0
    assert LeagueDB.open(database_url(folder)).game_count() == counts[-1]


def test_backup_refuses_an_existing_file_and_a_postgresql_league(league, tmp_path):
    taken = tmp_path / "taken.db"
    taken.write_text("mine\n")
    line = one_line(arena("league", "backup", league, taken))
    assert "exists" in line and taken.read_text() == "mine\n"
    assert list(tmp_path.glob(".taken.db.*")) == []
    (league / "league.db").unlink()
    (league / "database.url").write_text("postgresql://someone@/elsewhere\n")
    assert "pg_dump" in one_line(arena("league", "backup", league, tmp_path / "pg.db"))


# ------------------------------------------------------------------ PostgreSQL

def test_a_damaged_league_on_postgresql_is_checked_and_said_in_one_line(tmp_path, postgres):
    url = postgres("league_damage")
    folder = tmp_path / "league"
    assert arena("league", "init", folder, *FAST, "--isolation", "none", "--database", url).returncode == 0
    add(folder, "greedy", "greedy")
    add(folder, "random", "random")
    assert arena("league", "run", folder, "--games", "4", "--concurrency", "2").returncode == 0
    checked = arena("league", "check", folder)
    assert checked.returncode == 0 and "is sound" in checked.stdout, checked.stdout + checked.stderr
    engine = sa.create_engine("postgresql+psycopg://" + url.split("://", 1)[1])
    with engine.begin() as c:
        c.exec_driver_sql("UPDATE games SET record = replace(record, '\"variant\"', '\"variant\" ') WHERE id = 2")
    checked = arena("league", "check", folder)
    assert checked.returncode == 1 and "records that fail their seal: game 2 (" in checked.stdout
    with engine.begin() as c:
        c.exec_driver_sql("ALTER TABLE entrants DROP COLUMN note")
    checked = arena("league", "check", folder)
    assert checked.returncode == 1 and "table entrants has no column note" in checked.stdout
    for command in ("list", "show"):
        line = one_line(arena("league", command, folder))
        assert "note" in line and f"pinochle-arena league check {folder}" in line
    with engine.begin() as c:
        c.exec_driver_sql("DROP TABLE game_seats")
    checked = arena("league", "check", folder)
    assert checked.returncode == 1 and "table game_seats is missing" in checked.stdout
    assert "game_seats is missing" in one_line(arena("league", "list", folder))
    engine.dispose()
