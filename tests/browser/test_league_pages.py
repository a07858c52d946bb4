"""The league's ladder in a real browser: it follows the games as a running league finishes them, and leads to an
entrant's page and to a game in the replay viewer."""

from __future__ import annotations

import re

import pytest

from helpers import HOSTILE, arena, hostile
from test_league_site import rewrite, serving


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
        # (the page may show a game or three while the run goes on: it follows them to the last)
        page.wait_for_function("[...document.querySelectorAll('#ladder tbody td.games')]"
                               ".map(td => td.textContent).join() === '4,4'")
        assert page.evaluate("window.notReloaded") is True
        assert sorted(page.locator("#ladder tbody td.games").all_inner_texts()) == ["4", "4"]
        page.screenshot(path=str(page.shots / "ladder.png"), full_page=True)
        page.click("text=greedy")
        page.wait_for_selector("#meetings")
        assert re.fullmatch(r"random\s+4\s+\d+\s+\d+\s+\d+", page.inner_text("#meetings tbody tr").strip())
        page.click("#recent tbody tr:first-child a")
        page.wait_for_selector("#viewer:not([hidden]) .seat")
        assert page.inner_text("#step-text")


def test_a_game_whose_bots_wrote_script_tags_is_shown_whole(page, tmp_path):
    folder = tmp_path / "league"
    assert arena("league", "init", folder, "--isolation", "none").returncode == 0
    for name in ("greedy", "random"):
        assert arena("league", "add", name, name, "--league", folder).returncode == 0
    assert arena("league", "run", folder, "--games", "1", "--concurrency", "1").returncode == 0
    rewrite(folder, 1, lambda record: hostile(record, fault=True))
    with serving(folder) as address:
        page.goto(address + "/game/1/")
        page.wait_for_selector("#viewer:not([hidden]) .seat")
        assert page.locator("#game-list tbody tr").count() == 1
        assert page.locator("#game-list tbody td").last.inner_text().endswith(f": said {HOSTILE}")
        page.keyboard.press("End")
        assert HOSTILE in page.inner_text("#step-text")


def test_an_entrant_logs_in_uploads_through_the_form_and_climbs_and_the_organiser_pauses_it(page, tmp_path):
    from referee.bots import jail
    from test_league_uploads import kit_zip, token_of

    if jail.problem():
        pytest.skip("uploads are built in the jail, which this machine lacks")
    folder = tmp_path / "league"
    assert arena("league", "init", folder, "--boards").returncode == 0
    assert arena("league", "add", "random", "random", "--league", folder).returncode == 0
    token = token_of(arena("league", "entrant", "add", "alice", "--league", folder))
    token_of(arena("league", "entrant", "add", "bob", "--league", folder))
    organiser = token_of(arena("league", "token", "--organiser", "--league", folder))
    (tmp_path / "bot.zip").write_bytes(kit_zip())
    (tmp_path / "broken.zip").write_bytes(kit_zip(manifest='build = "exit 7"\nrun = "python3 bot.py"\n'))
    (tmp_path / "escape.zip").write_bytes(kit_zip(extra=[("../../escape.py", "x")]))
    with serving(folder) as address:
        page.goto(address + "/login")
        page.fill("input[name=token]", token)
        page.click("#login button")
        page.wait_for_selector("#upload")
        refusals = page.context.new_page()  # the same session; its refusals (400, 403) are expected, not errors
        refusals.goto(address + "/entrant/alice")
        refusals.set_input_files("#upload input[type=file]", str(tmp_path / "escape.zip"))
        refusals.click("#upload button")
        assert "leaves the archive's folder" in refusals.inner_text("#refused")  # refused at once, with why
        assert refusals.goto(address + "/entrant/bob/builds/1").status == 403  # another's build log
        assert refusals.goto(address + "/entrant/bob/logs/bob.w0.stderr.log").status == 403  # another's bot log
        refusals.goto(address + "/entrant/bob")
        assert refusals.locator("#upload").count() == 0  # no form to upload as bob
        refusals.close()
        page.set_input_files("#upload input[type=file]", str(tmp_path / "bot.zip"))
        page.click("#upload button")
        page.click("#builds-table tbody tr:first-child a")
        page.wait_for_selector("#build-status.build-passed", timeout=120_000)  # the page reloads until it is done
        assert "PASSED: version 1 of alice plays from now on" in page.inner_text("#build-log")
        page.screenshot(path=str(page.shots / "build.png"), full_page=True)

        page.goto(address + "/entrant/alice")
        page.set_input_files("#upload input[type=file]", str(tmp_path / "broken.zip"))
        page.click("#upload button")
        page.click("#builds-table tbody tr:first-child a")
        page.wait_for_selector("#build-status.build-failed", timeout=120_000)
        assert "exit status 7" in page.inner_text("#build-status")

        assert arena("league", "run", folder, "--games", "4", "--concurrency", "1").returncode == 0
        page.goto(address + "/")
        page.wait_for_function("document.querySelectorAll('#ladder tbody td.games').length === 2")
        row = page.locator("#ladder tbody tr", has_text="alice").inner_text()
        # version 1 (the broken upload never entered), its bot, rated
        assert re.search(r"alice\s+1\s+python3 bot\.py\s+[+-]\d+", row), row

        page.click("header form button")  # log out
        page.goto(address + "/login")
        page.fill("input[name=token]", organiser)
        page.click("#login button")
        page.wait_for_selector("#entrants")
        page.locator("#entrants tr", has_text="alice").locator("button[value=pause]").click()
        page.wait_for_selector("#entrants tr:has-text('alice') td.status:has-text('paused by the organiser')")
