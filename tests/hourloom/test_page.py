"""The playable Hourloom page in a real headless Chromium (Debian's), through Selenium,
against a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from baselines.hourloom import chamber_plan, planner
from harness.games.hourloom.observe import observe
from harness.games.hourloom.rules import new_game, step
from harness.games.hourloom.state import State
from tests.browser import chromium, require_browser
from tests.relayroam.live_server import running_server

require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ARROWS = {"N": Keys.ARROW_UP, "E": Keys.ARROW_RIGHT, "S": Keys.ARROW_DOWN, "W": Keys.ARROW_LEFT}
BUTTONS = {"N": "north", "E": "east", "S": "south", "W": "west"}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(b"page-test-key-0123456789abcdef") as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(driver: Any, base: str, query: str = "?seed=7") -> None:
    driver.get(f"{base}/hourloom/{query}")
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
    rows: list[str] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#grid .row'))"
        ".map(r => Array.from(r.children).map(c => c.dataset.glyph).join(''));"
    )
    return rows


def player(driver: Any) -> int:
    cell = driver.find_element(By.CSS_SELECTOR, '#grid [data-glyph="@"]')
    return int(cell.get_attribute("data-tile"))


def press(driver: Any, key: str) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys(key)


def refusal(driver: Any) -> Any:
    return driver.find_element(By.ID, "refusal")


def severe_logs(driver: Any) -> list[Any]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def play(driver: Any, state: State, action: dict[str, str], i: int) -> State:
    """Send ``action`` by a key or a button (alternately), and check the page kept up."""
    kind = action["type"]
    if kind == "MOVE":
        if i % 2 == 0:
            press(driver, ARROWS[action["dir"]])
        else:
            driver.find_element(By.ID, BUTTONS[action["dir"]]).click()
    elif kind == "WAIT" and i % 2 == 0:
        press(driver, "w")
    elif kind == "WAIT":
        driver.find_element(By.ID, "wait").click()
    elif kind == "DESCEND":
        press(driver, "d")
    else:
        press(driver, "e")
    settle(driver)  # one action at a time: each answer is drawn before the next
    result = step(state, action)
    assert result.ok, result.message
    assert text(driver, "refusal") == ""
    assert shown_grid(driver) == list(observe(result.state).grid)
    assert text(driver, "score") == str(result.state.score)
    return result.state


def test_the_page_loads_offline_and_draws_the_first_chamber(browser: Any, base: str) -> None:
    browser.get_log("browser")  # drop anything earlier
    open_page(browser, base)
    assert browser.title == "Hourloom"
    state = new_game(7)
    assert shown_grid(browser) == list(observe(state).grid)
    assert player(browser) == state.player
    assert (text(browser, "sand"), text(browser, "lap-budget")) == ("12", "12")
    assert browser.find_element(By.ID, "sandglass").get_attribute("value") == "12"
    assert (text(browser, "lap"), text(browser, "laps"), text(browser, "turn")) == ("1", "3", "0")
    assert (text(browser, "score"), text(browser, "multiplier")) == ("0", "100%")
    assert (text(browser, "chamber"), text(browser, "phase")) == ("1", "lap")
    assert "none yet" in text(browser, "echoes")
    assert text(browser, "gates").startswith("A on 12 (r1 c5) (shut for you)")
    laps = text(browser, "laps-list").splitlines()
    assert laps[0] == "1: alcove 21, keystone 16, budget 12, now"
    assert laps[2].endswith("budget 34, later")
    assert not refusal(browser).is_displayed()
    # a cell says what it is to a screen reader
    cell = browser.find_element(By.CSS_SELECTOR, '#grid [data-tile="12"]')
    assert cell.get_attribute("aria-label") == "tile 12 (r1 c5): gate A"
    # the only request the page made is its own init call: nothing external
    urls = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name);"
    )
    assert urls == [f"{base}/api/games/hourloom/init?seed=7"]
    assert severe_logs(browser) == []  # no CSP violation or script error


def test_keys_move_and_wait_and_a_wall_shows_its_reason(browser: Any, base: str) -> None:
    open_page(browser, base)
    start = new_game(7)
    press(browser, Keys.ARROW_UP)
    settle(browser)
    moved = step(start, {"type": "MOVE", "dir": "N"}).state
    assert player(browser) == moved.player == start.player - 7
    assert (text(browser, "turn"), text(browser, "sand")) == ("1", "11")
    press(browser, "W")
    settle(browser)
    assert (player(browser), text(browser, "turn"), text(browser, "sand")) == (
        moved.player,
        "2",
        "10",
    )
    assert not refusal(browser).is_displayed()

    press(browser, Keys.ARROW_LEFT)  # the chamber's west edge
    settle(browser)
    assert refusal(browser).get_attribute("data-reason") == "edge_of_chamber"
    press(browser, Keys.ARROW_DOWN)  # back to the alcove: fine
    settle(browser)
    assert not refusal(browser).is_displayed()
    grid = shown_grid(browser)
    press(browser, Keys.ARROW_DOWN)  # tile 28, south of the alcove, is a wall
    settle(browser)
    box = refusal(browser)
    assert box.is_displayed()
    assert box.get_attribute("data-reason") == "wall"
    assert box.text.startswith("wall")
    assert "tile 28 S of you is a wall" in box.text
    assert "no sand, no turn" in box.text
    assert shown_grid(browser) == grid
    assert (text(browser, "turn"), text(browser, "sand")) == ("3", "9")

    # the state was carried forward unchanged: the next move plays on
    browser.find_element(By.ID, "east").click()
    settle(browser)
    assert player(browser) == start.player + 1
    assert text(browser, "turn") == "4"
    assert not refusal(browser).is_displayed()
    press(browser, "d")  # DESCEND mid-lap
    settle(browser)
    assert refusal(browser).get_attribute("data-reason") == "chamber_not_sealed"
    assert severe_logs(browser) == []


def test_laps_complete_into_echoes_then_a_seal_a_descend_and_an_end(
    browser: Any, base: str
) -> None:
    open_page(browser, base)
    plan = chamber_plan(7, 1).plan
    state = new_game(7)
    i = 0
    for lap in (1, 2, 3):
        for _ in plan[lap - 1]:
            state = play(browser, state, planner(state), i)
            i += 1
        if lap < 3:  # the lap is complete and the next began at once, beside its echoes
            assert (text(browser, "lap"), text(browser, "turn")) == (str(lap + 1), "0")
            assert text(browser, "sand") == str(state.lap_budget)
            echoes = browser.find_elements(By.CSS_SELECTOR, "#echoes li[data-echo]")
            assert len(echoes) == lap
            for k, item in enumerate(echoes):
                first = plan[k][0]
                assert item.get_attribute("data-next") == (
                    "WAIT" if first == "WAIT" else f"MOVE {first}"
                )
                assert f"{len(plan[k])} input(s) left" in item.text
            assert f"lap {lap} complete" in text(browser, "events")
    assert "gate A crossed" in text(browser, "events")
    assert text(browser, "phase") == "sealed"
    assert "sealed" in text(browser, "banner")
    assert all("done" in line for line in text(browser, "laps-list").splitlines())
    sealed_score = text(browser, "score")

    state = play(browser, state, {"type": "DESCEND"}, i)
    assert (text(browser, "chamber"), text(browser, "multiplier")) == ("2", "125%")
    assert (text(browser, "phase"), text(browser, "lap"), text(browser, "score")) == (
        "lap",
        "1",
        sealed_score,
    )
    state = play(browser, state, {"type": "END_RUN"}, i + 1)
    assert (text(browser, "phase"), text(browser, "end-reason")) == ("over", "end_run")
    assert "Run over" in text(browser, "banner")
    press(browser, Keys.ARROW_UP)
    settle(browser)
    assert text(browser, "refusal").startswith("run_ended")
    assert severe_logs(browser) == []


def test_the_seed_comes_from_the_query_string(browser: Any, base: str) -> None:
    open_page(browser, base, "?seed=123456")
    assert text(browser, "seed") == "123456"
    assert shown_grid(browser) == list(observe(new_game(123456)).grid)
    open_page(browser, base, "")
    assert text(browser, "seed") == "7"
    browser.get(f"{base}/hourloom/?seed=abc")
    WebDriverWait(browser, 10).until(
        lambda d: (
            d.find_element(By.TAG_NAME, "body").get_attribute("data-pending") == "0"
            and d.find_element(By.ID, "refusal").text != ""
        )
    )
    assert text(browser, "refusal").startswith("invalid_seed")
    assert text(browser, "phase") == "not started"
