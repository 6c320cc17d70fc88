"""Comparing many entrants: Holm-adjusted pairwise differences and ranks with intervals.

Both rest on the same seeded bootstrap over (seed, variant) cells as the entrant
intervals (:mod:`harness.report.stats`). Each function takes its resamples as an
argument, so it can be checked by hand on a tiny fixed set of draws.

Pairwise: for entrants i and j, d_c = m_i(c) - m_j(c) on the cells both finished
(m: the cell's mean over repetitions); the statistic is the mean of d_c. Its
bootstrap p-value is twice the share of resampled means on the far side of zero;
the m = k(k-1)/2 p-values are adjusted by Holm's step-down method, and the interval
of the comparison with the r-th smallest p-value (r = 1..m) is the percentile
interval at level 1 - alpha / (m - r + 1), the level Holm tests it at (equal
p-values share the strictest). A pair with fewer than two shared cells is no test.

Ranks: in every resample each entrant's mean over the drawn cells is computed, and
its rank is 1 + the number of entrants with a higher mean (ties share the better
rank); the 95% rank interval is the 2.5th to 97.5th percentile of those ranks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.report.cells import Cell, CellMeans
from harness.report.stats import (
    LEVEL,
    TIE_TOLERANCE,
    Draw,
    Interval,
    bootstrap_columns,
    bootstrap_p,
    percentile_bounds,
)

ALPHA = round(1 - LEVEL, 12)  # 0.05, not 0.050000000000000044


@dataclass(frozen=True)
class HolmStep:
    """Holm's verdict on one comparison."""

    adjusted: float
    """The Holm-adjusted p-value: max over r' <= r of min(1, (m - r' + 1) p_(r'))."""
    level: float
    """The confidence level of this comparison's interval: 1 - alpha / (m - r + 1)."""


def holm(pvalues: Sequence[float], alpha: float = ALPHA) -> list[HolmStep]:
    """Holm's step-down adjustment of ``pvalues``, returned in their given order.

    Equal p-values get the level of the first of them (the strictest), so two
    comparisons with the same evidence get the same interval whatever their order.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i], i))
    out: dict[int, HolmStep] = {}
    running, level, previous = 0.0, 1.0, None
    for r, i in enumerate(order):
        running = max(running, min(1.0, (m - r) * pvalues[i]))
        if pvalues[i] != previous:
            level, previous = 1 - alpha / (m - r), pvalues[i]
        out[i] = HolmStep(adjusted=running, level=level)
    return [out[i] for i in range(m)]


@dataclass(frozen=True)
class Comparison:
    """Entrant ``first`` minus entrant ``second`` over the cells both finished.

    ``holm`` and ``p`` are None when the two share fewer than two cells (no test).
    """

    first: str
    second: str
    difference: Interval
    holm: HolmStep | None
    p: float | None

    @property
    def significant(self) -> bool:
        """Whether Holm's procedure rejects "no difference" at the family's alpha."""
        return self.holm is not None and self.holm.adjusted <= ALPHA


def pair_bootstrap(
    names: Sequence[str],
    cells: Mapping[str, Mapping[Cell, float]],
    resample: Callable[[int], Iterable[Draw]],
) -> tuple[list[list[float]], list[list[float]]]:
    """For each pair of ``names`` (i < j): its per-cell differences on the cells both
    finished, and the resampled mean differences (empty with fewer than two cells).

    A resampled mean difference equals the difference of the two resampled means, so
    pairs that share the same cells (every pair, when the folder is complete) are
    resampled together: one pass over the draws serves them all.
    """
    tables = {n: CellMeans.of(cells[n]) for n in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    diffs: list[list[float]] = []
    stats: list[list[float]] = [[] for _ in pairs]
    # pairs that share the same cells, grouped by a digest of them (and compared in
    # full, so two sets of cells never share a group by chance)
    groups: list[tuple[CellMeans, list[int]]] = []
    by_hash: dict[bytes, list[int]] = {}
    for k, (a, b) in enumerate(pairs):
        both = CellMeans.common([tables[a], tables[b]])
        diffs.append([x - y for x, y in zip(both.means, tables[b].on(both), strict=True)])
        if len(both) < 2:
            continue
        candidates = by_hash.setdefault(both.cells_hash(), [])
        found = next((g for g in candidates if groups[g][0].same_cells(both)), None)
        if found is None:
            candidates.append(len(groups))
            groups.append((both, [k]))
        else:
            groups[found][1].append(k)
    for shared, ks in groups:
        members = [n for n in names if any(n in pairs[k] for k in ks)]
        column = {n: i for i, n in enumerate(members)}
        means = bootstrap_columns([tables[n].on(shared) for n in members], resample(len(shared)))
        for k in ks:
            i, j = column[pairs[k][0]], column[pairs[k][1]]
            stats[k] = [row[i] - row[j] for row in means]
    return diffs, stats


def pairwise(
    names: Sequence[str],
    diffs: Sequence[Sequence[float]],
    stats: Sequence[Sequence[float]],
    alpha: float = ALPHA,
) -> list[Comparison]:
    """Holm-adjusted comparisons of ``names`` taken two at a time, in (i < j) order.

    ``diffs[k]`` holds the per-cell differences of the k-th pair and ``stats[k]`` its
    resampled mean differences (see :func:`pair_bootstrap`). A pair without
    resamples (fewer than two shared cells) is no test: it gets no interval and no
    p-value, and is not counted among Holm's m comparisons.
    """
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    tested = [k for k, s in enumerate(stats) if s]
    ps = {k: bootstrap_p(stats[k]) for k in tested}
    steps = dict(zip(tested, holm([ps[k] for k in tested], alpha), strict=True))
    out = []
    for k, ((a, b), d) in enumerate(zip(pairs, diffs, strict=True)):
        mean = math.fsum(d) / len(d) if d else math.nan
        step = steps.get(k)
        if step is None:
            out.append(Comparison(a, b, Interval(mean, math.nan, math.nan, len(d)), None, None))
            continue
        low, high = percentile_bounds(stats[k], step.level)
        out.append(Comparison(a, b, Interval(mean, low, high, len(d)), step, ps[k]))
    return out


def ranks_of(means: Sequence[float]) -> list[int]:
    """Competition ranks, highest mean first: 1 + how many are clearly higher."""
    return [1 + sum(1 for other in means if other > own + TIE_TOLERANCE) for own in means]


@dataclass(frozen=True)
class Rank:
    """An entrant's rank on the observed means and its bootstrap interval."""

    rank: int
    low: int
    high: int

    def text(self) -> str:
        """``1`` when certain, ``1-2`` when the interval spans two ranks."""
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def rank_intervals(
    columns: Sequence[Sequence[float]], resamples: Iterable[Draw], level: float = LEVEL
) -> list[Rank]:
    """Ranks of aligned ``columns`` (one per entrant, one row per shared cell)."""
    observed = ranks_of([math.fsum(col) / len(col) for col in columns])
    per_draw = [ranks_of(row) for row in bootstrap_columns(columns, resamples)]
    out = []
    for k, rank in enumerate(observed):
        if not per_draw:  # no resamples (fewer than two cells): every rank is possible
            out.append(Rank(rank, 1, len(columns)))
            continue
        low, high = percentile_bounds([float(r[k]) for r in per_draw], level)
        out.append(Rank(rank, int(low), int(high)))
    return out


__all__ = [
    "ALPHA",
    "Comparison",
    "HolmStep",
    "Rank",
    "holm",
    "pair_bootstrap",
    "pairwise",
    "rank_intervals",
    "ranks_of",
]
