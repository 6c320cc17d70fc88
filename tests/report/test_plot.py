"""The score plot: the report's own intervals, drawn by matplotlib, the same bytes each time,
and nothing provisional drawn as final."""

from __future__ import annotations

import random
import re

import pytest

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.plot import score_plot, strips, svg_groups
from harness.report.render import to_svg
from harness.summary import EpisodeSummary
from tests.report.test_report_many import line

GAME = get_game("lighthouse")


def results() -> list[EpisodeSummary]:
    out = [line("a", seed, 10.0 + (seed * 7) % 11) for seed in range(12)]
    out += [line("b", seed, 5.0 + (seed * 5) % 13, keeper="silent") for seed in range(12)]
    out.append(line("c", 0, 30.0, keeper="pilot"))  # one cell: no interval
    return out


def test_the_plot_draws_the_reports_intervals() -> None:
    summaries = results()
    report = build_report(GAME, summaries, order=["a", "b", "c"])
    drawn = {s.name: s for s in strips(summaries, ["a", "b", "c"])}
    for row in report.entrants:
        strip, score = drawn[row.entrant], row.score
        assert (strip.mean, strip.low, strip.high) == (score.mean, score.low, score.high)
        assert len(strip.scores) == row.episodes
    assert drawn["c"].low is None
    svg = score_plot(list(drawn.values()), high=42)
    assert svg_groups(svg, "episodes-") == {"episodes-0": 12, "episodes-1": 12, "episodes-2": 1}
    # a mean for every entrant, an interval only where two cells or more give one
    assert set(svg_groups(svg, "mean-")) == {"mean-0", "mean-1", "mean-2"}
    assert set(svg_groups(svg, "interval-")) == {"interval-0", "interval-1"}


def test_the_same_results_in_any_order_give_the_same_bytes() -> None:
    summaries = results()
    first = to_svg(summaries, ["a", "b", "c"], high=42)
    assert first.startswith("<svg")
    assert first.rstrip().endswith("</svg>")
    for seed in range(3):
        shuffled = summaries[:]
        random.Random(seed).shuffle(shuffled)
        assert to_svg(shuffled, ["a", "b", "c"], high=42) == first
    assert "<dc:date>" not in first  # no time stamp: nothing changes from one day to the next


def dashed(svg: str, gid: str) -> bool:
    group = re.search(rf'<g id="{gid}">(.*?)</g>', svg, re.S)
    assert group, gid
    return "stroke-dasharray" in group[1]


def test_an_incomplete_folder_draws_every_interval_provisional() -> None:
    rows = strips(results(), ["a", "b", "c"])
    final = score_plot(rows, high=42)
    provisional = score_plot(rows, high=42, note="incomplete: 25/40 episodes")
    assert not dashed(final, "interval-0")
    assert dashed(provisional, "interval-0")
    assert dashed(provisional, "interval-1")
    assert "incomplete: 25/40 episodes: provisional (dashed)" in provisional
    assert "provisional" not in final


@pytest.mark.parametrize("flag", ["all turns fell back", "fallback 40% of turns"])
def test_an_entrant_flagged_for_fallbacks_carries_its_flag(flag: str) -> None:
    rows = strips(results(), ["a", "b", "c"], flags={"b": flag})
    svg = score_plot(rows, high=42)
    assert f"b ⚠ {flag}" in svg
    assert "a ⚠" not in svg
