"""A game's analysis in the report's replay viewer, in Chromium: the marks on the steps, the chosen action beside the
best, next and previous mark (every seat's, or the viewed seat's), the evaluation line, hostile text shown as text,
and a viewer without analysis as it was. The analysis is made by hand (tests/analysis_lines.py): no search."""

from __future__ import annotations

import re

import pytest
from analysis_lines import lines, weighed
from helpers import HOSTILE, arena, hostile

from referee.records.record import read_records
from referee.records.seals import load_key
from viewer.report import write_report


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """Two games of greedy against random, the first analysed for both seats, in a report: (folder, records)."""
    out = tmp_path_factory.mktemp("analysed") / "m"
    run = arena("match", "greedy", "random", "--games", "2", "--no-duplicate", "--seed", "5", "--isolation", "none",
                "--option", "target=300", "--out", str(out))
    assert run.returncode == 0, run.stderr
    records = list(read_records(out / "games.jsonl", load_key(out)))
    (out / "analysis.jsonl").write_text("\n".join(lines(records[0], {0, 1})) + "\n")
    run = arena("report", str(out), "--bootstrap", "0")
    assert run.returncode == 0, run.stderr
    return out, records


def open_game(page, out, record):
    page.goto((out / "report" / "index.html").as_uri() + f"#game-{record.game_id}")
    page.wait_for_selector("#viewer:not([hidden]) .seat")


def step(page) -> int:
    """The step shown, from 0 (the deal): the action's number in the record."""
    return int(re.match(r"step (\d+) of", page.inner_text("#step-count")).group(1)) - 1


def walk_marks(page, key: str) -> list[int]:
    """The steps the key visits, pressed until the step stays put: once for real, then the same key events from
    the page, in one call."""
    page.keyboard.press(key)
    return page.evaluate("""(key) => {
        const step = () => Number(/step (\\d+) of/.exec(document.getElementById("step-count").innerText)[1]) - 1;
        const seen = [step()];
        for (;;) {
            document.dispatchEvent(new KeyboardEvent("keydown", { key }));
            if (step() === seen[seen.length - 1]) return seen;
            seen.push(step());
        }
    }""", key)


def test_next_and_previous_mark_visit_every_marked_decision_and_show_it_beside_the_best(page, analysed):
    out, records = analysed
    record = records[0]
    marked = [w for w in weighed(record, {0, 1}) if w.mark]
    open_game(page, out, record)
    page.wait_for_selector("#mark-nav:not([hidden])")
    assert page.inner_text("#mark-scope").startswith(f"{len(marked)} marked decisions, every seat's")
    page.focus("body")
    assert walk_marks(page, "n") == [w.number for w in marked]
    assert page.locator("#next-mark").is_disabled()
    page.keyboard.press("p")
    assert step(page) == marked[-2].number
    page.keyboard.press("Home")
    assert page.locator("#previous-mark").is_disabled()
    page.click("#next-mark")
    page.click("#next-mark")
    first, second = marked[:2]
    assert step(page) == second.number
    mark = page.locator("#analysis-step .mark")
    assert mark.inner_text() == {"inaccuracy": "?! inaccuracy", "mistake": "? mistake", "blunder": "?? blunder"}[
        second.mark]  # a sign and a word: not colour alone
    assert mark.get_attribute("class") == f"mark mark-{second.mark}"
    words = page.inner_text("#analysis-step .words")
    chosen = second.values[second.chosen]
    assert f"(seat {second.seat}), {second.kind}: played " in words
    assert f"{chosen:+.1f}; best " in words and f"{second.values[second.best]:+.1f} (points for its side)" in words
    assert words.endswith(f"lost {second.loss:.1f} \u00B1 {second.noise:.1f}")
    page.click("#previous-mark")
    assert step(page) == first.number


def test_an_unmarked_step_says_the_best_was_played_and_a_step_of_no_decision_says_nothing(page, analysed):
    out, records = analysed
    unmarked = next(w for w in weighed(records[0], {0, 1}) if w.values and not w.mark)
    open_game(page, out, records[0])
    page.wait_for_selector("#mark-nav:not([hidden])")
    assert page.locator("#analysis-step").inner_text() == ""  # the deal: no decision
    page.evaluate("(n) => go(n)", unmarked.number)
    assert page.locator("#analysis-step .mark").count() == 0
    assert page.inner_text("#analysis-step .words").endswith(", the best (points for its side)")


def test_a_seats_view_goes_to_its_own_marks_only(page, analysed):
    out, records = analysed
    record = records[0]
    theirs = [w.number for w in weighed(record, {0, 1}) if w.mark and w.seat == 1]
    other = next(w for w in weighed(record, {0, 1}) if w.mark and w.seat == 0)
    open_game(page, out, record)
    page.wait_for_selector("#mark-nav:not([hidden])")
    page.select_option("#view-select", "1")
    assert page.inner_text("#mark-scope").startswith(f"{len(theirs)} marked decisions, {record.seats[1].entrant}'s "
                                                     "(seat 1)")
    page.focus("body")
    assert walk_marks(page, "n") == theirs
    page.evaluate("(n) => go(n)", other.number)  # seat 0's mark, in seat 1's view: not shown
    assert page.locator("#analysis-step").inner_text() == ""
    assert page.locator("#eval-line polyline[data-seat='0']").count() == 0


def test_the_evaluation_line_draws_each_side_a_hand_at_a_time_and_follows_the_step(page, analysed):
    out, records = analysed
    record = records[0]
    decisions = [w for w in weighed(record, {0, 1}) if w.values]
    open_game(page, out, record)
    page.wait_for_selector("#eval-line:not([hidden]) svg")
    chart = page.locator("#eval-line > svg")
    for seat in (0, 1):
        hands = {w.hand for w in decisions if w.seat == seat}
        assert chart.locator(f"polyline[data-seat='{seat}']").count() == len(hands)
    symbols = chart.locator(".mark-symbol")
    assert symbols.count() == sum(1 for w in decisions if w.mark)
    assert sorted(set(symbols.evaluate_all("ss => ss.map(s => s.tagName)"))) == ["circle", "path", "rect"]
    assert "marks: \u25CB inaccuracy, \u25A1 mistake, \u25B3 blunder" in page.inner_text("#eval-line figcaption")
    page.focus("body")
    page.keyboard.press("n")
    at = step(page)
    now = float(chart.locator("line.now").get_attribute("x1"))
    centre = chart.evaluate("""(svg, at) => {
        const mark = [...svg.querySelectorAll(".mark-symbol")].find((s) => s.textContent.startsWith(`step ${at + 1}:`));
        const box = mark.getBBox();
        return box.x + box.width / 2;
    }""", at)
    assert now == pytest.approx(centre, abs=0.2)  # the current step's line through its mark
    page.keyboard.press("End")
    assert float(chart.locator("line.now").get_attribute("x1")) > now
    box = chart.bounding_box()
    chart.click(position={"x": 1, "y": box["height"] / 2})  # a click left of the first step: the deal
    assert step(page) == 0 < at


def test_a_game_without_analysis_shows_the_viewer_as_without_the_file(page, analysed, tmp_path):
    out, records = analysed
    open_game(page, out, records[1])  # not analysed, in a report with analysis
    viewer = page.inner_html("#viewer")
    assert page.locator("#mark-nav, #analysis-step, #eval-line").count() == 0
    bare = write_report(records, tmp_path / "bare", "bare", bootstrap=0)
    page.goto(bare.as_uri() + f"#game-{records[1].game_id}")
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    assert page.inner_html("#viewer") == viewer
    assert page.evaluate("[...document.scripts].map(s => s.getAttribute('src')).filter(s => s && s.startsWith('analysis'))") == []
    page.goto((out / "report" / "index.html").as_uri() + f"#game-{records[0].game_id}")  # analysed, then not
    page.wait_for_selector("#mark-nav:not([hidden])")
    page.click("#game-list tbody tr:nth-child(2) a")
    page.wait_for_function("() => document.getElementById('mark-nav').hidden")
    assert page.locator("#analysis-step").is_hidden() and page.locator("#eval-line").is_hidden()


def test_hostile_names_and_actions_are_shown_as_text(page, analysed, tmp_path):
    _, records = analysed
    record = hostile(records[0])
    path = tmp_path / "analysis.jsonl"
    path.write_text("\n".join(lines(record, {0, 1}, best=HOSTILE)) + "\n")
    page.goto(write_report([record], tmp_path / "r", "hostile", bootstrap=0, analysis=path).as_uri())
    page.click("#game-list tbody tr:first-child a")
    page.wait_for_selector("#mark-nav:not([hidden])")
    page.focus("body")
    page.keyboard.press("n")
    assert f"best {HOSTILE} " in page.inner_text("#analysis-step .words")
    assert f"{record.seats[0].entrant} (seat 0)" in page.inner_text("#eval-line figcaption")
    assert page.locator("#viewer script, #viewer x").count() == 0


def test_the_view_of_a_seat_not_analysed_says_so_and_draws_no_line(page, analysed, tmp_path):
    _, records = analysed
    record = records[0]
    path = tmp_path / "analysis.jsonl"
    path.write_text(lines(record, {0})[0] + "\n")
    page.goto(write_report([record], tmp_path / "r", "one seat", bootstrap=0, analysis=path).as_uri())
    page.click("#game-list tbody tr:first-child a")
    page.wait_for_selector("#eval-line:not([hidden]) polyline[data-seat='0']")
    page.select_option("#view-select", "1")
    assert page.inner_text("#mark-scope") == f"no decision of {record.seats[1].entrant} (seat 1) was analysed"
    assert page.locator("#eval-line").is_hidden() and page.locator("#next-mark").is_disabled()
    page.select_option("#view-select", "0")
    assert page.locator("#eval-line polyline[data-seat='0']").count() > 0
