"""Take the screenshots README, docs/league.md and docs/analysis.md show (docs/images/): a league's front page with
its ladder, an entrant's page, a game's page, the replay viewer, the play page, and the viewer's analysis marks,
from real runs on this machine. Needs Debian's chromium (as the browser tests do).

    .venv/bin/python docs/screenshots.py            # about a minute; rewrites docs/images/*.png
    .venv/bin/python docs/screenshots.py analysis   # only those named: league, play, analysis
"""

from __future__ import annotations

import datetime as dt
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
ARENA = [sys.executable, "-m", "arena"]
SIZE = {"width": 1100, "height": 800}


def arena(*args: str) -> str:
    done = subprocess.run([*ARENA, *map(str, args)], cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"pinochle-arena {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


def started(args: list[str], prefix: str) -> tuple[subprocess.Popen, str]:
    """A long-running command, and the address it prints on the line that starts with ``prefix``."""
    process = subprocess.Popen([*ARENA, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stdout:
        if line.startswith(prefix):
            return process, line.split("http", 1)[1].split()[0].join(("http", ""))
    raise SystemExit(f"no address from {' '.join(args)}: {process.stderr.read()}")


def league_pages(browser, work: Path) -> None:
    folder = work / "league"
    arena("league", "init", folder, "--boards")
    closes = dt.datetime.now(dt.UTC).replace(hour=18, minute=0) + dt.timedelta(days=30)
    arena("league", "deadline", folder, closes.strftime("%Y-%m-%dT%H:%MZ"))  # (the front page shows it)
    for name in ("tactician", "greedy", "random"):
        arena("league", "add", name, name, "--league", folder)
    arena("league", "run", folder, "--games", "40")
    arena("league", "update", "greedy", "greedy", "option.noise=20", "--league", folder)  # a second version to chart
    arena("league", "run", folder, "--games", "40")
    process, address = started(["league", "serve", str(folder), "--port", "0"], "the league's pages:")
    try:
        page = browser.new_page(viewport=SIZE)
        page.goto(address)
        page.wait_for_selector("#ladder td.games")
        page.screenshot(path=IMAGES / "league-front.png", full_page=True)
        page.goto(address.rstrip("/") + "/entrant/greedy")
        page.wait_for_selector("#rating-plot")
        page.screenshot(path=IMAGES / "league-entrant.png")  # (the top: versions, chart, opponents)
        page.goto(address.rstrip("/") + "/game/1/")
        page.wait_for_selector("#viewer:not([hidden]) .seat")
        for _ in range(14):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=IMAGES / "league-game.png", full_page=True)
        page.locator("#viewer").screenshot(path=IMAGES / "replay.png")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


def play_page(browser, work: Path) -> None:
    process, address = started(["play", "tactician", "--seed", "3", "--out", str(work / "play")], "seat ")
    try:
        page = browser.new_page(viewport=SIZE)
        page.goto(address)
        waiting = "() => !document.getElementById('request').hidden"
        for _ in range(6):
            page.wait_for_function(waiting, timeout=30_000)
            legal = page.locator(".hand .card.legal")
            (legal if legal.count() else page.locator("#choices button")).first.click()
        page.wait_for_function(waiting, timeout=30_000)
        page.screenshot(path=IMAGES / "play.png", full_page=True)
    finally:
        process.kill()
        process.wait(timeout=60)


def analysis_marks(browser, work: Path) -> None:
    """A two-handed game of random against montecarlo, analysed, in the report's viewer at a marked decision."""
    out = work / "analysed"
    arena("match", "random", "montecarlo", "--games", "1", "--no-duplicate", "--seed", "7", "--isolation", "none",
          "--option", "target=300", "--no-report", "--out", out)
    arena("analyse", out)
    arena("report", out, "--bootstrap", "0")
    page = browser.new_page(viewport=SIZE)
    page.goto((out / "report" / "index.html").as_uri() + "#game-g1")
    page.wait_for_selector("#mark-nav:not([hidden])")
    page.focus("body")
    for _ in range(3):  # a few tricks into the hand, then on to a blunder
        page.keyboard.press("n")
    while not page.locator("#analysis-step .mark-blunder").count() and page.locator("#next-mark").is_enabled():
        page.keyboard.press("n")
    page.locator("#viewer").screenshot(path=IMAGES / "analysis.png")


SHOTS = {"league": league_pages, "play": play_page, "analysis": analysis_marks}


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no chromium: apt-get install chromium")
    names = sys.argv[1:] or list(SHOTS)
    unknown = [name for name in names if name not in SHOTS]
    if unknown:
        raise SystemExit(f"no such screenshots: {', '.join(unknown)} (there are {', '.join(SHOTS)})")
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for name in names:
            SHOTS[name](browser, Path(work))
        browser.close()
    print(f"screenshots in {IMAGES.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
