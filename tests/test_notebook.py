"""Episodes and results folders inline in a notebook: the HTML they hand Jupyter.

An episode is its viewer page, whole, in a sandboxed frame; a results folder its
head and leaderboard. Whatever text an agent, a record or a folder's path holds
reaches the notebook escaped: the only tags in it are the ones the harness wrote.
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.agents import AgentInput
from harness.browse.folder import read_folder
from harness.browse.index import leaderboard_fragment
from harness.cli import main
from harness.registry import get_game
from harness.report.render import interval_text
from harness.viewer.html import render_html
from tests.browser import browser_available, browser_required, chromium

#: Text that would run script, or end an element or attribute early, if not escaped.
HOSTILE = (
    "\"'></iframe></script><script>window.top.pwned = 1</script><img src=x onerror=alert(1)>&amp;"
)


class Tags(HTMLParser):
    """Every start tag of a document, with its attributes (values unescaped)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(text: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(text)
    parser.close()
    return parser.tags


def hostile_keeper(given: AgentInput) -> dict[str, Any]:
    return {"transmit": True, "message": HOSTILE[:60], "notes": HOSTILE}


@pytest.fixture(scope="module")
def hostile_episode() -> harness.PlayResult:
    return harness.play("lighthouse", 3, keeper=hostile_keeper, rules={"maxTicks": 8})


def test_an_episode_shows_as_its_viewer_page_in_a_sandboxed_frame(
    hostile_episode: harness.PlayResult,
) -> None:
    shown = hostile_episode._repr_html_()
    found = tags(shown)
    assert [tag for tag, _ in found] == ["iframe"]  # one element, nothing else
    attrs = found[0][1]
    assert attrs["sandbox"] == "allow-scripts"  # no allow-same-origin: no reach into the notebook
    game = get_game("lighthouse")
    lines = [game.codec.record_adapter.validate_python(line) for line in hostile_episode.lines]
    assert attrs["srcdoc"] == render_html(game.view, lines)  # the viewer page, whole
    # the agent's text is in the record, but never raw in what the notebook gets
    assert hostile_episode.ticks[0]["seats"]["keeper"]["decision"]["notes"] == HOSTILE
    assert shown.count("<") == 2  # <iframe ...> and </iframe>: every other escaped
    assert "<script>window.top.pwned" not in (attrs["srcdoc"] or "")


def test_every_game_s_episode_shows(tmp_path: Path) -> None:
    for game in ("relayroam", "hourloom"):
        result = harness.play(game, 1)
        found = tags(result._repr_html_())
        assert [tag for tag, _ in found] == ["iframe"]
        assert "Content-Security-Policy" in (found[0][1]["srcdoc"] or "")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small results folder in a folder whose name is itself hostile."""
    base = tmp_path_factory.mktemp("nb")
    config = base / "small.toml"
    config.write_text(
        'name = "small"\nseeds = { start = 0, stop = 3 }\nreference = "silent"\n'
        '[[entrants]]\nname = "lantern"\nkeeper = { baseline = "lantern" }\n'
        'runners = { baseline = "wallhug" }\n'
        '[[entrants]]\nname = "silent"\nkeeper = { baseline = "silent" }\n'
        'runners = { baseline = "wallhug" }\n'
    )
    out = base / "<b>x</b>&\"'"
    assert main(["run", str(config), "--out", str(out), "--workers", "0"]) == 0
    return out


def test_a_results_folder_shows_its_head_and_leaderboard(folder: Path) -> None:
    results = harness.Results(folder)
    shown = results._repr_html_()
    snapshot = read_folder(folder)
    assert shown == f'<div class="lighthouse-results">{leaderboard_fragment(snapshot)}</div>'
    assert results.report == snapshot.report
    assert results.markdown().startswith("# Tournament small")
    assert "<script" not in shown
    assert "<b>x</b>" not in shown  # the folder's name, escaped
    assert "&lt;b&gt;x&lt;/b&gt;&amp;&quot;&#x27;" in shown
    names = [tag for tag, _ in tags(shown)]
    assert "table" in names
    assert set(names) <= {"div", "h1", "p", "code", "section", "h2", "table", "thead", "tbody",
                          "tr", "th", "td", "strong", "span"}  # fmt: skip
    for row in results.report.entrants:
        assert f"<td>{row.entrant}</td>" in shown
        assert interval_text(row.score) in shown
    assert repr(results) == f"Results({str(folder)!r}: 6 episodes)"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    if not browser_available():
        if browser_required():
            pytest.fail("chromium and chromedriver are required", pytrace=False)
        pytest.skip("chromium and chromedriver are not installed")
    driver = chromium(tmp_path / "chromium")
    try:
        yield driver
    finally:
        driver.quit()


def test_the_frame_plays_the_episode_and_runs_nothing_of_the_agent_s(
    browser: Any, hostile_episode: harness.PlayResult, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    page = tmp_path / "notebook.html"
    page.write_text(
        f"<!doctype html><html><body><div class='output'>{hostile_episode._repr_html_()}"
        "</div></body></html>",
        encoding="utf-8",
    )
    browser.get(page.as_uri())
    browser.switch_to.frame(browser.find_element(By.TAG_NAME, "iframe"))
    summary = browser.find_element(By.ID, "summary").text
    assert hostile_episode.summary.split(";")[0] in summary
    browser.find_element(By.ID, "last").click()
    last = hostile_episode.ticks[-1]["tick"]
    assert browser.find_element(By.ID, "tick-label").text == f"tick {last}"
    assert browser.find_elements(By.TAG_NAME, "img") == []
    browser.switch_to.default_content()
    assert browser.execute_script("return window.pwned === undefined")
