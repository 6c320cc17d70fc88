"""The results browser, in headless Chromium, marks the entrants whose turns were not
their own (a Python agent that raises on every call, one that returns junk, a model
whose replies never parse) and ranks them apart from the baseline that played for
them; its leaderboard lists the ranked entrants by rank, then those apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.browse.site import write_site
from tests.browser import chromium, require_browser
from tests.test_turns_not_own import NOT_OWN, not_own_folder

require_browser()

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"))
    try:
        yield driver
    finally:
        driver.quit()


def test_the_leaderboard_marks_them_and_ranks_them_apart(browser: Any, tmp_path: Path) -> None:
    folder = not_own_folder(tmp_path)
    write_site(folder, tmp_path / "site")
    browser.get((tmp_path / "site" / "index.html").as_uri())
    WebDriverWait(browser, 20).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
    )
    rows = browser.find_elements(By.CSS_SELECTOR, "#leaderboard table tbody tr")
    cells = [[c.text for c in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    heads = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#leaderboard table th")]
    rank, entrant, mine = (
        heads.index("rank (95% simultaneous)"),
        1,
        heads.index("turns not its own"),
    )
    by_name = {row[entrant].split(" ⚠")[0]: row for row in cells}
    assert set(by_name) == {"broken", "fine", "junk", "junk-llm", "lantern", "mixed"}
    for name, flag in NOT_OWN.items():
        row = by_name[name]
        assert row[entrant] == f"{name} ⚠ {flag}"
        assert row[rank] == "apart: not its own play"
        assert row[mine].startswith("keeper ")
    assert by_name["lantern"][mine] == "none"
    # ranked by rank (ties by name), those apart after every ranked entrant
    names = [row[entrant].split(" ⚠")[0] for row in cells]
    ranked = [n for n in names if n not in NOT_OWN]
    assert names[: len(ranked)] == ranked
    ranks = [int(by_name[n][rank].split(" ")[0]) for n in ranked]
    assert ranks == sorted(ranks)
    assert [n for r, n in sorted(zip(ranks, ranked, strict=True))] == ranked
    note = browser.find_element(By.ID, "not-own").text
    assert "ranked apart" in note
    assert "broken, junk, junk-llm" in note
    comparisons = browser.find_element(By.ID, "comparisons").text
    assert "Ranked apart, not on this board: broken ⚠ all turns fell back" in comparisons
