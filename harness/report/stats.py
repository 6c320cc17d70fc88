"""Statistics for reports: bootstrap confidence intervals, paired differences, percentiles.

Every interval is a percentile bootstrap with a fixed seed, so a report is the same
every time it is made from the same results.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261129
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Interval:
    """A mean and its confidence interval."""

    mean: float
    low: float
    high: float
    n: int


def bootstrap_mean(
    values: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Interval:
    """The mean of ``values`` with a seeded percentile-bootstrap interval."""
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    mean = statistics.fmean(values)
    if n == 1:
        return Interval(mean, mean, mean, 1)
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(values, k=n)) for _ in range(resamples))
    tail = (1 - level) / 2
    low = means[math.floor(tail * (resamples - 1))]
    high = means[math.ceil((1 - tail) * (resamples - 1))]
    return Interval(mean, low, high, n)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(rank), math.ceil(rank)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (rank - lo)


@dataclass(frozen=True)
class Paired:
    """An entrant against the reference, paired on (seed, variant)."""

    pairs: int
    difference: Interval
    wins: int
    ties: int
    losses: int


def paired_difference(
    entrant: Sequence[tuple[Hashable, float]],
    reference: Sequence[tuple[Hashable, float]],
    *,
    seed: int = BOOTSTRAP_SEED,
) -> Paired:
    """Differences entrant - reference on the keys both have, repetitions averaged."""
    a, b = _average_by_key(entrant), _average_by_key(reference)
    keys = sorted(set(a) & set(b), key=repr)
    diffs = [a[k] - b[k] for k in keys]
    wins = sum(1 for d in diffs if d > TIE_TOLERANCE)
    losses = sum(1 for d in diffs if d < -TIE_TOLERANCE)
    return Paired(
        pairs=len(diffs),
        difference=bootstrap_mean(diffs, seed=seed),
        wins=wins,
        ties=len(diffs) - wins - losses,
        losses=losses,
    )


def _average_by_key(values: Sequence[tuple[Hashable, float]]) -> Mapping[Hashable, float]:
    groups: dict[Hashable, list[float]] = defaultdict(list)
    for key, value in values:
        groups[key].append(value)
    return {key: statistics.fmean(group) for key, group in groups.items()}


__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "Interval",
    "Paired",
    "bootstrap_mean",
    "paired_difference",
    "percentile",
]
