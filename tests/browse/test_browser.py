"""The results browser in a real headless Chromium (Debian's), served and from file://.

A 200-episode folder played by the real runner: the index lists every episode, sorts
and filters them, opens one in the episode viewer, logs no console error, and the
folder is not changed by any of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.browse.site import write_site
from tests.browse.conftest import digest, serving
from tests.browser import chromium, require_browser

require_browser()

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def before(folder200: Path) -> dict[str, tuple[str, int, int]]:
    return digest(folder200)


@pytest.fixture(scope="module")
def address(folder200: Path, before: dict[str, Any]) -> Iterator[str]:
    with serving(folder200) as url:
        yield url


def lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "episodes.jsonl").read_text().splitlines()]


def ready(driver: Any, url: str) -> None:
    driver.get(url)
    WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
    )


def console_errors(driver: Any) -> list[dict[str, Any]]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def visible(driver: Any) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#episodes-table tbody tr'))"
        ".filter(r => !r.hidden).map(r => Object.assign({}, r.dataset));"
    )
    return rows


def shown(driver: Any) -> int:
    return int(driver.find_element(By.ID, "shown").text)


def sort(driver: Any, key: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f'th[data-key="{key}"] button').click()


def test_the_index_lists_every_episode_with_the_reports_figures(
    browser: Any, address: str, folder200: Path
) -> None:
    ready(browser, address)
    expected = {line["episodeId"] for line in lines(folder200)}
    assert len(expected) == 200
    rows = visible(browser)
    assert {r["episode"] for r in rows} == expected
    assert shown(browser) == 200
    assert {r["status"] for r in rows} == {"finished"}
    board = browser.find_element(By.CSS_SELECTOR, "#leaderboard table").text
    assert "lantern" in board
    assert "silent" in board
    assert "score (95% CI)" in board
    assert "IQM (95% CI)" in board
    method = browser.find_element(By.CSS_SELECTOR, "#leaderboard .method").text
    assert "Every interval is 95% over seeds" in method
    assert "Paired against silent" in browser.find_element(By.ID, "paired").text
    comparisons = browser.find_element(By.ID, "comparisons").text
    assert "P(entrant > silent) (95% CI)" in comparisons
    # the plot: one dot per finished episode, a mean and an interval per entrant
    dots = browser.execute_script(
        "return document.querySelectorAll('#score-plot g[id^=\"episodes-\"] use').length"
    )
    assert dots == 200
    assert (
        browser.execute_script(
            "return document.querySelectorAll('#score-plot g[id^=\"interval-\"]').length"
        )
        == 2
    )
    # and each entrant's performance profile, a step line of its own
    assert (
        browser.execute_script(
            "return document.querySelectorAll('#score-plot [id^=\"profile-\"]').length"
        )
        == 2
    )
    legend = browser.find_element(By.ID, "legend").text
    assert legend.startswith("keys: keys the team collected")
    # nothing came from anywhere but the page itself
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert console_errors(browser) == []


def test_sorting_by_a_heading_orders_the_rows_both_ways(browser: Any, address: str) -> None:
    ready(browser, address)
    sort(browser, "score")  # numbers start high
    scores = [float(r["score"]) for r in visible(browser)]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > scores[-1]
    assert (
        browser.find_element(By.CSS_SELECTOR, 'th[data-key="score"]').get_attribute("aria-sort")
        == "descending"
    )
    sort(browser, "score")
    assert [float(r["score"]) for r in visible(browser)] == sorted(scores)
    sort(browser, "seed")
    seeds = [int(r["seed"]) for r in visible(browser)]
    assert seeds == sorted(seeds, reverse=True)
    sort(browser, "entrant")  # text starts a to z
    entrants = [r["entrant"] for r in visible(browser)]
    assert entrants == sorted(entrants)
    assert entrants[0] != entrants[-1]
    assert console_errors(browser) == []


def test_filters_by_entrant_seed_variant_score_and_reason(
    browser: Any, address: str, folder200: Path
) -> None:
    ready(browser, address)
    every = lines(folder200)
    Select(browser.find_element(By.ID, "f-entrant")).select_by_value("silent")
    rows = visible(browser)
    assert {r["entrant"] for r in rows} == {"silent"}
    assert shown(browser) == len(rows) == 100
    seed = browser.find_element(By.ID, "f-seed")
    seed.send_keys("3-5, 40")
    rows = visible(browser)
    assert sorted({int(r["seed"]) for r in rows}) == [3, 4, 5, 40]
    assert len(rows) == 8  # four seeds, two tides
    Select(browser.find_element(By.ID, "f-variant")).select_by_value("spring")
    assert {(r["variant"], r["entrant"]) for r in visible(browser)} == {("spring", "silent")}
    browser.find_element(By.ID, "f-clear").click()
    assert shown(browser) == 200
    # a score range: exactly the episodes whose score is in it
    low, high = 10, 30
    browser.find_element(By.ID, "f-min").send_keys(str(low))
    browser.find_element(By.ID, "f-max").send_keys(str(high))
    within = {e["episodeId"] for e in every if low <= e["score"] <= high}
    assert 0 < len(within) < 200
    assert {r["episode"] for r in visible(browser)} == within
    browser.find_element(By.ID, "f-clear").click()
    reasons = {e["reason"] for e in every}
    assert "timeup" in reasons
    Select(browser.find_element(By.ID, "f-reason")).select_by_value("timeup")
    timeup = {e["episodeId"] for e in every if e["reason"] == "timeup"}
    assert {r["episode"] for r in visible(browser)} == timeup
    # the filters live in the address: a reload finds them as they were
    browser.refresh()
    WebDriverWait(browser, 20).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true"
    )
    assert {r["episode"] for r in visible(browser)} == timeup
    assert Select(browser.find_element(By.ID, "f-reason")).first_selected_option.text == "timeup"
    assert console_errors(browser) == []


def test_an_episode_opens_in_the_viewer_and_leads_back(
    browser: Any, address: str, folder200: Path
) -> None:
    ready(browser, address)
    Select(browser.find_element(By.ID, "f-entrant")).select_by_value("lantern")
    first = visible(browser)[0]["episode"]
    browser.find_element(By.LINK_TEXT, first).click()
    WebDriverWait(browser, 20).until(lambda d: d.title.endswith(first))
    record = folder200 / "records" / f"{first}.jsonl"
    recorded = [json.loads(x) for x in record.read_text().splitlines()]
    ticks = [x for x in recorded if x["type"] == "tick"]
    assert browser.find_element(By.ID, "slider").get_attribute("max") == str(len(ticks))
    summary = browser.find_element(By.ID, "summary").text
    assert summary.startswith(f"score {recorded[-1]['results']['teamScore']:.3f} = 6 x ")
    assert "water: no row flooded" in browser.find_element(By.ID, "board").text
    assert browser.find_element(By.ID, "results-nav").text.endswith(f"{first}: finished")
    browser.find_element(By.ID, "next").click()
    assert browser.find_element(By.ID, "tick-label").text == "tick 0"
    browser.find_element(By.LINK_TEXT, "← results").click()
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "episodes-table"))
    assert console_errors(browser) == []


def test_the_static_site_works_from_file_urls(
    browser: Any, folder200: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    write_site(folder200, site)
    ready(browser, (site / "index.html").as_uri())
    assert shown(browser) == 200
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    Select(browser.find_element(By.ID, "f-variant")).select_by_value("spring")
    target = visible(browser)[-1]["episode"]
    browser.find_element(By.LINK_TEXT, target).click()
    WebDriverWait(browser, 20).until(lambda d: d.title.endswith(target))
    assert browser.current_url.startswith("file://")
    browser.find_element(By.LINK_TEXT, "← results").click()
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "episodes-table"))
    assert console_errors(browser) == []


def test_viewing_changes_nothing_in_the_folder(
    browser: Any, address: str, folder200: Path, before: dict[str, Any], tmp_path: Path
) -> None:
    # after everything above (and once more here): the index, pages, a static site
    ready(browser, address)
    for episode in [r["episode"] for r in visible(browser)][::40]:
        browser.get(f"{address}episodes/{episode}.html")
    write_site(folder200, tmp_path / "site")
    assert digest(folder200) == before
