"""The cross-play report: a design's keeper x runner matrix, and what it says of each.

A cross-play design (a config's ``[crossplay]`` section) plays every member of the
game's first seat group (rows: Lighthouse's keepers) with every member of the second
(columns: runner teams) on the same seeds. From each entrant's (seed, variant) cell
means (the report's own cells, repetitions averaged within a cell) this module makes:

- the matrix: each combination's mean over the cells *every* entrant of the matrix
  finished (so that all its figures are over the same boards);
- per row and per column, the mean over its partners and its worst partner (the
  partner with the lowest mean; the interval is of the minimum over partners,
  recomputed in every resample);
- a two-way decomposition of the matrix: ``cell = grand + row effect + column effect
  + interaction`` exactly, the effects being deviations of the row and column means;
  a test of the interaction (a sign-flip permutation test over seeds: under no
  interaction, each seed's double-centred matrix is as likely negated), and its size
  as a share of the between-cell sum of squares and as a root mean square in points;
- for every two rows, the leader's lead with each column and how it changes from one
  column to another (the interaction, read as a question: does the better keeper
  stay as far ahead with other partners?);
- where a row and a column are the same model, the self-play minus cross-play gap:
  the combination's mean against the mean of the other cells of its row and column.

Every interval is a percentile bootstrap over *seeds*: a resample draws seeds with
replacement, each carrying all its cells (every variant, every entrant of the
matrix), so the interval allows for boards that are hard for everyone. The draws
come from numpy's seeded generator and every sum is numpy's own (no BLAS), so the
same results give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.report.cells import Cell
from harness.report.crossplay_model import (
    Crossplay,
    Effect,
    InteractionCell,
    InteractionTest,
    Lead,
    LeadChange,
    MatrixCell,
    PartnerRobustness,
    SeedInterval,
    SelfPlayGap,
)
from harness.report.methods.arrays import Floats
from harness.report.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, LEVEL

#: The permutation test's draws come from their own stream, apart from the bootstrap's.
PERMUTATION_STREAM = 1
#: Resamples made at a time: what one step holds stays small whatever the seed count.
CHUNK = 250


@dataclass(frozen=True)
class CrossplayLayout:
    """Where each entrant of a design sits in the matrix (from the config as run)."""

    row_group: str
    column_group: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    entrants: Mapping[tuple[str, str], str]
    """(row, column) -> the entrant that plays the combination."""
    same_model: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    """Combinations whose row and column are the same model (self-play)."""


def _f(values: Any) -> Floats:
    """``values`` as an array of floats (what numpy's reductions return, typed)."""
    return np.asarray(values, dtype=np.float64)


def method_text(resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> str:
    """What every interval of the section resamples, and how."""
    return (
        f"{LEVEL:.0%} percentile bootstrap over seeds (each seed carries its cells of "
        f"every variant and every entrant of the matrix), {resamples:,} resamples, seed {seed}"
    )


def _interval(point: float, draws: Floats | None) -> SeedInterval:
    """``point`` with the percentile interval of its resampled ``draws``."""
    mean = None if np.isnan(point) else float(point)
    if draws is None or mean is None:
        return SeedInterval(mean=mean, low=None, high=None)
    kept = draws[~np.isnan(draws)]
    if kept.size == 0:
        return SeedInterval(mean=mean, low=None, high=None)
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(kept, [tail, 100 - tail])
    return SeedInterval(mean=mean, low=float(low), high=float(high))


@dataclass(frozen=True)
class _Figures:
    """Every figure of the section for one matrix (or a stack of resampled ones)."""

    matrix: Floats  # (..., R, C)

    @property
    def row_means(self) -> Floats:
        return _f(self.matrix.mean(axis=-1))

    @property
    def column_means(self) -> Floats:
        return _f(self.matrix.mean(axis=-2))

    @property
    def grand(self) -> Floats:
        return _f(self.matrix.mean(axis=(-2, -1)))

    @property
    def row_effects(self) -> Floats:
        return self.row_means - self.grand[..., None]

    @property
    def column_effects(self) -> Floats:
        return self.column_means - self.grand[..., None]

    @property
    def interactions(self) -> Floats:
        return double_centred(self.matrix)

    def share(self) -> Floats:
        """The interaction's share of the between-cell sum of squares (NaN: none)."""
        rows, columns = self.matrix.shape[-2:]
        ss_rows = columns * np.square(self.row_effects).sum(axis=-1)
        ss_columns = rows * np.square(self.column_effects).sum(axis=-1)
        ss_inter = np.square(self.interactions).sum(axis=(-2, -1))
        total = ss_rows + ss_columns + ss_inter
        with np.errstate(invalid="ignore", divide="ignore"):
            return _f(np.where(total > 0, ss_inter / np.where(total > 0, total, 1), np.nan))

    def rms(self) -> Floats:
        """The root mean square interaction."""
        return _f(np.sqrt(np.square(self.interactions).mean(axis=(-2, -1))))

    def gap(self, row: int, column: int) -> tuple[Floats, Floats, Floats]:
        """Self-play, cross-play and their difference at (row, column)."""
        m = self.matrix
        own = m[..., row, column]
        others = np.concatenate(
            [
                np.delete(m[..., row, :], column, axis=-1),
                np.delete(m[..., :, column], row, axis=-1),
            ],
            axis=-1,
        )
        cross = _f(others.mean(axis=-1))
        return _f(own), cross, _f(own - cross)


def double_centred(matrix: Floats) -> Floats:
    """``matrix`` less its row means and column means, plus its grand mean: the
    interaction of a two-way table (the last two axes)."""
    return _f(
        matrix
        - matrix.mean(axis=-1, keepdims=True)
        - matrix.mean(axis=-2, keepdims=True)
        + matrix.mean(axis=(-2, -1), keepdims=True)
    )


def _resampled(rng: np.random.Generator, sums: Floats, counts: Floats, resamples: int) -> Floats:
    """The matrices of ``resamples`` seed resamples: (resamples, R, C). Each draws
    seeds with replacement; its matrix is the drawn seeds' cell sums over their cells.
    Made a chunk at a time, so only a chunk's seed counts are held."""
    seeds = sums.shape[0]
    flat = sums.reshape(seeds, -1)
    out = []
    for start in range(0, resamples, CHUNK):
        picks = rng.integers(0, seeds, size=(min(CHUNK, resamples - start), seeds))
        weights = np.stack([np.bincount(row, minlength=seeds) for row in picks]).astype(float)
        total = np.einsum("bs,sk->bk", weights, flat, optimize=False)
        cells = np.einsum("bs,s->b", weights, counts, optimize=False)
        out.append(total / cells[:, None])
    return _f(np.concatenate(out).reshape(resamples, *sums.shape[1:]))


def interaction_test(
    sums: Floats, counts: Floats, *, resamples: int, seed: int
) -> tuple[float, float | None]:
    """The sum of squared interactions and its sign-flip permutation p-value over seeds.

    Each seed's matrix (its cells' mean) is double-centred; the matrix's interaction is
    their mean weighted by the seed's cells. Under no interaction each seed's
    double-centred matrix is as likely negated, so the statistic is compared with
    those of ``resamples`` random sign flips: p = (1 + flips at least as large) /
    (1 + resamples). None with fewer than two seeds.
    """
    per_seed = double_centred(sums / counts[:, None, None])
    flat = per_seed.reshape(per_seed.shape[0], -1) * counts[:, None]
    observed = float(np.square(flat.sum(axis=0) / counts.sum()).sum())
    if per_seed.shape[0] < 2:
        return observed, None
    rng = np.random.default_rng([seed, PERMUTATION_STREAM])
    larger = 0
    # a statistic equal to the observed one up to rounding counts as at least as large
    # (an additive matrix leaves only rounding in each seed's interaction)
    scale = float(np.square(sums / counts[:, None, None]).mean()) + 1.0
    bar = observed - 1e-12 * scale
    for start in range(0, resamples, CHUNK):
        n = min(CHUNK, resamples - start)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(n, flat.shape[0]))
        flipped = np.einsum("ps,sk->pk", signs, flat, optimize=False) / counts.sum()
        larger += int((np.square(flipped).sum(axis=1) >= bar).sum())
    return observed, (1 + larger) / (1 + resamples)


def _common_cells(tables: Sequence[Mapping[Cell, float]]) -> tuple[list[Cell], int]:
    """The cells every table holds, in natural order, and how many any table holds."""
    common = set(tables[0])
    union = set(tables[0])
    for table in tables[1:]:
        keys = set(table)
        common &= keys
        union |= keys
    return sorted(common), len(union)


@dataclass(frozen=True)
class _Estimates:
    """The section's figures at the data (``point``) and in each resample (``drawn``,
    None with fewer than two seeds): every interval of the section comes from here."""

    point: _Figures
    drawn: _Figures | None

    def interval(self, pick: str, *index: int) -> SeedInterval:
        """The interval of the figure named ``pick`` (at ``index`` of its array)."""
        value = getattr(self.point, pick)
        value = value() if callable(value) else value
        draws = None
        if self.drawn is not None:
            got = getattr(self.drawn, pick)
            got = got() if callable(got) else got
            draws = got[(slice(None), *index)]
        return _interval(float(value[index]) if index else float(value), draws)

    def robustness(
        self, axis: int, members: list[str], partners: list[str]
    ) -> list[PartnerRobustness]:
        """Each member's mean over its partners and its worst partner; ``axis`` -1 takes
        a row over its columns, -2 a column over its rows."""
        out = []
        for k, member in enumerate(members):
            line = self.point.matrix[k] if axis == -1 else self.point.matrix[:, k]
            worst = int(np.argmin(line))  # the first of equal lows: a stable choice
            lows = None
            means = None
            if self.drawn is not None:
                m = self.drawn.matrix
                stack = m[:, k, :] if axis == -1 else m[:, :, k]
                lows, means = stack.min(axis=1), stack.mean(axis=1)
            out.append(
                PartnerRobustness(
                    member=member,
                    mean=_interval(float(line.mean()), means),
                    worst_partner=partners[worst],
                    worst=_interval(float(line.min()), lows),
                )
            )
        return out

    def leads(self, rows: list[str], columns: list[str]) -> list[Lead]:
        """For every two rows, the leader's lead with each column and its changes."""
        leads = []
        means = self.point.row_means
        for i in range(len(rows)):
            for k in range(i + 1, len(rows)):
                a, b = (k, i) if means[k] > means[i] else (i, k)
                line = self.point.matrix[a] - self.point.matrix[b]
                stack = None
                if self.drawn is not None:
                    stack = self.drawn.matrix[:, a, :] - self.drawn.matrix[:, b, :]
                by_column = {
                    c: _interval(float(line[j]), None if stack is None else stack[:, j])
                    for j, c in enumerate(columns)
                }
                changes = [
                    LeadChange(
                        start=columns[j],
                        to=columns[m],
                        change=_interval(
                            float(line[m] - line[j]),
                            None if stack is None else stack[:, m] - stack[:, j],
                        ),
                    )
                    for j in range(len(columns))
                    for m in range(j + 1, len(columns))
                ]
                leads.append(
                    Lead(row=rows[a], versus=rows[b], by_column=by_column, changes=changes)
                )
        return leads

    def self_play(self, layout: CrossplayLayout) -> list[SelfPlayGap]:
        """The self-play minus cross-play gap of every same-model combination."""
        rows, columns = layout.rows, layout.columns
        gaps = []
        for i, r in enumerate(rows):
            for j, c in enumerate(columns):
                if (r, c) not in layout.same_model or len(rows) * len(columns) < 2:
                    continue
                own, cross, gap = self.point.gap(i, j)
                d_own = d_cross = d_gap = None
                if self.drawn is not None:
                    d_own, d_cross, d_gap = self.drawn.gap(i, j)
                gaps.append(
                    SelfPlayGap(
                        row=r,
                        column=c,
                        self_play=_interval(float(own), d_own),
                        cross_play=_interval(float(cross), d_cross),
                        gap=_interval(float(gap), d_gap),
                    )
                )
        return gaps

    def interaction(
        self, sums: Floats, counts: Floats, *, resamples: int, seed: int
    ) -> InteractionTest:
        """The interaction's permutation test and size."""
        statistic, p = interaction_test(sums, counts, resamples=resamples, seed=seed)
        drawn = self.drawn
        return InteractionTest(
            method="sign-flip permutation over seeds of each seed's double-centred matrix",
            statistic=statistic,
            p=p,
            resamples=resamples,
            share=_interval(float(self.point.share()), None if drawn is None else drawn.share()),
            rms=_interval(float(self.point.rms()), None if drawn is None else drawn.rms()),
        )


def _seed_sums(
    layout: CrossplayLayout, cells: Mapping[str, Mapping[Cell, float]], common: list[Cell]
) -> tuple[Floats, Floats]:
    """Each seed's cell sums per combination (seeds, R, C) and its cell counts."""
    seeds = sorted({s for s, _ in common})
    place = {s: i for i, s in enumerate(seeds)}
    sums = np.zeros((len(seeds), len(layout.rows), len(layout.columns)))
    counts = np.zeros(len(seeds))
    for s, _ in common:
        counts[place[s]] += 1
    for i, r in enumerate(layout.rows):
        for j, c in enumerate(layout.columns):
            table = cells[layout.entrants[(r, c)]]
            for cell in common:
                sums[place[cell[0]], i, j] += table[cell]
    return sums, counts


def crossplay_section(
    layout: CrossplayLayout,
    cells: Mapping[str, Mapping[Cell, float]],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Crossplay:
    """The cross-play section of a report: ``cells`` are each entrant's cell means."""
    rows, columns = list(layout.rows), list(layout.columns)
    names = [layout.entrants[(r, c)] for r in rows for c in columns]
    missing = [n for n in names if not cells.get(n)]
    present = [cells[n] for n in names if n not in missing]
    common, union = _common_cells(present) if present else ([], 0)
    seeds = len({s for s, _ in common})
    base = Crossplay(
        row_group=layout.row_group,
        column_group=layout.column_group,
        rows=rows,
        columns=columns,
        missing=missing,
        cells=len(common) if not missing else 0,
        seeds=seeds if not missing else 0,
        all_cells=union,
        method=method_text(resamples, seed),
        matrix=[],
        by_row=[],
        by_column=[],
        grand=SeedInterval(mean=None, low=None, high=None),
        row_effects=[],
        column_effects=[],
        interactions=[],
        interaction_test=None,
        leads=[],
        self_play=[],
    )
    if missing or not common:
        return base  # a matrix with a hole has no decomposition: the report says so
    sums, counts = _seed_sums(layout, cells, common)
    drawn = None
    if seeds >= 2:
        drawn = _Figures(_resampled(np.random.default_rng(seed), sums, counts, resamples))
    est = _Estimates(_Figures(sums.sum(axis=0) / counts.sum()), drawn)
    test = None
    if len(rows) >= 2 and len(columns) >= 2:
        test = est.interaction(sums, counts, resamples=resamples, seed=seed)
    iv = est.interval
    return base.model_copy(
        update={
            "matrix": [
                MatrixCell(
                    row=r, column=c, entrant=layout.entrants[(r, c)], score=iv("matrix", i, j)
                )
                for i, r in enumerate(rows)
                for j, c in enumerate(columns)
            ],
            "by_row": est.robustness(-1, rows, columns),
            "by_column": est.robustness(-2, columns, rows),
            "grand": iv("grand"),
            "row_effects": [
                Effect(member=r, effect=iv("row_effects", i)) for i, r in enumerate(rows)
            ],
            "column_effects": [
                Effect(member=c, effect=iv("column_effects", j)) for j, c in enumerate(columns)
            ],
            "interactions": [
                InteractionCell(row=r, column=c, interaction=iv("interactions", i, j))
                for i, r in enumerate(rows)
                for j, c in enumerate(columns)
            ],
            "interaction_test": test,
            "leads": est.leads(rows, columns),
            "self_play": est.self_play(layout),
        }
    )


__all__ = [
    "CrossplayLayout",
    "crossplay_section",
    "double_centred",
    "interaction_test",
    "method_text",
]
