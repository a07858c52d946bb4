"""The league's pages in a real browser: the front page says what the contest is and how to enter and hands out the
starter kits; the ladder follows the games as a running league finishes them, and leads to an entrant's page (its
ratings charted a line a version) and to a game in the replay viewer; every page wears the one stylesheet."""

from __future__ import annotations

import re
import tarfile

import pytest

from analysis_lines import weighed
from helpers import HOSTILE, arena, hostile
from league.analysis import AnalysisStore
from league.contest import ContestState
from league.db import LeagueDB, database_url
from league.final import FinalPlan
from league.ladder import EntrantView, VersionLine
from league.uploads import read_manifest, unpack
from helpers import league_serving as serving
from test_league_site import rewrite
from viewer.kits import STARTERS, kits, sources
from viewer.site import phase_shown, rating_plot

FELT, CREAM = "rgb(31, 81, 48)", "rgb(244, 241, 234)"  # league.css's --felt and --cream, as a browser computes them


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A served league of two sample bots, greedy in two versions (four games each), an entrant without a version
    yet, and the organiser's token: (address, folder, tokens)."""
    from test_league_uploads import token_of

    folder = tmp_path_factory.mktemp("pages") / "league"
    assert arena("league", "init", folder, "--boards", "--isolation", "none").returncode == 0
    for name in ("greedy", "random"):
        assert arena("league", "add", name, name, "--league", folder).returncode == 0
    assert arena("league", "run", folder, "--games", "4", "--concurrency", "1").returncode == 0
    assert arena("league", "update", "greedy", "greedy", "option.noise=20", "--league", folder).returncode == 0
    assert arena("league", "run", folder, "--games", "4", "--concurrency", "1").returncode == 0
    tokens = {"alice": token_of(arena("league", "entrant", "add", "alice", "--league", folder)),
              "organiser": token_of(arena("league", "token", "--organiser", "--league", folder))}
    with serving(folder) as address:
        yield address, folder, tokens


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


def test_the_front_page_says_what_the_contest_is_how_to_enter_and_offers_the_kits(page, league):
    address, _, _ = league
    page.goto(address + "/")
    assert page.inner_text("#contest h1") == "league"
    variant = page.inner_text("#variant")
    assert "two-handed" in variant and "max-hands=1" in variant and "progressive melding" in variant, variant
    assert page.locator("#deadline").count() == 0  # this league has no deadline: nothing is said of one
    enter = page.inner_text("#enter")
    assert "token" in enter and "upload" in enter, enter
    assert page.locator("#enter a[href='/login']").count() == 1
    assert page.request.get(address + page.get_attribute("#enter a[href$='PROTOCOL.md']", "href")).text() \
        .startswith("#")
    hrefs = [a.get_attribute("href") for a in page.locator("#kits a").all()]
    assert hrefs == [f"/kits/{name}.tar.gz" for name in kits()]
    assert {"python", "java", "rust", "c"} <= set(kits())
    assert "Python" in page.inner_text("#kits")
    assert page.locator("#ladder tbody td.games").count() == 2


def test_the_front_page_gives_the_contest_deadline_and_phase_when_it_has_them(page, league):
    address, folder, _ = league
    assert arena("league", "deadline", folder, "2099-01-02T03:04Z").returncode == 0
    try:
        page.goto(address + "/")
        assert page.inner_text("#deadline") == "open Entries and new versions close at 2099-01-02 03:04 UTC."
        assert page.locator("#entries-closed").count() == 0
        assert arena("league", "close", folder).returncode == 0
        try:
            page.goto(address + "/")
            assert re.fullmatch(r"closed Entries and new versions closed at \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC; "
                                r"the ladder plays on until the final\.", page.inner_text("#deadline"))
            assert page.inner_text("#deadline .phase") == "closed"
            assert page.inner_text("#entries-closed").startswith("Entries are closed")
        finally:
            assert arena("league", "close", folder, "--undo").returncode == 0
    finally:
        assert arena("league", "deadline", folder, "--none").returncode == 0
    page.goto(address + "/")
    assert page.locator("#deadline").count() == 0


def test_the_final_phases_in_a_line():
    plan = FinalPlan(top=4, versions=(1, 2, 3, 4), seed=7, rounds=2, tables=6, games=12, created=0.0)
    final = phase_shown(ContestState("final", None, 1e9, plan, 3, ()))
    assert final == {"phase": "final", "phase_line": "The final is on: the ladder's top 4 play 12 games on fresh "
                                                      "deals; the ladder plays no more."}
    assert phase_shown(ContestState("done", None, 1e9, plan, 12, ()))["phase_line"].startswith("The final is over")
    assert phase_shown(ContestState("open", None, None, None, 0, ())) == {"phase": None, "phase_line": ""}


def test_a_kit_downloads_as_a_tar_gz_of_its_sources_that_the_league_takes_as_an_upload(page, league, tmp_path):
    address, _, _ = league
    page.goto(address + "/")
    with page.expect_download() as download:
        page.click("#kits a[href='/kits/python.tar.gz']")
    assert download.value.suggested_filename == "python.tar.gz"
    path = tmp_path / "python.tar.gz"
    download.value.save_as(path)
    kit = STARTERS / "python"
    with tarfile.open(path, "r:gz") as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    assert members == {f"python/{p.relative_to(kit).as_posix()}": p.read_bytes() for p in sources(kit)}
    assert "python/bot.py" in members and "python/starter.toml" in members
    assert not [name for name in members if "__pycache__" in name]
    unpack(path, tmp_path / "unpacked")  # what an upload of it goes through first
    top, manifest = read_manifest(tmp_path / "unpacked")
    assert top.name == "python" and manifest.run == "python3 bot.py"


def test_a_kit_leaves_out_what_a_build_made(tmp_path):
    for name in ("src/main.c", "Makefile", "target/debug/bot", "build/bot", "bin/x", "obj/y.o", "__pycache__/a.pyc",
                 "node_modules/m/index.js", "src/build/kept-not.c"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    assert [p.relative_to(tmp_path).as_posix() for p in sources(tmp_path)] == ["Makefile", "src/main.c"]


def test_a_kit_name_outside_the_list_is_404(page, league):
    address, _, _ = league
    assert page.request.get(address + "/kits/python.tar.gz").headers["content-type"] == "application/gzip"
    for name in ("nothing", "python.tar.gz/..", "..", "%2e%2e%2fREADME", "..%2fpython", "python%00", "PYTHON"):
        assert page.request.get(address + f"/kits/{name}.tar.gz").status == 404, name
    assert "no such starter kit; the kits: c, cpp," in page.request.get(address + "/kits/nothing.tar.gz").text()


def test_the_entrant_page_charts_its_rating_a_line_a_version(page, league):
    address, _, _ = league
    page.goto(address + "/entrant/greedy")
    lines = page.locator("#rating-plot polyline")
    assert [line.get_attribute("data-version") for line in lines.all()] == ["1", "2"]
    for line in lines.all():
        assert line.get_attribute("points").strip()
    legend = page.locator("#rating-legend li").all_inner_texts()
    assert len(legend) == 2 and legend[0].startswith("version 1 greedy") and "noise=20" in legend[1], legend
    elo = page.locator("#rating-plot text.elo-tick").all_text_contents()
    assert len(elo) >= 3 and all(re.fullmatch(r"[+-]?\d+(\.\d+)?", t) for t in elo), elo
    games = [float(t) for t in page.locator("#rating-plot text.game-tick").all_text_contents()]
    assert games[0] == 0 and games == sorted(games) and games[-1] <= 8, games
    assert page.evaluate("getComputedStyle(document.querySelector('#rating-plot polyline')).stroke") == FELT
    page.screenshot(path=str(page.shots / "entrant.png"), full_page=True)


def test_an_entrant_steps_through_its_own_marks_in_its_replay_and_the_page_holds_no_other_seats(page, league):
    """From its game's analysis page to the replay viewer with analyse's marks on its own seats (made by hand and
    saved as the league's analyser saves them: no search), and nothing of the other seat's in the page's data."""
    from test_league_replay_marks import league_record, save_by_hand, seats_of
    from test_league_uploads import token_of

    address, folder, _ = league
    db = LeagueDB.open(database_url(folder))
    store = AnalysisStore.open(folder)
    save_by_hand(db, store, 1)
    store.close()
    record = league_record(db, 1)
    db.close()
    mine, theirs = seats_of(folder, "random", 1), seats_of(folder, "greedy", 1)
    every = weighed(record, mine | theirs)  # (as it was saved)
    marked = [w for w in every if w.mark and w.seat in mine]
    other = next(w for w in every if w.mark and w.seat in theirs)
    page.goto(address + "/login")
    page.fill("input[name=token]", token_of(arena("league", "token", "random", "--league", folder)))
    page.click("#login button")
    page.goto(address + "/entrant/random/analysis/1")
    page.click("#marked-replay")
    page.wait_for_selector("#mark-nav:not([hidden])")
    scope = page.inner_text("#mark-scope")
    assert scope.startswith(f"{len(marked)} marked decisions, ") and "every seat's" not in scope, scope
    assert all(f"random's (seat {seat})" in scope for seat in mine), scope  # whose marks they are, by name
    assert page.evaluate("[...new Set(analyses[0].decisions.map((d) => d.seat))]") == sorted(mine)
    assert page.evaluate("analyses[0].seats.map((s) => s.seat)") == sorted(mine)
    assert page.evaluate("(n) => analyses[0].decisions.some((d) => d.number === n)", other.number) is False
    page.click("#next-mark")
    first = marked[0]
    assert page.inner_text("#step-count").startswith(f"step {first.number + 1} of")
    assert page.inner_text("#analysis-step .mark").endswith(first.mark)
    assert f"(seat {first.seat}), {first.kind}: played " in page.inner_text("#analysis-step .words")
    drawn = page.locator("#eval-line polyline.side").evaluate_all("(lines) => lines.map((l) => l.dataset.seat)")
    assert drawn and set(drawn) == {str(s) for s in mine}
    page.evaluate("(n) => go(n)", other.number)  # the other seat's mark: nothing to show
    assert page.locator("#analysis-step").inner_text() == ""
    page.screenshot(path=str(page.shots / "replay-marks.png"), full_page=True)


def test_the_chart_draws_an_interval_as_a_band_where_the_history_has_one():
    view = EntrantView("x", "active", "", (
        VersionLine(1, "greedy", 10, ((2, -40.0, 90.0), (6, 10.0, 60.0), (10, 35.5, 40.0))),
        VersionLine(2, "greedy noise=20", 4, ((8, 300.0), (10, 320.0)))), (), ())
    plot = rating_plot(view)
    first, second = plot["lines"]
    assert first["band"] and not second["band"]
    band = [tuple(map(float, p.split(","))) for p in first["band"].split()]
    assert len(band) == 6 and all(plot["top"] <= y <= plot["bottom"] for _, y in band)  # the interval fits too
    elo = [int(label) for _, label in plot["elo_ticks"]]
    assert elo == sorted(elo) and elo[0] <= -40 - 90 and elo[-1] >= 320
    for shown in (plot, rating_plot(EntrantView("z", "active", "", (
            VersionLine(1, "greedy", 5, ((1, -110.0), (5, 135.0))),), (), ()))):
        heights = [y for y, _ in shown["elo_ticks"]]
        assert (max(heights), min(heights)) == (shown["bottom"], shown["top"])  # the axis ends on labelled ticks
    assert [label for _, label in plot["game_ticks"]][0] == "0" and plot["games"] == 10
    assert rating_plot(EntrantView("y", "active", "", (VersionLine(1, "random", 0, ()),), (), ()))["lines"] == []


def test_every_page_wears_the_shared_stylesheet(page, league, tmp_path):
    address, folder, tokens = league

    def check(where: str, shown=page) -> None:
        assert shown.evaluate("[...document.styleSheets].some(s => (s.href || '').endsWith('/static/league.css'))"), \
            where
        assert shown.evaluate("getComputedStyle(document.body).backgroundColor") == FELT, where
        assert shown.evaluate("getComputedStyle(document.querySelector('main')).backgroundColor") == CREAM, where

    for where in ("/", "/entrant/greedy", "/entrant/alice", "/login"):
        page.goto(address + where)
        check(where)
    page.goto(address + "/game/1/")
    page.wait_for_selector("#viewer:not([hidden]) .seat")
    check("/game/1/")
    assert page.evaluate("getComputedStyle(document.querySelector('#table-area .table')).backgroundColor") == FELT

    page.goto(address + "/login")
    page.fill("input[name=token]", tokens["organiser"])
    page.click("#login button")
    page.wait_for_selector("#entrants")
    check("/organiser")
    page.goto(address + "/entrant/greedy")
    page.click("#logs li:first-child a")
    page.wait_for_selector("#bot-log")
    check("a bot's log")
    page.click("header form button")  # log out

    page.goto(address + "/login")
    page.fill("input[name=token]", tokens["alice"])
    page.click("#login button")
    page.wait_for_selector("#upload")
    (tmp_path / "kit.tar.gz").write_bytes(page.request.get(address + "/kits/python.tar.gz").body())
    page.set_input_files("#upload input[type=file]", str(tmp_path / "kit.tar.gz"))
    page.click("#upload button")
    page.click("#builds-table tbody tr:first-child a")
    # (built in the jail where there is one; without, it fails: either way a page that is done)
    page.wait_for_selector("#build-status.build-passed, #build-status.build-failed", timeout=120_000)
    check("a build")

    refused = page.context.new_page()  # (its 404 is expected, not an error of the page)
    assert refused.goto(address + "/entrant/nobody").status == 404
    assert refused.inner_text("#refused") == "no such entrant"
    check("a refusal", refused)
    refused.close()


def test_the_pages_fit_a_phone_without_scrolling_sideways(page, league):
    address, _, _ = league
    page.set_viewport_size({"width": 390, "height": 800})
    for where in ("/", "/entrant/greedy", "/game/1/", "/login"):
        page.goto(address + where)
        if where == "/game/1/":
            page.wait_for_selector("#viewer:not([hidden]) .seat")
        # (a wide table scrolls inside its own box; the page itself stays the phone's width)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, where
    page.screenshot(path=str(page.shots / "phone.png"), full_page=True)
