"""The analysis in the report (viewer/marks.py, viewer/report.py): what a page embeds of ``analysis.jsonl`` for each
game, the lines that do not fit a record left out, hostile text escaped, and no trace of it without analysis.
The viewer's behaviour in Chromium is tests/browser/test_report_analysis.py's."""

from __future__ import annotations

import json
import re

import attrs
import pytest
from analysis_lines import LOSSES, lines, played, weighed
from helpers import HOSTILE, arena, hostile

from analysis.summary import SeatAnalysis
from referee.records.record import read_records
from referee.records.seals import load_key
from viewer.marks import game_marks, read_marks
from viewer.report import STATIC, write_report


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    """Two games of greedy against random (a few hands each): (output folder, records)."""
    out = tmp_path_factory.mktemp("marks") / "m"
    run = arena("match", "greedy", "random", "--games", "2", "--no-duplicate", "--seed", "5", "--isolation", "none",
                "--option", "target=300", "--out", str(out))
    assert run.returncode == 0, run.stderr
    return out, list(read_records(out / "games.jsonl", load_key(out)))


def embedded(path) -> dict:
    """The analysis an ``analysis/N.js`` hands the page."""
    text = path.read_text()
    found = re.fullmatch(r"pinochleAnalysis\((\d+), (.*)\);\n", text, re.S)
    assert found, text[:200]
    return json.loads(found.group(2))


def test_a_game_embeds_its_valued_decisions_in_the_records_order_with_the_chosen_and_best_values(match):
    _, records = match
    record = records[0]
    data = game_marks(record, [SeatAnalysis.from_json(line) for line in lines(record, {0, 1})])
    valued = sorted((w for w in weighed(record, {0, 1}) if w.values), key=lambda w: w.number)
    assert [d["number"] for d in data["decisions"]] == [w.number for w in valued]
    assert data["seats"] == [{"seat": 0, "worlds": 64, "seed": 0}, {"seat": 1, "worlds": 64, "seed": 0}]
    for d, w in zip(data["decisions"], valued, strict=True):
        assert d["chosen"] == played(record, d["number"]) == w.chosen
        assert (d["seat"], d["hand"], d["mark"], d["loss"], d["noise"]) == (w.seat, w.hand, w.mark, *LOSSES[w.mark])
        assert d["best_value"] - d["chosen_value"] == pytest.approx(d["loss"])
        assert list(d["values"][0]) == [d["best"], d["best_value"]]  # best first
    assert {d["mark"] for d in data["decisions"]} == {"", "inaccuracy", "mistake", "blunder"}


def test_lines_that_do_not_fit_the_record_are_left_out_whole(match, tmp_path):
    _, records = match
    first, second = records
    good = SeatAnalysis.from_json(lines(first, {0})[0])
    changed = good.decisions[3]
    stale = attrs.evolve(good, decisions=(*good.decisions[:3], attrs.evolve(changed, chosen="ZZ"),
                                          *good.decisions[4:]))
    wrong_seat = attrs.evolve(good, seat=1)  # seat 0's actions told as seat 1's
    renamed = attrs.evolve(good, entrant="someone else")
    other_game = SeatAnalysis.from_json(lines(second, {0})[0])
    for bad in (stale, wrong_seat, renamed, other_game):
        assert game_marks(first, [bad]) is None
    assert game_marks(first, [good, wrong_seat])["seats"] == [{"seat": 0, "worlds": 64, "seed": 0}]
    broken = json.loads(good.to_json())
    valued = next(i for i, w in enumerate(good.decisions) if w.values)  # (an unvalued decision's loss is not read)
    broken["decisions"][valued]["loss"] = "a lot"
    path = tmp_path / "analysis.jsonl"
    path.write_text("\n".join([json.dumps(broken), "not json", "\x00\x01", lines(first, {1})[0]]) + "\n")
    assert read_marks(path, records)[first.game_id]["seats"] == [{"seat": 1, "worlds": 64, "seed": 0}]
    path.write_bytes(b"\xff\xfe not text")
    assert read_marks(path, records) == {}
    assert read_marks(tmp_path / "missing.jsonl", records) == {}


def test_of_a_seat_analysed_with_several_budgets_the_most_worlds_are_shown(match, tmp_path):
    _, records = match
    record = records[0]
    path = tmp_path / "analysis.jsonl"
    path.write_text("\n".join([*lines(record, {0}, worlds=64), *lines(record, {0}, worlds=1024),
                               *lines(record, {0}, worlds=256)]) + "\n")
    assert read_marks(path, records)[record.game_id]["seats"] == [{"seat": 0, "worlds": 1024, "seed": 0}]


def test_report_after_analyse_embeds_the_analysed_game_only(match):
    out, records = match
    (out / "analysis.jsonl").write_text("\n".join(lines(records[0], {0, 1})) + "\n")
    run = arena("report", str(out), "--bootstrap", "0")
    assert run.returncode == 0, run.stderr
    report = out / "report"
    page = (report / "index.html").read_text()
    assert '<script src="analysis.js"></script>\n<script src="report.js"></script>' in page
    games = json.loads(re.search(r"window.REPORT_GAMES = (.*);</script>", page).group(1))
    assert [g.get("analysis", False) for g in games] == [True, False]
    assert sorted(p.name for p in (report / "analysis").iterdir()) == ["0.js"]
    assert (report / "analysis.js").read_text() == (STATIC / "analysis.js").read_text()
    for name in ("analysis.js", "analysis/0.js"):
        assert "http://" not in (report / name).read_text()  # nothing is fetched: it works offline
    data = embedded(report / "analysis" / "0.js")
    assert len(data["decisions"]) == sum(1 for w in weighed(records[0], {0, 1}) if w.values)


def test_without_analysis_the_report_is_the_one_before_it(match, tmp_path):
    _, records = match
    before = write_report(records, tmp_path / "a", "t", bootstrap=0).read_text()
    missing = write_report(records, tmp_path / "b", "t", bootstrap=0, analysis=tmp_path / "none.jsonl").read_text()
    assert missing == before
    assert "analysis" not in before
    assert not (tmp_path / "b" / "analysis").exists() and not (tmp_path / "b" / "analysis.js").exists()
    path = tmp_path / "analysis.jsonl"
    path.write_text(lines(records[1], {0})[0] + "\n")
    write_report(records, tmp_path / "b", "t", bootstrap=0, analysis=path)
    assert (tmp_path / "b" / "analysis" / "1.js").is_file()
    again = write_report(records, tmp_path / "b", "t", bootstrap=0, analysis=tmp_path / "none.jsonl").read_text()
    assert again == before  # a report written again without the analysis keeps none of the earlier one's
    assert not (tmp_path / "b" / "analysis").exists() and not (tmp_path / "b" / "analysis.js").exists()


def test_hostile_names_and_actions_are_escaped_in_the_embedded_analysis(match, tmp_path):
    _, records = match
    record = hostile(records[0])
    path = tmp_path / "analysis.jsonl"
    path.write_text("\n".join(lines(record, {0, 1}, best=HOSTILE)) + "\n")
    write_report([record], tmp_path / "r", "t", bootstrap=0, analysis=path)
    text = (tmp_path / "r" / "analysis" / "0.js").read_text()
    assert not set("<>&") & set(text)
    data = embedded(tmp_path / "r" / "analysis" / "0.js")
    assert {d["best"] for d in data["decisions"] if d["mark"]} == {HOSTILE}
