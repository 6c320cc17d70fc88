"""The sign-flip test and its interval, against values worked out by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.report.methods.exact import grid_exponent
from harness.report.methods.resample import EXACT_UP_TO, flip_bytes, flip_sets, flips_for
from harness.report.methods.signflip import (
    flip_interval,
    flip_intervals,
    flip_p_values,
    flip_sums,
    flip_test,
    pair_flip_sums,
    seeds_to_reach,
    smallest_p,
)


def test_a_tiny_exact_example_by_hand() -> None:
    # d = (1, 2, -0.5, 3), D = 5.5. Flipping a set F gives D - 2 T(F), T(F) its sum;
    # S(F) >= D exactly when T(F) <= 0: F = {} and F = {-0.5}, so c_up = 2 of 16;
    # c_down counts T(F) >= 0: every F but {-0.5}, 15. p = 2 min(2, 15) / 16 = 0.25.
    d = np.array([1.0, 2.0, -0.5, 3.0])
    test = flip_test(flip_sums(d))
    assert (int(test.up[0]), int(test.down[0])) == (2, 15)
    assert float(test.p[0]) == 0.25
    # the 15 subset means, sorted: -0.5, 0.25 ({1, -0.5}), ... , 2.5 ({2, 3}), 3.
    # At level 0.75, k = floor(0.125 x 16) = 2: the 2nd smallest and 2nd largest.
    assert flip_interval(flip_sums(d), 0, 0.75) == (0.25, 2.5)
    # at 95%, k = floor(0.025 x 16) = 0: four seeds cannot bound it
    assert flip_interval(flip_sums(d), 0, 0.95) == (-math.inf, math.inf)


def test_p_counts_every_sign_vector_the_way_a_brute_force_does() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 9):
        d = rng.normal(0.4, 1.0, size=n)
        total = d.sum()
        at_least = sum(
            1
            for signs in itertools.product((1, -1), repeat=n)
            if abs(float(np.dot(signs, d))) >= abs(total) - 1e-12
        )
        assert float(flip_test(flip_sums(d)).p[0]) == pytest.approx(min(1.0, at_least / 2**n))


def test_the_exact_test_is_exact_under_the_null() -> None:
    # Every one of the 2^n sign patterns of the same |d| is equally likely under the
    # null; over all of them the share with p <= a is at most a, for every a the test
    # can give.
    magnitudes = np.array([0.3, 1.1, 2.0, 2.5, 4.0, 7.5])
    n = len(magnitudes)
    data = np.array([np.array(s) * magnitudes for s in itertools.product((1, -1), repeat=n)])
    p = flip_test(flip_sums(data.T)).p
    for a in sorted(set(p.tolist())):
        assert np.mean(p <= a) <= a + 1e-12


def test_two_seeds_and_three_cannot_reach_five_percent() -> None:
    assert smallest_p(2, flips_for(0.025)) == 0.5
    assert smallest_p(3, flips_for(0.025)) == 0.25
    assert seeds_to_reach(0.05) == 6
    assert float(flip_test(flip_sums(np.array([40.0, 35.0]))).p[0]) == 0.5
    six = flip_test(flip_sums(np.arange(1.0, 7.0)))
    assert float(six.p[0]) == 2 / 64


def test_random_flips_beyond_sixteen_seeds() -> None:
    d = np.random.default_rng(4).normal(0.3, 1.0, size=(40, 3))
    sums = flip_sums(d, draws=1999)
    assert not sums.exact
    assert sums.reference == 2000
    p = flip_test(sums).p
    assert np.all(p >= 2 / 2000)
    # the same flips give the same p-values whether the sums are kept or not
    assert np.array_equal(p, flip_p_values(d, draws=1999).p)
    # and a column alone gives what it gives beside the others, bit for bit
    alone = flip_sums(d[:, 1], draws=1999)
    assert float(flip_test(alone).p[0]) == float(p[1])
    assert flip_interval(alone, 0, 0.95) == flip_interval(sums, 1, 0.95)


def test_enumeration_and_counts_agree_in_the_exact_regime() -> None:
    d = np.random.default_rng(5).normal(0.0, 1.0, size=(EXACT_UP_TO, 4))
    sums = flip_sums(d)
    assert sums.exact
    assert sums.reference == 2**EXACT_UP_TO
    assert np.array_equal(flip_test(sums).p, flip_p_values(d).p)
    exact, chunks = flip_sets(3, 10)
    assert exact
    assert np.concatenate(list(chunks)).tolist() == [
        [0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]
    ]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=6, max_size=12),
    st.sampled_from([0.9, 0.95, 0.98]),
)
def test_an_interval_excludes_zero_exactly_when_the_test_rejects(
    values: list[float], level: float
) -> None:
    d = np.array(values)
    sums = flip_sums(d)
    low, high = flip_interval(sums, 0, level)
    p = float(flip_test(sums).p[0])
    if math.isinf(low):
        assert p > 1 - level
    else:
        assert (low > 0 or high < 0) == (p <= 1 - level + 1e-12)


def test_identical_entrants_give_a_zero_width_interval_at_zero() -> None:
    d = np.zeros(8)
    sums = flip_sums(d)
    assert float(flip_test(sums).p[0]) == 1.0
    assert flip_interval(sums, 0, 0.95) == (0.0, 0.0)
    lows, highs = flip_intervals(sums, np.array([0.95]))
    assert (float(lows[0]), float(highs[0])) == (0.0, 0.0)


def test_bad_differences_are_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        flip_sums(np.array([1.0, math.nan]))
    with pytest.raises(ValueError, match="at least one seed"):
        flip_sums(np.zeros(0))


@pytest.mark.parametrize("n", [1, 3, 8, 9, 16, 17, 40, 257])
def test_sums_per_entrant_are_the_sums_of_the_differences(n: int) -> None:
    """pair_flip_sums (packed sets, a table per byte, integers) gives each pair's subset
    sums as flip_sums gives them from the pair's column of differences, on scores a
    grid holds exactly (multiples of 1/4): the same sets, sizes, sums and p-values."""
    rng = np.random.Generator(np.random.PCG64(n))
    x = np.round(rng.gamma(2.0, 5.0, size=(n, 4)) * 4) / 4
    pairs = [(0, 1), (2, 0), (1, 3), (3, 3)]
    packed = pair_flip_sums(x, pairs, grid_exponent(float(np.abs(x).max()), n), draws=999)
    d = np.stack([x[:, a] - x[:, b] for a, b in pairs], axis=1)
    plain = flip_sums(d, draws=999)
    assert (packed.exact, packed.reference) == (plain.exact, plain.reference)
    assert np.array_equal(packed.sizes, plain.sizes)
    assert np.array_equal(packed.sums / packed.scale, plain.sums / plain.scale)
    assert np.array_equal(flip_test(packed).p, flip_test(plain).p)
    assert not packed.sums[:, 3].any()  # an entrant against itself: every sum 0


@pytest.mark.parametrize("n", [5, 16, 17, 100])
def test_packed_sets_are_the_sets(n: int) -> None:
    exact, rows = flip_sets(n, 300)
    _, packed = flip_bytes(n, 300)
    unpacked = [np.unpackbits(p, axis=1, bitorder="little")[:, :n] for p in packed]
    assert np.array_equal(np.concatenate(list(rows)), np.concatenate(unpacked))
    for block in flip_bytes(n, 300)[1]:
        # no bit is set past the n-th seed
        assert not np.unpackbits(block, axis=1, bitorder="little")[:, n:].any()
    assert exact == (n <= EXACT_UP_TO)
