"""The cross-play heat map in a real headless Chromium: a folder played from a tiny
design shows every cell of its matrix, shaded and with its interval, and logs no error."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.browse.site import write_site
from harness.report.crossplay_render import ci
from harness.results import read_results
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from tests.browser import chromium, require_browser

require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

DESIGN = """
name = "heat"
seeds = { start = 0, stop = 3 }
variants = ["default"]

[crossplay.keeper]
silent = "silent"
pilot = "pilot"

[crossplay.runners]
wallhug = "wallhug"
scout = "scout"
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    try:
        yield driver
    finally:
        driver.quit()


def test_the_heat_map_shows_every_cell_with_its_interval(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "heat.toml"
    path.write_text(DESIGN)
    out = tmp_path / "out"
    asyncio.run(run_tournament(load_tournament(path), out, environ={}))
    section = read_results(out).report.crossplay
    assert section is not None
    write_site(out, tmp_path / "site")
    browser.get((tmp_path / "site" / "index.html").as_uri())
    WebDriverWait(browser, 20).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
    )
    cells = browser.find_elements(By.CSS_SELECTOR, "#crossplay-matrix td.heat")
    assert len(cells) == 4
    titles = [c.get_attribute("title") for c in cells]
    assert titles == [ci(c.score) for c in section.matrix]
    shades = {c.value_of_css_property("background-color") for c in cells}
    assert len(shades) > 1  # shaded by the mean, not one colour for all
    rows = browser.find_elements(By.CSS_SELECTOR, "#crossplay-matrix tbody th")
    assert [r.text for r in rows] == ["silent", "pilot"]
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
