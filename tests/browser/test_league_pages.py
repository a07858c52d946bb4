"""The league's ladder in a real browser: it follows the games as a running league finishes them, and leads to an
entrant's page and to a game in the replay viewer."""

from __future__ import annotations

import re

from helpers import arena
from test_league_site import serving


def test_the_ladder_follows_a_running_league_without_a_reload(page, tmp_path):
    folder = tmp_path / "league"
    assert arena("league", "init", folder, "--boards", "--isolation", "none").returncode == 0
    for name in ("greedy", "random"):
        assert arena("league", "add", name, name, "--league", folder).returncode == 0
    with serving(folder) as address:
        page.goto(address + "/")
        assert page.inner_text("#ladder tbody") == "no games yet"
        page.evaluate("window.notReloaded = true")
        assert arena("league", "run", folder, "--games", "4", "--concurrency", "1").returncode == 0
        page.wait_for_function("document.querySelectorAll('#ladder tbody td.games').length === 2")
        assert page.evaluate("window.notReloaded") is True
        assert sorted(page.locator("#ladder tbody td.games").all_inner_texts()) == ["4", "4"]
        page.screenshot(path=str(page.shots / "ladder.png"), full_page=True)
        page.click("text=greedy")
        page.wait_for_selector("#meetings")
        assert re.fullmatch(r"random\s+4\s+\d+\s+\d+\s+\d+", page.inner_text("#meetings tbody tr").strip())
        page.click("#recent tbody tr:first-child a")
        page.wait_for_selector("#viewer:not([hidden]) .seat")
        assert page.inner_text("#step-text")
