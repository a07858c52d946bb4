"""Bad input from users, fuzzed: configurations and results files.

(The protocol parser is fuzzed in test_protocol.py.) A configuration gives
a TournamentConfig or a ConfigError, never another exception; a damaged
results file gives a RecordError naming the damaged line, and recovery for
--resume keeps every intact game.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from helpers import arena
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.records.record import RecordError, read_records
from referee.records.seals import load_key
from tournaments.config import ConfigError, load_config, parse_config
from referee.records.store import StoreError
from tournaments.store import ResultStore

KEYS = ["tournament", "time", "bot", "team", "limits", "name", "format", "variant", "options", "games_per_pairing",
        "seed", "concurrency", "duplicate", "output", "candidate", "anchor", "restart", "isolation", "clean_env",
        "bank", "increment", "move", "grace", "command", "sample", "cwd", "env", "bots", "memory", "cpu",
        "processes", "open_files", "file_size", "target", "scale", "round-robin", "gauntlet", "random", "greedy"]
scalars = st.one_of(st.sampled_from(KEYS), st.text(max_size=8), st.integers(-5, 3000), st.booleans(),
                    st.floats(allow_nan=False))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=12)
SAMPLE_BOTS = [{"name": "a", "sample": "random"}, {"name": "b", "sample": "greedy"}]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.dictionaries(st.sampled_from(KEYS), values, max_size=5))
def test_any_config_data_gives_a_config_or_a_config_error(data, tmp_path_factory):
    where = tmp_path_factory.mktemp("cfg") / "fuzz.toml"
    try:
        parse_config(data, where)
    except ConfigError as e:
        assert str(e).startswith(str(where))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournament=st.dictionaries(st.sampled_from(KEYS), values, max_size=4),
       bot=st.dictionaries(st.sampled_from(KEYS), values, max_size=4))
def test_nearly_right_configs_give_a_config_or_a_config_error(tournament, bot, tmp_path_factory):
    """Well-formed around one fuzzed table, so the checks deeper in are reached too."""
    where = tmp_path_factory.mktemp("cfg") / "fuzz.toml"
    for data in ({"tournament": tournament, "bot": SAMPLE_BOTS},
                 {"bot": [*SAMPLE_BOTS, {"name": "c", "sample": "random", **bot}]},
                 {"bot": SAMPLE_BOTS, "limits": bot}):
        try:
            parse_config(data, where)
        except ConfigError:
            pass


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200))
def test_any_config_text_gives_a_config_or_a_config_error(text, tmp_path_factory):
    path = tmp_path_factory.mktemp("cfg") / "fuzz.toml"
    path.write_text(text, encoding="utf-8")
    try:
        load_config(path)
    except ConfigError as e:
        assert str(path) in str(e)


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory) -> Path:
    """A real results directory: four short games between sample bots, their key and their schedule."""
    out = tmp_path_factory.mktemp("match") / "m"
    played = arena("match", "random", "greedy", "--games", "4", "--seed", "3", "--option", "target=200", "--out", str(out))
    assert played.returncode == 0, played.stderr
    return out


@pytest.fixture(scope="module")
def results(results_dir) -> bytes:
    return (results_dir / "games.jsonl").read_bytes()


def _beside(results_dir: Path, where: Path) -> None:
    """Copy the key, schedule and ledger of ``results_dir`` to ``where``, so records written there can be
    checked."""
    for name in ("secret.key", "schedule.jsonl", "ledger.jsonl"):
        shutil.copy(results_dir / name, where / name)


def _line_of(data: bytes, position: int) -> int:
    return data.count(b"\n", 0, position) + 1


damage = st.one_of(
    st.tuples(st.just("cut"), st.floats(0.01, 0.99)),
    st.tuples(st.just("byte"), st.floats(0, 0.999), st.integers(0, 255)),
    st.tuples(st.just("junk"), st.floats(0, 1), st.binary(min_size=1, max_size=40)),
)


def _damaged(data: bytes, how) -> tuple[bytes, int]:
    """The damaged file and the number of the (first) damaged line."""
    kind, where, *rest = how
    at = int(where * len(data))
    if kind == "cut":
        return data[:at], _line_of(data, at)
    if kind == "byte":
        damaged = data[:at] + bytes([rest[0]]) + data[at + 1:]
        if rest[0] == ord("\n") and (at == 0 or data[at - 1] == ord("\n")):
            # the line's first byte became a newline: a blank line (skipped), then the rest of the record
            return damaged, _line_of(data, at) + 1
        return damaged, _line_of(data, at)
    start = data.rfind(b"\n", 0, at) + 1  # a line of junk inserted between two records
    junk = rest[0].replace(b"\n", b" ")
    return data[:start] + junk + b"\n" + data[start:], _line_of(data, start)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=damage)
def test_damaged_results_name_the_line_and_resume_keeps_every_intact_game(how, results, results_dir, tmp_path):
    data, line = _damaged(results, how)
    path = tmp_path / "games.jsonl"
    path.write_bytes(data)
    _beside(results_dir, tmp_path)
    key = load_key(tmp_path)
    try:
        read = list(read_records(path, key))
    except RecordError as e:
        assert re.search(rf"games\.jsonl:{line}: (not a valid game record|not written by this referee)", str(e)), \
            (str(e), line)
    else:
        def lines(data: bytes) -> list[bytes]:
            return [line for line in data.split(b"\n") if line.strip()]

        if how[0] == "cut":  # cut at the end of a line: a shorter file of whole records, each of them read
            assert results.startswith(data) and len(read) == len(lines(data))
        else:
            assert lines(data) == lines(results) and len(read) == 4, "a seal notices any damage; blank lines are skipped"
    store = ResultStore(tmp_path)
    intact = [x for i, x in enumerate(results.split(b"\n")[:-1], 1) if x in data.split(b"\n")]
    damaged = [json.loads(x)["game_id"] for x in results.split(b"\n")[:-1] if x not in intact]
    try:
        recovered = store.recover()
    except StoreError as e:  # a record the run wrote is gone: a resume refuses to play its game again (the ledger)
        assert damaged and all(game in str(e) for game in damaged), (str(e), damaged)
        return
    assert not damaged
    assert len(recovered.records) == len(intact)
    assert list(read_records(path, key)) == recovered.records  # the file is clean after recovery
    assert [r.game_id for r in recovered.records] == sorted({r.game_id for r in recovered.records},
                                                             key=lambda g: int(g[1:]))


def test_a_corrupt_results_file_is_a_clear_cli_error(results, results_dir, tmp_path):
    _beside(results_dir, tmp_path)
    path = tmp_path / "games.jsonl"
    lines = results.split(b"\n")
    path.write_bytes(b"\n".join([lines[0], lines[1][:50] + b"\xff" + lines[1][51:], *lines[2:]]))
    done = arena("ratings", str(path))
    assert done.returncode == 2
    assert f"{path}:2: not a valid game record" in done.stderr and "Traceback" not in done.stderr


def test_config_examples_in_the_repo_load():
    for path in sorted(Path(__file__).resolve().parent.parent.joinpath("tournaments").glob("*.toml")):
        tomllib.loads(path.read_text())
        load_config(path)


@pytest.mark.parametrize("command", ["ratings", "replay", "report", "analyse"])
def test_a_file_that_holds_no_record_is_named_as_not_a_games_file(command, tmp_path):
    """Any file given where a results folder or its games.jsonl goes, and holding no record (a note, a config):
    one line that says so, not that its seal's key is missing beside it."""
    note = tmp_path / "notes.txt"
    note.write_text("my bot's results\nare in results/first\n")
    done = arena(command, str(note))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith(f"{note}: not a games.jsonl (no line of it is a game's record): give the "
                                        "--out folder of a match, tournament or sprt, or its games.jsonl")


def test_report_takes_a_games_file_and_writes_the_report_beside_it(results, results_dir, tmp_path):
    _beside(results_dir, tmp_path)
    (tmp_path / "games.jsonl").write_bytes(results)
    done = arena("report", str(tmp_path / "games.jsonl"), "--bootstrap", "10")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report" / "index.html").is_file() and (tmp_path / "report" / "films" / "3.js").is_file()
