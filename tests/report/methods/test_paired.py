"""The paired test: the larger p of the sign-flip and skew-t tests, the union interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.report.methods.intervals import skew_t_bounds
from harness.report.methods.paired import paired_columns, paired_interval, skew_t_p
from harness.report.methods.signflip import flip_interval, flip_sums, flip_test


def test_a_symmetric_sample_gets_the_t_tests_p() -> None:
    # no skew: Student's one-sample t test of 1..5, p = 0.0132356 (t = 4.243, 4 df)
    assert float(skew_t_p(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))[0]) == pytest.approx(
        0.0132356, abs=1e-6
    )
    assert float(skew_t_p(np.zeros(5))[0]) == 1.0
    assert float(skew_t_p(np.full(5, 2.0))[0]) == 0.0
    assert float(skew_t_p(np.array([3.0]))[0]) == 1.0


def test_the_paired_p_is_the_larger_of_the_two() -> None:
    d = np.random.default_rng(9).gamma(1.0, 2.0, size=(9, 5)) - 1.6
    both = paired_columns(d)
    flip = flip_test(flip_sums(d)).p
    skew = skew_t_p(d)
    assert np.array_equal(both.p, np.maximum(flip, skew))
    # so two seeds still cannot go below the sign-flip floor of 0.5
    assert float(paired_columns(np.array([30.0, 31.0])).p[0]) == 0.5


def test_the_interval_is_the_union_of_the_two() -> None:
    d = np.array([0.5, 2.0, -1.0, 4.0, 9.0, 1.5, 0.0, 3.0, 12.0, 2.5])
    both = paired_columns(d)
    low, high = paired_interval(both, 0, 0.95)
    f_low, f_high = flip_interval(flip_sums(d), 0, 0.95)
    _, s_low, s_high, _ = skew_t_bounds(d)
    assert (low, high) == (min(f_low, float(s_low)), max(f_high, float(s_high)))
    # too few seeds for the sign-flip interval: unbounded, whatever the t interval says
    assert paired_interval(paired_columns(d[:4]), 0, 0.95) == (-math.inf, math.inf)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-40, 40, allow_nan=False), min_size=6, max_size=14),
    st.sampled_from([0.9, 0.95, 0.99]),
)
def test_the_union_excludes_zero_exactly_when_both_tests_reject(
    values: list[float], level: float
) -> None:
    both = paired_columns(np.array(values))
    low, high = paired_interval(both, 0, level)
    p = float(both.p[0])
    rejects = p <= 1 - level
    excludes = low > 0 or high < 0
    if abs(p - (1 - level)) > 1e-9:  # a p on the boundary is either, by rounding
        assert rejects == excludes
