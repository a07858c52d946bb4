"""A person's seat in a real browser: whole games played by clicking the legal actions the page offers."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers import ROOT

from referee.records.record import Termination, read_records
from referee.records.replay import replay_record
from referee.records.seals import load_key
from referee.rules import get_variant

WAIT = "() => !document.getElementById('request').hidden || document.getElementById('status').className === 'over'"


def start_play(out, *args) -> tuple[subprocess.Popen, str]:
    """`pinochle-arena play ...` in its own process (it serves the page while the test drives the browser)."""
    proc = subprocess.Popen([sys.executable, "-m", "arena", "play", *args, "--out", str(out), "--isolation", "none"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line.startswith("seat "):
            return proc, line.split("open ", 1)[1].strip()
    proc.wait(timeout=10)
    raise AssertionError(f"play printed no address: {proc.stderr.read()}")


def click_through(page, limit: int = 2000, asked: set | None = None, bid: bool = False) -> int:
    """Answer every request until the game is over: with ``bid``, the lowest bid when bidding (to win auctions,
    and so name trump, pass or bury cards; over a whole game that overbids, and the game drags on), else a
    highlighted card of the hand when there is one (cards are clicked where they lie), else the first choice
    offered (a pass, when bidding). Returns the number of moves; ``asked`` collects the decisions."""
    moves = 0
    while moves < limit:
        page.wait_for_function(WAIT, timeout=30_000)
        if page.locator("#status.over").count():
            return moves
        if asked is not None:
            asked.add(page.inner_text("#ask").removeprefix("Your move: "))
        bids = page.locator("#choices button[data-token^='bid:']" if bid else "#no-such-thing")
        legal_cards = page.locator(".hand .card.legal")
        choice = bids if bids.count() else legal_cards if legal_cards.count() else page.locator("#choices button")
        choice.first.click()
        moves += 1
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("variant, bots, target, decisions", [
    ("two-handed", ["greedy"], "300", {"lead", "follow", "meld"}),
    ("three-handed", ["greedy", "random"], "50", {"bid", "lead", "follow"}),  # passing: the bots name trump
])
def test_a_person_plays_a_whole_game_by_clicking(page, tmp_path, variant, bots, target, decisions):
    out = tmp_path / "p"
    proc, address = start_play(out, *bots, "--variant", variant, "--option", f"target={target}", "--seed", "5")
    try:
        page.goto(address)
        page.wait_for_function(WAIT, timeout=30_000)
        assert page.locator(".seat[data-seat='0'].to-act").count() == 1  # asked: its seat is the one to act
        mine = page.locator(".seat[data-seat='0'] .hand .card")
        assert len(set(mine.evaluate_all("cs => cs.map(c => c.getBoundingClientRect().top)"))) == 1  # one row
        for seat, name in enumerate(bots, 1):
            assert page.inner_text(f".seat[data-seat='{seat}'] .name").startswith(name)  # not "seat 1"
        asked: set[str] = set()
        moves = click_through(page, asked=asked)
        page.screenshot(path=str(page.shots / f"play-{variant}.png"))
        assert decisions <= asked
        assert "game over" in page.inner_text("#status")
        events = page.inner_text("#events")
        assert not re.search(r"\b[AKQJT9][SHDC]\b|\bpoints \d|totals \d", events), events  # words, not codes
        shown = [page.inner_text(f".seat[data-seat='{s}'] .score") for s in range(len(bots) + 1)]
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        proc.kill()
    (record,) = read_records(out / "games.jsonl", load_key(out))
    assert [s.split(",")[0] for s in shown] == [f"totals {t}" for t in record.totals]  # the final ones
    assert record.termination is Termination.COMPLETED and record.variant == variant
    assert record.seats[0].entrant == "human-0" and [s.entrant for s in record.seats[1:]] == bots
    assert sum(1 for a in record.actions if a.seat == 0) == moves  # every click was one action of seat 0
    assert replay_record(record).ok  # and the rules agree with every one of them
    assert (out / "report" / "index.html").exists()


def test_the_page_refuses_a_wrong_token_shows_only_its_seat_and_survives_a_reload(page, tmp_path, browser):
    out = tmp_path / "p"
    proc, address = start_play(out, "greedy", "--option", "target=300", "--seed", "2")
    try:
        intruder = browser.new_page()
        intruder.goto(address.replace("token=", "token=x"))
        intruder.wait_for_function("() => document.getElementById('status').className === 'over'", timeout=10_000)
        assert "this address's token is not this seat's" in intruder.inner_text("#status")
        intruder.close()
        page.goto(address)
        page.wait_for_function(WAIT, timeout=30_000)
        mine = page.locator(".seat[data-seat='0'] .hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        theirs = page.locator(".seat[data-seat='1'] .hand .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert len(mine) == 12 and "hidden" not in mine
        assert theirs and set(theirs) == {"hidden"}  # the bot's cards: backs only
        for _ in range(5):
            page.locator("#choices button").first.click()
            page.wait_for_function(WAIT, timeout=30_000)
        page.reload()  # a reloaded page is sent the game in play, and the game goes on
        page.wait_for_function(WAIT, timeout=30_000)
        assert page.locator(".seat[data-seat='0'] .hand .card").count() > 0
        click_through(page)
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()


# the decisions the seat met in one hand of each preset (seed 3, greedy bots): every kind a person may face
# (two-handed: the whole game above)
DECISIONS = {"two-handed-hoyle": {"lead", "follow", "meld"},
             "two-handed-150": {"lead", "follow", "meld"}, "two-handed-dummy": {"bid", "trump", "bury", "lead", "follow"},
             "three-handed": {"bid", "trump", "bury", "lead", "follow"},
             "four-handed": {"bid", "trump", "give", "lead", "follow"},
             "four-handed-double": {"bid", "trump", "give", "lead", "follow"},
             "call-for-partner": {"bid", "trump", "call", "give", "lead", "follow"}}


@pytest.mark.parametrize("variant", sorted(DECISIONS))
def test_a_person_finishes_a_hand_of_every_variant(page, tmp_path, variant):
    bots = ["greedy"] * (get_variant(variant).players - 1)
    out = tmp_path / "p"
    proc, address = start_play(out, *bots, "--variant", variant, "--option", "max-hands=1", "--seed", "3",
                               "--no-report")
    try:
        page.goto(address)
        asked: set[str] = set()
        click_through(page, asked=asked, bid=True)
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        proc.kill()
    assert asked == DECISIONS[variant]
    (record,) = read_records(out / "games.jsonl", load_key(out))
    assert record.termination is Termination.COMPLETED and replay_record(record).ok
