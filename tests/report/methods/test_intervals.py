"""Seed tables, the seed-cluster bootstrap and the intervals of a mean, by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.report.methods import SeedTable, mean_interval, select, t_interval
from harness.report.methods.exact import grid_exponent, to_grid
from harness.report.methods.intervals import (
    bootstrap_means,
    bootstrap_t_bounds,
    percentile_bounds,
    skew_t_bounds,
)
from harness.report.methods.resample import (
    bootstrap_counts,
    bootstrap_order_statistics,
    flips_for,
    resamples_for,
)
from harness.report.methods.table import seed_scores, variant_scores
from harness.report.methods.tdist import t_cdf, t_quantile
from tests.report.methods.helpers import table_of


def test_repetitions_are_averaged_within_their_cell_in_any_order() -> None:
    rows = [("a", 7, "spring", 3.0), ("a", 7, "default", 1.0), ("a", 7, "default", 2.0)]
    rows += [("a", 2, "default", 10.0), ("a", 2, "spring", 20.0)]
    table = table_of(rows)
    assert table.seeds.tolist() == [2, 7]
    assert table.variants == ("default", "spring")
    assert table.means[0].tolist() == [[10.0, 20.0], [1.5, 3.0]]
    assert table.episodes[0].tolist() == [[1, 1], [2, 1]]
    assert table_of(rows[::-1]).means.tobytes() == table.means.tobytes()
    # the seed score weighs each variant the same, whatever its repetitions
    own = select(table, [0])
    assert seed_scores(table, 0, own).tolist() == [15.0, 2.25]
    with pytest.raises(ValueError, match="twice"):
        SeedTable.from_cells(["a"], ["default"], [0, 0], [1, 1], [0, 0], [1.0, 2.0])


def test_the_cluster_bootstrap_carries_both_variants_of_a_seed() -> None:
    # spring is default + 10 on every seed: a resample that drew one seed's default
    # cell without its spring one would break that, in some resample
    default = np.array([3.0, 8.0, 1.0, 12.0, 5.0])
    rows = [("a", s, "default", float(x)) for s, x in enumerate(default)]
    rows += [("a", s, "spring", float(x) + 10) for s, x in enumerate(default)]
    table = table_of(rows)
    cells = variant_scores(table, 0, select(table, [0]))  # (seeds, variants)
    boot = bootstrap_means(cells, 2000)  # every column resampled by the same draws
    assert np.allclose(boot[:, 1] - boot[:, 0], 10.0)
    assert not np.allclose(boot[:, 0], boot[0, 0])  # and they do vary
    # each resampled mean is (counts . y) / n, counts drawn seeds with replacement
    counts = np.concatenate(list(bootstrap_counts(5, 2000)))
    assert counts.shape == (2000, 5)
    assert np.all(counts.sum(axis=1) == 5)
    y = seed_scores(table, 0, select(table, [0]))
    by_hand = [math.fsum(c * v for c, v in zip(row, y, strict=True)) / 5 for row in counts]
    assert bootstrap_means(y, 2000).tolist() == pytest.approx(by_hand, abs=1e-9)


def test_order_statistics_are_a_resample_seen_sorted() -> None:
    rows = next(bootstrap_order_statistics(7, 500, 0, 7))
    assert rows.shape == (500, 7)
    assert np.all(np.diff(rows, axis=1) >= 0)
    assert rows.min() >= 0
    assert rows.max() <= 6
    # each of the 7 places is drawn once per resample on average
    drawn = np.stack([np.bincount(r, minlength=7) for r in rows])
    assert np.allclose(drawn.mean(axis=0), 1.0, atol=0.15)
    middle = next(bootstrap_order_statistics(7, 500, 1, 6))
    assert np.array_equal(middle, rows[:, 1:6])  # the same resamples, trimmed


def test_resample_counts_put_every_quantile_25_draws_in() -> None:
    assert resamples_for(0.025) == 2000  # floor(0.025 x 1999) = 49
    b = resamples_for(0.05 / 90)
    assert math.floor(0.05 / 90 * (b - 1)) >= 25
    assert flips_for(0.025) + 1 == 10_000
    flips = flips_for(0.05 / 90)  # Holm's strictest tail for ten entrants
    assert math.floor(round(0.05 / 90 * (flips + 1), 9)) >= 25
    assert (flips + 1) % 1000 == 0


def test_t_quantiles_match_published_tables() -> None:
    # Student's t table (two-sided 95% and 99%)
    assert t_quantile(0.975, 1) == pytest.approx(12.7062047, rel=1e-7)
    assert t_quantile(0.975, 2) == pytest.approx(4.3026527, rel=1e-7)
    assert t_quantile(0.975, 9) == pytest.approx(2.2621572, rel=1e-7)
    assert t_quantile(0.975, 30) == pytest.approx(2.0422725, rel=1e-7)
    assert t_quantile(0.995, 120) == pytest.approx(2.6174211, rel=1e-7)
    assert t_quantile(0.975, 5000) == pytest.approx(1.9604386, rel=1e-7)
    assert t_quantile(0.025, 9) == -t_quantile(0.975, 9)
    for df in (1, 2, 3, 10, 57):
        assert t_cdf(t_quantile(0.9, df), df) == pytest.approx(0.9, abs=1e-12)


def test_a_symmetric_sample_gets_the_plain_t_interval() -> None:
    # mean 3, s = sqrt(2.5), se = s / sqrt(5), t(0.975; 4) = 2.7764451: 3 -/+ 1.9632
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    plain = t_interval(y)
    assert (plain.low, plain.high) == pytest.approx((3 - 1.96324, 3 + 1.96324), abs=1e-5)
    skew = mean_interval(y)  # no skew: the same interval
    assert (skew.low, skew.high) == pytest.approx((plain.low, plain.high))
    assert skew.method == "skew-corrected t over seeds"


def test_a_right_skewed_sample_gets_a_longer_upper_arm() -> None:
    y = np.array([0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 4.0, 9.0, 15.0, 30.0])
    est = mean_interval(y)
    assert est.high - est.value > est.value - est.low
    _mean, low, high, _ = skew_t_bounds(y[:, None])
    assert (float(low[0]), float(high[0])) == (est.low, est.high)


def test_a_mean_without_an_interval_says_why() -> None:
    one = mean_interval(np.array([4.0]))
    assert one.reason == "one seed"
    assert not one.has_interval
    none = mean_interval(np.zeros(0))
    assert none.reason == "no seeds"
    flat = mean_interval(np.full(6, 7.5))
    assert (flat.low, flat.high, flat.reason) == (7.5, 7.5, "constant")
    assert "not because the figure is certain" in flat.why


def test_the_bootstrap_intervals_are_intervals() -> None:
    y = np.random.default_rng(2).gamma(2.0, 3.0, size=(12, 3))
    low, high = percentile_bounds(bootstrap_means(y, 2000))
    assert np.all(low < y.mean(axis=0))
    assert np.all(y.mean(axis=0) < high)
    low, high = bootstrap_t_bounds(y, 2000)
    assert np.all(low < y.mean(axis=0))
    assert np.all(y.mean(axis=0) < high)
    # three seeds: a ninth of the resamples repeat one seed, so the bootstrap-t
    # cannot bound the interval
    low, high = bootstrap_t_bounds(y[:3], 2000)
    assert np.all(np.isinf(low))
    assert np.all(np.isinf(high))


def test_the_grid_makes_sums_exact() -> None:
    y = np.array([[0.1, 1e6], [0.2, -3.0], [0.3, 2.5]])
    grid, scale = to_grid(y)
    assert np.all(grid == np.rint(grid))
    assert np.all(np.abs(grid).sum(axis=0) < 2.0**52)
    assert grid_exponent(0.3, 3) == 40  # the finest grid
    assert scale[1] < scale[0]  # a column of large values gets a coarser grid
    assert np.allclose(grid / scale, y, atol=1e-9)
