"""Write ``docs/img/episode-viewer.png``: the episode viewer as the README shows it.

    python -m tests.viewer_screenshot [--out docs/img/episode-viewer.png]

Records the episode of :mod:`tests.llm_episode` (four LLM seats played through the real
runner, answered by a scripted server on 127.0.0.1), writes its viewer page and takes
it in headless Chromium in a 1400 x 900 window, at tick 16 (a runner has just escaped,
another drowned) with Gizmo's prompt unfolded. The page is drawn at 0.75 of its size
to keep the file small. Needs Chromium and chromedriver; writes nothing else.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness.reader import open_record
from harness.registry import get_game
from harness.viewer.html import render_html
from tests.browser import chromium
from tests.llm_episode import record_llm_episode

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs/img/episode-viewer.png"
TICK = 16


def main() -> None:
    """Record, render, open, photograph."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        recorded = record_llm_episode(folder / "episode.jsonl")
        page = folder / "episode.html"
        lines = open_record(recorded.path).lines()
        page.write_text(render_html(get_game("lighthouse").view, lines), encoding="utf-8")
        driver = chromium(folder / "chromium")
        try:
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1400, "height": 900, "deviceScaleFactor": 0.75, "mobile": False},
            )
            driver.get(page.as_uri())
            driver.execute_script(
                "const s = document.getElementById('slider'); s.value = arguments[0];"
                "s.dispatchEvent(new Event('input'));"
                "document.querySelector('.seat[data-seat=\"runner2\"] details.prompt').open = true;",
                TICK + 1,
            )
            args.out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(args.out))
        finally:
            driver.quit()
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
