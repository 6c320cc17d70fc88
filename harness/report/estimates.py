"""A report's statistics: the figures of :mod:`harness.report.methods` over its table,
as the report's models (:mod:`harness.report.model`).

The table (:func:`harness.report.seeds.seed_table`) holds each entrant's cell means on
a grid of seeds and variants. From it, per entrant: its score (the balanced mean over
variants, over the seeds it finished in every variant it played) with per-variant
means, IQM, performance profile and score / ceiling; between every two entrants, the
paired difference over the seeds both finished, starred by Holm's procedure; ranks
with simultaneous intervals read off those stars; and each entrant against the
reference, unadjusted, with P(entrant > reference). Each figure carries its seeds,
its method, what it resampled, and why its interval is missing, unbounded or of zero
width; each comparison says what it left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from harness.report.methods import (
    LEVEL,
    EntrantFigures,
    Family,
    PairTest,
    SeedTable,
    compare_all,
    rank_intervals,
    select,
)
from harness.report.methods import Profile as ProfileFigures
from harness.report.methods import Rank as RankFigures
from harness.report.methods.analysis import figures_of, share_of, versus_of
from harness.report.methods.intervals import mean_interval
from harness.report.methods.signflip import smallest_p
from harness.report.methods.table import seed_scores
from harness.report.model import (
    MeanInterval,
    PairedRow,
    Pairwise,
    PairwiseRow,
    Profile,
    Rank,
)
from harness.report.seeds import CEILING_ROW


@dataclass(frozen=True)
class EntrantStats:
    """One entrant's figures over seeds, as its row of the report holds them."""

    score: MeanInterval
    per_variant: dict[str, MeanInterval]
    iqm: MeanInterval
    profile: Profile
    ceiling_ratio: MeanInterval | None
    dropped: str

    @property
    def ceiling_share(self) -> float | None:
        """The score / ceiling figure alone (None without a ceiling, or undefined)."""
        return None if self.ceiling_ratio is None else self.ceiling_ratio.mean


def _profile(profile: ProfileFigures) -> Profile:
    return Profile(
        thresholds=profile.thresholds.tolist(),
        shares=profile.shares.tolist(),
        low=profile.low.tolist(),
        high=profile.high.tolist(),
        level=profile.level,
        seeds=profile.seeds,
    )


def _entrant(table: SeedTable, figures: EntrantFigures, ceiling: bool) -> EntrantStats:
    i = table.index(figures.entrant)
    chosen = figures.selection
    cells = chosen.cells
    held = table.episodes[i][chosen.seeds][:, chosen.variants]
    seeds = figures.score.seeds
    per_variant = {
        name: MeanInterval.of(estimate, cells=seeds, episodes=int(held[:, j].sum()))
        for j, (name, estimate) in enumerate(figures.per_variant)
    }
    ratio = None
    if ceiling:
        share = share_of(table, figures.entrant, CEILING_ROW, LEVEL)
        ratio = MeanInterval.of(share.ratio, cells=share.cells)
    return EntrantStats(
        score=MeanInterval.of(figures.score, cells=cells, episodes=figures.episodes),
        per_variant=per_variant,
        iqm=MeanInterval.of(figures.iqm, cells=cells, episodes=figures.episodes),
        profile=_profile(figures.profile),
        ceiling_ratio=ratio,
        dropped=figures.dropped.text(),
    )


def entrant_stats(
    table: SeedTable, names: Sequence[str], *, ceiling: bool
) -> dict[str, EntrantStats]:
    """Each of ``names``' figures (with score / ceiling when the table has a ceiling's
    row, :data:`~harness.report.seeds.CEILING_ROW`)."""
    return {f.entrant: _entrant(table, f, ceiling) for f in figures_of(table, names, LEVEL)}


def _p_floor(test: PairTest) -> float | None:
    """The smallest p-value the test could give on its seeds (None: no test)."""
    if test.p is None:
        return None
    return smallest_p(test.difference.seeds, test.difference.resamples or 0)


def pairwise_of(family: Family) -> Pairwise:
    """Every pair of the family, Holm-adjusted, as the report's table."""
    rows = [
        PairwiseRow(
            entrant=t.first,
            versus=t.second,
            cells=t.selection.cells,
            difference=MeanInterval.of(t.difference, cells=t.selection.cells),
            p=t.p,
            p_holm=None if t.holm is None else t.holm.adjusted,
            significant=t.starred,
            seeds=t.difference.seeds,
            p_floor=_p_floor(t),
            dropped=t.dropped.text(),
        )
        for t in family.pairs
    ]
    return Pairwise(
        comparisons=family.comparisons,
        alpha=family.alpha,
        rows=rows,
        seeds_needed=family.seeds_needed,
        note=family.note(),
        flips=family.flips,
    )


def paired_of(
    table: SeedTable, family: Family | None, names: Sequence[str], reference: str | None
) -> list[PairedRow]:
    """Each of ``names`` against ``reference`` over the seeds both finished, unadjusted
    (read off ``family``, the same table's, when given)."""
    if reference is None or reference not in names:
        return []
    rows = []
    for name in names:
        if name == reference:
            continue
        found = versus_of(table, family, name, reference, LEVEL)
        test = found.test
        cells = test.selection.cells
        rows.append(
            PairedRow(
                entrant=name,
                reference=reference,
                pairs=cells,
                difference=MeanInterval.of(test.unadjusted, cells=cells),
                wins=test.wins,
                ties=test.ties,
                losses=test.losses,
                seeds=test.unadjusted.seeds,
                p=test.p,
                p_floor=_p_floor(test),
                improvement=MeanInterval.of(found.improvement, cells=cells),
                dropped=test.dropped.text(),
            )
        )
    return rows


def family_of(table: SeedTable, names: Sequence[str]) -> Family:
    """Every pair of ``names``, Holm-adjusted (:func:`~harness.report.methods.compare_all`)."""
    return compare_all(table, names)


def _rank(figures: RankFigures, cells: int, seeds: int) -> Rank:
    return Rank(
        rank=figures.rank, rank_low=figures.low, rank_high=figures.high, cells=cells, seeds=seeds
    )


def ranks_of(
    table: SeedTable, names: Sequence[str], family: Family | None = None
) -> tuple[dict[str, Rank], Family | None]:
    """Each of ``names``' rank over the seeds all of them share, with its simultaneous
    interval, and the family the intervals were read from (empty with no shared seed
    or fewer than two entrants). ``family``: the same names' family, reused when it is
    over exactly those seeds."""
    if len(names) < 2:
        return {}, None
    ranking = rank_intervals(table, names, family=family)
    if not ranking.seeds:
        return {}, None
    ranks = {r.entrant: _rank(r, ranking.cells, ranking.seeds) for r in ranking.ranks}
    return ranks, ranking.family


def shared_scores(table: SeedTable, names: Sequence[str]) -> dict[str, MeanInterval]:
    """Each of ``names``' mean over the seeds all of them finished in every variant all
    of them played, with its interval (a leaderboard's scores)."""
    indices = [table.index(n) for n in names]
    shared = select(table, indices)
    out = {}
    for name, i in zip(names, indices, strict=True):
        held = int(table.episodes[i][shared.seeds][:, shared.variants].sum())
        estimate = mean_interval(seed_scores(table, i, shared), LEVEL)
        out[name] = MeanInterval.of(estimate, cells=shared.cells, episodes=held)
    return out


def finite(value: float | None) -> float | None:
    """``value``, or None when it is none or not a finite number."""
    return value if value is not None and math.isfinite(value) else None


__all__ = [
    "EntrantStats",
    "entrant_stats",
    "family_of",
    "finite",
    "paired_of",
    "pairwise_of",
    "ranks_of",
    "shared_scores",
]
