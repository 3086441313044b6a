"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright, against a live server.

No browser is downloaded: Playwright launches the system Chromium through `executable_path`
(CHROMIUM=/path overrides). Without a Chromium, or without Playwright, these tests skip and say
why. Screenshots go to test-artifacts/ (gitignored).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from webtable import REPO, Table, find_chromium, free_port

ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="module")
def browser():
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set CHROMIUM=/path/to/chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e .[test])")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True,
                              args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture()
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture()
def table(tmp_path):
    t = Table(tmp_path, free_port())
    t.start()
    yield t
    t.stop()
    t.log.close()
