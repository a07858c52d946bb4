"""Headless Chromium for the browser tests, driven by Playwright; skipped (one line) where there is none."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# as root, without the sandbox; no background connections (this machine's network is closed)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")  # not longer: other tests check that their worker leaves no process behind
def browser():
    if CHROMIUM is None:
        pytest.skip("no browser: install Debian's chromium (apt-get install chromium); make test does where it can")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is missing: pip install -e '.[test]'")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, tmp_path):
    """A page that fails the test on any script error; screenshots go to the test's tmp folder."""
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.shots = tmp_path
    yield page
    context.close()
    assert errors == [], f"script errors on the page: {errors}"
