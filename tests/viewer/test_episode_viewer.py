"""The episode viewer of an episode with a model in every seat, in headless Chromium.

The episode is played through the real runner by LLM seats on the real OpenAI SDK,
answered by a scripted server on 127.0.0.1 (:mod:`tests.llm_episode`): Sprocket
escapes and Ratchet drowns at tick 16, Gizmo drowns later, and Sprocket's turn at
tick 4 is a retry. What the page shows is compared with what the models were sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.reader import open_record
from harness.registry import get_game
from harness.viewer.html import render_html
from tests.browser import chromium, require_browser
from tests.llm_episode import NOT_A_MOVE, RETRY_TICK, Recorded, record_llm_episode
from tests.older_records import before_prompts

require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

GAME = get_game("lighthouse")
ROOT = Path(__file__).resolve().parents[2]
ALIASES = {1: "Sprocket", 2: "Gizmo", 3: "Ratchet"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record_llm_episode(tmp_path_factory.mktemp("llm") / "episode.jsonl")


@pytest.fixture(scope="module")
def page(recorded: Recorded, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("viewer") / "episode.html"
    lines = open_record(recorded.path).lines()
    path.write_text(render_html(GAME.view, lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    driver.set_window_size(1400, 900)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def opened(browser: Any, page: Path) -> Iterator[Any]:
    """The page, freshly loaded; no console message may have been logged by the end."""
    browser.get(page.as_uri())
    yield browser
    logged = browser.get_log("browser")
    assert logged == [], logged[:3]


def label(driver: Any) -> str:
    text: str = driver.find_element(By.ID, "tick-label").text
    return text


def go(driver: Any, tick: int | None) -> None:
    """Show the frame of ``tick`` (None: the start), moving the slider as a person would."""
    driver.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        0 if tick is None else tick + 1,
    )
    assert label(driver) == ("start" if tick is None else f"tick {tick}")


def press(driver: Any, key: str) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys(key)


def request_text(recorded: Recorded, alias: str, tick: int) -> list[dict[str, str]]:
    """The messages of the last request a runner's model got at ``tick``."""
    found = [
        r.body["messages"]
        for r in recorded.requests
        if f"You are {alias}." in r.body["messages"][1]["content"]
        and f"\nTick {tick} of" in r.body["messages"][1]["content"]
    ]
    assert found
    messages: list[dict[str, str]] = max(found, key=len)
    return messages


def window_in(messages: list[dict[str, str]]) -> list[str]:
    """The 3 x 3 window the observation's text showed."""
    lines = messages[1]["content"].splitlines()
    top = next(i for i, x in enumerate(lines) if x.startswith("Your surroundings")) + 1
    return [x.strip() for x in lines[top : top + 3]]


def shown_window(driver: Any, seat: int) -> list[str]:
    glyphs: list[str] = driver.execute_script(
        "return Array.from(document.querySelectorAll("
        "'.window[data-seat=\"' + arguments[0] + '\"] .tile')).map(t => t.dataset.glyph);",
        seat,
    )
    return ["".join(glyphs[i : i + 3]) for i in (0, 3, 6)]


def test_the_legend_names_each_runner_with_its_colour(opened: Any) -> None:
    assert opened.title == "Lighthouse - llm-spring-seed3"
    runners = opened.find_elements(By.CSS_SELECTOR, ".lh-runner")
    assert [r.find_element(By.CLASS_NAME, "name").text for r in runners] == list(ALIASES.values())
    colours = [
        r.find_element(By.CLASS_NAME, "token").value_of_css_property("background-color")
        for r in runners
    ]
    assert len(set(colours)) == 3
    # the same colour on the board, and on the runner's seat card
    go(opened, 0)
    for seat, colour in zip(ALIASES, colours, strict=True):
        on_board = opened.find_element(By.CSS_SELECTOR, f'.cell .token[data-seat="{seat}"]')
        assert on_board.value_of_css_property("background-color") == colour
        card = opened.find_element(By.CSS_SELECTOR, f'.seat[data-seat="runner{seat}"]')
        assert card.value_of_css_property("border-left-color") == colour
    tiles = opened.find_element(By.CLASS_NAME, "lh-tiles").text
    for words in ("wall", "water", "key", "gate shut", "gate open", "escaped", "drowned"):
        assert words in tiles
    # no glyph of the board reads as a digit but a runner's number
    texts = opened.execute_script(
        "return Array.from(document.querySelectorAll('#board .cell'))"
        ".filter(c => !c.querySelector('.token')).map(c => c.textContent);"
    )
    assert not any(ch.isdigit() or ch == "O" for text in texts for ch in text)


def test_the_keyboard_steps_through_the_ticks(opened: Any, recorded: Recorded) -> None:
    ticks = sum(1 for x in recorded.lines() if x["type"] == "tick")
    assert label(opened) == "start"
    press(opened, Keys.ARROW_RIGHT)
    assert label(opened) == "tick 0"
    press(opened, Keys.ARROW_RIGHT)
    press(opened, Keys.ARROW_RIGHT)
    assert label(opened) == "tick 2"
    press(opened, Keys.ARROW_LEFT)
    assert label(opened) == "tick 1"
    press(opened, Keys.END)
    assert label(opened) == f"tick {ticks - 1}"
    press(opened, Keys.ARROW_RIGHT)  # no further than the end
    assert label(opened) == f"tick {ticks - 1}"
    press(opened, Keys.HOME)
    assert label(opened) == "start"
    # on the focused slider an arrow steps once, not twice
    opened.find_element(By.ID, "slider").send_keys(Keys.ARROW_RIGHT)
    assert label(opened) == "tick 0"
    frame = lambda d: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-frame"))  # noqa: E731
    press(opened, Keys.SPACE)  # play
    assert opened.find_element(By.ID, "play").text == "pause"
    WebDriverWait(opened, 10).until(lambda d: frame(d) >= 3)
    press(opened, Keys.SPACE)  # pause
    assert opened.find_element(By.ID, "play").text == "play"
    stopped = frame(opened)
    opened.execute_script("return new Promise(r => setTimeout(r, 1300));")
    assert frame(opened) == stopped


@pytest.mark.parametrize("tick", [0, RETRY_TICK, 12])
def test_each_runners_window_is_the_one_its_model_was_sent(
    opened: Any, recorded: Recorded, tick: int
) -> None:
    go(opened, tick)
    for seat, alias in ALIASES.items():
        shown = shown_window(opened, seat)
        assert shown == window_in(request_text(recorded, alias, tick))
        title = opened.find_element(By.CSS_SELECTOR, f'.window[data-seat="{seat}"] .title').text
        assert title == f"{alias} saw at tick {tick}"


def test_a_seats_prompt_and_reply_are_shown(opened: Any, recorded: Recorded) -> None:
    go(opened, RETRY_TICK)
    card = opened.find_element(By.CSS_SELECTOR, '.seat[data-seat="runner1"]')
    assert card.find_element(By.CLASS_NAME, "source").text == "llm_retry"
    turn = [x for x in recorded.lines() if x["type"] == "tick"][RETRY_TICK]["seats"]["runner1"]
    assert card.find_element(By.CLASS_NAME, "raw").text == turn["raw"]
    fold = card.find_element(By.CSS_SELECTOR, "details.prompt")
    fold.find_element(By.TAG_NAME, "summary").click()
    assert fold.find_element(By.CLASS_NAME, "check").text == "exact"
    system = fold.find_element(By.CSS_SELECTOR, ".message.system details")
    system.find_element(By.TAG_NAME, "summary").click()
    sent = request_text(recorded, "Sprocket", RETRY_TICK)
    messages = fold.find_elements(By.CLASS_NAME, "message")
    assert [m.find_element(By.CLASS_NAME, "role").text for m in messages] == [
        m["role"] for m in sent
    ]
    texts = [
        m.find_element(By.CSS_SELECTOR, "pre.text").get_attribute("textContent") for m in messages
    ]
    assert texts == [m["content"] for m in sent]
    assert texts[2] == NOT_A_MOVE
    # what a reader opened stays open as they step
    press(opened, Keys.ARROW_RIGHT)
    card = opened.find_element(By.CSS_SELECTOR, '.seat[data-seat="runner1"]')
    assert card.find_element(By.CSS_SELECTOR, "details.prompt").get_attribute("open") is not None
    keeper = opened.find_element(By.CSS_SELECTOR, '.seat[data-seat="keeper"] details.prompt')
    assert "prompt sent (2 messages)" in keeper.get_attribute("textContent")


def test_escaped_and_drowned_runners_are_shown_and_labelled(
    opened: Any, recorded: Recorded
) -> None:
    ticks = [x for x in recorded.lines() if x["type"] == "tick"]
    at = {r["seat"]: r for r in ticks[16]["state"]["runners"]}
    assert (at[1]["status"], at[2]["status"], at[3]["status"]) == ("escaped", "active", "drowned")
    for tick in (16, len(ticks) - 1):  # at the tick it happens, and to the end: never gone
        go(opened, tick)
        states = {
            int(r.get_attribute("data-seat")): r.find_element(By.CLASS_NAME, "state").text
            for r in opened.find_elements(By.CSS_SELECTOR, ".lh-runner")
        }
        assert states[1].startswith("escaped at tick 16")
        assert states[3].startswith(
            f"drowned at tick 16 at x={at[3]['pos'][0]}, y={at[3]['pos'][1]}"
        )
        for seat, status in ((1, "escaped"), (3, "drowned")):
            token = opened.find_element(By.CSS_SELECTOR, f'.cell .token[data-seat="{seat}"]')
            assert token.get_attribute("data-status") == status
            cell = token.find_element(By.XPATH, "..")
            pos = [int(cell.get_attribute("data-x")), int(cell.get_attribute("data-y"))]
            assert pos == at[seat]["pos"]
    go(opened, 17)  # no longer asked: no window, and the reason
    gone = opened.find_element(By.CSS_SELECTOR, '.window[data-seat="1"]').text
    assert "escaped at tick 16" in gone
    assert "not asked any more" in gone
    assert not opened.find_elements(By.CSS_SELECTOR, '.seat[data-seat="runner1"]')


def test_the_board_uses_the_window(opened: Any) -> None:
    go(opened, 0)
    board = opened.find_element(By.CSS_SELECTOR, ".lh-board").rect
    windows = opened.find_element(By.CSS_SELECTOR, ".lh-windows").rect
    width = opened.execute_script("return window.innerWidth;")
    assert board["width"] >= 0.33 * width  # it was 0.23 (11 columns of 28 px)
    assert windows["x"] >= board["x"] + board["width"]  # beside the board, not below it
    assert windows["y"] < board["y"] + board["height"]


def test_the_board_numbers_its_columns_and_rows_where_they_are(opened: Any) -> None:
    """Positions and the water are said in x and y (x=5, y=3; rows y=6-8 flooded): the
    board numbers its columns above them and its rows beside them."""
    go(opened, 0)
    found = opened.execute_script(
        "const box = e => { const r = e.getBoundingClientRect();"
        " return [r.left + r.width / 2, r.top + r.height / 2]; };"
        "const cells = Array.from(document.querySelectorAll('#board .cell'));"
        "return {"
        " cells: cells.map(c => [Number(c.dataset.x), Number(c.dataset.y), ...box(c)]),"
        " xs: Array.from(document.querySelectorAll('#board .axis.x'))"
        "   .map(a => [a.textContent, ...box(a)]),"
        " ys: Array.from(document.querySelectorAll('#board .axis.y'))"
        "   .map(a => [a.textContent, ...box(a)]) };"
    )
    cells = found["cells"]
    width = 1 + max(x for x, _, _, _ in cells)
    height = 1 + max(y for _, y, _, _ in cells)
    assert [text for text, _, _ in found["xs"]] == [str(x) for x in range(width)]
    assert [text for text, _, _ in found["ys"]] == [str(y) for y in range(height)]
    top = min(cy for _, _, _, cy in cells)
    left = min(cx for _, _, cx, _ in cells)
    for x, y, cx, cy in cells:
        _, ax, ay = found["xs"][x]
        assert abs(ax - cx) < 1  # above its column
        assert ay < top
        _, bx, by = found["ys"][y]
        assert abs(by - cy) < 1  # left of its row
        assert bx < left
    # the numbers are not cells: no glyph, no position
    assert not opened.find_elements(By.CSS_SELECTOR, "#board .axis[data-glyph], .axis.cell")


def test_a_record_from_before_prompts_were_kept_shows_them_unchecked(
    browser: Any, tmp_path: Path
) -> None:
    golden = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"
    older = before_prompts(golden, tmp_path / "older.jsonl")
    page = tmp_path / "older.html"
    page.write_text(render_html(GAME.view, open_record(older).lines()), encoding="utf-8")
    browser.get(page.as_uri())
    go(browser, 1)  # the keeper's retry
    fold = browser.find_element(By.CSS_SELECTOR, '.seat[data-seat="keeper"] details.prompt')
    fold.find_element(By.TAG_NAME, "summary").click()
    assert fold.find_element(By.CLASS_NAME, "check").text == "unchecked"
    roles = [m.text for m in fold.find_elements(By.CSS_SELECTOR, ".message > .role")]
    assert roles == ["system", "user", "assistant", "user"]
    assert "Tick 1 of 8" in fold.text
    assert browser.get_log("browser") == []
