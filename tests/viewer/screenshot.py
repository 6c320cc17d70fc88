"""Write the episode viewer's screenshots that the docs show.

    python -m tests.viewer.screenshot [--game lighthouse|hourloom] [--out PATH]

``lighthouse`` (``docs/img/episode-viewer.png``, the README's): records the episode of
:mod:`tests.llm_episode` (four LLM seats played through the real runner, answered by a
scripted server on 127.0.0.1) and shows tick 16 (a runner has just escaped, another
drowned) with Gizmo's prompt unfolded. ``hourloom`` (``docs/img/hourloom-viewer.png``):
PLANNER's run of seed 0 at tick 300, in chamber 4's last lap: echo 1 holds the plate
of gate C, open for you, echo 2 stands on that gate and echo 3 waits next. Each page is taken in headless Chromium in a
1400 x 900 window, drawn at 0.75 of its size to keep the file small. Needs Chromium
and chromedriver; writes nothing else.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import harness
from harness.reader import open_record
from harness.registry import get_game
from harness.viewer.html import render_html
from tests.browser import chromium
from tests.llm_episode import record_llm_episode

ROOT = Path(__file__).resolve().parents[2]


def _llm_episode(folder: Path) -> Path:
    return record_llm_episode(folder / "episode.jsonl").path


def _planner_run(folder: Path) -> Path:
    path = folder / "episode.jsonl"
    harness.play("hourloom", 0, player="planner", record=path)
    return path


@dataclass(frozen=True)
class Shot:
    """One screenshot: the record to make, the tick to show, what to open after."""

    out: Path
    record: Callable[[Path], Path]
    tick: int
    then: str = ""


SHOTS = {
    "lighthouse": Shot(
        ROOT / "docs/img/episode-viewer.png",
        _llm_episode,
        16,
        "document.querySelector('.seat[data-seat=\"runner2\"] details.prompt').open = true;",
    ),
    "hourloom": Shot(ROOT / "docs/img/hourloom-viewer.png", _planner_run, 300),
}


def main() -> None:
    """Record, render, open, photograph."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(SHOTS), default="lighthouse")
    parser.add_argument("--out", type=Path, help="default: the image the docs show")
    args = parser.parse_args()
    shot = SHOTS[args.game]
    out: Path = args.out or shot.out
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        page = folder / "episode.html"
        lines = open_record(shot.record(folder)).lines()
        page.write_text(render_html(get_game(args.game).view, lines), encoding="utf-8")
        driver = chromium(folder / "chromium")
        try:
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1400, "height": 900, "deviceScaleFactor": 0.75, "mobile": False},
            )
            driver.get(page.as_uri())
            driver.execute_script(
                "const s = document.getElementById('slider'); s.value = arguments[0];"
                "s.dispatchEvent(new Event('input'));" + shot.then,
                shot.tick + 1,
            )
            out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
