"""Report statistics against values worked out by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.render import to_csv, to_json, to_markdown, to_svg
from harness.report.stats import bootstrap_mean, paired_difference, percentile
from harness.summary import EpisodeSummary

# (entrant, seed, variant, repetition, score, fallback?)
FIXTURE = [
    ("model", 0, "default", 0, 10.0, False),
    ("model", 0, "default", 1, 12.0, True),  # repetitions of seed 0 average to 11
    ("model", 1, "default", 0, 5.0, False),
    ("model", 2, "default", 0, 20.0, False),
    ("ref", 0, "default", 0, 9.0, False),
    ("ref", 1, "default", 0, 5.0, False),
    ("ref", 2, "default", 0, 25.0, False),
    ("ref", 3, "default", 0, 7.0, False),  # no partner: not paired
]


def summary(
    entrant: str, seed: int, variant: str, rep: int, score: float, fell: bool
) -> EpisodeSummary:
    keeper_agent = "openai:m" if entrant == "model" else "lantern"
    keeper: dict[str, Any] = {"role": "keeper", "agent": keeper_agent}
    if entrant == "model":
        keeper |= {"turns": 10, "calls": 11, "retries": 1, "inputTokens": 1000,
                   "outputTokens": 100, "costUsd": 0.01, "latenciesMs": [100.0, 300.0]}  # fmt: skip
        if fell:
            keeper["fallbacks"] = {"fallback_parse": 2}
    runner = {"role": "runner", "agent": "wallhug", "turns": 10}
    return EpisodeSummary.model_validate(
        {
            "episodeId": f"{entrant}--{variant}--s{seed}--r{rep}",
            "entrant": entrant, "seed": seed, "variant": variant, "repetition": rep,
            "score": score, "scores": [score] * 4, "reason": "complete",
            "metrics": {"K": 3.0, "E": score // 10, "runners": 3.0, "B": 0.0,
                        "transmissions": 4.0, "messageRunes": 40.0, "talkClock": 4.0,
                        "ordersGiven": 10.0, "ordersFollowed": 7.0, "clock": 40.0},
            "seats": {"keeper": keeper, "runner1": runner, "runner2": runner, "runner3": runner},
            "fallbackFree": not fell,
        }
    )  # fmt: skip


SUMMARIES = [summary(*row) for row in FIXTURE]


def test_paired_differences_by_hand() -> None:
    model = [((s, v), x) for e, s, v, _, x, _ in FIXTURE if e == "model"]
    ref = [((s, v), x) for e, s, v, _, x, _ in FIXTURE if e == "ref"]
    paired = paired_difference(model, ref)
    # seed 0: 11 - 9 = 2; seed 1: 5 - 5 = 0; seed 2: 20 - 25 = -5; seed 3 unpaired
    assert paired.pairs == 3
    assert paired.difference.mean == pytest.approx(-1.0)
    assert (paired.wins, paired.ties, paired.losses) == (1, 1, 1)
    assert paired.difference.low <= -1.0 <= paired.difference.high
    assert paired.difference.low >= -5.0
    assert paired.difference.high <= 2.0


def test_bootstrap_is_seeded_reproducible_and_contains_the_mean() -> None:
    values = [3.0, 9.0, 1.0, 14.0, 7.0, 7.5, 2.0, 11.0]
    a, b = bootstrap_mean(values), bootstrap_mean(values)
    assert a == b
    assert a.mean == pytest.approx(6.8125)
    assert a.low < a.mean < a.high
    assert min(values) <= a.low
    assert a.high <= max(values)
    other = bootstrap_mean(values, seed=1)
    assert (other.low, other.high) != (a.low, a.high)
    narrow = bootstrap_mean(values, level=0.5)
    assert a.low <= narrow.low <= narrow.high <= a.high
    assert bootstrap_mean([4.0]).low == 4.0


def test_percentiles_by_hand() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == pytest.approx(2.5)
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
    assert percentile([7.0], 95) == 7.0


def test_report_by_hand() -> None:
    report = build_report(
        get_game("lighthouse"), SUMMARIES, reference="ref", order=["ref", "model"], title="t"
    )
    assert [r["entrant"] for r in report["entrants"]] == ["ref", "model"]
    ref, model = report["entrants"]
    assert model["episodes"] == 4
    assert model["score"]["mean"] == pytest.approx(47 / 4)
    assert ref["score"]["mean"] == pytest.approx(46 / 4)
    assert model["columns"]["K"] == pytest.approx(3.0)
    # escape rate = sum(E) / sum(runners) = (1 + 1 + 0 + 2) / 12
    assert model["columns"]["escape_rate"] == pytest.approx(4 / 12)
    assert model["columns"]["message_runes"] == pytest.approx(10.0)
    assert model["columns"]["compliance"] == pytest.approx(0.7)
    # keeper turns 40, fallbacks 2: 5%; runners never call a model
    assert model["fallbackRate"] == {"keeper": pytest.approx(0.05)}
    assert (model["inputTokens"], model["outputTokens"]) == (4000, 400)
    assert model["costUsd"] == pytest.approx(0.04)
    # four episodes of [100, 300]: ranks 3.5 and 6.65 of the eight sorted latencies
    assert model["latencyMs"] == {"p50": pytest.approx(200.0), "p95": pytest.approx(300.0)}
    assert model["fallbackFreeEpisodes"] == 3
    (paired,) = report["paired"]
    assert paired["difference"]["mean"] == pytest.approx(-1.0)
    assert (paired["wins"], paired["ties"], paired["losses"]) == (1, 1, 1)
    # without fallbacks seed 0 has one repetition left: 10 - 9 = 1
    (clean,) = report["fallbackFree"]["paired"]
    assert clean["difference"]["mean"] == pytest.approx((1 + 0 - 5) / 3)
    assert report["leader"] == "keeper"
    assert [k["agent"] for k in report["leaderboard"]] == ["openai:m", "lantern"]


def test_renderings_carry_the_same_numbers(tmp_path: Any) -> None:
    report = build_report(
        get_game("lighthouse"), SUMMARIES, reference="ref", order=["ref", "model"]
    )
    md = to_markdown(report)
    assert "| model | openai:m | wallhug | 4 | 11.75 [" in md
    assert "| model | ref | 3 | -1.00 [" in md
    assert "## Without LLM fallbacks" in md
    assert "## Keeper leaderboard" in md
    rows = to_csv(report).splitlines()
    header = rows[0].split(",")
    model = dict(zip(header, rows[2].split(","), strict=True))
    assert float(model["score_mean"]) == pytest.approx(11.75)
    assert model["paired_vs"] == "ref"
    assert (model["wins"], model["ties"], model["losses"]) == ("1", "1", "1")
    assert json.loads(to_json(report)) == json.loads(json.dumps(report))
    svg = to_svg(SUMMARIES, ["ref", "model"], high=42)
    assert svg.startswith("<svg")
    assert svg.count("<circle") == len(SUMMARIES)
