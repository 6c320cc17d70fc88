"""Figures beside the mean: IQM, probability of improvement, score / ceiling, profiles.

Each takes seed scores (balanced means over variants,
:func:`~harness.report.methods.table.seed_scores`); the coverage of every interval
here is measured by benchmarks/stats_study.py.

**Interquartile mean** (as rliable's, scipy's ``trim_mean(y, 0.25)``): the seed
scores sorted, g = floor(n / 4) cut from each end, IQM = (1/(n - 2g)) sum of
y_(g+1) .. y_(n-g). Its interval is the seed-cluster percentile bootstrap (B =
2,000 resamples of the seeds, :mod:`harness.report.methods.resample`), as rliable
does: the study found the trimmed t interval unreliable on Lighthouse's lumpy scores
(0.79 at 20 seeds), the bootstrap 0.92 or more from 10 seeds. The resamples are seen
through their order statistics (:func:`~harness.report.methods.resample.
bootstrap_order_statistics`): a resample's IQM is the mean of the sorted scores at
the places of its order statistics g+1 .. n-g.

**Probability of improvement** P(X > Y) over paired seeds: h_i = 1 when entrant X
scored more than Y on seed i, 1/2 on a tie, 0 else; P = (1/n) sum_i h_i, the share
of seeds X wins with ties halved. Its interval is Wilson's score interval for a
proportion with z = z(1 - (1 - level)/2):

    (P + z^2/(2n) -/+ z sqrt(P (1 - P)/n + z^2/(4 n^2))) / (1 + z^2/n),

which stays inside [0, 1] and is not zero-width when X wins every seed (ties make
it, if anything, too wide).

**Score / ceiling**, a ratio of paired means over the seeds both finished:
R = xbar / cbar. Its interval linearizes R about its estimate: the influence values
u_i = (x_i - R c_i) / cbar (mean 0; R_true - R is about -mean(u)) get the
skew-corrected t interval of a mean (:func:`~harness.report.methods.intervals.
mean_interval`), and R plus that interval is R's. The study found it closer to 95%
at 10 seeds (0.945) than Fieller's interval (0.90), whose condition it keeps: when
cbar^2 <= t^2 s_cc / n (t = t(1 - (1 - level)/2; n - 1), s_cc the sample variance of
the ceiling's seed scores) the ceiling's mean cannot be told from zero, and the
interval is unbounded (said so).

**Performance profile**: for every threshold tau, the share of seeds scoring at
least tau, F(tau) = #{i : y_i >= tau} / n, a step function that changes only at the
seed scores (given at each distinct one). Its band is the
Dvoretzky-Kiefer-Wolfowitz one, F(tau) -/+ sqrt(ln(2 / (1 - level)) / (2n)) clipped
to [0, 1], which holds for every tau at once with probability at least ``level`` at
any n.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from harness.report.methods.arrays import Floats
from harness.report.methods.exact import to_grid
from harness.report.methods.intervals import (
    LEVEL,
    Estimate,
    Method,
    Reason,
    no_interval,
    percentile_bounds,
    skew_t_bounds,
)
from harness.report.methods.resample import (
    BOOTSTRAP_SEED,
    MIN_BOOTSTRAP,
    bootstrap_order_statistics,
    resamples_for,
)
from harness.report.methods.table import TIE_TOLERANCE
from harness.report.methods.tdist import t_quantile


def _fsum(values: Floats) -> float:
    return math.fsum(np.asarray(values, dtype=np.float64).tolist())


def iqm(y: Floats) -> float:
    """The interquartile mean of ``y``: g = floor(n/4) cut from each end (NaN if empty)."""
    ordered = np.sort(np.asarray(y, dtype=np.float64))
    n = len(ordered)
    if n == 0:
        return math.nan
    g = n // 4
    return _fsum(ordered[g : n - g]) / (n - 2 * g)


def iqm_bootstrap(
    y: Floats, resamples: int = MIN_BOOTSTRAP, *, seed: int = BOOTSTRAP_SEED
) -> Floats:
    """(B, columns): each column's IQM in every seed-cluster resample (see the module
    docstring); exact sums on each column's grid."""
    values = np.asarray(y, dtype=np.float64)
    flat = values.reshape(values.shape[0], -1)
    n = flat.shape[0]
    g = n // 4
    ordered = np.sort(flat, axis=0)
    grid, scale = to_grid(ordered)
    out = np.empty((resamples, flat.shape[1]))
    row = 0
    for places in bootstrap_order_statistics(n, resamples, g, n - g, seed=seed):
        for j in range(flat.shape[1]):  # a column at a time: memory stays flat
            out[row : row + len(places), j] = grid[:, j][places].sum(axis=1)  # exact
        row += len(places)
    result: Floats = out / scale / (n - 2 * g)
    return result.reshape((resamples, *values.shape[1:]))


def iqm_interval(
    y: Floats,
    level: float = LEVEL,
    *,
    resamples: int | None = None,
    seed: int = BOOTSTRAP_SEED,
) -> Estimate:
    """The IQM with its seed-cluster percentile bootstrap interval (module docstring);
    ``resamples`` by default enough for the level (at least 2,000)."""
    return iqm_intervals([y], level, resamples=resamples, seed=seed)[0]


def iqm_intervals(
    columns: Sequence[Floats],
    level: float = LEVEL,
    *,
    resamples: int | None = None,
    seed: int = BOOTSTRAP_SEED,
) -> list[Estimate]:
    """:func:`iqm_interval` of each of ``columns`` (seed scores of several entrants),
    those of the same number of seeds resampled together (the same figures as one by
    one, computed once)."""
    method: Method = "seed percentile bootstrap"
    count = resamples_for((1 - level) / 2) if resamples is None else resamples
    out: list[Estimate | None] = [None] * len(columns)
    by_length: dict[int, list[int]] = {}
    for k, column in enumerate(columns):
        values = np.asarray(column, dtype=np.float64)
        if len(values) < 2:
            out[k] = no_interval(iqm(values), len(values), level, method)
        else:
            by_length.setdefault(len(values), []).append(k)
    for n, members in by_length.items():
        stacked = np.stack([np.asarray(columns[k], dtype=np.float64) for k in members], axis=1)
        low, high = percentile_bounds(iqm_bootstrap(stacked, count, seed=seed), level)
        for j, k in enumerate(members):
            lo, hi = float(low[j]), float(high[j])
            reason: Reason | None = "constant" if lo == hi else None
            out[k] = Estimate(iqm(stacked[:, j]), lo, hi, level, n, method, count, reason)
    return [e for e in out if e is not None]


def probability_of_improvement(x: Floats, y: Floats, level: float = LEVEL) -> Estimate:
    """P(X > Y) over paired seeds, ties halved, with Wilson's interval."""
    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    n = len(d)
    method: Method = "Wilson over seeds"
    if n == 0:
        return no_interval(math.nan, 0, level, method)
    wins = int(np.count_nonzero(d > TIE_TOLERANCE))
    ties = int(np.count_nonzero(np.abs(d) <= TIE_TOLERANCE))
    p = (wins + ties / 2) / n
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    low, high = max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale)
    return Estimate(p, low, high, level, n, method)


def ratio_of_means(x: Floats, c: Floats, level: float = LEVEL) -> Estimate:
    """xbar / cbar over paired seeds with its linearized skew-corrected t interval
    (see the module docstring)."""
    a_values = np.asarray(x, dtype=np.float64)
    b_values = np.asarray(c, dtype=np.float64)
    n = len(a_values)
    method: Method = "linearized skew-corrected t over seeds"
    if n == 0:
        return no_interval(math.nan, 0, level, method)
    a = _fsum(a_values) / n
    b = _fsum(b_values) / n
    if b == 0:
        return Estimate(math.nan, math.nan, math.nan, level, n, method, None, "undefined")
    value = a / b
    if n < 2:
        return no_interval(value, n, level, method)
    dc = b_values - b
    s_cc = _fsum(dc * dc) / (n - 1)
    t = t_quantile(1 - (1 - level) / 2, n - 1)
    if b * b <= t * t * s_cc / n:
        return Estimate(value, -math.inf, math.inf, level, n, method, None, "unbounded")
    influence = (a_values - value * b_values) / b
    _, low, high, sd = skew_t_bounds(influence, level)
    reason: Reason | None = None
    if float(sd) == 0:  # x proportional to c on every seed: nothing varies about R
        same = bool(np.all(np.abs(a_values - b_values) <= TIE_TOLERANCE))
        reason = "identical" if same else "constant"
    return Estimate(value, value + float(low), value + float(high), level, n, method, None, reason)


@dataclass(frozen=True)
class Profile:
    """A performance profile: at each threshold, the share of seeds scoring at least it."""

    thresholds: Floats
    """The distinct seed scores, ascending: where the share changes."""
    shares: Floats
    """#{i : y_i >= tau} / n at each threshold."""
    low: Floats
    high: Floats
    """The DKW band at ``level``, for every threshold at once."""
    level: float
    seeds: int
    method: str = "DKW band over seeds"

    def share_at(self, tau: float) -> float:
        """The share of seeds scoring at least ``tau``."""
        place = int(np.searchsorted(self.thresholds, tau, side="left"))
        return float(self.shares[place]) if place < len(self.shares) else 0.0


def performance_profile(y: Floats, level: float = LEVEL) -> Profile:
    """The performance profile of seed scores ``y`` with its DKW band."""
    values = np.sort(np.asarray(y, dtype=np.float64))
    n = len(values)
    thresholds = np.unique(values)
    if n == 0:
        empty = np.zeros(0)
        return Profile(empty, empty, empty, empty, level, 0)
    at_least = n - np.searchsorted(values, thresholds, side="left")
    shares = at_least / n
    eps = math.sqrt(math.log(2 / (1 - level)) / (2 * n))
    return Profile(
        thresholds, shares, np.clip(shares - eps, 0, 1), np.clip(shares + eps, 0, 1), level, n
    )


__all__ = [
    "Profile",
    "iqm",
    "iqm_bootstrap",
    "iqm_interval",
    "iqm_intervals",
    "performance_profile",
    "probability_of_improvement",
    "ratio_of_means",
]
