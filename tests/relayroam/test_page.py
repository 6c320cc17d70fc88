"""The playable Relayroam page in a real headless Chromium (Debian's), through Selenium,
against a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from harness.games.relayroam.observe import observe
from harness.games.relayroam.rules import new_game, step
from harness.games.relayroam.solver import solve_chamber
from harness.games.relayroam.state import chamber_setup
from tests.browser import chromium, require_browser
from tests.relayroam.live_server import running_server

require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

KEY = b"page-test-key-0123456789abcdef"
KEYS = {
    "up": Keys.ARROW_UP,
    "right": Keys.ARROW_RIGHT,
    "down": Keys.ARROW_DOWN,
    "left": Keys.ARROW_LEFT,
}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(KEY) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(driver: Any, base: str, query: str = "?seed=7") -> None:
    driver.get(f"{base}/relayroam/{query}")
    settle(driver)


def settle(driver: Any) -> None:
    """Wait until every queued request has been answered and drawn."""
    WebDriverWait(driver, 10).until(
        lambda d: (
            d.find_element(By.TAG_NAME, "body").get_attribute("data-pending") == "0"
            and d.find_element(By.ID, "phase").text != "loading"
        )
    )


def text(driver: Any, element_id: str) -> str:
    value: str = driver.find_element(By.ID, element_id).text
    return value


def shown_grid(driver: Any) -> list[str]:
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll('#grid [data-glyph]'))"
        ".map(c => [Number(c.dataset.x), Number(c.dataset.y), c.dataset.glyph]);"
    )
    rows = [[" "] * 7 for _ in range(5)]
    for x, y, glyph in cells:
        rows[y][x] = glyph
    assert len(cells) == 35
    return ["".join(row) for row in rows]


def player(driver: Any) -> tuple[int, int]:
    cell = driver.find_element(By.CSS_SELECTOR, '#grid [data-glyph="@"]')
    return int(cell.get_attribute("data-x")), int(cell.get_attribute("data-y"))


def press(driver: Any, key: str) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys(key)


def severe_logs(driver: Any) -> list[Any]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_the_page_loads_offline_and_draws_the_first_chamber(browser: Any, base: str) -> None:
    browser.get_log("browser")  # drop anything earlier
    open_page(browser, base)
    assert browser.title == "Relayroam"
    obs = observe(new_game(7))
    assert shown_grid(browser) == list(obs.grid)
    assert player(browser) == (0, 2)
    assert (text(browser, "charge"), text(browser, "turn"), text(browser, "score")) == (
        "28",
        "0",
        "0",
    )
    assert (text(browser, "chamber"), text(browser, "phase")) == ("1", "playing")
    assert text(browser, "refusal") == ""
    assert not browser.find_element(By.ID, "refusal").is_displayed()
    # the vent's countdown is shown (V1, offset 0, sparks on the chamber's 3rd action)
    assert "sparks in 3" in text(browser, "vents")
    vent = browser.find_element(By.CSS_SELECTOR, '#grid [data-x="6"][data-y="1"]')
    assert vent.get_attribute("data-glyph") == "1"
    # the only request the page made is its own init call: nothing external
    urls = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name);"
    )
    assert urls == [f"{base}/api/games/relayroam/init?seed=7"]
    # no CSP violation or script error
    assert severe_logs(browser) == []


def test_an_arrow_key_moves_the_player_and_a_wall_is_refused(browser: Any, base: str) -> None:
    open_page(browser, base)
    press(browser, Keys.ARROW_UP)
    settle(browser)
    assert player(browser) == (0, 1)
    assert (text(browser, "turn"), text(browser, "charge")) == ("1", "27")
    assert not browser.find_element(By.ID, "refusal").is_displayed()

    grid = shown_grid(browser)
    press(browser, Keys.ARROW_RIGHT)  # x=1, y=1 is a wall
    settle(browser)
    refusal = browser.find_element(By.ID, "refusal")
    assert refusal.is_displayed()
    # in words: what happened and what can be done instead, no JSON
    assert refusal.text == (
        "Wall. You cannot move right: a wall is in the way.\n"
        "You can move up, move down, wait or bank the run."
    )
    assert refusal.get_attribute("data-reason") == "wall"
    assert shown_grid(browser) == grid
    assert (text(browser, "turn"), text(browser, "charge")) == ("1", "27")

    # the token was carried forward unchanged: the next move plays on from (0, 1)
    browser.find_element(By.ID, "up").click()
    settle(browser)
    assert player(browser) == (0, 0)
    assert text(browser, "turn") == "2"
    assert text(browser, "score") == "80"  # helper H1 rescued
    assert not browser.find_element(By.ID, "refusal").is_displayed()


def test_off_grid_and_wrong_phase_refusals_are_shown(browser: Any, base: str) -> None:
    open_page(browser, base)
    press(browser, Keys.ARROW_LEFT)
    settle(browser)
    refusal = browser.find_element(By.ID, "refusal")
    assert refusal.get_attribute("data-reason") == "off_grid"
    assert refusal.text == (
        "Edge of the chamber. You cannot move left: that is the edge of the chamber.\n"
        "You can move up, move right, move down, wait or bank the run."
    )
    browser.find_element(By.ID, "next").click()
    settle(browser)
    assert refusal.get_attribute("data-reason") == "wrong_phase"
    assert refusal.text.startswith("Not now. The next chamber opens once this one is clear")
    assert "{" not in refusal.text
    assert text(browser, "turn") == "0"


def test_a_chamber_is_cleared_and_the_next_one_started(browser: Any, base: str) -> None:
    open_page(browser, base)
    optimum = solve_chamber(1, False, chamber_setup(7, 1).vent_offsets)
    state = new_game(7)
    for i, action in enumerate(optimum.actions):
        kind = action["type"]
        if kind == "move" and i % 2 == 0:
            press(browser, KEYS[action["direction"]])  # key presses and buttons, alternately
        else:
            browser.find_element(By.ID, action.get("direction", kind)).click()
        settle(browser)  # one action at a time: each answer is drawn before the next
        assert text(browser, "turn") == str(i + 1)
        state = step(state, action).state
    assert text(browser, "refusal") == ""
    assert text(browser, "phase") == "chamber-clear"
    assert text(browser, "score") == "544"
    assert text(browser, "turn") == str(len(optimum.actions))
    assert shown_grid(browser) == list(observe(state).grid)
    assert "clear" in text(browser, "banner").lower()

    press(browser, "n")
    settle(browser)
    assert text(browser, "chamber") == "2"
    assert (text(browser, "phase"), text(browser, "turn"), text(browser, "charge")) == (
        "playing",
        "0",
        "28",
    )
    assert text(browser, "score") == "544"
    state = step(state, {"type": "next"}).state
    assert shown_grid(browser) == list(observe(state).grid)

    browser.find_element(By.ID, "bank").click()
    settle(browser)
    assert (text(browser, "phase"), text(browser, "end-reason")) == ("ended", "banked")
    press(browser, Keys.ARROW_UP)
    settle(browser)
    assert browser.find_element(By.ID, "refusal").get_attribute("data-reason") == "game_ended"
    assert text(browser, "refusal") == (
        "The run is over. The run has ended: start a new game below."
    )
    assert severe_logs(browser) == []


def test_the_seed_comes_from_the_query_string(browser: Any, base: str) -> None:
    open_page(browser, base, "?seed=123456")
    assert text(browser, "seed") == "123456"
    assert text(browser, "phase") == "playing"
    open_page(browser, base, "")
    assert text(browser, "seed") == "7"
    browser.get(f"{base}/relayroam/?seed=abc")
    WebDriverWait(browser, 10).until(
        lambda d: (
            d.find_element(By.TAG_NAME, "body").get_attribute("data-pending") == "0"
            and d.find_element(By.ID, "refusal").text != ""
        )
    )
    assert browser.find_element(By.ID, "refusal").get_attribute("data-reason") == "invalid_seed"
    assert text(browser, "refusal").startswith('Not a seed. seed is "abc"')
    assert text(browser, "phase") == "not started"


def test_the_layout_holds_together_at_1280_px(browser: Any, base: str) -> None:
    open_page(browser, base)
    press(browser, Keys.ARROW_LEFT)  # a refusal on show, as wide as the page gets
    settle(browser)
    assert browser.execute_script("return window.innerWidth") == 1280
    # no label breaks over two lines: its text makes one line box
    wrapped = browser.execute_script(
        "return Array.from(document.querySelectorAll('button')).filter(b => {"
        " const r = document.createRange(); r.selectNodeContents(b);"
        " return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size > 1;"
        "}).map(b => b.textContent);"
    )
    assert wrapped == []
    # nothing sticks out sideways, and the two panels stand side by side
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    tops = browser.execute_script(
        "return Array.from(document.querySelectorAll('main > section'))"
        ".map(s => Math.round(s.getBoundingClientRect().top));"
    )
    assert len(tops) == 2
    assert len(set(tops)) == 1


def test_the_legend_names_every_glyph_walls_included(browser: Any, base: str) -> None:
    browser.get_log("browser")  # drop anything earlier
    open_page(browser, base)
    legend = text(browser, "legend")
    for words in ("you", "wall", "floor", "relay to repair", "helper to rescue", "battery",
                  "exit, closed", "exit, open", "actions until it sparks"):  # fmt: skip
        assert words in legend
    # the legend's wall looks like the grid's walls
    colours = browser.execute_script(
        "const bg = (e) => getComputedStyle(e).backgroundColor;"
        "return [bg(document.querySelector('#legend .g-wall')),"
        " bg(document.querySelector('#grid [data-glyph=\"#\"]'))];"
    )
    assert colours[0] == colours[1]
    assert severe_logs(browser) == []
