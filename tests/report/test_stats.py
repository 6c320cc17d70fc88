"""Report statistics against values worked out by hand: the seed as the unit, a cell's
repetitions averaged, what a comparison leaves out, and the texts every view shows."""

from __future__ import annotations

from typing import Any

import pytest

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.methods import holm, ranks_of
from harness.report.model import Report
from harness.report.plot import svg_groups
from harness.report.render import to_csv, to_json, to_markdown, to_svg
from harness.report.stats import percentile
from harness.report.texts import p_text
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
    assert (model.episodes, model.cells, model.seeds) == (4, 3, 3)
    # the mean over seeds: seed 0's repetitions average to 11, then (11 + 5 + 20) / 3
    assert model.score.mean == pytest.approx(12.0)
    assert (model.score.n, model.score.episodes, model.score.seeds) == (3, 4, 3)
    assert model.score.method == "skew-corrected t over seeds"
    assert ref.score.mean == pytest.approx(46 / 4)
    assert model.per_variant["default"].mean == pytest.approx(12.0)
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
    # seeds 0, 1, 2 both finished: d = 11 - 9, 5 - 5, 20 - 25 = 2, 0, -5; ref's seed 3
    # has no partner and is left out, and said to be
    assert paired.difference.mean == pytest.approx(-1.0)
    assert (paired.wins, paired.ties, paired.losses, paired.seeds) == (1, 1, 1, 3)
    assert paired.dropped == (
        "left out: 1 finished cells (1 seed not finished in every variant by all of them)"
    )
    # 2^3 = 8 sign vectors: T(F) <= 0 for 6 of the subsets of {2, 0, -5}, >= 0 for 4,
    # so p = 2 x 4 / 8 = 1; and 8 vectors cannot put a 95% interval's ends 2.5% in
    assert paired.p == 1.0
    assert paired.p_floor == 0.25
    assert (paired.difference.low, paired.difference.high) == (None, None)
    assert paired.difference.reason == "too few seeds"
    assert paired.difference.resamples == 8
    # P(model > ref): one win, one tie, one loss: (1 + 1/2) / 3
    assert paired.improvement is not None
    assert paired.improvement.mean == pytest.approx(0.5)
    # without fallbacks seed 0 has one repetition left: 10 - 9 = 1
    (clean,) = report.fallback_free.paired
    assert clean.difference.mean == pytest.approx((1 + 0 - 5) / 3)
    assert report.leader == "keeper"
    (board,) = report.leaderboards
    assert (board.group, board.context, board.cells) == ("keeper", {"runners": "wallhug"}, 3)
    # over the three seeds both finished: ref (9 + 5 + 25) / 3 = 13 against model 12
    assert [(r.agent, r.rank) for r in board.rows] == [("lantern", 1), ("openai:m", 2)]
    assert board.rows[0].score.mean == pytest.approx(13.0)
    # three seeds: no test of the two can reach 5%, and the board says so
    assert "no pair can be starred before 6 seeds" in board.note


def test_renderings_carry_the_same_numbers(tmp_path: Any) -> None:
    report = build_report(
        get_game("lighthouse"), SUMMARIES, reference="ref", order=["ref", "model"]
    )
    md = to_markdown(report)
    assert "| model | openai:m | wallhug | 4 | 3 | 12.00 [" in md
    assert "| model | ref | 3 | -1.00 [-] (too few seeds) | 1 | 0.50 [" in md
    assert "- (too few seeds): too few seeds for this level" in md
    assert "- model - ref: left out: 1 finished cells" in md
    assert "**Too few seeds to conclude**: with 3 seeds the smallest p-value" in md
    assert "skew-corrected t intervals" in md
    assert "(incomplete)" not in md
    assert "## Without LLM fallbacks" in md
    assert "## Keeper leaderboard" in md
    rows = to_csv(report).splitlines()
    header = rows[0].split(",")
    model = dict(zip(header, rows[2].split(","), strict=True))
    assert float(model["score_mean"]) == pytest.approx(12.0)
    assert (model["cells"], model["seeds"], model["incomplete"]) == ("3", "3", "false")
    assert model["paired_vs"] == "ref"
    assert (model["wins"], model["ties"], model["losses"]) == ("1", "1", "1")
    assert (model["paired_diff_low"], model["paired_p"]) == ("", "1.0")
    assert model["dropped"] == ""
    assert Report.model_validate_json(to_json(report)) == report  # the JSON is the report
    svg = to_svg(SUMMARIES, ["ref", "model"], high=42)
    assert svg.startswith("<svg")
    # a dot per episode, in its entrant's row, and each entrant's mean with its interval
    dots = svg_groups(svg, "episodes-")
    assert dots == {"episodes-0": 4, "episodes-1": 4}
    assert sum(dots.values()) == len(SUMMARIES)
    assert set(svg_groups(svg, "interval-")) == {"interval-0", "interval-1"}
    assert set(svg_groups(svg, "profile-")) == {"profile-0", "profile-1"}
    assert "interval over seeds" in svg


def test_holm_by_hand() -> None:
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 -> max 0.06
    steps = holm([0.01, 0.04, 0.03, 0.005])
    assert [s.adjusted for s in steps] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [s.level for s in steps] == pytest.approx([1 - 0.05 / 3, 0.95, 0.975, 1 - 0.05 / 4])
    # step-down: 0.04 would pass at its own level (0.05) but 0.03 failed first
    assert [s.rejected for s in steps] == [True, False, False, True]
    # equal p-values get the same (strictest) level and the same adjusted p
    tied = holm([0.02, 0.02])
    assert [(s.adjusted, s.level) for s in tied] == [(0.04, 0.975), (0.04, 0.975)]


def test_ranks_of_by_hand() -> None:
    # b first, a and c share rank 2
    assert ranks_of([2.0, 7 / 3, 2.0]) == [2, 1, 2]


@pytest.mark.parametrize(
    ("p", "floor", "seeds", "text"),
    [
        (0.25, 0.25, 3, "0.25"),  # exact: 2 of 8 sign vectors, printed as it is
        (1.0, 0.25, 3, "1"),
        (0.00390625, 0.00390625, 9, "0.00391"),
        (0.1234567, 2e-4, 40, "0.123"),
        # beyond 16 seeds, random flips: none as extreme as the observed one says only
        # that p is at most 2 / (B + 1), not that it is that
        (2e-4, 2e-4, 40, "<=0.0002"),
        (4.4e-5, 4.4e-5, 40, "<=4.4e-05"),
        (None, None, 0, "-"),
    ],
)
def test_a_p_value_is_printed_at_the_resolution_it_has(
    p: float | None, floor: float | None, seeds: int, text: str
) -> None:
    assert p_text(p, floor, seeds) == text


def test_the_worked_example_of_docs_tournaments_md(tmp_path: Any) -> None:
    """docs/tournaments.md works a small example by hand; the report gives its figures."""
    a = {
        (1, "default"): [10],
        (1, "spring"): [6],
        (2, "default"): [14],
        (2, "spring"): [10],
        (3, "default"): [7],
        (3, "spring"): [5],
        (4, "default"): [12, 16],
        (4, "spring"): [10],
    }
    b = {(1, "default"): [6], (1, "spring"): [4], (2, "default"): [9], (2, "spring"): [9],
         (3, "default"): [8], (3, "spring"): [6], (4, "default"): [8], (4, "spring"): [6]}  # fmt: skip
    summaries = [
        summary_of(name, seed, variant, rep, float(x))
        for name, cells in (("a", a), ("b", b))
        for (seed, variant), xs in cells.items()
        for rep, x in enumerate(xs)
    ]
    report = build_report(get_game("lighthouse"), summaries, reference="b", order=["a", "b"])
    first, second = report.entrants
    assert (first.score.mean, second.score.mean) == (9.5, 7.0)
    assert (first.per_variant["default"].mean, first.per_variant["spring"].mean) == (11.25, 7.75)
    assert f"{first.score.low:.2f} {first.score.high:.2f}" == "4.30 13.94"
    assert first.iqm is not None
    assert first.iqm.mean == 10.0
    (paired,) = report.paired
    assert (paired.difference.mean, paired.p, paired.difference.reason) == (
        2.5,
        0.25,
        "too few seeds",
    )
    assert paired.improvement is not None
    improvement = paired.improvement
    assert f"{improvement.mean:.2f} [{improvement.low:.2f}, {improvement.high:.2f}]" == (
        "0.75 [0.30, 0.95]"
    )
    ranks = [r.rank for r in report.entrants]
    assert [(r.rank, r.rank_low, r.rank_high) for r in ranks if r is not None] == [
        (1, 1, 2),
        (2, 1, 2),
    ]
    assert "no difference here can be told from chance before 6 seeds" in to_markdown(report)


def summary_of(entrant: str, seed: int, variant: str, rep: int, score: float) -> EpisodeSummary:
    return summary(entrant, seed, variant, rep, score, False).model_copy(
        update={"seats": {}, "metrics": {"K": 1.0, "E": 1.0, "runners": 3.0}}
    )
