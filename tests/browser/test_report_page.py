"""The HTML report in a real browser: its tables, its filters, and a game watched step by step in the viewer."""

from __future__ import annotations

import json
import re

import film_reference
import pytest
from helpers import HOSTILE, arena, hostile

from referee.records.record import read_records
from referee.records.seals import load_key
from referee.rules import action_from_text, events, get_variant, new_game
from viewer.report import write_report


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    """A small round robin of three sample bots, with its report: (output folder, records)."""
    out = tmp_path_factory.mktemp("report") / "t"
    run = arena("tournament", "--bot", "greedy", "--bot", "random", "--bot", "tactician", "--games", "2",
                "--option", "target=300", "--isolation", "none", "--seed", "4", "--bootstrap", "20", "--out", str(out))
    assert run.returncode == 0, run.stderr
    return out, list(read_records(out / "games.jsonl", load_key(out)))


def tricks_taken(record) -> int:
    """How many tricks the rules say were taken in the game."""
    variant = get_variant(record.variant, record.options)
    game, _ = new_game(variant, record.seed)
    taken = 0
    for entry in record.actions:
        taken += sum(isinstance(n.event, events.TrickWon) and 0 in n.seats for n in  # seat 0 sees every trick
                     game.apply(action_from_text(entry.action)))
    return taken


def test_the_report_shows_standings_faults_plots_and_filters_the_games(page, tournament):
    out, records = tournament
    page.goto((out / "report" / "index.html").as_uri())
    standings = page.locator("#standings table").first
    assert sorted(standings.locator("tbody tr td:nth-child(2)").all_inner_texts()) == ["greedy", "random", "tactician"]
    assert page.locator("#faults").inner_text().endswith("No game ended on a fault.")
    assert page.locator("#plots svg polyline").count() == 6  # three bots, two plots
    rows = page.locator("#game-list tbody tr")
    assert rows.count() == len(records) == 6
    page.select_option("#filter-bot", "random")
    assert page.locator("#game-list tbody tr:not([hidden])").count() == 4  # random's two pairings
    assert page.inner_text("#shown") == "4 of 6 games"
    page.select_option("#filter-bot", "")
    page.screenshot(path=str(page.shots / "report.png"), full_page=True)


def test_a_game_is_stepped_through_to_its_end_with_every_trick(page, tournament):
    out, records = tournament
    page.goto((out / "report" / "index.html").as_uri())
    page.click("#game-list tbody tr:first-child a")
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    steps = int(re.search(r"of (\d+)", page.inner_text("#step-count")).group(1))
    assert steps == len(records[0].actions) + 1  # the deal, then one step per action
    hand = page.locator(".seat[data-seat='0'] .hand .card")
    assert hand.count() == get_variant(records[0].variant, records[0].options).hand_size
    assert re.fullmatch(r"(10|[AKQJ9])[\u2660\u2665\u2666\u2663]", hand.first.inner_text())
    red = page.locator(".seat .hand .card.suit-H").first
    assert red.evaluate("e => getComputedStyle(e).color") == "rgb(192, 57, 43)"  # hearts in red
    page.focus("body")
    page.keyboard.press("ArrowRight")  # one real key press; then the same key events from the page, in one call
    taken = page.evaluate("""(steps) => {
        let taken = 0, inTrick = 0;
        for (let i = 0; i < steps; i++) {
            const now = document.querySelectorAll(".middle .trick .card").length;
            if (inTrick > 0 && now === 0) taken++;  // the last card of a trick empties it
            inTrick = now;
            document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
        }
        return taken;
    }""", steps - 1)
    assert page.inner_text("#step-count").startswith(f"step {steps} of {steps}")
    assert taken == tricks_taken(records[0])
    page.click("#back")
    assert page.inner_text("#step-count").startswith(f"step {steps - 1} of")
    hands = page.locator("#hand-select option").evaluate_all("os => os.map(o => o.value)")
    assert hands == [str(h["hand"]) for h in records[0].hands]  # a jump to each hand the game played
    page.select_option("#hand-select", hands[0])
    assert re.fullmatch(rf"step \d+ of {steps}, hand {hands[0]}", page.inner_text("#step-count"))
    page.screenshot(path=str(page.shots / "viewer.png"))


def test_every_step_shows_the_hands_and_the_trick_of_the_film_that_replayed_every_seats_view(page, tournament):
    """The page keeps each seat's table from the film's events; at every step of a whole game, every hand face up
    and the trick are those of the film as it was made before (each seat's view from the rules after each step,
    tests/film_reference.py)."""
    out, records = tournament
    record = records[-1]
    players = get_variant(record.variant, record.options).players
    views: list[dict] = [{} for _ in range(players)]
    expected = []
    for step in film_reference.film(record)["steps"]:
        views = [{**views[s], **step["views"][s]} for s in range(players)]
        expected.append({"hands": [views[s]["cards"].split() for s in range(players)],
                         "trick": [card for _, card in views[0]["trick"]]})
    page.goto((out / "report" / "index.html").as_uri() + f"#game-{record.game_id}")
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    shown = page.evaluate("""(players) => {
        const shown = [];
        const cardsIn = (selector) => [...document.querySelectorAll(selector)].map((c) => c.dataset.card);
        do {
            shown.push({ hands: Array.from({ length: players },
                                           (_, s) => cardsIn(`.seat[data-seat='${s}'] .hand .card`)),
                         trick: cardsIn(".middle .trick .card") });
            document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
        } while (shown.length < 5000 && !document.getElementById("step-count").innerText.startsWith(
            `step ${shown.length} of ${shown.length},`));
        return shown;
    }""", players)
    assert shown == expected


def test_a_seats_view_shows_its_own_hand_and_only_the_backs_of_the_others(page, tournament):
    out, records = tournament
    page.goto((out / "report" / "index.html").as_uri() + f"#game-{records[0].game_id}")  # the address names its id
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    for _ in range(12):
        page.keyboard.press("ArrowRight")
    everything = {s: page.locator(f".seat[data-seat='{s}'] .hand .card").evaluate_all(
        "cs => cs.map(c => c.dataset.card)") for s in (0, 1)}
    page.select_option("#view-select", "1")
    seen = {s: page.locator(f".seat[data-seat='{s}'] .hand .card").evaluate_all(
        "cs => cs.map(c => c.dataset.card)") for s in (0, 1)}
    assert seen[1] == everything[1]  # its own hand, face up
    assert seen[0] == ["hidden"] * len(everything[0])  # the other's: as many backs as it holds, no card named
    assert page.locator(".seat.place-bottom").get_attribute("data-seat") == "1"  # its chair at the bottom
    page.screenshot(path=str(page.shots / "seat-view.png"))


def test_the_table_looks_like_a_card_game_trump_target_totals_and_whose_turn(page, tournament):
    out, records = tournament
    record = records[0]
    page.goto((out / "report" / "index.html").as_uri() + f"#game-{record.game_id}")
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    assert page.locator(".seat.place-bottom").get_attribute("data-seat") == "0"
    assert page.locator(".seat .hand .card svg.face").count() > 0  # faces drawn, not only letters
    board = page.inner_text(".scoreboard")
    target = get_variant(record.variant, record.options).target
    assert f"to {target}" in board and all(name in board for name in (s.entrant for s in record.seats))
    page.focus("body")
    for step, action in enumerate(record.actions[:6]):  # the seat marked to act is the one that acts next
        assert page.locator(".seat.to-act").get_attribute("data-seat") == str(action.seat), step
        assert page.locator(".scoreboard .total.to-act").get_attribute("data-seat") == str(action.seat)
        page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    totals = page.locator(".scoreboard .total b").all_inner_texts()
    assert totals == [str(t) for t in record.totals] or record.termination.value != "completed"


def test_a_faulted_game_is_highlighted_at_its_last_step(page, tmp_path):
    faulty = f"python3 {json.dumps(str(__import__('pathlib').Path(__file__).parents[1] / 'bots' / 'faulty.py'))[1:-1]}"
    out = tmp_path / "m"
    run = arena("match", "greedy", f"{faulty} illegal 3", "--games", "2", "--seed", "1", "--isolation", "none",
                "--option", "target=300", "--out", str(out))
    assert run.returncode == 0, run.stderr
    page.goto((out / "report" / "index.html").as_uri())
    assert page.locator("#faults table").first.locator("tbody tr").count() >= 1
    page.click("#game-list tbody tr.faulted a >> nth=0")
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    page.keyboard.press("End")
    assert page.locator("#step-text.fault").count() == 1
    assert "illegal" in page.inner_text("#step-text")


def test_bot_text_that_opens_a_script_inside_the_page_leaves_every_game_in_the_table(page, tournament, tmp_path):
    _, records = tournament
    records = [hostile(r, fault=n == 0) for n, r in enumerate(records)]
    page.goto(write_report(records, tmp_path / "report", "hostile", bootstrap=20).as_uri())
    rows = page.locator("#game-list tbody tr")
    assert rows.count() == len(records) == 6
    assert rows.first.locator("td").last.inner_text() == f"crash by {records[0].seats[0].entrant}: said {HOSTILE}"
    page.click("#game-list tbody tr:first-child a")
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    page.keyboard.press("End")
    assert HOSTILE in page.inner_text("#step-text")
