"""IQM, P(X > Y), score / ceiling, profiles and the planner, against hand values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.report.methods import (
    SeedSpread,
    iqm,
    iqm_interval,
    performance_profile,
    plan_seeds,
    probability_of_improvement,
    ratio_of_means,
    seed_spread,
)
from harness.report.methods.figures import iqm_bootstrap, iqm_intervals
from harness.report.methods.resample import bootstrap_order_statistics
from harness.report.methods.tdist import t_quantile
from tests.report.methods.helpers import Row, table_of


def test_iqm_by_hand() -> None:
    # n = 8, g = 2: the mean of 3, 4, 5, 6
    assert iqm(np.array([8.0, 1.0, 7.0, 2.0, 6.0, 3.0, 5.0, 4.0])) == 4.5
    # n = 10, g = 2: the mean of the six middle values, 3..8 -> 5.5
    assert iqm(np.arange(1.0, 11.0)) == 5.5
    # n = 3, g = 0: the mean; an outlier moves it, and the IQM of 8 resists it
    assert iqm(np.array([1.0, 2.0, 30.0])) == 11.0
    assert iqm(np.array([1, 2, 3, 4, 5, 6, 7, 1000.0])) == 4.5


def test_the_iqm_bootstrap_is_the_iqm_of_each_resample() -> None:
    y = np.array([5.0, 1.0, 9.0, 4.0, 4.0, 12.0, 0.0, 7.0, 3.0])
    boot = iqm_bootstrap(y, 300)
    ordered = np.sort(y)
    whole = np.concatenate(list(bootstrap_order_statistics(9, 300, 0, 9)))
    by_hand = [iqm(ordered[row]) for row in whole]  # each resample, seen sorted
    assert boot.tolist() == pytest.approx(by_hand, abs=1e-9)
    est = iqm_interval(y)
    assert est.resamples == 2000
    assert est.low <= est.value <= est.high
    # several entrants at once: the same figures as one by one
    other = y[::-1] * 2
    both = iqm_intervals([y, other, np.array([1.0])])
    assert both[0] == est
    assert both[1] == iqm_interval(other)
    assert both[2].reason == "one seed"


def test_probability_of_improvement_by_hand() -> None:
    # seeds: 3 > 1 win, 2 = 2 tie, 5 > 4 win, 1 < 2 loss: (2 + 1/2) / 4
    est = probability_of_improvement(np.array([3.0, 2, 5, 1]), np.array([1.0, 2, 4, 2]))
    assert est.value == 0.625
    z = 1.959963984540054
    centre, half = 0.625 + z * z / 8, z * math.sqrt(0.625 * 0.375 / 4 + z * z / 64)
    assert (est.low, est.high) == pytest.approx(
        ((centre - half) / (1 + z * z / 4), (centre + half) / (1 + z * z / 4))
    )
    # winning every one of 10 seeds is not certainty: Wilson's lower end is 10/(10+z^2)
    sweep = probability_of_improvement(np.full(10, 5.0), np.zeros(10))
    assert sweep.value == 1.0
    assert sweep.low == pytest.approx(10 / (10 + z * z))
    assert sweep.high == 1.0


def test_score_over_ceiling() -> None:
    rng = np.random.default_rng(8)
    c = rng.gamma(4.0, 5.0, size=30) + 10
    x = 0.6 * c + rng.normal(0, 2, size=30)
    est = ratio_of_means(x, c)
    assert est.value == pytest.approx(x.mean() / c.mean())
    assert est.low < est.value < est.high
    assert est.high - est.low < 0.2
    same = ratio_of_means(c, c)
    assert (same.value, same.low, same.high, same.reason) == (1.0, 1.0, 1.0, "identical")
    double = ratio_of_means(2 * c, c)
    assert (double.low, double.high, double.reason) == (2.0, 2.0, "constant")
    zero = ratio_of_means(x, np.zeros(30))
    assert zero.reason == "undefined"
    # a ceiling whose mean cannot be told from zero: no bounded interval
    wobbly = ratio_of_means(np.array([1.0, 2.0, 3.0]), np.array([-5.0, 1.0, 5.0]))
    assert (wobbly.low, wobbly.high, wobbly.reason) == (-math.inf, math.inf, "unbounded")


def test_performance_profile_by_hand() -> None:
    profile = performance_profile(np.array([3.0, 1.0, 5.0, 3.0]))
    assert profile.thresholds.tolist() == [1.0, 3.0, 5.0]
    assert profile.shares.tolist() == [1.0, 0.75, 0.25]  # share scoring at least tau
    assert profile.share_at(0.0) == 1.0
    assert profile.share_at(2.0) == 0.75
    assert profile.share_at(5.5) == 0.0
    eps = math.sqrt(math.log(2 / 0.05) / 8)  # DKW at n = 4
    assert profile.low.tolist() == pytest.approx([max(0, s - eps) for s in [1, 0.75, 0.25]])
    assert profile.high.tolist() == pytest.approx([min(1, s + eps) for s in [1, 0.75, 0.25]])


def pair_rows(seeds: int, shift: float, tide_swing: float) -> list[Row]:
    rows: list[Row] = []
    for s in range(seeds):
        board = 10.0 + (s * 7) % 11
        rows += [("a", s, "default", board + shift + tide_swing), ("a", s, "spring", board)]
        rows += [("b", s, "default", board), ("b", s, "spring", board + tide_swing)]
    return rows


def test_the_planner_uses_seed_differences_with_both_tides_together() -> None:
    # a is ahead by `shift` on every seed, and the tides swap who gains on a cell by
    # 4: cell differences vary (+4+shift, -4), seed differences do not
    table = table_of(pair_rows(12, shift=2.0, tide_swing=4.0))
    found = seed_spread(table)
    assert found is not None
    assert found.sigma == pytest.approx(0.0, abs=1e-12)
    assert "both variants together" in found.source
    refused = plan_seeds(1.0, found, 1)
    assert refused.seeds is None
    assert "do not vary" in (refused.refused or "")


def test_the_planner_refuses_fewer_than_five_seeds_and_says_so() -> None:
    rows = list(pair_rows(4, 1.0, 0.0))
    assert seed_spread(table_of(rows)) is None
    plan = plan_seeds(2.0, None, 3)
    assert plan.seeds is None
    assert "5 seeds" in plan.lines()[0]
    few = plan_seeds(2.0, SeedSpread(3.0, "given", 4), 3)
    assert few.seeds is None
    assert "fewer than 5" in (few.refused or "")


def test_the_planner_counts_multiplicity_and_small_n() -> None:
    spread = SeedSpread(10.0, "given", 50)
    one = plan_seeds(4.0, spread, 1)
    three = plan_seeds(4.0, spread, 3)
    assert one.seeds is not None
    assert three.seeds is not None
    # normal approximation at alpha 0.05: ((1.96 + 0.84) x 10 / 4)^2 = 49.05; the t
    # quantiles add a little
    assert 50 <= one.seeds <= 53
    assert three.seeds > one.seeds  # alpha / 3 at Holm's first step
    for plan, alpha in ((one, 0.05), (three, 0.05 / 3)):
        n = plan.seeds
        assert n is not None

        def need(k: int, a: float = alpha) -> float:
            return ((t_quantile(1 - a / 2, k - 1) + t_quantile(0.8, k - 1)) * 10 / 4) ** 2

        assert need(n) <= n < need(n - 1) + 1  # the least n that satisfies it
    # a huge difference: the sign-flip test's own floor (7 seeds for 3 comparisons)
    floor = plan_seeds(100.0, spread, 3)
    assert floor.seeds == 7 == floor.floor
    assert "sigma_d = 10.000: given, over 50 seeds" in floor.lines()[1]
