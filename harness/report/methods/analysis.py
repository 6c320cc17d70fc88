"""Every figure a report takes from the statistics, computed in one call.

:func:`analyse` runs the whole set over a :class:`~harness.report.methods.table.
SeedTable`: per entrant its score (the balanced mean over variants, skew-corrected t
over its complete seeds) with per-variant means, IQM and performance profile; every pair,
Holm-adjusted; ranks with simultaneous intervals; the comparisons with the reference
(unadjusted, with P(X > Y)); and each entrant's score / ceiling. Each figure carries
its seeds, its method and, when its interval is missing, unbounded or zero-width,
its reason; each comparison says what it dropped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from harness.report.methods.family import (
    ALPHA,
    Family,
    PairTest,
    compare_all,
    paired_difference,
)
from harness.report.methods.figures import (
    Profile,
    iqm_intervals,
    performance_profile,
    probability_of_improvement,
    ratio_of_means,
)
from harness.report.methods.intervals import LEVEL, Estimate, mean_interval
from harness.report.methods.ranks import Ranking, rank_intervals
from harness.report.methods.table import (
    Dropped,
    SeedTable,
    Selection,
    pair,
    seed_scores,
    select,
)


@dataclass(frozen=True)
class EntrantFigures:
    """One entrant's figures over the seeds it finished in every variant it played."""

    entrant: str
    score: Estimate
    """The balanced mean over variants, with its skew-corrected t interval over seeds."""
    per_variant: tuple[tuple[str, Estimate], ...]
    """Each variant's mean over the same seeds, with the same kind of interval."""
    iqm: Estimate
    profile: Profile
    episodes: int
    """Episodes behind the cells used."""
    dropped: Dropped
    selection: Selection
    """The seeds and variants the figures are over."""


@dataclass(frozen=True)
class Versus:
    """An entrant against the reference, unadjusted (one comparison on its own)."""

    test: PairTest
    improvement: Estimate
    """P(entrant > reference) over the paired seeds."""


@dataclass(frozen=True)
class Share:
    """An entrant's score as a share of the ceiling's, over the seeds both finished."""

    entrant: str
    ratio: Estimate
    dropped: Dropped
    cells: int
    """The (seed, variant) cells of each of the two the ratio is over."""


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyse` computes."""

    entrants: tuple[EntrantFigures, ...]
    family: Family
    ranking: Ranking
    reference: str | None
    versus: tuple[Versus, ...]
    ceiling: str | None
    shares: tuple[Share, ...]


def entrant_figures(table: SeedTable, entrant: str, level: float = LEVEL) -> EntrantFigures:
    """Score, per-variant means, IQM and profile of one entrant (see the module doc)."""
    return figures_of(table, [entrant], level)[0]


def figures_of(table: SeedTable, names: Sequence[str], level: float) -> list[EntrantFigures]:
    """:func:`entrant_figures` of each of ``names``, their IQM resamples drawn together."""
    parts = []
    for name in names:
        i = table.index(name)
        own = select(table, [i])
        parts.append((i, own, seed_scores(table, i, own)))
    iqms = iqm_intervals([y for _, _, y in parts], level)
    out = []
    for name, (i, own, y), middle in zip(names, parts, iqms, strict=True):
        cells = table.means[i][own.seeds][:, own.variants]
        used = [v for v, kept in zip(table.variants, own.variants, strict=True) if kept]
        per_variant = tuple((v, mean_interval(cells[:, j], level)) for j, v in enumerate(used))
        episodes = int(table.episodes[i][own.seeds][:, own.variants].sum())
        out.append(
            EntrantFigures(
                name,
                mean_interval(y, level),
                per_variant,
                middle,
                performance_profile(y, level),
                episodes,
                own.dropped,
                own,
            )
        )
    return out


def versus_of(
    table: SeedTable, family: Family | None, name: str, reference: str, level: float = LEVEL
) -> Versus:
    """``name`` against ``reference``: read off ``family`` (the :func:`compare_all` of
    the same table) when it holds the pair at this level (the same flips), else
    computed on its own."""
    paired = pair(table, table.index(name), table.index(reference))
    improvement = probability_of_improvement(paired.x, paired.y, level)
    if family is not None and math.isclose(1 - family.alpha, level):
        for test in family.pairs:
            if (test.first, test.second) == (name, reference):
                return Versus(test, improvement)
            if (test.first, test.second) == (reference, name):
                return Versus(test.reversed(), improvement)
    return Versus(paired_difference(table, name, reference, level=level), improvement)


def share_of(table: SeedTable, name: str, ceiling: str, level: float = LEVEL) -> Share:
    """``name``'s score as a share of ``ceiling``'s over the seeds both finished."""
    paired = pair(table, table.index(name), table.index(ceiling))
    chosen = paired.selection
    return Share(name, ratio_of_means(paired.x, paired.y, level), chosen.dropped, chosen.cells)


def analyse(
    table: SeedTable,
    entrants: Sequence[str] | None = None,
    *,
    reference: str | None = None,
    ceiling: str | None = None,
    alpha: float = ALPHA,
    level: float = LEVEL,
) -> Analysis:
    """The full set of figures for ``entrants`` (by default every entrant of the table;
    a hidden ceiling may sit in the table without being one of them).

    The comparisons with the reference are the family's pairs read at ``level``
    (``unadjusted``: one comparison on its own, with its unadjusted p-value), turned
    to read entrant minus reference.
    """
    names = tuple(table.entrants if entrants is None else entrants)
    figures = tuple(figures_of(table, names, level))
    family = compare_all(table, names, alpha=alpha)
    ranking = rank_intervals(table, names, alpha=alpha, family=family)
    versus: list[Versus] = []
    if reference is not None:
        versus = [versus_of(table, family, n, reference, level) for n in names if n != reference]
    shares = [share_of(table, n, ceiling, level) for n in names] if ceiling is not None else []
    return Analysis(figures, family, ranking, reference, tuple(versus), ceiling, tuple(shares))


__all__ = [
    "Analysis",
    "EntrantFigures",
    "Share",
    "Versus",
    "analyse",
    "entrant_figures",
    "figures_of",
    "share_of",
    "versus_of",
]
