"""Reports over many entrants: canonical order, cells, leaderboards, identical entrants,
incompleteness; built from hand-made results lines."""

from __future__ import annotations

import csv
import io
import json
import random
from typing import Any

import pytest

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.completeness import Plan
from harness.report.methods import holm
from harness.report.model import Report
from harness.report.render import to_csv, to_json, to_markdown, to_svg
from harness.results.specs import entrant_specs
from harness.summary import EpisodeSummary
from harness.tournament.manifest import Manifest
from harness.tournament.planned import missing_shards

GAME = get_game("lighthouse")


def line(
    entrant: str, seed: int, score: float, *, rep: int = 0, variant: str = "default",
    keeper: str = "lantern", runners: str = "wallhug",
) -> EpisodeSummary:  # fmt: skip
    seat = {"role": "runner", "agent": runners, "turns": 10}
    return EpisodeSummary.model_validate(
        {
            "episodeId": f"{entrant}--{variant}--s{seed}--r{rep}",
            "entrant": entrant, "seed": seed, "variant": variant, "repetition": rep,
            "score": score, "scores": [score] * 4, "reason": "complete",
            "metrics": {"K": 1.0, "E": 1.0, "runners": 3.0, "B": 0.1 * seed, "clock": 30.0},
            "seats": {"keeper": {"role": "keeper", "agent": keeper, "turns": 10},
                      "runner1": seat, "runner2": seat, "runner3": seat},
            "fallbackFree": True,
        }
    )  # fmt: skip


SCORES = {
    "a": [12.0, 3.0, 17.5, 8.0, 20.0, 1.0],
    "b": [13.0, 2.0, 18.0, 9.0, 14.0, 1.5],
    "c": [2.0, 1.0, 6.0, 3.0, 4.0, 2.5],
}
KEEPERS = {"a": "lantern", "b": "silent", "c": "openai:m"}


def tournament(repetitions: int = 1) -> list[EpisodeSummary]:
    return [
        line(name, seed, score, rep=rep, variant=variant, keeper=KEEPERS[name])
        for name, scores in SCORES.items()
        for seed, score in enumerate(scores)
        for variant in ("default", "spring")
        for rep in range(repetitions)
    ]


def every_format(summaries: list[EpisodeSummary], **kwargs: Any) -> tuple[str, ...]:
    report = build_report(GAME, summaries, order=["a", "b", "c"], reference="a", **kwargs)
    svg = to_svg(summaries, ["a", "b", "c"], high=42)
    return to_markdown(report), to_csv(report), to_json(report), svg


def test_the_same_results_in_any_order_give_the_same_report_byte_for_byte() -> None:
    summaries = tournament(repetitions=2)
    expected = every_format(summaries)
    for seed in range(5):
        shuffled = summaries[:]
        random.Random(seed).shuffle(shuffled)
        assert every_format(shuffled) == expected


def test_repetitions_of_a_deterministic_entrant_do_not_narrow_its_interval() -> None:
    once = build_report(GAME, tournament(1), order=["a", "b", "c"], reference="c")
    thrice = build_report(GAME, tournament(3), order=["a", "b", "c"], reference="c")
    for one, three in zip(once.entrants, thrice.entrants, strict=True):
        assert (one.episodes, three.episodes) == (12, 36)
        assert one.cells == three.cells == 12
        assert one.score.model_copy(update={"episodes": 0}) == three.score.model_copy(
            update={"episodes": 0}
        )
        assert one.rank == three.rank
    assert once.paired == thrice.paired
    assert once.pairwise == thrice.pairwise

    def boards(report: Report) -> list[Any]:
        return [
            (r.rank, r.rank_low, r.rank_high, r.score.model_copy(update={"episodes": 0}))
            for board in report.leaderboards
            for r in board.rows
        ]

    assert boards(once) == boards(thrice)
    score = once.entrants[0].score
    assert score.high is not None
    assert score.low is not None
    assert score.high - score.low > 0


def twelve_seeds() -> list[EpisodeSummary]:
    """The tournament's six seeds and the same six again as seeds 6-11."""
    return tournament() + [
        line(s.entrant, s.seed + 6, s.score, variant=s.variant, keeper=KEEPERS[s.entrant])
        for s in tournament()
    ]


def test_pairwise_differences_are_holm_adjusted_over_every_pair() -> None:
    # six seeds: 64 sign vectors cannot put the ends of a 98.3% interval 0.83% in
    few = build_report(GAME, tournament(), order=["a", "b", "c"]).pairwise.rows[1]
    assert (few.difference.low, few.difference.high) == (None, None)
    assert few.difference.reason == "too few seeds"
    report = build_report(GAME, twelve_seeds(), order=["a", "b", "c"])
    pw = report.pairwise
    assert [(r.entrant, r.versus) for r in pw.rows] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pw.comparisons == 3
    steps = holm([r.p or 0.0 for r in pw.rows])
    assert [r.p_holm for r in pw.rows] == [s.adjusted for s in steps]
    assert [r.difference.level for r in pw.rows] == [s.level for s in steps]
    # a - c over the twelve shared seeds: the mean of the differences of seed scores
    ac = pw.rows[1]
    diffs = [x - y for x, y in zip(SCORES["a"], SCORES["c"], strict=True)]
    assert ac.difference.mean == pytest.approx(sum(diffs) / len(diffs))
    assert (ac.cells, ac.seeds) == (24, 12)
    low, mean, high = ac.difference.low, ac.difference.mean, ac.difference.high
    assert low is not None
    assert mean is not None
    assert high is not None
    assert low <= mean <= high
    md = to_markdown(report)
    assert "## Pairwise differences" in md
    assert "the 3 p-values go through Holm's step-down procedure" in md
    # the matrix reads both ways: b - a is a - b flipped; it shows the mean and the star,
    # and the list under it the one interval of the pair (at Holm's level)
    ab = pw.rows[0].difference
    assert ab.low is not None
    assert ab.high is not None
    assert ab.mean is not None
    assert ab.low < 0 < ab.high
    matrix = md.split("| row - column |")[1].split("\n\n")[0]
    assert f"| b | {-ab.mean:.2f} | — |" in matrix
    assert "[" not in matrix  # no interval beside the list's
    assert f"| a | b | 12 | {ab.mean:.2f} [{ab.low:.2f}, {ab.high:.2f}] |" in md
    assert "Which to quote: for a pair with the reference" in md


def test_each_entrant_has_a_rank_and_a_rank_interval() -> None:
    # six seeds: no test of three entrants can reach Holm's 0.05 / 3 before seven
    # (2^(1-6) = 0.031), so nothing is starred, every rank interval spans 1-3, and the
    # report says why
    report = build_report(GAME, tournament(), order=["a", "b", "c"])
    ranks = {r.entrant: r.rank for r in report.entrants if r.rank is not None}
    assert [ranks[n].rank for n in "abc"] == [1, 2, 3]  # means 10.25, 9.58, 3.08
    assert all((r.rank_low, r.rank_high) == (1, 3) for r in ranks.values())
    assert not any(r.significant for r in report.pairwise.rows)
    assert "no pair can be starred before 7 seeds" in report.pairwise.note
    md = to_markdown(report)
    assert "**Too few seeds to conclude**: with 6 seeds the smallest p-value" in md
    assert "| 3 (1-3) |" in md
    # twelve seeds (the six again, shifted): c is told from the other two, a from b not
    twelve = build_report(GAME, twelve_seeds(), order=["a", "b", "c"])
    ranks = {r.entrant: r.rank for r in twelve.entrants if r.rank is not None}
    assert (ranks["a"].rank_low, ranks["a"].rank_high) == (1, 2)
    assert (ranks["b"].rank_low, ranks["b"].rank_high) == (1, 2)  # cannot be told apart
    assert (ranks["c"].rank_low, ranks["c"].rank_high) == (3, 3)
    assert twelve.pairwise.note == ""
    md = to_markdown(twelve)
    assert "| 1 (1-2) |" in md
    assert "| 3 (3-3) |" in md  # an interval of one rank still reads as an interval


def test_a_keeper_leaderboard_never_pools_different_runners() -> None:
    # The same keeper agent "openai:m" plays with wallhug runners and with other
    # runners; and two entrants share a keeper with different runners.
    summaries = [
        line(name, seed, float(score + seed), keeper=keeper, runners=runners)
        for name, keeper, runners, score in [
            ("m-wall", "openai:m", "wallhug", 10),
            ("lantern-wall", "lantern", "wallhug", 8),
            ("m-other", "openai:m", "other", 3),
            ("silent-other", "silent", "other", 5),
            ("lantern-other", "lantern", "other", 4),
        ]
        for seed in range(4)
    ]
    report = build_report(GAME, summaries)
    keeper_boards = [b for b in report.leaderboards if b.group == "keeper"]
    assert [b.context for b in keeper_boards] == [{"runners": "other"}, {"runners": "wallhug"}]
    runners_of = {s.entrant: s.seats["runner1"].agent for s in summaries}
    for board in keeper_boards:
        assert {runners_of[r.entrant] for r in board.rows} == {board.context["runners"]}
    other, wall = keeper_boards
    assert [r.entrant for r in wall.rows] == ["m-wall", "lantern-wall"]
    assert [r.entrant for r in other.rows] == ["silent-other", "lantern-other", "m-other"]
    # runners leaderboards: same keeper, different runners
    runner_boards = [b for b in report.leaderboards if b.group == "runners"]
    assert [b.context for b in runner_boards] == [{"keeper": "lantern"}, {"keeper": "openai:m"}]
    md = to_markdown(report)
    assert "## Keeper leaderboard (runners: wallhug)" in md
    assert "## Runners leaderboard (keeper: openai:m)" in md


def test_identical_entrants_are_flagged_and_specs_come_from_the_config() -> None:
    manifest = Manifest.model_validate({
        "prompts": {"/p/a.md": "sha-1", "/q/a.md": "sha-1", "/p/b.md": "sha-2"},
        "config": {
            "entrants": [
                {"name": "x", "seats": {"keeper": {"provider": "o", "model": "m",
                 "prompts": {"system": "/p/a.md"}}, "runners": {"baseline": "wallhug"}}},
                # the same prompt's contents at another path, runners listed one by one
                {"name": "y", "seats": {"keeper": {"provider": "o", "model": "m",
                 "prompts": {"system": "/q/a.md"}}, "runners": [{"baseline": "wallhug"}] * 3}},
                {"name": "z", "seats": {"keeper": {"provider": "o", "model": "m",
                 "prompts": {"system": "/p/b.md"}}, "runners": {"baseline": "wallhug"}}},
            ]
        },
    })  # fmt: skip
    specs = entrant_specs(GAME, manifest)
    assert specs["x"] == specs["y"] != specs["z"]
    summaries = [
        line(name, seed, float(seed + bonus), keeper="openai:m")
        for name, bonus in [("x", 0), ("y", 0), ("z", 2)]
        for seed in range(3)
    ]
    report = build_report(GAME, summaries, order=["x", "y", "z"], specs=specs)
    assert report.identical == [["x", "y"]]
    (board,) = report.leaderboards
    assert [(r.entrant, r.same_as) for r in board.rows] == [
        ("z", []), ("x", ["y"]), ("y", ["x"]),
    ]  # fmt: skip
    md = to_markdown(report)
    assert "**Identical entrants** (the same spec for every seat group): x = y." in md
    assert "| x (= y) |" in md
    # without the config, the agents' names (all "openai:m") make all three look alike
    # and no keeper leaderboard can be drawn from them
    blind = build_report(GAME, summaries, order=["x", "y", "z"])
    assert blind.identical == [["x", "y", "z"]]
    assert blind.leaderboards == []


def plan_for(
    summaries: list[EpisodeSummary], *, extra: int = 0, shards: tuple[str, ...] = ()
) -> Plan:
    by_entrant: dict[str, set[str]] = {}
    for s in summaries:
        by_entrant.setdefault(s.entrant, set()).add(s.episode_id)
    for name, ids in by_entrant.items():
        ids.update(f"{name}--default--s{100 + k}--r0" for k in range(extra))
    return Plan.listed(by_entrant, "merged", shards)


def incomplete_column(csv_text: str) -> list[str]:
    return [row["incomplete"] for row in csv.DictReader(io.StringIO(csv_text))]


def test_an_incomplete_folder_marks_every_interval_and_a_complete_one_none() -> None:
    summaries = tournament()
    complete = every_format(summaries, plan=plan_for(summaries))
    # no plan: what is there is the whole
    assert every_format(summaries)[:2] == complete[:2]
    partial = every_format(summaries, plan=plan_for(summaries, extra=2, shards=("2/2",)))
    md, csv_text, json_text, svg = complete
    assert "incomplete" not in md.lower() + json_text + svg
    assert incomplete_column(csv_text) == ["false"] * 3
    md, csv_text, json_text, _ = partial
    assert md.count("(incomplete)") >= md.count("] ") > 0
    intervals = [part for part in md.split("|") if "[" in part and "," in part]
    assert intervals
    assert all("(incomplete)" in part for part in intervals)
    assert "> **Incomplete: 36/42 episodes (missing shard: 2/2)** (a 12/14, b 12/14, c 12/14)" in md
    assert "| a | lantern | wallhug | 12/14 | 6 |" in md
    assert incomplete_column(csv_text) == ["true"] * 3
    data = json.loads(json_text)["completeness"]
    assert (data["complete"], data["finished"], data["planned"]) == (False, 36, 42)
    assert data["missingShards"] == ["2/2"]
    assert data["byEntrant"]["a"] == {"finished": 12, "planned": 14}


def test_missing_shards_are_named_when_one_split_is_used() -> None:
    assert missing_shards(["1/4", "3/4"]) == ("2/4", "4/4")
    assert missing_shards(["1/2", "2/2"]) == ()
    assert missing_shards(["1/1"]) == ()
    assert missing_shards(["1/2", "1/4"]) == ()  # two splits: not a set of shards
