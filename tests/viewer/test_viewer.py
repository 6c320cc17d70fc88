"""The HTML viewer in a real headless Chromium (Debian's), driven through Selenium."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.registry import get_game
from harness.replay import replay
from harness.viewer.html import render_html
from tests.browser import chromium, require_browser

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"
require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    result = asyncio.run(replay(RECORD, get_game("lighthouse")))
    assert result.clean
    path = tmp_path_factory.mktemp("viewer") / "episode.html"
    path.write_text(render_html(get_game("lighthouse").view, result.lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"))
    try:
        yield driver
    finally:
        driver.quit()


def recorded_ticks() -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in RECORD.read_text().splitlines()]
    return [line for line in lines if line["type"] == "tick"]


def shown_board(driver: Any) -> list[str]:
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll('#board .cell'))"
        ".map(c => [Number(c.dataset.y), c.dataset.glyph]);"
    )
    rows: dict[int, str] = {}
    for y, glyph in cells:
        rows[y] = rows.get(y, "") + glyph
    return [rows[y] for y in sorted(rows)]


def label(driver: Any) -> str:
    text: str = driver.find_element(By.ID, "tick-label").text
    return text


def test_the_page_loads_offline(browser: Any, page: Path) -> None:
    browser.get(page.as_uri())
    assert browser.title.startswith("Lighthouse - llm-keeper-retries-fallbacks")
    assert label(browser) == "start"
    # nothing was fetched: no external script, style, font or image
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    html = page.read_text()
    assert "http://" not in html.replace("http://www.w3.org", "")
    assert "https://" not in html


def test_next_and_slider_change_the_shown_tick_and_board(browser: Any, page: Path) -> None:
    browser.get(page.as_uri())
    ticks = recorded_ticks()
    slider = browser.find_element(By.ID, "slider")
    assert slider.get_attribute("max") == str(len(ticks))
    browser.find_element(By.ID, "next").click()
    assert label(browser) == "tick 0"
    assert shown_board(browser) == ticks[0]["state"]["grid"]
    browser.find_element(By.ID, "next").click()
    assert label(browser) == "tick 1"
    # the slider, moved as a person would (set and input event)
    k = 5
    browser.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        k + 1,
    )
    assert label(browser) == f"tick {k}"
    assert shown_board(browser) == ticks[k]["state"]["grid"]
    browser.find_element(By.ID, "prev").click()
    assert label(browser) == f"tick {k - 1}"
    assert shown_board(browser) == ticks[k - 1]["state"]["grid"]


def test_each_seats_raw_reply_notes_and_source(browser: Any, page: Path) -> None:
    browser.get(page.as_uri())
    ticks = recorded_ticks()
    for k in (1, 3, 5):  # a retry, a parse fallback, an API fallback
        browser.execute_script(
            "const s = document.getElementById('slider'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('input'));",
            k + 1,
        )
        keeper = browser.find_element(By.CSS_SELECTOR, '.seat[data-seat="keeper"]')
        assert (
            keeper.find_element(By.CLASS_NAME, "source").text
            == ticks[k]["seats"]["keeper"]["source"]
        )
        assert keeper.find_element(By.CLASS_NAME, "raw").text == ticks[k]["seats"]["keeper"]["raw"]
    notes = browser.find_element(By.CSS_SELECTOR, '.seat[data-seat="keeper"] .notes').text
    assert notes == "notes: fixed"  # set by the retry at tick 1, kept since


def test_play_advances_and_pause_stops(browser: Any, page: Path) -> None:
    browser.get(page.as_uri())
    browser.find_element(By.ID, "play").click()
    WebDriverWait(browser, 10).until(
        lambda d: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-frame")) >= 2
    )
    browser.find_element(By.ID, "play").click()  # pause
    stopped = browser.find_element(By.TAG_NAME, "body").get_attribute("data-frame")
    browser.execute_script("return new Promise(r => setTimeout(r, 1500));")
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == stopped
    assert browser.find_element(By.ID, "play").text == "play"
