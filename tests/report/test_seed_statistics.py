"""What a report concludes from results folders, checked against a known population:
intervals over seeds that cover, stars that hold their family-wise error, and no
conclusion drawn from too few seeds.

The simulation is small and seeded (a few seconds): 120 tournaments of 10 seeds at two
variants, each written as a results folder and reported through ``read_results``, as
``lighthouse report`` does. With 120 tournaments a coverage of 0.95 is measured to
about 0.012 (360 intervals, three a tournament) and a family-wise error of 0.05 to
about 0.02; the bounds below leave room for three of those. benchmarks/stats_study.py
runs the full study on real Lighthouse play.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest

from harness.report.methods import mean_interval
from harness.report.model import MeanInterval, Report
from harness.report.render import to_csv, to_markdown
from harness.results import read_results
from tests.report.folders import write_folder
from tests.report.methods.helpers import population

NAMES = ("a", "b", "c")
TOURNAMENTS = 120
SEEDS = 10


def report_of(root: Path) -> Report:
    return read_results(root).report


def test_folders_of_a_known_population_cover_and_hold_their_error_rate(tmp_path: Path) -> None:
    cells = population(len(NAMES), 400)  # three entrants whose true score is 20
    truth = cells.mean(axis=2).mean(axis=1)
    assert np.allclose(truth, 20.0)
    rng = np.random.Generator(np.random.PCG64(29))
    covered = pairs_covered = pairs = any_star = 0
    for t in range(TOURNAMENTS):
        drawn = cells[:, rng.integers(0, cells.shape[1], size=SEEDS), :]
        report = report_of(write_folder(tmp_path / f"t{t}", drawn, NAMES, order=t))
        for row in report.entrants:
            score = row.score
            assert (score.seeds, score.n, score.episodes) == (SEEDS, 2 * SEEDS, 2 * SEEDS)
            assert score.low is not None
            assert score.high is not None
            covered += score.low <= 20.0 <= score.high
        any_star += any(r.significant for r in report.pairwise.rows)
        for r in report.pairwise.rows:
            pairs += 1
            low, high = r.difference.low, r.difference.high
            assert low is not None
            assert high is not None
            pairs_covered += low <= 0.0 <= high
        if t == 0:
            # the folder's report is the methods' figures over the same seed scores
            seed_scores = drawn.mean(axis=2)
            by_name = {r.entrant: r for r in report.entrants}  # in rank order
            for i, name in enumerate(NAMES):
                row = by_name[name]
                alone = mean_interval(seed_scores[i])
                assert row.score.mean == pytest.approx(alone.value, rel=1e-12)
                assert row.score.low == pytest.approx(alone.low, rel=1e-12)
    assert covered / (len(NAMES) * TOURNAMENTS) >= 0.91
    # Holm's intervals are at least as wide as 95% ones: they cover at least as often
    assert pairs_covered / pairs >= 0.93
    assert any_star / TOURNAMENTS <= 0.11


def test_a_report_of_two_seeds_stars_nothing_and_says_why(tmp_path: Path) -> None:
    # three entrants far apart (0, 10 and 20 points) on two seeds: 2^(1-2) = 0.5 is
    # the smallest p-value a sign-flip test can give, so nothing can be concluded
    offsets = np.array([0.0, 10.0, 20.0])[:, None, None]
    noise = np.array([[0.2, 0.4], [0.1, 0.3]])[None, :, :]
    report = report_of(write_folder(tmp_path / "two", offsets + noise + 5.0, NAMES))
    assert not any(r.significant for r in report.pairwise.rows)
    assert all(r.p is not None and r.p >= 0.5 for r in report.pairwise.rows)
    assert all(r.difference.reason == "too few seeds" for r in report.pairwise.rows)
    assert all((r.difference.low, r.difference.high) == (None, None) for r in report.pairwise.rows)
    assert "with 2 seeds the smallest p-value a sign-flip test can give is 0.5" in (
        report.pairwise.note
    )
    # the ranks can say nothing either: each spans every place
    assert all(r.rank is not None and (r.rank.rank_low, r.rank.rank_high) == (1, 3)
               for r in report.entrants)  # fmt: skip
    md = to_markdown(report)
    assert "*" not in md.split("## Pairwise differences")[1].split("| entrant |")[0].replace(
        "* marks", ""
    ).replace("**Too few seeds to conclude**", "")
    assert "**Too few seeds to conclude**: with 2 seeds the smallest p-value" in md
    assert "no pair can be starred before 7 seeds" in md
    assert "- (too few seeds): too few seeds for this level" in md


def excludes_zero(iv: MeanInterval | None) -> bool:
    return (
        iv is not None
        and iv.low is not None
        and iv.high is not None
        and (iv.low > 0 or iv.high < 0)
    )


def test_one_seed_with_two_variants_gives_no_interval_that_excludes_zero(tmp_path: Path) -> None:
    # the case: one seed, both tides, pilot far above lantern on both; the two
    # tides are one board, so there is one seed to measure on, and no interval
    cells = np.array([[[31.5, 28.9]], [[25.1, 23.1]]])
    report = report_of(write_folder(tmp_path / "one", cells, ("pilot", "lantern")))
    differences = [r.difference for r in report.pairwise.rows]
    assert differences[0].mean == pytest.approx(((31.5 + 28.9) - (25.1 + 23.1)) / 2)
    for iv in differences:
        assert not excludes_zero(iv)
        assert iv.reason == "one seed"
    assert not any(r.significant for r in report.pairwise.rows)
    for row in report.entrants:
        assert (row.score.low, row.score.high, row.score.reason) == (None, None, "one seed")
        assert row.seeds == 1
        assert all(not excludes_zero(v) for v in row.per_variant.values())
    md = to_markdown(report)
    assert "[-] (one seed)" in md
    assert "- (one seed): one seed: an interval needs at least two." in md
    rows = list(csv.DictReader(io.StringIO(to_csv(report))))
    assert [(r["score_low"], r["score_reason"], r["seeds"]) for r in rows] == [
        ("", "one seed", "1"),
        ("", "one seed", "1"),
    ]


def test_a_zero_width_interval_says_why(tmp_path: Path) -> None:
    # a constant entrant, and two that score alike on every seed
    base = np.array([3.0, 9.0, 1.0, 14.0, 7.0, 7.5, 2.0, 11.0])
    cells = np.stack([np.full((8, 2), 5.0), np.stack([base, base], 1), np.stack([base, base], 1)])
    report = report_of(write_folder(tmp_path / "flat", cells, NAMES))
    constant = next(r for r in report.entrants if r.entrant == NAMES[0]).score
    assert (constant.low, constant.high, constant.reason) == (5.0, 5.0, "constant")
    twins = next(r for r in report.pairwise.rows if (r.entrant, r.versus) == ("b", "c"))
    assert twins.difference.reason == "identical"
    assert twins.p == 1.0
    md = to_markdown(report)
    assert "5.00 [5.00, 5.00] (constant)" in md
    assert "(constant): every seed gave the same value" in md
    assert "(identical): the two scored the same on every seed" in md


def test_a_comparison_names_what_it_left_out(tmp_path: Path) -> None:
    rng = np.random.Generator(np.random.PCG64(3))
    cells = rng.gamma(2.0, 5.0, size=(3, 12, 2))
    root = write_folder(tmp_path / "gaps", cells, NAMES)
    # c did not finish the spring tide of seeds 3 and 7: those seeds drop out of every
    # comparison with c, and out of c's own score
    lines = (root / "episodes.jsonl").read_text().splitlines()
    kept = [x for x in lines if not ('"c--spring--s3--r0"' in x or '"c--spring--s7--r0"' in x)]
    (root / "episodes.jsonl").write_text("".join(f"{x}\n" for x in kept))
    report = report_of(root)
    by_pair = {(r.entrant, r.versus): r for r in report.pairwise.rows}
    assert by_pair["a", "b"].seeds == 12
    assert by_pair["a", "b"].dropped == ""
    assert by_pair["a", "c"].seeds == 10
    assert by_pair["a", "c"].dropped == (
        "left out: 6 finished cells (2 seeds not finished in every variant by all of them)"
    )
    c = next(r for r in report.entrants if r.entrant == "c")  # in rank order
    assert (c.seeds, c.cells) == (10, 22)
    assert c.dropped == (
        "left out: 2 finished cells (2 seeds not finished in every variant by all of them)"
    )
    # the score is the balanced mean over the seeds c finished in both tides
    seeds = [s for s in range(12) if s not in (3, 7)]
    assert c.score.mean == pytest.approx(float(cells[2, seeds].mean()))
    md = to_markdown(report)
    assert "- a - c: left out: 6 finished cells" in md
    assert not math.isnan(c.score.mean or math.nan)
