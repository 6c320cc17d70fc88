"""Estimates with intervals over seeds, and the words for an interval that is not one.

An :class:`Estimate` is a figure, its interval, the level, how many seeds it rests
on, the method, what was resampled and how often, and a :data:`Reason` whenever the
interval is missing, unbounded or of zero width: a zero-width interval is never
silent (a constant entrant is not a certain one).

**Skew-corrected t over seed means** (:func:`mean_interval`, the report's interval
of a mean; Hall 1992, "On the removal of skewness by transformation"). With seed
scores y_1..y_n (each a balanced mean over the variants of one seed),

    ybar = (1/n) sum_i y_i,   s^2 = (1/(n-1)) sum_i (y_i - ybar)^2,
    se = s / sqrt(n),   gamma = ((1/n) sum_i (y_i - ybar)^3) / s^3   (the skewness),

the studentized mean T = (ybar - mu) / se is skewed when the scores are, and Hall's
transformation G(T) = T + a T^2 + a^2 T^3 / 3 + b, a = gamma / (3 sqrt(n)),
b = gamma / (6 sqrt(n)), removes that skew to first order; G is increasing, with
inverse G^-1(u) = ((1 + 3a (u - b))^(1/3) - 1) / a. With t = t(1 - (1 - level)/2;
n - 1), the interval is

    [ybar - G^-1(t) se, ybar - G^-1(-t) se]

(the plain t interval ybar -/+ t se when gamma = 0; sums exact,
:mod:`harness.report.methods.exact`). benchmarks/stats_study.py chose it: at 10
seeds it covers Lighthouse's means at 0.93 or more with one variant or two, where
the plain t interval (SILENT's scores are skewed: 0.90) and the percentile bootstrap
do not, and it is narrower than the bootstrap-t, which over-covers PILOT (0.99).
:func:`t_interval` is the plain t interval.

**Seed-cluster bootstrap** (:func:`bootstrap_means`, and the study's alternatives
:func:`bootstrap_t_bounds`, :func:`percentile_bounds`): B resamples of n seeds with
replacement, each carrying all its cells (:mod:`harness.report.methods.resample`);
ybar*_b = (1/n) sum_i W[b, i] y_i. The studentized (bootstrap-t) interval is

    [ybar - q(1 - t) s / sqrt(n), ybar - q(t) s / sqrt(n)],
    q = the quantiles of t*_b = (ybar*_b - ybar) / (s*_b / sqrt(n)), t = (1 - level)/2,

and the percentile interval [ybar*_(floor(t (B-1))), ybar*_(ceil((1-t)(B-1)))]
(0-based order statistics).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from harness.report.methods import libm
from harness.report.methods.arrays import Floats
from harness.report.methods.exact import (
    mean_columns,
    skewness_columns,
    to_grid,
    variance_columns,
)
from harness.report.methods.resample import BOOTSTRAP_SEED, bootstrap_counts
from harness.report.methods.tdist import t_quantile

LEVEL = 0.95

#: Why an interval is missing, unbounded or of zero width.
Reason = Literal[
    "no seeds",
    "one seed",
    "too few seeds",
    "constant",
    "identical",
    "unbounded",
    "undefined",
]

REASONS: dict[Reason, str] = {
    "no seeds": "no seeds to measure on",
    "one seed": "one seed: an interval needs at least two",
    "too few seeds": (
        "too few seeds for this level: no test on so few seeds can reach it, so there "
        "is no interval and nothing can be concluded"
    ),
    "constant": (
        "every seed gave the same value: the interval has zero width because nothing "
        "varied, not because the figure is certain"
    ),
    "identical": (
        "the two scored the same on every seed: a difference of zero with nothing to "
        "vary, not a measured certainty"
    ),
    "unbounded": (
        "the interval is unbounded: the mean it is divided by (the ceiling's) cannot be told "
        "from zero on these seeds"
    ),
    "undefined": "undefined: the reference's mean is zero",
}

#: How an interval was made.
Method = Literal[
    "skew-corrected t over seeds",
    "t over seeds",
    "sign-flip and skew-t over seeds",
    "seed bootstrap-t",
    "seed percentile bootstrap",
    "Wilson over seeds",
    "linearized skew-corrected t over seeds",
    "DKW band over seeds",
]


@dataclass(frozen=True)
class Estimate:
    """A figure over ``seeds`` seeds and its interval at ``level``.

    ``low`` and ``high`` are NaN when there is no interval, -inf and inf when it is
    unbounded; ``reason`` says why in either case, and for a zero-width interval.
    """

    value: float
    low: float
    high: float
    level: float
    seeds: int
    method: Method
    resamples: int | None = None
    """How many resamples the interval used: bootstrap resamples, or sign vectors (all
    2^n of them up to 16 seeds, else the B drawn); None for a closed form."""
    reason: Reason | None = None

    @property
    def has_interval(self) -> bool:
        """Whether there is an interval (bounded or not)."""
        return not (math.isnan(self.low) or math.isnan(self.high))

    def excludes(self, value: float = 0.0) -> bool:
        """Whether the interval lies wholly on one side of ``value``."""
        return self.has_interval and (self.low > value or self.high < value)

    @property
    def why(self) -> str:
        """The reason in words (empty when there is none)."""
        return REASONS[self.reason] if self.reason is not None else ""


def no_interval(value: float, seeds: int, level: float, method: Method) -> Estimate:
    """An estimate with no interval: no seeds or one."""
    reason: Reason = "no seeds" if seeds == 0 else "one seed"
    return Estimate(value, math.nan, math.nan, level, seeds, method, None, reason)


def _check_level(level: float) -> float:
    if not 0 < level < 1:
        raise ValueError(f"a level must be in (0, 1), got {level!r}")
    return (1 - level) / 2


@dataclass(frozen=True)
class _Moments:
    """Columns of seed values (two seeds or more) with what an interval of their means
    is made of."""

    n: int
    tail: float
    """(1 - level) / 2."""
    values: Floats
    mean: Floats
    sd: Floats


def _bounds(
    y: Floats, level: float, ends: Callable[[_Moments], tuple[Floats, Floats]]
) -> tuple[Floats, Floats, Floats, Floats]:
    """For each column of ``y`` (n seeds x columns): the mean, the interval's ends as
    ``ends`` makes them and s (NaN ends with fewer than two seeds)."""
    tail = _check_level(level)
    values = np.asarray(y, dtype=np.float64)
    n = values.shape[0]
    mean = mean_columns(values)
    if n < 2:
        nan = np.full(values.shape[1:], np.nan)
        return mean, nan, nan.copy(), nan.copy()
    sd = np.sqrt(variance_columns(values, mean))
    low, high = ends(_Moments(n, tail, values, mean, sd))
    return mean, low, high, sd


def _estimate(
    y: Floats,
    level: float,
    method: Method,
    bounds: Callable[[Floats, float], tuple[Floats, Floats, Floats, Floats]],
) -> Estimate:
    """The mean of seed values ``y`` with the interval ``bounds`` gives (none under two
    seeds; a zero-width one says why)."""
    values = np.asarray(y, dtype=np.float64)
    n = len(values)
    if n < 2:
        return no_interval(float(values[0]) if n else math.nan, n, level, method)
    mean, low, high, sd = bounds(values, level)
    reason: Reason | None = "constant" if float(sd) == 0 else None
    return Estimate(float(mean), float(low), float(high), level, n, method, None, reason)


def _t_ends(m: _Moments) -> tuple[Floats, Floats]:
    half = t_quantile(1 - m.tail, m.n - 1) * m.sd / math.sqrt(m.n)
    return m.mean - half, m.mean + half


def t_bounds(y: Floats, level: float = LEVEL) -> tuple[Floats, Floats, Floats, Floats]:
    """For each column of ``y`` (n seeds x columns): the mean, the t interval's ends and
    s (NaN ends with fewer than two seeds)."""
    return _bounds(y, level, _t_ends)


def t_interval(y: Floats, level: float = LEVEL) -> Estimate:
    """The mean of seed values ``y`` with its t interval (see the module docstring)."""
    return _estimate(y, level, "t over seeds", t_bounds)


def _skew_t_ends(m: _Moments) -> tuple[Floats, Floats]:
    gamma = skewness_columns(m.values, m.mean, m.sd)
    a = gamma / (3 * math.sqrt(m.n))
    b = gamma / (6 * math.sqrt(m.n))
    t = t_quantile(1 - m.tail, m.n - 1)
    se = m.sd / math.sqrt(m.n)
    return m.mean - _inverse(t, a, b) * se, m.mean - _inverse(-t, a, b) * se


def skew_t_bounds(y: Floats, level: float = LEVEL) -> tuple[Floats, Floats, Floats, Floats]:
    """For each column of ``y`` (n seeds x columns): the mean, the skew-corrected t
    interval's ends (see the module docstring) and s (NaN ends with fewer than two
    seeds; both ends the mean when s = 0)."""
    return _bounds(y, level, _skew_t_ends)


def _inverse(u: float, a: Floats, b: Floats) -> Floats:
    """G^-1(u) = ((1 + 3a (u - b))^(1/3) - 1) / a, and u - b where a = 0."""
    safe = np.where(a != 0, a, 1.0)
    result: Floats = np.where(a != 0, (libm.cbrt(1 + 3 * safe * (u - b)) - 1) / safe, u - b)
    return result


def mean_interval(y: Floats, level: float = LEVEL) -> Estimate:
    """The mean of seed values ``y`` with its skew-corrected t interval (the module
    docstring): the report's interval of a mean."""
    return _estimate(y, level, "skew-corrected t over seeds", skew_t_bounds)


def bootstrap_means(y: Floats, resamples: int, *, seed: int = BOOTSTRAP_SEED) -> Floats:
    """(B, columns): every column's mean over each seed-cluster resample, exactly
    (W y on each column's grid; see :mod:`harness.report.methods.exact`)."""
    values = np.asarray(y, dtype=np.float64)
    flat = values.reshape(values.shape[0], -1)
    n = flat.shape[0]
    grid, scale = to_grid(flat)
    parts = [counts @ grid for counts in bootstrap_counts(n, resamples, seed=seed)]
    out: Floats = np.concatenate(parts) / scale / n
    return out.reshape((resamples, *values.shape[1:]))


def _order_stat(stats: Floats, rank: int) -> Floats:
    result: Floats = np.partition(stats, rank, axis=0)[rank]
    return result


def percentile_bounds(stats: Floats, level: float = LEVEL) -> tuple[Floats, Floats]:
    """The percentile interval of resampled statistics (B x columns): order statistics
    floor(t (B-1)) and ceil((1-t)(B-1)), t = (1 - level)/2."""
    tail = _check_level(level)
    last = stats.shape[0] - 1
    low = math.floor(round(tail * last, 9))
    high = math.ceil(round((1 - tail) * last, 9))
    return _order_stat(stats, low), _order_stat(stats, high)


def bootstrap_t_bounds(
    y: Floats, resamples: int, level: float = LEVEL, *, seed: int = BOOTSTRAP_SEED
) -> tuple[Floats, Floats]:
    """The seed-cluster bootstrap-t interval of each column's mean (see the module
    docstring); a resample of one seed drawn n times (s* = 0) gives t* = -/+inf, or 0
    when its mean is the observed one."""
    values = np.asarray(y, dtype=np.float64)
    n = values.shape[0]
    flat = values.reshape(n, -1)
    mean = mean_columns(flat)
    sd = np.sqrt(variance_columns(flat, mean))
    centred = flat - mean  # moments about the mean: no cancellation against mean^2
    first_grid, first_scale = to_grid(centred)
    second_grid, second_scale = to_grid(centred**2)
    firsts, seconds, singles = [], [], []
    for counts in bootstrap_counts(n, resamples, seed=seed):
        firsts.append(counts @ first_grid)
        seconds.append(counts @ second_grid)
        singles.append(counts.max(axis=1) == n)
    gap = np.concatenate(firsts) / first_scale / n  # ybar* - ybar
    second = np.concatenate(seconds) / second_scale / n
    single = np.concatenate(singles)[:, None]
    var_star = np.where(single, 0.0, np.maximum(0.0, (second - gap**2) * (n / (n - 1))))
    with np.errstate(divide="ignore", invalid="ignore"):
        t_star = gap / (np.sqrt(var_star) / math.sqrt(n))
        t_star = np.where(var_star > 0, t_star, np.sign(gap) * math.inf)  # sign(0) inf: nan
    t_star = np.nan_to_num(t_star, nan=0.0, posinf=math.inf, neginf=-math.inf)
    q_low, q_high = percentile_bounds(t_star, level)
    se = sd / math.sqrt(n)
    with np.errstate(invalid="ignore"):
        low = mean - q_high * se
        high = mean - q_low * se
    shape = values.shape[1:]
    return low.reshape(shape), high.reshape(shape)


__all__ = [
    "LEVEL",
    "REASONS",
    "Estimate",
    "Method",
    "Reason",
    "bootstrap_means",
    "bootstrap_t_bounds",
    "mean_interval",
    "no_interval",
    "percentile_bounds",
    "skew_t_bounds",
    "t_bounds",
    "t_interval",
]
