"""How many seeds a tournament needs to detect a given difference between two entrants.

The report compares two entrants by their paired difference over (seed, variant)
cells, d(c) = m_e(c) - m_f(c) (repetitions averaged within a cell). To detect a true
mean difference delta with a two-sided test at level alpha and power 1 - beta, the
normal approximation needs

    n = ceil( ((z(1 - alpha/2) + z(1 - beta)) * sigma_d / delta)^2 ) cells

where sigma_d is the standard deviation of d(c) across cells and z the standard
normal quantile; with alpha = 0.05 and power 0.8, z(0.975) + z(0.8) = 1.960 + 0.842
= 2.802. A seed gives one cell per variant, so the seeds needed are ceil(n / V) for
V variants (treating a seed's cells as independent, which they are not quite when
variants share a board).

sigma_d comes from what has been played, in this order:

1. paired differences: the largest sample standard deviation of d(c) over the pairs
   of finished entrants with at least two shared cells (pairs with the reference
   entrant when there is one);
2. one entrant's spread: sqrt(2) * s, where s is the sample standard deviation of
   the cell means of the reference (else of the entrant with the most finished
   cells). sqrt(2) * s is sigma_d for two entrants as spread as that one and
   uncorrelated across cells; entrants that find the same seeds hard are positively
   correlated, which pairing turns into a smaller sigma_d, so this errs towards more
   seeds.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.report.stats import Cell, cell_means
from harness.summary import EpisodeSummary

ALPHA = 0.05
POWER = 0.8


def z_sum(alpha: float = ALPHA, power: float = POWER) -> float:
    """z(1 - alpha/2) + z(power), z the standard normal quantile."""
    normal = statistics.NormalDist()
    return normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)


def cells_needed(sigma_d: float, delta: float, alpha: float = ALPHA, power: float = POWER) -> int:
    """ceil(((z(1 - alpha/2) + z(power)) * sigma_d / delta)^2) cells, at least 2."""
    if delta <= 0 or not math.isfinite(delta):
        raise ValueError("the difference to detect must be a positive number")
    return max(2, math.ceil((z_sum(alpha, power) * sigma_d / delta) ** 2))


@dataclass(frozen=True)
class Spread:
    """sigma_d and where it came from."""

    sigma_d: float
    source: str
    cells: int
    """The cells it was measured on."""


def entrant_cells(summaries: Iterable[EpisodeSummary]) -> dict[str, dict[Cell, float]]:
    """Each entrant's cell means."""
    values: dict[str, list[tuple[Cell, float]]] = defaultdict(list)
    for s in summaries:
        values[s.entrant].append(((s.seed, s.variant), s.score))
    return {name: cell_means(v) for name, v in sorted(values.items())}


def spread(cells: Mapping[str, Mapping[Cell, float]], reference: str | None) -> Spread | None:
    """sigma_d from finished entrants' cell means (see the module docstring); None when no
    entrant has two cells."""
    names = sorted(cells)
    pairs = [
        (a, b)
        for a, b in itertools.combinations(names, 2)
        if reference is None or reference not in cells or reference in (a, b)
    ]
    best: Spread | None = None
    for a, b in pairs:
        shared = sorted(set(cells[a]) & set(cells[b]))
        if len(shared) < 2:
            continue
        sd = statistics.stdev(cells[a][c] - cells[b][c] for c in shared)
        if best is None or sd > best.sigma_d:
            best = Spread(sd, f"paired differences {a} - {b}", len(shared))
    if best is not None:
        return best
    ranked = sorted(names, key=lambda n: (n != reference, -len(cells[n]), n))
    for name in ranked:
        if len(cells[name]) >= 2:
            s = statistics.stdev(cells[name].values())
            return Spread(
                math.sqrt(2) * s, f"sqrt(2) x the spread of {name}'s cell means", len(cells[name])
            )
    return None


def seeds_needed(cells: int, variants: int) -> int:
    """Seeds that give ``cells`` cells at ``variants`` variants a seed."""
    return -(-cells // max(1, variants))


def describe(delta: float, found: Spread | None, variants: int) -> list[str]:
    """The lines a dry run prints for ``--detect delta``."""
    if found is None:
        return [
            f"to detect a difference of {delta:g}: no spread to go on (no entrant has "
            "finished two cells, and no baseline-only entrant could be played)"
        ]
    if found.sigma_d == 0:
        return [
            f"to detect a difference of {delta:g}: the {found.cells} cells measured do not "
            f"vary (sigma_d = 0: {found.source}), so they tell no sample size; play a few "
            "seeds of the entrants to compare, then ask again"
        ]
    n = cells_needed(found.sigma_d, delta)
    seeds = seeds_needed(n, variants)
    return [
        f"to detect a difference of {delta:g} (paired over cells, two-sided alpha "
        f"{ALPHA}, power {POWER}, normal approximation): n = ((z_0.975 + z_0.8) x "
        f"sigma_d / delta)^2 = (({z_sum():.3f}) x {found.sigma_d:.3f} / {delta:g})^2 "
        f"-> {n} cells = {seeds} seed(s) at {variants} variant(s)",
        f"  sigma_d = {found.sigma_d:.3f}: {found.source}, over {found.cells} cells",
    ]


__all__ = [
    "ALPHA",
    "POWER",
    "Spread",
    "cells_needed",
    "describe",
    "entrant_cells",
    "seeds_needed",
    "spread",
    "z_sum",
]
