"""Take the results browser's screenshot for the docs (docs/img/results-browser.png).

    python -m tests.browse.screenshot                 # writes docs/img/results-browser.png
    python -m tests.browse.screenshot OUT.png

Plays configs/smoke.toml on its first 20 seeds (120 episodes, offline) into a
temporary folder, serves the browser and photographs a
1280-pixel-wide window in headless Chromium: the top of the page, and the episodes
table filtered to one entrant (OUT-episodes.png). Each PNG is cut down to a small
palette so that it stays small in the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import tempfile
from pathlib import Path

from harness.tournament.config import load_tournament
from harness.tournament.narrow import Narrowing, narrow, parse_seeds
from harness.tournament.run import run_tournament
from tests.browse.conftest import serving
from tests.browser import CHROMIUM, DRIVER, chromium

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "docs" / "img" / "results-browser.png"


def _small(png: bytes, out: Path) -> None:
    from PIL import Image  # comes with matplotlib

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=128)
    image.save(out, optimize=True)
    print(f"{out}: {out.stat().st_size:,} bytes")


def main() -> int:
    """Write the screenshots; exit 1 without Chromium."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", default=DEFAULT)
    args = parser.parse_args()
    if not (CHROMIUM and DRIVER):
        print("chromium and chromedriver are needed")
        return 1
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    out = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # the page names the folder as given: results/smoke
        config, _ = narrow(
            load_tournament(ROOT / "configs" / "smoke.toml"),
            Narrowing(seeds=parse_seeds("0:20"), entrants=None, limit=None),
        )
        asyncio.run(run_tournament(config, Path("results/smoke")))
        driver = chromium(Path(tmp) / "chromium")
        try:
            driver.set_window_size(1280, 1500)
            with serving(Path("results/smoke")) as url:
                driver.get(url)
                WebDriverWait(driver, 20).until(
                    lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
                )
                _small(driver.get_screenshot_as_png(), out)
                # the episodes: one entrant's, best first
                driver.set_window_size(1280, 720)
                Select(driver.find_element(By.ID, "f-entrant")).select_by_value("lantern")
                driver.find_element(By.CSS_SELECTOR, 'th[data-key="score"] button').click()
                driver.execute_script("document.getElementById('episodes').scrollIntoView();")
                _small(driver.get_screenshot_as_png(), out.with_stem(out.stem + "-episodes"))
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
