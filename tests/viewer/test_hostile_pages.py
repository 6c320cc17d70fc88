"""A recorded string can neither end the viewer's script nor comment it out.

A model's message, notes and reasoning hold ``<!--<script>``, ``</script>``, markup, U+2028 and
U+2029 and the page's own blank ``__EPISODE__``; an episode id holds them too. The
page made from the record (``replay --html``) and the one ``lighthouse view`` serves
show every one of them as text in headless Chromium, run no script of theirs, and
keep working (the slider steps through every tick).
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.reader import open_record
from harness.registry import get_game
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.viewer.html import render_html
from tests.browse.conftest import serving
from tests.browser import browser_available, browser_required, chromium

#: Each of these, inside a string of the inline JSON, blanked the page or would have.
NOTES = (
    '<!--<script> </script><img src=x onerror="window.pwned=1"><b>bold</b>'
    "\u2028\u2029 __EPISODE__ </SCRIPT >"
)
MESSAGE = "Sprocket N <!--<script> </script>"
#: The keeper's reasoning beside its reply (a reasoning model's thinking), as hostile.
REASONING = 'thinking <!--<script> </script><img src=x onerror="window.pwned=1"><b>b</b> \u2028'
KEY_ENV = "HOSTILE_PAGE_KEY"
CONFIG = """
name = "pages"
seeds = [3]
[providers.p]
kind = "openai"
base_url = "{url}"
api_key_env = "{key}"
[[entrants]]
name = "model"
keeper = {{ provider = "p", model = "m", call_timeout_seconds = 5, allowance_seconds = 10 }}
runners = {{ baseline = "wallhug" }}
[rules]
maxTicks = 5
"""
LIGHTHOUSE = get_game("lighthouse")


def keeper(path: str, body: dict[str, Any]) -> Action:
    if "You are the KEEPER" in json.dumps(body):
        reply = json.dumps({"transmit": True, "message": MESSAGE, "notes": NOTES})
        return Reply(reply, reasoning=REASONING)
    return Reply('{"move": "WAIT"}')


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("pages")
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, "sk-test-pages")
    try:
        with ScriptedLLMServer(default=keeper) as server:
            config = where / "pages.toml"
            config.write_text(CONFIG.format(url=server.openai_url, key=KEY_ENV))
            asyncio.run(run_tournament(load_tournament(config), where / "res"))
    finally:
        mp.undo()
    return where / "res"


def record_lines(folder: Path) -> list[Any]:
    return open_record(next((folder / "records").glob("*.jsonl"))).lines()


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def inline_data(page: str) -> list[str]:
    return re.findall(r'<script type="application/json" id="episode">(.*?)</script>', page, re.S)


def test_the_inline_data_holds_every_string_and_ends_where_it_should(folder: Path) -> None:
    lines = record_lines(folder)
    hostile = lines[0].model_copy(update={"episode_id": f"id {NOTES}"})
    page = render_html(LIGHTHOUSE.view, [hostile, *lines[1:]])
    found = inline_data(page)
    assert len(found) == 1  # no string ended the element early
    assert not {"<", ">", "\u2028", "\u2029"} & set(found[0])
    episode = json.loads(found[0])
    assert episode["episodeId"] == f"id {NOTES}"
    assert any(NOTES in text for text in strings(episode["frames"]))
    # the page's own three scripts, and no fourth from a string
    assert page.count("<script") == 3
    # the id in the title is text, and its blank word is not filled with the data
    assert f"<title>Lighthouse - id {html.escape(NOTES)}</title>" in page
    assert page.count('"episodeId"') == 1


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not browser_available():
        if browser_required():
            pytest.fail("chromium and chromedriver are required", pytrace=False)
        pytest.skip("chromium and chromedriver are not installed")
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    try:
        yield driver
    finally:
        driver.quit()


#: Every tick's text on the page, stepping the slider; what ran that should not have.
STEP_THROUGH = """
const slider = document.getElementById("slider");
const out = [];
for (let i = 0; i <= Number(slider.max); i++) {
  slider.value = String(i);
  slider.dispatchEvent(new Event("input"));
  out.push(document.getElementById("side").textContent);
}
return {texts: out, ticks: Number(slider.max), title: document.title,
        heading: document.getElementById("title").textContent,
        pwned: window.pwned === 1, images: document.querySelectorAll("img").length,
        bold: document.querySelectorAll("#side b").length};
"""


def shown(driver: Any, url: str) -> dict[str, Any]:
    driver.get(url)
    result: dict[str, Any] = driver.execute_script(STEP_THROUGH)
    return result


def assert_shown_as_text(result: dict[str, Any], lines: list[Any]) -> None:
    assert result["ticks"] == len([line for line in lines if line.type == "tick"])
    assert any(f"notes: {NOTES}" in text for text in result["texts"])
    assert any(MESSAGE in text for text in result["texts"])
    assert any(f"reasoning ({len(REASONING)} characters){REASONING}" in t for t in result["texts"])
    assert not result["pwned"]
    assert result["images"] == 0
    assert result["bold"] == 0


def test_replay_html_shows_the_strings_as_text(browser: Any, folder: Path, tmp_path: Path) -> None:
    lines = record_lines(folder)
    hostile = lines[0].model_copy(update={"episode_id": f"id {NOTES}"})
    path = tmp_path / "episode.html"
    path.write_text(render_html(LIGHTHOUSE.view, [hostile, *lines[1:]]), encoding="utf-8")
    result = shown(browser, path.as_uri())
    assert_shown_as_text(result, lines)
    assert result["heading"] == f"Lighthouse - id {NOTES}"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors[:3]


def test_the_served_episode_page_shows_them_as_text(browser: Any, folder: Path) -> None:
    lines = record_lines(folder)
    with serving(folder) as url:
        browser.get(url)
        link = browser.execute_script(
            "return document.querySelector('#episodes-table tbody a').href;"
        )
        result = shown(browser, link)
    assert_shown_as_text(result, lines)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors[:3]
