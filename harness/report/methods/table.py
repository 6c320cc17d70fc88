"""Entrants' cell means on a grid of seeds and variants, and the seeds a statistic uses.

**The unit is the seed** (the board). The variants of a seed (Lighthouse's tides) are
the same board played another way: strata inside the seed, not more seeds. So:

* a *cell* (entrant e, seed s, variant v) holds the mean of e's repetitions there,
  m_e(s, v) = (1/R) sum_r x_e(s, v, r);
* an entrant's *seed score* is the balanced mean over the variants V it is measured
  on, y_e(s) = (1/|V|) sum_{v in V} m_e(s, v): each variant weighs the same;
* an entrant's *score* is the mean of its seed scores over its complete seeds (those
  where it finished every one of its variants); on complete seeds that is also the
  mean over variants of its per-variant means, which are reported beside it;
* a *pairing* of two entrants uses the variants both played and the seeds both
  finished in every one of those; :class:`Dropped` says what was left out, and why.

A :class:`SeedTable` holds the cells as a dense array ``means[entrant, seed,
variant]`` (NaN where nothing was finished) with ``episodes`` beside it. Seeds are
in ascending order and variants in name order, whatever order the episodes came in;
a cell's repetitions are summed exactly (:func:`math.fsum`). So the same episodes
give the same table, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.report.methods.arrays import Floats, Ints, Mask
from harness.report.methods.exact import grid_exponent

#: Seed scores closer than this are a tie (wins, ties and losses; P(X > Y)).
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class SeedTable:
    """Cell means of K entrants on n seeds and V variants (see the module docstring)."""

    entrants: tuple[str, ...]
    variants: tuple[str, ...]
    """Sorted, distinct."""
    seeds: Ints
    """(n,) ascending, distinct."""
    means: Floats
    """(K, n, V): the cell's mean over its repetitions; NaN where none finished."""
    episodes: Ints
    """(K, n, V): how many repetitions each cell's mean is over (0: not finished)."""

    def __post_init__(self) -> None:
        shape = (len(self.entrants), len(self.seeds), len(self.variants))
        if self.means.shape != shape or self.episodes.shape != shape:
            raise ValueError(f"SeedTable: means and episodes must be {shape}")
        if list(self.variants) != sorted(set(self.variants)):
            raise ValueError("SeedTable: variants must be sorted and distinct")
        if len(set(self.entrants)) != len(self.entrants):
            raise ValueError("SeedTable: entrant names must be distinct")
        if len(self.seeds) > 1 and not bool(np.all(np.diff(self.seeds) > 0)):
            raise ValueError("SeedTable: seeds must be ascending and distinct")

    @classmethod
    def from_cells(
        cls,
        entrants: Sequence[str],
        variants: Sequence[str],
        entrant: Sequence[int] | Ints,
        seed: Sequence[int] | Ints,
        variant: Sequence[int] | Ints,
        mean: Sequence[float] | Floats,
        episodes: Sequence[int] | Ints | None = None,
    ) -> SeedTable:
        """A table of cells given as aligned rows: an index into ``entrants``, a seed, an
        index into ``variants`` (any order of names) and the cell's mean (with how
        many episodes it is over; 1 each by default). Each cell at most once."""
        e = np.asarray(entrant, dtype=np.int64)
        s = np.asarray(seed, dtype=np.int64)
        v_given = np.asarray(variant, dtype=np.int64)
        m = np.asarray(mean, dtype=np.float64)
        count = np.ones(len(m), np.int64) if episodes is None else np.asarray(episodes, np.int64)
        if not np.isfinite(m).all():
            raise ValueError("SeedTable: a score is not a finite number")
        if len({len(e), len(s), len(v_given), len(m), len(count)}) != 1:
            raise ValueError("SeedTable: the rows' columns differ in length")
        names = sorted(variants)
        if len(set(names)) != len(names):
            raise ValueError("SeedTable: the variant names are not distinct")
        rank = np.array([names.index(v) for v in variants], dtype=np.int64)
        v = rank[v_given] if len(v_given) else v_given
        seeds, place = np.unique(s, return_inverse=True)
        means = np.full((len(entrants), len(seeds), len(names)), np.nan)
        held = np.zeros(means.shape, dtype=np.int64)
        np.add.at(held, (e, place, v), 1)
        if np.any(held > 1):
            raise ValueError("SeedTable: a cell is given twice")
        means[e, place, v] = m
        held[e, place, v] = count
        return cls(tuple(entrants), tuple(names), seeds.astype(np.int64), means, held)

    @classmethod
    def from_episodes(
        cls,
        entrants: Sequence[str],
        variants: Sequence[str],
        entrant: Sequence[int] | Ints,
        seed: Sequence[int] | Ints,
        variant: Sequence[int] | Ints,
        score: Sequence[float] | Floats,
    ) -> SeedTable:
        """A table of episodes given as aligned rows (an entrant index, a seed, a variant
        index and the score, in any order); a cell's repetitions are averaged, their
        sum taken exactly so that their order cannot matter."""
        e = np.asarray(entrant, dtype=np.int64)
        s = np.asarray(seed, dtype=np.int64)
        v = np.asarray(variant, dtype=np.int64)
        x = np.asarray(score, dtype=np.float64)
        if len(x) == 0:
            return cls.from_cells(entrants, variants, e, s, v, x, np.zeros(0, np.int64))
        order = np.lexsort((x, v, s, e))  # by cell, then by score: a canonical order
        e, s, v, x = e[order], s[order], v[order], x[order]
        starts = np.flatnonzero(
            np.concatenate(([True], (e[1:] != e[:-1]) | (s[1:] != s[:-1]) | (v[1:] != v[:-1])))
        )
        counts = np.diff(np.append(starts, len(x)))
        means = x[starts].copy()
        for i in np.flatnonzero(counts > 1):  # repetitions: an exact mean, cell by cell
            a = int(starts[i])
            means[i] = math.fsum(x[a : a + int(counts[i])].tolist()) / int(counts[i])
        return cls.from_cells(entrants, variants, e[starts], s[starts], v[starts], means, counts)

    # -- what each entrant finished -------------------------------------------------

    @property
    def finished(self) -> Mask:
        """(K, n, V): whether each cell was finished."""
        return self.episodes > 0

    def index(self, entrant: str) -> int:
        """The position of ``entrant`` in the table."""
        return self.entrants.index(entrant)

    def grid_exponent(self) -> int:
        """The k of the grid 2^-k that every sign-flip sum over this table's seed scores
        is taken on (:func:`~harness.report.methods.exact.grid_exponent` of the largest
        cell mean over as many rows as the table has seeds): a property of the table,
        so a pair is tested on the same grid alone or in any family."""
        held = np.abs(self.means[self.finished])
        return grid_exponent(float(held.max()) if held.size else 0.0, len(self.seeds))

    def played_variants(self, entrant: int) -> Mask:
        """(V,): the variants ``entrant`` finished at least one cell of."""
        return np.asarray(self.finished[entrant].any(axis=0))


@dataclass(frozen=True)
class Dropped:
    """What a statistic left out of the cells its entrants finished, and why."""

    variants: tuple[str, ...]
    """Variants finished by some but not all of the entrants compared: left out."""
    seeds: Ints
    """Seeds left out because one of the entrants lacks a cell there (of a variant kept)."""
    cells: int
    """Finished cells of these entrants left out (on those seeds or variants)."""

    @property
    def nothing(self) -> bool:
        """Whether nothing was left out."""
        return self.cells == 0

    def text(self) -> str:
        """What was left out, in words (empty when nothing was)."""
        if self.nothing:
            return ""
        parts = []
        if len(self.seeds):
            parts.append(f"{len(self.seeds)} seed{'s' if len(self.seeds) != 1 else ''} "
                         "not finished in every variant by all of them")  # fmt: skip
        if self.variants:
            parts.append(f"the variant{'s' if len(self.variants) != 1 else ''} "
                         f"{', '.join(self.variants)} not played by all of them")  # fmt: skip
        return f"left out: {self.cells} finished cells ({'; '.join(parts)})"


@dataclass(frozen=True)
class Selection:
    """The seeds and variants a statistic of some entrants uses."""

    entrants: tuple[int, ...]
    variants: Mask
    """(V,): the variants used (those every one of the entrants played)."""
    seeds: Mask
    """(n,): the seeds used (every one of the entrants finished every variant used)."""
    dropped: Dropped

    @property
    def cells(self) -> int:
        """The (seed, variant) cells used by each entrant: seeds used x variants used."""
        return int(self.seeds.sum()) * int(self.variants.sum())


def select(table: SeedTable, entrants: Sequence[int]) -> Selection:
    """The variants every one of ``entrants`` played and the seeds all of them finished
    in every one of those variants, with what that leaves out."""
    chosen = tuple(entrants)
    done = table.finished[list(chosen)]  # (k, n, V)
    played: Mask = np.asarray(done.any(axis=1))  # (k, V)
    variants: Mask = np.asarray(played.all(axis=0))
    seeds: Mask
    if variants.any():
        seeds = np.asarray(done[:, :, variants].all(axis=(0, 2)))
    else:
        seeds = np.zeros(len(table.seeds), dtype=np.bool_)
    kept = seeds[None, :, None] & variants[None, None, :]
    left = done & ~kept
    someone: Mask = np.asarray(played.any(axis=0))
    out_variants = tuple(
        name
        for name, p, used in zip(table.variants, someone.tolist(), variants.tolist(), strict=True)
        if p and not used
    )
    out_seeds = table.seeds[(done[:, :, variants].any(axis=(0, 2))) & ~seeds]
    return Selection(chosen, variants, seeds, Dropped(out_variants, out_seeds, int(left.sum())))


def seed_scores(table: SeedTable, entrant: int, selection: Selection) -> Floats:
    """(n_used,): the entrant's seed scores on the selection's seeds: the balanced mean
    of its cell means over the selection's variants, y(s) = (1/|V|) sum_v m(s, v)."""
    cells = table.means[entrant][selection.seeds][:, selection.variants]
    total = np.zeros(cells.shape[0])
    for v in range(cells.shape[1]):  # a fixed order of additions, the same everywhere
        total = total + cells[:, v]
    result: Floats = total / max(1, cells.shape[1])
    return result


def variant_scores(table: SeedTable, entrant: int, selection: Selection) -> Floats:
    """(n_used, |V|): the entrant's cell means on the selection's seeds and variants."""
    result: Floats = table.means[entrant][selection.seeds][:, selection.variants]
    return result


@dataclass(frozen=True)
class Pairing:
    """Two entrants on the seeds both finished in every variant both played."""

    first: int
    second: int
    selection: Selection
    x: Floats
    """(n,): the first entrant's seed scores."""
    y: Floats
    """(n,): the second's, on the same seeds."""

    @property
    def d(self) -> Floats:
        """(n,): seed differences d(s) = x(s) - y(s)."""
        result: Floats = self.x - self.y
        return result

    @property
    def seeds(self) -> int:
        """How many seeds are paired."""
        return len(self.x)

    def wins_ties_losses(self) -> tuple[int, int, int]:
        """Seeds the first entrant scored more, the same (within
        :data:`TIE_TOLERANCE`) and less on."""
        d = self.d
        wins = int(np.count_nonzero(d > TIE_TOLERANCE))
        losses = int(np.count_nonzero(d < -TIE_TOLERANCE))
        return wins, len(d) - wins - losses, losses


def pair(table: SeedTable, first: int, second: int) -> Pairing:
    """``first`` and ``second`` paired (see :class:`Pairing`)."""
    chosen = select(table, [first, second])
    return Pairing(
        first, second, chosen, seed_scores(table, first, chosen), seed_scores(table, second, chosen)
    )


__all__ = [
    "TIE_TOLERANCE",
    "Dropped",
    "Pairing",
    "SeedTable",
    "Selection",
    "pair",
    "seed_scores",
    "select",
    "variant_scores",
]
