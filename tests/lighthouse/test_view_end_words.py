"""The terminal's results line names an episode's end for what happened (decisions of
the report's words), with the rules' own reason beside it."""

from __future__ import annotations

import pytest

from harness.games.lighthouse.record import LighthouseResults
from harness.games.lighthouse.view import LighthouseView


def results(reason: str, escaped: int, clock: int) -> LighthouseResults:
    return LighthouseResults.model_validate(
        {
            "teamScore": 10.0 * escaped, "K": 1, "keyCount": 3, "E": escaped, "B": 0.0,
            "clock": clock, "floodClock": 73, "ticks": clock, "reason": reason, "scores": [10.0 * escaped] * 4,
        }
    )  # fmt: skip


@pytest.mark.parametrize(
    ("reason", "escaped", "clock", "ended"),
    [
        ("complete", 3, 40, "ended: all escaped (complete)"),
        ("complete", 0, 40, "ended: all drowned (complete)"),
        ("complete", 1, 40, "ended: escaped and drowned (complete)"),
        ("complete", 1, 73, "ended: flooded (complete)"),
        ("timeup", 1, 60, "ended: tick cap (timeup)"),
        ("deadline", 0, 12, "ended: deadline"),
    ],
)
def test_the_results_line_names_the_end(reason: str, escaped: int, clock: int, ended: str) -> None:
    view = LighthouseView()
    assert view.render_results(results(reason, escaped, clock)).endswith(ended)
