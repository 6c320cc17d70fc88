"""Lighthouse played by a person on the page of ``lighthouse serve`` (decision L4), by
keyboard alone, in a real headless Chromium against a real uvicorn server on 127.0.0.1.

A whole episode is played as the keeper and another as runner 2; both records replay
clean, and one of them joins a results folder as a human entrant of its report.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.episode import run_episode
from harness.registry import get_game
from harness.replay import replay
from harness.results import read_results
from harness.seats import baseline_seats
from harness.tournament.config import load_tournament
from harness.tournament.join import add_record
from harness.tournament.run import run_tournament
from tests.browser import chromium, require_browser
from tests.relayroam.live_server import http, running_server

require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

KEY = b"lighthouse-page-test-key-32-byte"
GAME = get_game("lighthouse")
SEED = 3
#: Hostile text a person may type: shown as text, never run as markup.
PROBE = '<img src=x id=probe onerror="document.body.dataset.pwned=1">'


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


def body(driver: Any) -> Any:
    return driver.find_element(By.TAG_NAME, "body")


def settled(driver: Any) -> str:
    """Wait until no request is in flight; the page's phase then."""
    WebDriverWait(driver, 60).until(lambda d: body(d).get_attribute("data-pending") == "0")
    phase: str = body(driver).get_attribute("data-phase")
    return phase


def typing(driver: Any, *keys: str) -> None:
    """Keys sent to whatever has the focus: the keyboard, and nothing else."""
    driver.switch_to.active_element.send_keys(*keys)


def focused(driver: Any) -> str:
    value: str = driver.switch_to.active_element.get_attribute("id")
    return value


def start(driver: Any, base: str, *, seat_steps: int, player: str) -> None:
    """Open the page, type the name, choose the seat with the arrow keys, press Enter."""
    driver.get(f"{base}/lighthouse/?seed={SEED}")
    settled(driver)
    assert focused(driver) == "player"  # the first field has the focus
    typing(driver, player)
    typing(driver, Keys.TAB)  # the seat's radio group: its checked one, the keeper
    assert focused(driver) == "seat-keeper"
    for _ in range(seat_steps):
        typing(driver, Keys.ARROW_RIGHT)
    typing(driver, Keys.ENTER)  # submits the form
    settled(driver)


def lantern_messages(seed: int) -> list[str]:
    """What LANTERN transmits at each tick of its own episode (empty: silent)."""
    state = GAME.rules.new_state(GAME.rules.make_config("default", {}), seed)
    outcome = asyncio.run(
        run_episode(GAME, state, baseline_seats(GAME, state), episode_id="x", seed=seed)
    )
    docs: list[Any] = list(outcome.docs)
    return [line["state"]["transmission"] or "" for line in docs if line["type"] == "tick"]


def saved_record(driver: Any, path: Path) -> Path:
    WebDriverWait(driver, 60).until(lambda d: body(d).get_attribute("data-record") == "ready")
    text = driver.find_element(By.ID, "record").get_attribute("value")
    path.write_text(text, encoding="utf-8")
    return path


def unlabelled(driver: Any) -> list[str]:
    """The visible controls without a label: a ``<label for>``, or a button's text."""
    found: list[str] = driver.execute_script(
        """return Array.from(document.querySelectorAll('input, select, textarea, button'))
          .filter(e => e.offsetParent !== null)
          .filter(e => e.tagName === 'BUTTON' ? e.textContent.trim() === ''
                     : !document.querySelector('label[for="' + e.id + '"]'))
          .map(e => e.id);"""
    )
    return found


def visible_text(driver: Any) -> str:
    value: str = driver.execute_script("return document.body.innerText;")
    return value


def test_a_person_keeps_a_whole_episode_by_keyboard(
    browser: Any, base: str, tmp_path: Path
) -> None:
    browser.get_log("browser")
    start(browser, base, seat_steps=0, player="Ada")
    messages = lantern_messages(SEED)
    grids_seen = 0
    tick = 0
    while settled(browser) == "playing":
        tick = int(body(browser).get_attribute("data-tick"))
        assert focused(browser) == "message"  # each tick hands the focus to the message
        grid = browser.find_element(By.ID, "grid").text.splitlines()
        grids_seen += len(grid) == 9 and all(len(row) == 11 for row in grid)
        if tick == 0:
            # the focus is visible, and every control has a label a screen reader reads
            outline = browser.execute_script(
                "return getComputedStyle(document.activeElement).outlineStyle;"
            )
            assert outline == "solid"
            assert unlabelled(browser) == []
            typing(browser, PROBE + " Sprocket N", Keys.ENTER)
        elif tick == 1:
            # a reply as text that does not parse: sent back once, with the problem
            # the focus order: message, notes, send, stay silent, the reply as text
            for _ in range(3):
                typing(browser, Keys.TAB)
            assert focused(browser) == "silent"
            typing(browser, Keys.TAB)  # the summary of the reply-as-text panel
            typing(browser, Keys.ENTER)
            typing(browser, Keys.TAB)
            assert focused(browser) == "raw"
            typing(browser, "north, please", Keys.TAB, Keys.ENTER)
            settled(browser)
            problem = browser.find_element(By.ID, "problem")
            assert problem.is_displayed()
            assert "could not be used" in problem.text
            assert body(browser).get_attribute("data-tick") == "1"  # the same tick again
            assert focused(browser) == "message"
            typing(browser, "Gizmo N", Keys.ENTER)
        else:
            typing(browser, messages[tick] if tick < len(messages) else "", Keys.ENTER)
        assert tick < 60
    assert settled(browser) == "over"
    assert grids_seen > 10
    # the hostile text was shown as text in the transcript, never run as markup
    assert browser.find_elements(By.ID, "probe") == []
    assert body(browser).get_attribute("data-pwned") is None
    record = saved_record(browser, tmp_path / "keeper.jsonl")
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    keeper = lines[0]["seats"][0]
    assert keeper["agent"]["kind"] == "human"
    assert keeper["agent"]["name"] == "Ada"
    sources = [line["seats"]["keeper"]["source"] for line in lines[1:-1]]
    assert sources[1] == "human_retry"
    assert set(sources) == {"human", "human_retry"}
    assert lines[1]["state"]["transmission"] == PROBE + " Sprocket N"
    assert lines[-1]["type"] == "end"
    result = asyncio.run(replay(record))
    assert result.mismatch is None
    assert not result.incomplete
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []

    # the record joins a results folder as a human entrant, named as such in its report
    config = tmp_path / "t.toml"
    config.write_text(
        f'name = "t"\nseeds = [{SEED}]\nvariants = ["default"]\nrepetitions = 1\n'
        '[[entrants]]\nname = "lantern"\nkeeper = "lantern"\nrunners = "wallhug"\n'
    )
    out = tmp_path / "out"
    asyncio.run(run_tournament(load_tournament(config), out))
    add_record(out, record, entrant="ada")
    rows = {row.entrant: row for row in read_results(out).report.entrants}
    assert rows["ada"].seats["keeper"] == "Ada (human)"
    assert rows["ada"].episodes == 1


def test_a_person_runs_as_runner_2_seeing_only_its_window(
    browser: Any, base: str, tmp_path: Path
) -> None:
    start(browser, base, seat_steps=2, player="Bob")
    state: Any = GAME.rules.new_state(GAME.rules.make_config("default", {}), SEED)
    board = state.board.to_ascii()
    turns = 0
    while settled(browser) == "playing":
        assert focused(browser) == "move-N"
        assert unlabelled(browser) == []
        window = browser.find_element(By.ID, "window").text.splitlines()
        assert len(window) == 3
        assert window[1][1] == "@"
        # nothing the runner does not see: no board, no tide, no clock, no other runner
        shown = visible_text(browser)
        assert not browser.find_element(By.ID, "board-panel").is_displayed()
        assert browser.find_element(By.ID, "grid").text == ""
        for row in board[1:-1]:
            assert row not in shown
        for hidden in ("Clock", "Tide", "water line", "Runners"):
            assert hidden not in shown
        # the first open way of N, W, E, S (an arrow or a letter), else WAIT by "h"
        open_ways = {"N": window[0][1], "W": window[1][0], "E": window[1][2], "S": window[2][1]}
        way = next((w for w in "NWES" if open_ways[w] not in "#~"), None)
        if way is None:
            typing(browser, "h")
        else:
            pick = {"N": (Keys.ARROW_UP, "n"), "W": (Keys.ARROW_LEFT, "w"),
                    "E": (Keys.ARROW_RIGHT, "e"), "S": (Keys.ARROW_DOWN, "s")}[way]  # fmt: skip
            typing(browser, pick[turns % 2])
        turns += 1
        assert turns <= 60
    assert settled(browser) == "over"
    record = saved_record(browser, tmp_path / "runner.jsonl")
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    seats = {s["seat"]: s["agent"] for s in lines[0]["seats"]}
    assert seats["runner2"] == {"kind": "human", "name": "Bob", "details": {}}
    assert seats["keeper"]["kind"] == "baseline"
    played = [
        line["seats"]["runner2"]["source"] for line in lines[1:-1] if "runner2" in line["seats"]
    ]
    assert len(played) == turns
    assert set(played) == {"human"}
    result = asyncio.run(replay(record))
    assert result.mismatch is None
    assert not result.incomplete


def test_the_page_has_its_csp_and_a_timer_that_runs_out_is_the_baselines(
    browser: Any, base: str
) -> None:
    page = http("GET", f"{base}/lighthouse/")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "script-src 'sha256-" in csp
    assert "unsafe-inline" not in csp
    browser.get(f"{base}/lighthouse/?seed={SEED}&seat=runner1&player=Cy&tickSeconds=1")
    settled(browser)
    typing(browser, Keys.ENTER)
    settled(browser)
    assert body(browser).get_attribute("data-tick") == "0"
    # unanswered, the tick goes to the baseline when the timer runs out, and the next waits
    WebDriverWait(browser, 30).until(lambda d: body(d).get_attribute("data-tick") == "1")
    assert "s left" in browser.find_element(By.ID, "timer").text
