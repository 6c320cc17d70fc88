"""Ranks with simultaneous intervals, read off the same Holm decisions as the stars.

On the seeds all k entrants share (every variant all of them played), entrant j's
rank is 1 + the number of entrants with a higher mean (ties share the better rank),
and its rank interval is read off the Holm decisions of every pair on those seeds
(:func:`~harness.report.methods.family.compare_all`), i "starred above" j meaning
the pair (i, j) is starred with i's mean the higher:

    low_j  = 1 + #{i : i is starred above j},   high_j = k - #{i : i is starred below j}.

If no star is false, every true rank lies in its interval, so all k rank intervals
hold together with probability at least 1 - alpha (not one by one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.report.methods.family import ALPHA, Family, compare_all
from harness.report.methods.resample import SIGN_FLIP_SEED
from harness.report.methods.table import (
    TIE_TOLERANCE,
    Dropped,
    SeedTable,
    Selection,
    seed_scores,
    select,
)


@dataclass(frozen=True)
class Rank:
    """An entrant's rank on the shared seeds and its simultaneous rank interval."""

    entrant: str
    rank: int
    low: int
    high: int
    mean: float
    """The entrant's mean over the shared seeds."""

    def text(self) -> str:
        """``2`` when certain, ``1-3`` when the interval spans ranks 1 to 3."""
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass(frozen=True)
class Ranking:
    """Ranks of some entrants over the seeds all of them share, from one Holm family."""

    ranks: tuple[Rank, ...]
    family: Family
    """The family on those shared seeds that the rank intervals are read from."""
    shared: Selection
    """The seeds and variants every one of the entrants finished (and what that left
    out): what the ranks are over."""

    @property
    def seeds(self) -> int:
        """The shared seeds."""
        return int(self.shared.seeds.sum())

    @property
    def cells(self) -> int:
        """The (seed, variant) cells the ranks are over: the shared seeds x variants."""
        return self.shared.cells

    @property
    def dropped(self) -> Dropped:
        """What the shared seeds and variants left out."""
        return self.shared.dropped


def _over(family: Family, names: tuple[str, ...], shared: Selection) -> bool:
    """Whether ``family`` is of ``names`` and every pair in it over ``shared``'s seeds."""
    return family.entrants == names and all(
        np.array_equal(t.selection.seeds, shared.seeds)
        and np.array_equal(t.selection.variants, shared.variants)
        for t in family.pairs
    )


def ranks_of(means: Sequence[float]) -> list[int]:
    """Competition ranks, highest mean first: 1 + how many are higher (beyond
    :data:`~harness.report.methods.table.TIE_TOLERANCE`)."""
    return [1 + sum(1 for other in means if other > own + TIE_TOLERANCE) for own in means]


def rank_intervals(
    table: SeedTable,
    entrants: Sequence[str] | None = None,
    *,
    alpha: float = ALPHA,
    seed: int = SIGN_FLIP_SEED,
    family: Family | None = None,
) -> Ranking:
    """Ranks and simultaneous rank intervals (see the module docstring) over the seeds
    every one of ``entrants`` finished in every variant all of them played.

    ``family``: the :func:`compare_all` of the same entrants, taken as it is when every
    pair in it is over exactly those seeds and variants (a complete folder), so the
    flips are not computed twice.
    """
    names = tuple(table.entrants if entrants is None else entrants)
    indices = [table.index(n) for n in names]
    shared = select(table, indices)
    keep = np.flatnonzero(shared.seeds)
    narrowed = SeedTable(
        table.entrants,
        tuple(v for v, used in zip(table.variants, shared.variants, strict=True) if used),
        table.seeds[keep],
        table.means[:, keep][:, :, shared.variants],
        table.episodes[:, keep][:, :, shared.variants],
    )
    if family is None or not _over(family, names, shared):
        family = compare_all(narrowed, names, alpha=alpha, seed=seed)
    everything = select(narrowed, indices)
    means = [
        math.fsum(seed_scores(narrowed, i, everything).tolist()) / len(keep)
        if len(keep)
        else math.nan
        for i in indices
    ]
    observed = ranks_of(means)
    above = dict.fromkeys(names, 0)
    below = dict.fromkeys(names, 0)
    for t in family.starred():
        better, worse = (t.first, t.second) if t.difference.value > 0 else (t.second, t.first)
        above[worse] += 1
        below[better] += 1
    k = len(names)
    ranks = tuple(
        Rank(name, rank, 1 + above[name], k - below[name], mean)
        for name, rank, mean in zip(names, observed, means, strict=True)
    )
    return Ranking(ranks, family, shared)


__all__ = ["Rank", "Ranking", "rank_intervals", "ranks_of"]
