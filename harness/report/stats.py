"""Statistics for reports: cells, seeded bootstrap intervals, paired differences, percentiles.

The unit of every statistic is the (seed, variant) *cell*: an entrant's repetitions of
one cell are averaged first, so repeating a deterministic episode cannot narrow an
interval. Cells are always taken in their natural order (seed, then variant), and the
bootstrap draws are a pure function of (number of cells, resamples, seed), so the same
results give the same numbers whatever order the episodes finished in. A report holds
each entrant's cell means as a :class:`~harness.report.cells.CellMeans` (flat arrays,
no object per cell); :func:`cell_means` is the same definition over plain pairs.

The draws are passed in explicitly (:func:`draws`), so a test can hand a tiny fixed
set of resamples to :func:`bootstrap_columns` and check every figure by hand.
"""

from __future__ import annotations

import math
import random
import statistics
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from harness.report.cells import Cell, CellMeans, index_code

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261129
LEVEL = 0.95
TIE_TOLERANCE = 1e-9

#: One resample: indices into a sorted list of cells, drawn with replacement.
Draw = Sequence[int]


@dataclass(frozen=True)
class Interval:
    """A mean over ``n`` cells (``episodes`` episodes) and its bootstrap interval.

    ``low`` and ``high`` are NaN when there are fewer than two cells: one cell gives
    no interval.
    """

    mean: float
    low: float
    high: float
    n: int
    episodes: int = 0


def cell_means(values: Iterable[tuple[Cell, float]]) -> dict[Cell, float]:
    """Each cell's mean over its repetitions, cells in their natural order."""
    groups: dict[Cell, list[float]] = defaultdict(list)
    for cell, value in values:
        groups[cell].append(value)
    # fmean sums with math.fsum: exact, so the repetitions' order cannot matter
    return {cell: statistics.fmean(groups[cell]) for cell in sorted(groups)}


def draws(
    n: int, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> Iterator[list[int]]:
    """``resamples`` lists of ``n`` indices in 0..n-1, drawn with replacement.

    A pure function of its arguments (Python's Mersenne Twister, stable across
    versions): two sets of ``n`` cells are resampled identically.
    """
    rng = random.Random(seed)
    cells = range(n)
    for _ in range(resamples):
        yield rng.choices(cells, k=n)


#: Picks made at a time by :func:`compact_draws`: a list of this many ints at most.
PICKS_AT_A_TIME = 4096


def compact_draws(
    n: int, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> Iterator[array[int]]:
    """The draws of :func:`draws`, each as an array of indices (two to eight bytes an
    index, where a list holds an int object of about 36), made a few thousand at a time.

    The same indices: ``Random.choices`` without weights makes each pick from one
    ``random()``, so picks made in parts, in order, are the picks made at once.
    """
    rng = random.Random(seed)
    cells = range(n)
    code = "H" if n <= 1 << 16 else index_code(n)  # at least two bytes an index
    for _ in range(resamples):
        drawn = array(code)
        for start in range(0, n, PICKS_AT_A_TIME):
            drawn.extend(rng.choices(cells, k=min(PICKS_AT_A_TIME, n - start)))
        yield drawn


def bootstrap_columns(
    columns: Sequence[Sequence[float]], resamples: Iterable[Draw]
) -> list[list[float]]:
    """For each resample, the mean of every column over the drawn rows.

    ``columns`` are aligned: row i of every column belongs to the same cell, so one
    resample moves them together (what keeps paired comparisons and ranks paired).
    """
    out = []
    for draw in resamples:
        out.append([math.fsum(map(col.__getitem__, draw)) / len(draw) for col in columns])
        # let go of this draw before the next is made: one draw of n cells held, not two
        del draw
    return out


def percentile_bounds(stats: Sequence[float], level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of bootstrap statistics: the order statistics at
    floor(t (B-1)) and ceil((1-t) (B-1)), t = (1 - level) / 2."""
    ordered = sorted(stats)
    last = len(ordered) - 1
    tail = (1 - level) / 2
    # rounded first so that 0.025 * 1999 is not a hair above or below its value
    low = math.floor(round(tail * last, 9))
    high = math.ceil(round((1 - tail) * last, 9))
    return ordered[low], ordered[high]


def interval_from(
    values: Sequence[float],
    resamples: Iterable[Draw],
    *,
    level: float = LEVEL,
    episodes: int = 0,
) -> Interval:
    """The mean of ``values`` (one per cell) with its percentile interval over ``resamples``."""
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, episodes)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, math.nan, math.nan, 1, episodes)
    low, high = percentile_bounds([row[0] for row in bootstrap_columns([values], resamples)], level)
    return Interval(mean, low, high, n, episodes)


def bootstrap_mean(
    values: Sequence[float],
    *,
    level: float = LEVEL,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    episodes: int = 0,
) -> Interval:
    """The mean of ``values`` (one per cell, in canonical order) with a seeded interval."""
    return interval_from(
        values, draws(len(values), resamples=resamples, seed=seed), level=level, episodes=episodes
    )


def bootstrap_p(stats: Sequence[float]) -> float:
    """Two-sided bootstrap p-value of "the mean difference is 0".

    p = min(1, 2 min(#{d* <= 0}, #{d* >= 0}) / B): twice the share of resampled mean
    differences on the far side of zero. It is 0 when no resample reaches zero.
    """
    if not stats:
        return 1.0
    below = sum(1 for d in stats if d <= TIE_TOLERANCE)
    above = sum(1 for d in stats if d >= -TIE_TOLERANCE)
    return min(1.0, 2 * min(below, above) / len(stats))


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
    """One entrant against another, paired on the (seed, variant) cells both have."""

    pairs: int
    difference: Interval
    wins: int
    ties: int
    losses: int


def _differences(a: CellMeans, b: CellMeans) -> tuple[CellMeans, list[float]]:
    """The cells both have (a's means on them) and the differences a - b there."""
    both = CellMeans.common([a, b])
    return both, [x - y for x, y in zip(both.means, b.on(both), strict=True)]


def _table(values: CellMeans | Iterable[tuple[Cell, float]]) -> CellMeans:
    return values if isinstance(values, CellMeans) else CellMeans.of_pairs(values)


def paired_difference(
    entrant: CellMeans | Iterable[tuple[Cell, float]],
    reference: CellMeans | Iterable[tuple[Cell, float]],
    *,
    seed: int = BOOTSTRAP_SEED,
    resample: Callable[[int], Iterable[Draw]] | None = None,
) -> Paired:
    """Differences entrant - reference over shared cells, repetitions averaged per cell.

    Each side is its (cell, score) pairs, or its cell means as a :class:`CellMeans`.
    ``resample(n)`` gives the draws over n cells; by default :func:`draws` with ``seed``.
    """
    _, diffs = _differences(_table(entrant), _table(reference))
    wins = sum(1 for d in diffs if d > TIE_TOLERANCE)
    losses = sum(1 for d in diffs if d < -TIE_TOLERANCE)
    chosen = resample(len(diffs)) if resample is not None else draws(len(diffs), seed=seed)
    return Paired(
        pairs=len(diffs),
        difference=interval_from(diffs, chosen),
        wins=wins,
        ties=len(diffs) - wins - losses,
        losses=losses,
    )


__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "LEVEL",
    "TIE_TOLERANCE",
    "Cell",
    "Draw",
    "Interval",
    "Paired",
    "bootstrap_columns",
    "bootstrap_mean",
    "bootstrap_p",
    "cell_means",
    "compact_draws",
    "draws",
    "interval_from",
    "paired_difference",
    "percentile",
    "percentile_bounds",
]
