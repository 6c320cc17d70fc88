"""Report statistics against values worked out by hand."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.compare import holm, pair_bootstrap, pairwise, rank_intervals, ranks_of
from harness.report.model import Report
from harness.report.plot import svg_groups
from harness.report.render import to_csv, to_json, to_markdown, to_svg
from harness.report.stats import (
    BOOTSTRAP_SEED,
    bootstrap_mean,
    bootstrap_p,
    cell_means,
    draws,
    interval_from,
    paired_difference,
    percentile,
)
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
    one = bootstrap_mean([4.0])  # one cell: a mean, but no interval
    assert (one.mean, one.n) == (4.0, 1)
    assert math.isnan(one.low)
    assert math.isnan(one.high)


def test_percentiles_by_hand() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == pytest.approx(2.5)
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
    assert percentile([7.0], 95) == 7.0


def test_report_by_hand() -> None:
    report = build_report(
        get_game("lighthouse"), SUMMARIES, reference="ref", order=["ref", "model"], title="t"
    )
    assert [r.entrant for r in report.entrants] == ["ref", "model"]
    ref, model = report.entrants
    assert (model.episodes, model.cells) == (4, 3)
    # the mean over cells: seed 0's repetitions average to 11, then (11 + 5 + 20) / 3
    assert model.score.mean == pytest.approx(12.0)
    assert (model.score.n, model.score.episodes) == (3, 4)
    assert ref.score.mean == pytest.approx(46 / 4)
    assert model.columns["keys"] == pytest.approx(3.0)
    # escape rate = sum(E) / sum(runners) = (1 + 1 + 0 + 2) / 12
    assert model.columns["escape_rate"] == pytest.approx(4 / 12)
    assert model.columns["message_runes"] == pytest.approx(10.0)
    assert model.columns["compliance"] == pytest.approx(0.7)
    # keeper turns 40, fallbacks 2: 5%; runners never call a model
    assert model.fallback_rate == {"keeper": pytest.approx(0.05)}
    assert (model.input_tokens, model.output_tokens) == (4000, 400)
    assert model.cost_usd == pytest.approx(0.04)
    # four episodes of [100, 300]: ranks 3.5 and 6.65 of the eight sorted latencies
    assert model.latency_ms.p50 == pytest.approx(200.0)
    assert model.latency_ms.p95 == pytest.approx(300.0)
    assert model.fallback_free_episodes == 3
    (paired,) = report.paired
    assert paired.difference.mean == pytest.approx(-1.0)
    assert (paired.wins, paired.ties, paired.losses) == (1, 1, 1)
    # without fallbacks seed 0 has one repetition left: 10 - 9 = 1
    (clean,) = report.fallback_free.paired
    assert clean.difference.mean == pytest.approx((1 + 0 - 5) / 3)
    assert report.leader == "keeper"
    (board,) = report.leaderboards
    assert (board.group, board.context, board.cells) == ("keeper", {"runners": "wallhug"}, 3)
    # over the three cells both finished: ref (9 + 5 + 25) / 3 = 13 against model 12
    assert [(r.agent, r.rank) for r in board.rows] == [("lantern", 1), ("openai:m", 2)]
    assert board.rows[0].score.mean == pytest.approx(13.0)


def test_renderings_carry_the_same_numbers(tmp_path: Any) -> None:
    report = build_report(
        get_game("lighthouse"), SUMMARIES, reference="ref", order=["ref", "model"]
    )
    md = to_markdown(report)
    assert "| model | openai:m | wallhug | 4 | 3 | 12.00 [" in md
    assert "| model | ref | 3 | -1.00 [" in md
    assert "95% percentile bootstrap over (seed, variant) cells, 2,000 resamples" in md
    assert "(incomplete)" not in md
    assert "## Without LLM fallbacks" in md
    assert "## Keeper leaderboard" in md
    rows = to_csv(report).splitlines()
    header = rows[0].split(",")
    model = dict(zip(header, rows[2].split(","), strict=True))
    assert float(model["score_mean"]) == pytest.approx(12.0)
    assert (model["cells"], model["incomplete"]) == ("3", "false")
    assert model["paired_vs"] == "ref"
    assert (model["wins"], model["ties"], model["losses"]) == ("1", "1", "1")
    assert Report.model_validate_json(to_json(report)) == report  # the JSON is the report
    svg = to_svg(SUMMARIES, ["ref", "model"], high=42)
    assert svg.startswith("<svg")
    # a dot per episode, in its entrant's row, and each entrant's mean with its interval
    dots = svg_groups(svg, "episodes-")
    assert dots == {"episodes-0": 4, "episodes-1": 4}
    assert sum(dots.values()) == len(SUMMARIES)
    assert set(svg_groups(svg, "interval-")) == {"interval-0", "interval-1"}
    assert "percentile bootstrap over (seed, variant) cells" in svg


# Five fixed resamples of three cells: small enough to work every figure by hand.
DRAWS = [[0, 0, 0], [2, 2, 2], [1, 1, 1], [0, 1, 2], [0, 0, 1]]


def test_clustered_bootstrap_by_hand() -> None:
    # seed 0 played twice (10 and 12): one cell of mean 11, not two episodes
    cells = cell_means([((0, "d"), 10.0), ((1, "d"), 5.0), ((0, "d"), 12.0), ((2, "d"), 20.0)])
    assert list(cells.items()) == [((0, "d"), 11.0), ((1, "d"), 5.0), ((2, "d"), 20.0)]
    values = list(cells.values())
    # resampled means: [11,11,11] 11, [20,20,20] 20, [5,5,5] 5, [11,5,20] 12, [11,11,5] 9
    # sorted 5, 9, 11, 12, 20; with B = 5 the 95% bounds are the order statistics at
    # floor(0.025 * 4) = 0 and ceil(0.975 * 4) = 4, the 50% ones at 1 and 3
    wide = interval_from(values, DRAWS, episodes=4)
    assert (wide.mean, wide.low, wide.high, wide.n, wide.episodes) == (12.0, 5.0, 20.0, 3, 4)
    narrow = interval_from(values, DRAWS, level=0.5)
    assert (narrow.low, narrow.high) == (9.0, 12.0)
    # the seeded draws are a pure function of (n, resamples, seed): Python's
    # Mersenne Twister seeded with the report's seed, n indices per resample
    rng = random.Random(BOOTSTRAP_SEED)
    assert list(draws(3, resamples=4)) == [rng.choices(range(3), k=3) for _ in range(4)]
    assert list(draws(3, resamples=4)) != list(draws(3, resamples=4, seed=1))
    assert bootstrap_mean(values) == interval_from(values, draws(3))


def test_bootstrap_p_by_hand() -> None:
    # two of five resampled differences at or below zero, four at or above: 2 * 2 / 5
    assert bootstrap_p([1.0, 0.0, 2.0, -1.0, 3.0]) == pytest.approx(0.8)
    assert bootstrap_p([4.0, 4.0, 3.0]) == 0.0  # no resample reaches zero
    assert bootstrap_p([0.0, 0.0]) == 1.0  # identical entrants


def test_holm_by_hand() -> None:
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 -> max 0.06
    steps = holm([0.01, 0.04, 0.03, 0.005])
    assert [s.adjusted for s in steps] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [s.level for s in steps] == pytest.approx([1 - 0.05 / 3, 0.95, 0.975, 1 - 0.05 / 4])
    # step-down: 0.04 would pass at its own level (0.05) but 0.03 failed first
    assert [s.adjusted <= 0.05 for s in steps] == [True, False, False, True]
    # equal p-values get the same (strictest) level and the same adjusted p
    tied = holm([0.02, 0.02])
    assert [(s.adjusted, s.level) for s in tied] == [(0.04, 0.975), (0.04, 0.975)]


def test_rank_intervals_by_hand() -> None:
    a, b, c = [3.0, 1.0, 2.0], [1.0, 2.0, 4.0], [2.0, 2.0, 2.0]
    # observed means 2, 7/3, 2: b first, a and c share rank 2
    assert ranks_of([2.0, 7 / 3, 2.0]) == [2, 1, 2]
    # per draw (a, b, c): [0,0,0] 3,1,2 -> 1,3,2; [2,2,2] 2,4,2 -> 2,1,2;
    # [1,1,1] 1,2,2 -> 3,1,1; [0,1,2] -> 2,1,2; [0,0,1] 7/3,4/3,2 -> 1,3,2
    # a: 1,1,2,2,3  b: 1,1,1,3,3  c: 1,2,2,2,2
    wide = rank_intervals([a, b, c], DRAWS)
    assert [(r.rank, r.low, r.high) for r in wide] == [(2, 1, 3), (1, 1, 3), (2, 1, 2)]
    assert [r.text() for r in wide] == ["1-3", "1-3", "1-2"]
    narrow = rank_intervals([a, b, c], DRAWS, level=0.5)
    assert [(r.low, r.high) for r in narrow] == [(1, 2), (1, 3), (2, 2)]
    assert narrow[2].text() == "2"
    # no resamples (one cell): every rank is possible
    assert [(r.low, r.high) for r in rank_intervals([[1.0], [2.0]], [])] == [(1, 2), (1, 2)]


def test_pairwise_by_hand() -> None:
    # cell means a 5,6,7; b 1,2,3; c 1,3,2 -> a-b 4,4,4; a-c 4,3,5; b-c 0,-1,1
    means = {"a": [5.0, 6.0, 7.0], "b": [1.0, 2.0, 3.0], "c": [1.0, 3.0, 2.0]}
    cells = {n: {(seed, "d"): x for seed, x in enumerate(v)} for n, v in means.items()}
    diffs, stats = pair_bootstrap(["a", "b", "c"], cells, lambda n: DRAWS)
    assert diffs == [[4.0, 4.0, 4.0], [4.0, 3.0, 5.0], [0.0, -1.0, 1.0]]
    ab, ac, bc = pairwise(["a", "b", "c"], diffs, stats)
    assert [(x.first, x.second) for x in (ab, ac, bc)] == [("a", "b"), ("a", "c"), ("b", "c")]
    # a-b and a-c: no resample reaches zero (p 0); b-c: means 0, 1, -1, 0, -1/3:
    # four at or below zero, three at or above: p = min(1, 2 * 3 / 5) = 1
    assert [x.p for x in (ab, ac, bc)] == [0.0, 0.0, 1.0]
    assert [x.significant for x in (ab, ac, bc)] == [True, True, False]
    assert ab.holm is not None
    assert ac.holm is not None
    assert bc.holm is not None
    # m = 3; a-b and a-c tie at the first step (level 1 - 0.05/3), b-c is third (0.95)
    assert (ab.holm.level, ac.holm.level, bc.holm.level) == pytest.approx(
        (1 - 0.05 / 3, 1 - 0.05 / 3, 0.95)
    )
    # a-c resampled: 4, 5, 3, 4, 11/3 -> sorted 3, 11/3, 4, 4, 5; at 98.3% the bounds
    # are the order statistics at floor(0.0083 * 4) = 0 and ceil(0.9917 * 4) = 4
    assert (ac.difference.mean, ac.difference.low, ac.difference.high) == (4.0, 3.0, 5.0)
    # b-c sorted -1, -1/3, 0, 0, 1; at 95%: 0 and 4
    assert (bc.difference.low, bc.difference.high) == (-1.0, 1.0)
    # a pair with one shared cell is no test and does not count in Holm's m
    lone = pairwise(["a", "b", "c"], [[1.0], [2.0, 3.0], [1.0, 1.0]], [[], [2.0], [1.0]])
    assert lone[0].holm is None
    assert lone[0].p is None
    assert not lone[0].significant
    assert lone[1].holm is not None
    assert lone[1].holm.level == pytest.approx(0.975)
