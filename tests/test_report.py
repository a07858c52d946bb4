"""The HTML report's data: films that show each seat exactly what the rules let it see, and the report folder."""

from __future__ import annotations

import base64
import gzip
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import film_reference
import pytest
from helpers import arena, sensible
from hypothesis import example, given
from hypothesis import strategies as st

from referee.records.record import ActionEntry, GameRecord, SeatInfo, Termination
from referee.rules import PRESETS, action_from_text, get_variant, new_game
from referee.rules import events as ev
from viewer.film import film, film_script
from viewer.report import FilmsAhead, script_json, write_films

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
# each film as the viewer's script reads it (viewer/static/film.js), for a JSON list of films on stdin: its steps'
# seat, words and fault, and its states
IN_NODE = f"""const {{ readFilm, filmStates }} = require({json.dumps(str(ROOT / "viewer" / "static" / "film.js"))});
let text = "";
process.stdin.on("data", (chunk) => {{ text += chunk; }});
process.stdin.on("end", () => process.stdout.write(JSON.stringify(JSON.parse(text).map(readFilm).map((film) =>
  ({{ words: film.steps.map((s) => [s.seat, s.text, s.fault]), states: filmStates(film) }})))));
"""


def record_of(name: str, seed: int, limit: int = 150) -> GameRecord:
    """A record of the first ``limit`` actions (two hands or more) of a game of ``name`` played by sensible random
    seats (any legal action, bids like a person)."""
    variant = get_variant(name)
    rng = random.Random(seed)
    choose = sensible(rng)
    game, _ = new_game(variant, seed)
    actions = []
    while not game.is_terminal() and len(actions) < limit:
        decision = game.decision()
        action = choose(decision)
        actions.append(ActionEntry(decision.seat, action.to_text(), 1.0))
        game.apply(action)
    seats = [SeatInfo(f"bot{i}", f"bot{i}", "cmd") for i in range(variant.players)]
    return GameRecord(f"g{seed}", name, variant.settings(), seed, seats, {}, actions=actions,
                      result=game.returns() if game.is_terminal() else (), totals=tuple(game.totals))


def unfolded(steps: list[dict], seats: int) -> list[list[dict]]:
    """Every step's full view per seat of a reference film, which keeps only the fields that changed."""
    states, before = [], [{} for _ in range(seats)]
    for step in steps:
        before = [{**before[s], **step["views"][s]} for s in range(seats)]
        states.append(before)
    return states


def read_in_node(*records: GameRecord) -> list[dict]:
    """Per record, its film as the viewer's script reads it, under node: ``words``, each step's seat, words and
    whether it says a fault; ``states``, every step's view per seat as the script keeps it from the events."""
    if NODE is None:
        pytest.skip("no node: the viewer's script is run by node (apt-get install nodejs)")
    films = json.dumps([film(r) for r in records])
    run = subprocess.run([NODE, "-e", IN_NODE], input=films, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def shown_states(*records: GameRecord) -> list[list[list[dict]]]:
    """Per record, every step's view per seat as the viewer's script keeps it from the film's events."""
    return [read["states"] for read in read_in_node(*records)]


def faulted(record: GameRecord, kind: str) -> GameRecord:
    """``record`` cut short by a fault of ``kind``: an illegal bid where the rules refuse it, or a timeout."""
    if kind == "illegal":
        seat = record.actions[10].seat
        record.actions = record.actions[:10] + [ActionEntry(seat, "bid:999", 2.0)]
        record.termination, record.culprit, record.detail = Termination.ILLEGAL_ACTION, seat, "bid:999"
    else:
        record.actions = record.actions[:5]
        record.termination, record.culprit, record.detail = Termination.TIMEOUT, 1, "no reply within 400 ms"
    return record


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_viewer_shows_each_seat_at_each_step_what_the_old_film_showed(name):
    """The viewer's script keeps each seat's table from the events it was shown; step by step, seat by seat, it
    is the view the report showed when the film replayed the rules and took every seat's observation (kept in
    tests/film_reference.py), over whole games, games cut short by a fault, and a game that never started."""
    records = [record_of(name, seed, limit=10_000) for seed in (1, 2)] + [record_of(name, 7)]
    records += [faulted(record_of(name, 3), "illegal"), faulted(record_of(name, 4), "timeout")]
    never = record_of(name, 5)
    never.actions, never.termination, never.culprit, never.detail = [], Termination.CRASH, 0, "failed to start"
    records.append(never)
    players = get_variant(name).players
    for record, read in zip(records, read_in_node(*records), strict=True):
        reference, states = film_reference.film(record), read["states"]
        assert states == unfolded(reference["steps"], players), record.game_id
        assert read["words"] == [[s["seat"], s["text"], s.get("fault", False)] for s in reference["steps"]]
        assert {k: v for k, v in film(record).items() if k not in ("steps", "table")} == \
            {k: v for k, v in reference.items() if k != "steps"}
        assert [step[0]["hand_no"] for step in states] == [s["hand"] for s in reference["steps"]]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_step_of_a_film_shows_each_seat_what_the_rules_say_it_sees(name):
    record = record_of(name, 7)
    variant = get_variant(name)
    (shown,) = shown_states(record)
    game, _ = new_game(variant, record.seed)  # the rules' own account of each seat's knowledge, step by step
    view = film_reference.seat_view
    expected = [[view(game.observation(s)) for s in range(variant.players)]]
    for entry in record.actions:
        game.apply(action_from_text(entry.action))
        expected.append([view(game.observation(s)) for s in range(variant.players)])
    assert shown == expected
    assert len(shown) == len(record.actions) + 1


def test_a_fault_is_the_films_last_step_and_says_why():
    steps = film(faulted(record_of("two-handed", 3), "illegal"))["steps"]
    assert len(steps) == 11 + 1 and steps[-1][4] is True and "illegal" in steps[-1][3]
    seat, _, events, words, fault = film(faulted(record_of("two-handed", 3), "timeout"))["steps"][-1]
    assert fault is True and "timeout: no reply within 400 ms" in words and seat == 1 and events == []


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=20)


@given(JSON)
@example({"detail": "<!--<script>x</script>", "names": ["a & b", "-->", "\u2028\u2029"]})
def test_json_for_an_inline_script_reads_back_as_its_data_and_holds_nothing_the_html_parser_reads(data):
    text = script_json(data)
    assert json.loads(text) == data
    assert not set(text) & set("<>&\u2028\u2029")


def test_a_match_writes_its_report_and_the_report_command_rewrites_it(tmp_path):
    out = tmp_path / "m"
    run = arena("match", "greedy", "random", "--games", "4", "--seed", "2", "--option", "target=300",
                "--isolation", "none", "--out", str(out))
    assert run.returncode == 0, run.stderr
    index = out / "report" / "index.html"
    assert f"report: {index}" in run.stdout
    page = index.read_text()
    games = json.loads(re.search(r"window.REPORT_GAMES = (.*);</script>", page).group(1))
    assert [g["id"] for g in games] == ["g1", "g2", "g3", "g4"]
    assert "<h2>Standings</h2>" in page and "<table>" in page and "No game ended on a fault." in page
    for name in ("cards.js", "film.js", "report.js", "report.css"):
        assert (out / "report" / name).read_bytes() == (Path("viewer/static") / name).read_bytes()
    text = (out / "report" / "films" / "0.js").read_text()
    packed = re.fullmatch(r'pinochleFilm\(0, "([A-Za-z0-9+/=]+)"\);\n', text).group(1)
    film0 = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert film0["id"] == "g1" and film0["names"] == ["greedy", "random"] and len(film0["steps"]) > 20
    for text in (page, (out / "report" / "report.js").read_text(), (out / "report" / "report.css").read_text()):
        assert "http://" not in text and "https://" not in text  # nothing is fetched: it works offline

    index.unlink()
    again = arena("report", str(out), "--bootstrap", "10")
    assert again.returncode == 0 and index.exists()
    skipped = arena("match", "greedy", "random", "--games", "2", "--seed", "2", "--isolation", "none",
                    "--option", "target=300", "--out", str(tmp_path / "n"), "--no-report")
    assert skipped.returncode == 0 and not (tmp_path / "n" / "report").exists() and "report:" not in skipped.stdout


def test_report_open_takes_a_folder_given_relative_and_says_when_no_browser_opens_it(tmp_path, monkeypatch):
    """``report DIR --open`` with DIR relative (the usual way: ``report results/first --open``) opens the page's
    file URI, which must name an absolute path (it stopped on a traceback); with no browser, one line says so."""
    run = arena("match", "greedy", "random", "--games", "2", "--isolation", "none", "--option", "target=300",
                "--out", str(tmp_path / "m"), "--no-report")
    assert run.returncode == 0, run.stderr
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda address: opened.append(address) or True)
    shown = arena("report", "m", "--open", "--bootstrap", "10", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert opened == [(tmp_path / "m" / "report" / "index.html").as_uri()]
    monkeypatch.setattr(webbrowser, "open", lambda address: False)  # (what it returns with no browser to run)
    alone = arena("report", "m", "--open", "--bootstrap", "10", cwd=tmp_path)
    assert alone.returncode == 0 and "Traceback" not in alone.stderr
    assert alone.stderr.strip() == f"--open: no web browser found here; open {opened[0]} yourself"


def test_report_refuses_a_folder_without_results_or_with_a_forged_record(tmp_path):
    missing = arena("report", str(tmp_path))
    assert missing.returncode == 2 and "has no games.jsonl" in missing.stderr
    out = tmp_path / "m"
    assert arena("match", "greedy", "random", "--games", "2", "--seed", "1", "--isolation", "none", "--option",
                 "target=300", "--out", str(out), "--no-report").returncode == 0
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text(lines[0] + "\n" + lines[0] + "\n")
    forged = arena("report", str(out))
    assert forged.returncode == 2 and "refusing to report" in forged.stderr and "a second record" in forged.stderr
    unverified = arena("report", str(out), "--no-verify", "--bootstrap", "0")
    assert unverified.returncode == 0 and "unverified" in (out / "report" / "index.html").read_text()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_trick_just_taken_is_the_cards_of_the_last_trick_won(name):
    record = record_of(name, 11)
    variant = get_variant(name)
    (shown,) = shown_states(record)
    game, _ = new_game(variant, record.seed)
    trick, taken = [], []
    for entry, views in zip(record.actions, shown[1:], strict=True):
        for notice in game.apply(action_from_text(entry.action)):
            if 0 in notice.seats and isinstance(notice.event, ev.Played):
                trick.append([notice.event.seat, notice.event.action.card.to_text()])
            elif 0 in notice.seats and isinstance(notice.event, ev.TrickWon):
                taken, trick = trick, []
            elif 0 in notice.seats and isinstance(notice.event, ev.HandDealt):
                taken, trick = [], []
        if not views[0]["trick"] and views[0]["last_trick"]:
            assert views[0]["last_trick"] == taken


def test_each_seat_of_play_has_a_token_of_its_own():
    """The person at seat 0 cannot open seat 1's page (and see its hand) by changing the seat in the address."""
    import trio

    from viewer.seat import SeatLink, SeatServer

    server = SeatServer({0: SeatLink(0), 1: SeatLink(1)})
    assert server.tokens[0] != server.tokens[1]
    assert f"token={server.tokens[1]}" in server.address(8000, 1)

    async def knock(seat: int, token: str) -> list[dict]:
        sent: list[dict] = []
        events = iter([{"type": "websocket.connect"}])

        async def receive():
            return next(events, {"type": "websocket.disconnect"})

        async def send(message):
            sent.append(message)

        scope = {"type": "websocket", "path": "/seat", "query_string": f"seat={seat}&token={token}".encode()}
        await server(scope, receive, send)
        return sent

    refused = trio.run(knock, 1, server.tokens[0])  # (closed after the handshake: the page gets the code)
    assert refused == [{"type": "websocket.accept"}, {"type": "websocket.close", "code": 4403}]
    assert trio.run(knock, 1, server.tokens[1]) != refused  # its own token is let in


def test_films_shared_out_over_processes_are_the_films_of_one_process(tmp_path, monkeypatch):
    records = [record_of(name, seed, limit=60) for name in ("two-handed", "four-handed") for seed in (1, 2, 3)]
    write_films(records, tmp_path / "alone")
    monkeypatch.setattr("viewer.report.GAMES_PER_PROCESS", 2)  # six games: a process for every two, on each core
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    write_films(records, tmp_path / "shared")
    alone = {p.name: p.read_text() for p in (tmp_path / "alone").iterdir()}
    assert len(alone) == len(records) and alone == {p.name: p.read_text() for p in (tmp_path / "shared").iterdir()}


def test_films_made_ahead_are_taken_as_they_are_and_the_rest_are_made_at_the_end(tmp_path):
    records = [record_of("two-handed", seed, limit=40) for seed in (1, 2, 3)]
    folder = tmp_path / "report" / "films" / "ahead"
    with FilmsAhead(tmp_path / "report") as ahead:  # (as a tournament does while its games are played)
        ahead.add(records[0])
        ahead.add(records[1])
        deadline = time.monotonic() + 120  # (a bound for a stuck maker, not a timing: it runs when a core is free)
        while time.monotonic() < deadline and len(list(folder.glob("*[!l]"))) < 2:  # (not '.partial')
            time.sleep(0.05)
    made = sorted(p for p in folder.iterdir() if p.suffix != ".partial")
    assert len(made) == 2
    made[0].write_text("MADE-AHEAD")  # one of them, marked: the report must use it rather than film its game again
    write_films(records, tmp_path / "report" / "films")
    films = [(tmp_path / "report" / "films" / f"{n}.js").read_text() for n in range(3)]
    assert sum("MADE-AHEAD" in f for f in films) == 1
    unmarked = [f for f in films if "MADE-AHEAD" not in f]
    assert unmarked == [film_script(n, r) for n, r in enumerate(records) if film_script(n, r) in unmarked]
    assert len(unmarked) == 2
    assert not (tmp_path / "report" / "films" / "ahead").exists()  # gone once the report is written


def test_a_film_maker_dies_with_its_run_even_one_that_gets_no_cpu(tmp_path):
    """A run killed by SIGKILL leaves no film maker: the kernel kills it with its parent, rather than leaving it to
    see its input end (which one in the idle class, on a busy machine, may not get the CPU to do). The run starts
    its idle-class maker as a tournament does and says its pid once the maker has said it is set up: an event, so
    nothing here waits for CPU time the maker may not get while other processes keep the cores busy. The maker is
    then stopped outright before its run is killed."""
    run = subprocess.Popen(
        [sys.executable, "-c", "import sys, time, pathlib; from viewer.report import _film_maker; "
         f"m = _film_maker(pathlib.Path({str(tmp_path)!r}), idle=True); print(m.pid, flush=True); time.sleep(600)"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    maker = int(run.stdout.readline())
    assert os.sched_getscheduler(maker) == os.SCHED_IDLE
    os.kill(maker, signal.SIGSTOP)
    # Its death is what is tested, not how soon an idle-class process gets the CPU to die (the run's own end
    # takes it out of the class first, as FilmsAhead does): in the normal class it dies once killed.
    os.sched_setscheduler(maker, os.SCHED_OTHER, os.sched_param(0))
    run.kill()
    run.wait()
    deadline = time.monotonic() + 60  # (a bound for a stuck kill, not a timing)
    while time.monotonic() < deadline and _state(maker) not in (None, "Z"):
        time.sleep(0.05)
    assert _state(maker) in (None, "Z")


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def test_films_ahead_takes_its_maker_out_of_the_idle_class_before_killing_it(tmp_path, monkeypatch):
    """A killed process needs the CPU to die, and an idle-class one beside busy processes may get none: the run's
    end (a Ctrl-C'd tournament waited past two minutes) gives it the normal class first."""
    from viewer.report import FilmsAhead

    calls = []
    real = os.sched_setscheduler
    monkeypatch.setattr(os, "sched_setscheduler", lambda pid, policy, param: calls.append((pid, policy)) or
                        real(pid, policy, param))
    with FilmsAhead(tmp_path / "report") as films:
        maker = films._maker.pid
    assert calls == [(maker, os.SCHED_IDLE), (maker, os.SCHED_OTHER)]  # (idle once set up, by the run)
    assert films._maker.returncode is not None  # and it is gone


def notices_in_play(record: GameRecord) -> list[list[ev.Notice]]:
    """The notices the game loop keeps while it plays ``record`` (play_game's ``seen``): the deal's, then each
    legal action's."""
    game, dealt = new_game(get_variant(record.variant, record.options), record.seed)
    seen = [dealt]
    for entry in record.actions:
        try:
            seen.append(game.apply(action_from_text(entry.action)))
        except ValueError:  # the illegal action that ended the game: the loop applies none
            break
    return seen


def no_replay(*_):
    raise AssertionError("a game played here was filmed by playing its record through the rules again")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_film_made_from_the_notices_of_play_is_the_film_of_the_replay(name, monkeypatch):
    """The film of a game played here is made from the notices it made (no replay), and is the replay's film, so
    the viewer shows what it shows of a record read back later; a game whose last action the rules refused, or
    that never started, has no notices for every step, and is replayed."""
    whole = [record_of(name, 1, limit=10_000), record_of(name, 7), faulted(record_of(name, 4), "timeout")]
    refused = faulted(record_of(name, 3), "illegal")
    never = record_of(name, 5)
    never.actions, never.termination, never.culprit, never.detail = [], Termination.CRASH, 0, "failed to start"
    expected = {r.game_id: film(r) for r in [*whole, refused, never]}
    assert film(refused, notices_in_play(refused)) == expected[refused.game_id]
    assert film(never, []) == expected[never.game_id]
    monkeypatch.setattr("viewer.film._steps_replayed", no_replay)
    for record in whole:
        assert film(record, notices_in_play(record)) == expected[record.game_id], record.game_id


def films_of_run(out: Path) -> tuple[list[str], list[str]]:
    """A run's report films as written, and as the report makes them from its records read back (a replay)."""
    from referee.records.record import read_records
    from referee.records.store import ResultStore

    store = ResultStore(out)
    records = list(read_records(store.games_path, store.key))
    made = [(out / "report" / "films" / f"{n}.js").read_text() for n in range(len(records))]
    return made, [film_script(n, r) for n, r in enumerate(records)]


def no_film_maker(*_):
    raise AssertionError("a film maker process was started for games played on this machine")


@pytest.mark.parametrize("command", [
    ("match", "first-legal", "first-legal", "--games", "2", "--concurrency", "2"),
    ("match", "first-legal", "first-legal", "--games", "2", "--concurrency", "1"),
    ("tournament", "--bot", "first-legal", "--bot", "first-legal", "--games", "2", "--concurrency", "1"),
    ("tournament", "--bot", "first-legal", "--bot", "first-legal", "--games", "2", "--concurrency", "2",
     "--processes", "2"),
], ids=["match", "match, a game at a time", "tournament, a game at a time", "tournament in two referee processes"])
def test_the_films_of_a_run_are_made_from_its_games_notices_where_they_were_played(command, tmp_path, monkeypatch):
    """Games played on this machine, at once or one at a time, in a match (in this process) and in a
    tournament's referee worker processes, hand each game's notices to the report's films: no film maker
    process replays them, the report replays no record, and its films are those of the records replayed."""
    monkeypatch.setattr("viewer.film._steps_replayed", no_replay)  # (in this process: the report at the end)
    monkeypatch.setattr("viewer.report.FilmsAhead", no_film_maker)  # (the replaying process, for a cluster's)
    run = arena(*command, "--seed", "3", "--isolation", "none", "--out", tmp_path / "out")
    assert run.returncode == 0, run.stderr
    monkeypatch.undo()
    made, replayed = films_of_run(tmp_path / "out")
    assert len(made) == 2 and made == replayed
