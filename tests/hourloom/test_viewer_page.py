"""Hourloom's episode viewer in headless Chromium: a PLANNER record of seed 0 (615 ticks).

What the page draws is compared with the frames the view made: every tile of the
chamber, the tokens and their next inputs, the gates, the sandglass; the arrow keys
step; the radio stays hidden; nothing is logged to the console.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.protocol.view import frame_docs
from harness.reader import open_record
from harness.registry import get_game
from harness.seats import BaselineSeat
from harness.viewer.html import render_html
from tests.browser import chromium, require_browser
from tests.hourloom.test_harness import play

require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

GAME = get_game("hourloom")
ARROWS = {"N": "\u2191", "E": "\u2192", "S": "\u2193", "W": "\u2190", "WAIT": "\u2016"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The viewer page of a PLANNER record, and the frames it holds."""
    folder = tmp_path_factory.mktemp("hl-page")
    play(BaselineSeat("planner"), folder / "planner.jsonl", seed=0)
    lines = open_record(folder / "planner.jsonl").lines()
    page = folder / "planner.html"
    page.write_text(render_html(GAME.view, lines), encoding="utf-8")
    return page, frame_docs(GAME.view.view_frames(lines))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    driver.set_window_size(1400, 900)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def opened(browser: Any, recorded: tuple[Path, list[dict[str, Any]]]) -> Iterator[Any]:
    """The page, freshly loaded; no console message may have been logged by the end."""
    browser.get(recorded[0].as_uri())
    yield browser
    logged = browser.get_log("browser")
    assert logged == [], logged[:3]


def go(driver: Any, index: int) -> None:
    driver.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        index,
    )


def drawn(driver: Any) -> dict[str, Any]:
    """What the board shows now, read from the page."""
    found: dict[str, Any] = driver.execute_script(
        """
        const q = (s) => Array.from(document.querySelectorAll(s));
        return {
          label: document.getElementById("tick-label").textContent,
          glyphs: q("#board .hl-board .cell").map(c => c.dataset.glyph),
          ground: q("#board .hl-board .cell").map(c => c.dataset.ground),
          columns: q("#board .hl-ruler.col").length,
          you: q("#board .hl-board .hl-token.you").map(t => t.parentElement.dataset.at),
          echoes: q("#board .hl-board .hl-token.echo").map(t => [
            Number(t.dataset.echo), t.parentElement.dataset.at,
            t.querySelector(".hl-next").dataset.next, t.querySelector(".hl-next").textContent]),
          echoWords: q("#board .hl-echo").map(e => e.lastChild.textContent),
          gateCells: q("#board .hl-board .cell.gate").map(c =>
            [c.dataset.ground, c.classList.contains("open"), c.classList.contains("shut")]),
          gates: q("#board .hl-gate").map(g => [g.dataset.gate, g.dataset.open, g.textContent]),
          sand: q("#board .hl-bar").map(b => [b.getAttribute("aria-valuenow"),
            b.getAttribute("aria-valuemax")]),
          fill: q("#board .hl-fill").map(f => f.style.width),
          sandWords: q("#board .hl-sand").map(s => s.textContent),
          where: q("#board .hl-where").map(s => s.textContent),
          events: q("#board .hl-events li").map(li => li.textContent),
          laps: q("#board .hl-laps tr").length,
          radioHidden: document.getElementById("radio").hidden,
          radioShown: document.getElementById("radio").offsetParent !== null,
        };
        """
    )
    return found


def at(tile: int, width: int) -> str:
    return f"r{tile // width} c{tile % width}"


def test_every_tile_token_gate_and_the_sandglass_are_drawn(
    opened: Any, recorded: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, frames = recorded
    with_echoes = [
        i for i, f in enumerate(frames) if sum(e["tile"] is not None for e in f["echoes"]) >= 2
    ]
    with_open = [i for i, f in enumerate(frames) if any(g["open"] for g in f["gates"])]
    assert with_echoes
    assert with_open
    for index in (0, with_echoes[0], with_open[0], with_echoes[-1], len(frames) - 1):
        go(opened, index)
        frame, shown = frames[index], drawn(opened)
        width = len(frame["grid"][0])
        assert shown["label"] == frame["label"]
        assert shown["glyphs"] == list("".join(frame["grid"]))  # every tile, as the player saw it
        assert shown["ground"] == list("".join(frame["terrain"]))
        assert shown["columns"] == width
        assert shown["you"] == [at(frame["you"], width)]
        present = [e for e in frame["echoes"] if e["tile"] is not None]
        assert sorted(shown["echoes"]) == sorted(
            [e["echo"], at(e["tile"], width), e["next"], ARROWS[e["next"]]] for e in present
        )
        for e in present:
            words = next(w for w in shown["echoWords"] if w.startswith(f"echo {e['echo']} on"))
            said = "WAIT" if e["next"] == "WAIT" else f"MOVE {e['next']}"
            assert f"next {said} {ARROWS[e['next']]}, {e['left']} input" in words
        cells = {ground: (is_open, shut) for ground, is_open, shut in shown["gateCells"]}
        for gate in frame["gates"]:
            assert cells[gate["gate"]] == (gate["open"], not gate["open"])
        assert [(g, o == "true") for g, o, _ in shown["gates"]] == [
            (g["gate"], g["open"]) for g in frame["gates"]
        ]
        assert shown["sand"] == [[str(frame["sand"]), str(frame["lapBudget"])]]
        share = 100 * frame["sand"] / frame["lapBudget"]
        assert [float(w.removesuffix("%")) for w in shown["fill"]] == [
            pytest.approx(share, abs=0.051)
        ]
        assert shown["sandWords"] == [f"sand {frame['sand']} / {frame['lapBudget']}"]
        assert shown["where"] == [
            f"chamber {frame['chamber']} \u00b7 multiplier {frame['multiplierPct']}% \u00b7 "
            f"lap {frame['lap']} of {frame['laps']} \u00b7 turn {frame['turn']} \u00b7 "
            f"score {frame['score']}"
        ]
        assert shown["events"] == frame["events"]
        assert shown["laps"] == frame["laps"] + 1  # a row a lap under the heading
        assert shown["radioHidden"]
        assert not shown["radioShown"]


def test_the_legend_names_every_kind_of_tile_and_token(opened: Any) -> None:
    legend = opened.find_element(By.CLASS_NAME, "hl-legend").text
    for words in (
        "gate open for you", "gate shut for you", "plate", "wall", "floor", "alcove",
        "keystone", "spark", "exit", "flux lit", "flux calm", "you", "echo of lap 1",
    ):  # fmt: skip
        assert words in legend
    # no tile shows a digit: digits are the echoes' numbers
    texts = opened.execute_script(
        "return Array.from(document.querySelectorAll('#board .hl-tile .sym'))"
        ".map(s => s.textContent);"
    )
    assert texts
    assert not any(ch.isdigit() for text in texts for ch in text)


def test_the_arrow_keys_step_through_the_ticks(
    opened: Any, recorded: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, frames = recorded
    body = opened.find_element(By.TAG_NAME, "body")
    assert drawn(opened)["label"] == "start"
    for expected in frames[1:4]:
        body.send_keys(Keys.ARROW_RIGHT)
        shown = drawn(opened)
        assert shown["label"] == expected["label"]
        assert shown["where"][0].endswith(
            f"turn {expected['turn']} \u00b7 score {expected['score']}"
        )
    body.send_keys(Keys.ARROW_LEFT)
    assert drawn(opened)["label"] == frames[2]["label"]
    body.send_keys(Keys.END)
    shown = drawn(opened)
    assert shown["label"] == frames[-1]["label"]
    assert shown["events"][-1] == "the harness ended the run: the last chamber it allows is sealed"


def test_the_board_uses_the_window(opened: Any) -> None:
    # at 1400 x 900 the chamber's cells are drawn large, and the whole chamber fits in view
    size, bottom = opened.execute_script(
        "const cells = document.querySelectorAll('#board .hl-board .cell');"
        "const last = cells[cells.length - 1].getBoundingClientRect();"
        "return [cells[0].getBoundingClientRect().width, last.bottom];"
    )
    assert size >= 44
    assert bottom <= 900


def test_a_record_that_departs_from_the_rules_still_draws(
    browser: Any, recorded: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    page, _ = recorded
    lines = open_record(page.with_suffix(".jsonl")).lines()
    docs = [line.model_dump(mode="json", by_alias=True) for line in lines[:30]]
    docs[11]["state"]["sand"] += 1  # tick 10, edited by hand
    edited: list[Any] = [GAME.codec.record_adapter.validate_python(doc) for doc in docs]
    path = tmp_path / "edited.html"
    path.write_text(render_html(GAME.view, edited), encoding="utf-8")
    browser.get(path.as_uri())
    go(browser, 20)
    shown = drawn(browser)
    assert shown["label"] == "tick 19"
    assert shown["glyphs"] == list("".join(edited[20].state.grid))
    note = browser.find_element(By.CLASS_NAME, "hl-note").text
    assert note.startswith("from tick 10 on, the record departs from the rules' replay")
    assert "not known" in browser.find_element(By.CLASS_NAME, "hl-laps").text
    assert browser.get_log("browser") == []
