"""The paired test of two entrants: a star needs the sign-flip test and the skew-t test.

For seed differences d_1..d_n (:mod:`harness.report.methods.table`) two tests of
"the mean difference is 0" are run, and a comparison's p-value is the larger:

    p = max(p_flip, p_skew)

* p_flip, the sign-flip test (:mod:`harness.report.methods.signflip`), is exact at
  any n when the two entrants are exchangeable within a seed (the null of "no
  difference at all"), and its resolution is what says that 2 seeds can conclude
  nothing (p >= 0.5);
* p_skew, the skew-corrected t test, is the test the skew-corrected t interval of a
  mean inverts (:mod:`harness.report.methods.intervals`, Hall 1992): with
  T = dbar / (s / sqrt(n)) and G Hall's increasing transformation,
  p_skew = 2 min(F(G(T)), 1 - F(G(T))), F the t distribution with n - 1 degrees of
  freedom (0 when every d_i is the same non-zero value, 1 when they are all 0).
  It tends to its level when the entrants have equal means but differently shaped
  scores (one skewed, one not), which sign flips assume away, and so makes the
  stars of such pairs rarer; it cannot make them as rare as alpha at every n (no
  test of a mean can, :mod:`harness.report.methods.family`).

Since P(max(p1, p2) <= a) <= P(p_i <= a) for each i, p is valid whenever either test
is. The interval is the matching one: the union (hull) of the two tests' intervals
at the same level, so it excludes a value exactly when both tests reject it, and a
starred pair's interval excludes zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.report.methods.arrays import Floats
from harness.report.methods.exact import mean_columns, skewness_columns, variance_columns
from harness.report.methods.intervals import skew_t_bounds
from harness.report.methods.resample import SIGN_FLIP_SEED
from harness.report.methods.signflip import (
    FlipSums,
    flip_interval,
    flip_sums,
    flip_test,
    pair_flip_sums,
)
from harness.report.methods.tdist import t_cdf


def skew_t_p(differences: Floats) -> Floats:
    """The skew-corrected t test's two-sided p-value of each column (module doc)."""
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    n = d.shape[0]
    if n < 2:
        return np.ones(d.shape[1])
    mean = mean_columns(d)
    sd = np.sqrt(variance_columns(d, mean))
    skew = skewness_columns(d, mean, sd)
    out = np.empty(d.shape[1])
    root = math.sqrt(n)
    for j in range(d.shape[1]):
        s, m = float(sd[j]), float(mean[j])
        if s == 0:
            out[j] = 1.0 if m == 0 else 0.0
            continue
        gamma = float(skew[j])
        a, b = gamma / (3 * root), gamma / (6 * root)
        t = m / (s / root)
        g = t + b if a == 0 else ((1 + a * t) ** 3 - 1) / (3 * a) + b
        f = t_cdf(g, n - 1)
        out[j] = min(1.0, 2 * min(f, 1 - f))
    return out


@dataclass(frozen=True)
class PairedColumns:
    """Columns of seed differences with what both tests need."""

    differences: Floats
    """(n, columns)."""
    flips: FlipSums
    p: Floats
    """max(p_flip, p_skew) per column."""


def paired_columns(
    differences: Floats, *, draws: int | None = None, seed: int = SIGN_FLIP_SEED
) -> PairedColumns:
    """Both tests of every column of ``differences`` (n seeds x columns)."""
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    sums = flip_sums(d, draws=draws, seed=seed)
    return PairedColumns(d, sums, np.maximum(flip_test(sums).p, skew_t_p(d)))


def paired_columns_of(
    scores: Floats,
    pairs: Sequence[tuple[int, int]],
    exponent: int,
    *,
    draws: int | None = None,
    seed: int = SIGN_FLIP_SEED,
) -> PairedColumns:
    """Both tests of the differences scores[:, a] - scores[:, b] of each of ``pairs``
    (``scores``: n seeds x K entrants), their flips on one grid 2^-``exponent``
    (:func:`~harness.report.methods.signflip.pair_flip_sums`): what a family of
    entrants on the same seeds is tested with."""
    x = np.asarray(scores, dtype=np.float64)
    d = np.stack([x[:, a] - x[:, b] for a, b in pairs], axis=1)
    sums = pair_flip_sums(x, pairs, exponent, draws=draws, seed=seed)
    return PairedColumns(d, sums, np.maximum(flip_test(sums).p, skew_t_p(d)))


def paired_interval(columns: PairedColumns, column: int, level: float) -> tuple[float, float]:
    """The union of the sign-flip and the skew-corrected t intervals of one column at
    ``level``: (-inf, inf) when the seeds are too few for the sign-flip one."""
    low, high = flip_interval(columns.flips, column, level)
    d = columns.differences[:, column]
    if len(d) < 2 or math.isinf(low) or math.isinf(high):
        return low, high
    _, skew_low, skew_high, _ = skew_t_bounds(d, level)
    return min(low, float(skew_low)), max(high, float(skew_high))


__all__ = [
    "PairedColumns",
    "paired_columns",
    "paired_columns_of",
    "paired_interval",
    "skew_t_p",
]
