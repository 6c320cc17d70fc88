"""Cell means in flat arrays: one entrant's mean score per (seed, variant) cell.

A :class:`CellMeans` is an immutable table of one entrant's cells, in their natural
order (seed, then variant name), and each cell's mean over its repetitions: a seed
(8 bytes), the variant's rank among the sorted variant names (a byte or two) and the
mean (8 bytes), each in an :class:`array.array`. It is a ``Mapping[Cell, float]``, so
anything that takes a dict of cell means takes it too, and :meth:`CellMeans.of` turns
such a dict into one; so every statistic runs one algorithm, whether its cells came
from a dict or from a report's digest. A report's ceiling is held this way
(:class:`~harness.report.build.Ceiling`); its statistics lay the cells out on a grid
of seeds and variants (:mod:`harness.report.seeds`).

What a report does with cells it does here, without a tuple per cell: the cells
several tables share (:meth:`CellMeans.common`), a table's means on them
(:meth:`CellMeans.on`), and how many cells several tables cover
(:meth:`CellMeans.union_size`). Tables of one digest usually hold the very same cells;
that is noticed by comparing their arrays, and nothing is walked. Otherwise two
tables are walked side by side in their (shared) natural order.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.report.digest import EntrantDigest

#: A (seed, variant) cell: one seed played in one variant (the seed is the statistics' unit).
Cell = tuple[int, str]
#: A cell's seed and its variant's rank in an agreed order of variant names.
_Key = tuple[int, int]


def fsum_mean(values: list[float]) -> float:
    """:func:`statistics.fmean` of ``values``: their exact sum (:func:`math.fsum`) over
    their count, so the repetitions' order cannot matter."""
    return math.fsum(values) / len(values)


def as_given(values: list[float]) -> float:
    """The value of a cell given once (a mapping's), as it is (-0.0 included, which a
    sum would turn into 0.0)."""
    return values[0]


#: An array type of at least four bytes an item (``I`` is four on every platform we know).
_FOUR_BYTES = "I" if array("I").itemsize >= 4 else "L"


def index_code(count: int) -> str:
    """The smallest array type that holds 0..count-1: an index into ``count`` items."""
    if count <= 1 << 8:
        return "B"
    if count <= 1 << 16:
        return "H"
    return _FOUR_BYTES if count <= 1 << 32 else "Q"


def _seeds_of(values: Iterable[int]) -> array[int] | list[int]:
    """Seeds in an ``array('q')``; a list when one does not fit in 64 bits."""
    listed = values if isinstance(values, list) else list(values)
    try:
        return array("q", listed)
    except OverflowError:  # a seed past 64 bits (none of this harness's): ints
        return listed


class CellMeans(Mapping[Cell, float]):
    """Cells in natural order and their means, in flat arrays (see the module doc)."""

    __slots__ = ("_means", "_names", "_ranks", "_seeds")

    def __init__(
        self,
        names: Sequence[str],
        seeds: array[int] | list[int],
        ranks: array[int],
        means: array[float],
    ) -> None:
        """A table of ``names`` (the variant names, sorted and distinct) and, per cell in
        natural order, its seed, its variant's index into ``names`` and its mean."""
        self._names = tuple(names)
        self._seeds = seeds
        self._ranks = ranks
        self._means = means

    # -- building -----------------------------------------------------------------

    @classmethod
    def of_rows(
        cls,
        seeds: Sequence[int],
        variants: Sequence[int],
        scores: Sequence[float],
        names: Sequence[str],
        *,
        picked: Callable[[int], bool] | None = None,
        mean: Callable[[list[float]], float] = fsum_mean,
    ) -> CellMeans:
        """The cell means of episodes given as aligned rows: a seed, a variant number
        (an index into ``names``, distinct names in any order) and a score per episode;
        with ``picked``, only the rows it picks by index. A cell's mean is ``mean`` of
        its scores in the order of the rows (by default their exact mean, what
        :func:`statistics.fmean` gives)."""
        order = sorted(names)
        if len(set(order)) != len(order):
            raise ValueError("CellMeans: the variant names are not distinct")
        place = {name: i for i, name in enumerate(order)}
        rank_of = [place[name] for name in names]
        width = max(len(order), 1)
        rows = range(len(scores))

        def chosen() -> Iterable[int]:
            return rows if picked is None else filter(picked, rows)

        def key(i: int) -> int:
            # (seed, rank) as one integer in the same order: 0 <= rank < width
            return seeds[i] * width + rank_of[variants[i]]

        by_key = _by_key(key, chosen, len(scores))
        return cls(order, *_fold(by_key, width, scores, mean))

    @classmethod
    def of_entrant(
        cls,
        entry: EntrantDigest,
        names: Sequence[str],
        *,
        mean: Callable[[list[float]], float] = fsum_mean,
    ) -> CellMeans:
        """The cell means of one entrant of a digest (``names``: its variant names)."""
        if entry.of is None:
            return cls.of_rows(entry.seeds, entry.variants, entry.scores, names, mean=mean)
        source = entry.of
        return cls.of_rows(
            source.seeds, source.variants, source.scores, names, picked=entry.marked, mean=mean
        )

    @classmethod
    def of_pairs(
        cls,
        values: Iterable[tuple[Cell, float]],
        *,
        mean: Callable[[list[float]], float] = fsum_mean,
    ) -> CellMeans:
        """The cell means of (cell, value) pairs, a cell's repetitions averaged by ``mean``
        in the order given."""
        numbers: dict[str, int] = {}
        seeds: list[int] = []
        variants: list[int] = []
        scores = array("d")
        for (seed, variant), value in values:
            number = numbers.setdefault(variant, len(numbers))
            seeds.append(seed)
            variants.append(number)
            scores.append(value)
        return cls.of_rows(seeds, variants, scores, list(numbers), mean=mean)

    @classmethod
    def empty(cls) -> CellMeans:
        """A table of no cells."""
        return cls((), array("q"), array("B"), array("d"))

    @classmethod
    def of(cls, cells: Mapping[Cell, float]) -> CellMeans:
        """``cells`` (any mapping of cell means) as a table; a table is itself."""
        if isinstance(cells, CellMeans):
            return cells
        return cls.of_pairs(cells.items(), mean=as_given)

    # -- the mapping --------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._means)

    def __iter__(self) -> Iterator[Cell]:
        names = self._names
        for seed, rank in zip(self._seeds, self._ranks, strict=True):
            yield seed, names[rank]

    def _find(self, cell: object) -> int:
        """The index of ``cell``; KeyError when it is not here."""
        if not isinstance(cell, tuple) or len(cell) != 2:
            raise KeyError(cell)
        seed, variant = cell
        if not isinstance(seed, int):
            raise KeyError(cell)
        rank = bisect.bisect_left(self._names, variant) if isinstance(variant, str) else -1
        if rank < 0 or rank >= len(self._names) or self._names[rank] != variant:
            raise KeyError(cell)
        seeds, ranks = self._seeds, self._ranks
        at = bisect.bisect_left(range(len(self)), (seed, rank), key=lambda i: (seeds[i], ranks[i]))
        if at == len(self) or (seeds[at], ranks[at]) != (seed, rank):
            raise KeyError(cell)
        return at

    def __getitem__(self, cell: Cell) -> float:
        return self._means[self._find(cell)]

    def __contains__(self, cell: object) -> bool:
        try:
            self._find(cell)
        except KeyError:
            return False
        return True

    def __repr__(self) -> str:
        return f"CellMeans({len(self)} cells)"

    # -- what a report needs ------------------------------------------------------

    @property
    def means(self) -> Sequence[float]:
        """Every cell's mean, cells in natural order (the array itself, not a copy)."""
        return self._means

    def same_cells(self, other: CellMeans) -> bool:
        """Whether ``other`` holds exactly the cells this table holds."""
        if self is other:
            return True
        if len(self) != len(other):
            return False
        if self._names == other._names:
            return _same(self._seeds, other._seeds) and self._ranks == other._ranks
        return all(a == b for a, b in zip(self, other, strict=True))

    def cells_hash(self) -> bytes:
        """A digest of the cells (not the means): tables with the same cells and the same
        variant names have the same one (for grouping tables by their cells)."""
        h = hashlib.blake2b(digest_size=16)
        h.update(repr((len(self), self._names)).encode())
        seeds = self._seeds
        h.update(seeds if isinstance(seeds, array) else repr(seeds).encode())
        h.update(self._ranks)
        return h.digest()

    def _keys(self, rank_map: Sequence[int]) -> Iterator[_Key]:
        """Each cell as (seed, rank in an agreed order of names), in natural order."""
        return zip(self._seeds, map(rank_map.__getitem__, self._ranks), strict=True)

    def _matches(self, other: CellMeans) -> Iterator[tuple[int, int]]:
        """(i, j) for each cell at index i here and j in ``other``, in natural order."""
        mine, theirs = _rank_maps([self, other])
        a, b = self._keys(mine), other._keys(theirs)
        i = j = 0
        x, y = next(a, None), next(b, None)
        while x is not None and y is not None:
            if x == y:
                yield i, j
                i, j = i + 1, j + 1
                x, y = next(a, None), next(b, None)
            elif x < y:
                i, x = i + 1, next(a, None)
            else:
                j, y = j + 1, next(b, None)

    def _subset(self, indices: Iterable[int]) -> CellMeans:
        picked = array("L", indices)
        seeds = self._seeds
        return CellMeans(
            self._names,
            _seeds_of(seeds[i] for i in picked),
            array(self._ranks.typecode, map(self._ranks.__getitem__, picked)),
            array("d", map(self._means.__getitem__, picked)),
        )

    @staticmethod
    def common(tables: Sequence[CellMeans]) -> CellMeans:
        """The cells every one of ``tables`` holds, in natural order, with the first
        table's means; the first table itself when they all hold the same cells."""
        if not tables:
            return CellMeans.empty()
        out = tables[0]
        for table in tables[1:]:
            if not out.same_cells(table):
                out = out._subset(i for i, _ in out._matches(table))
        return out

    def on(self, cells: CellMeans) -> Sequence[float]:
        """This table's means on ``cells`` (each of which it must hold), in their order."""
        if self.same_cells(cells):
            return self._means
        means = self._means
        found = array("d", (means[j] for _, j in cells._matches(self)))
        if len(found) != len(cells):
            raise KeyError("CellMeans.on: a cell this table does not hold")
        return found

    @staticmethod
    def union_size(tables: Sequence[CellMeans]) -> int:
        """How many cells any of ``tables`` holds."""
        if all(t.same_cells(tables[0]) for t in tables[1:]):
            return len(tables[0]) if tables else 0
        return sum(1 for _ in CellMeans.union(tables))

    @staticmethod
    def union(tables: Sequence[CellMeans]) -> Iterator[Cell]:
        """Every cell any of ``tables`` holds, once each, in natural order."""
        names = sorted({name for t in tables for name in t._names})
        maps = _rank_maps(tables)
        last: _Key | None = None
        for key in heapq.merge(*(t._keys(m) for t, m in zip(tables, maps, strict=True))):
            if key != last:
                last = key
                yield key[0], names[key[1]]


#: The most key values per row a counting sort may span (beyond it, rows are sorted).
_SPAN_PER_ROW = 4


def _by_key(
    key: Callable[[int], int], chosen: Callable[[], Iterable[int]], rows: int
) -> Iterator[tuple[int, int]]:
    """(key, row) of every chosen row (row < ``rows``) in key order, a key's rows in
    their own order."""
    count, low, high, ordered, previous = 0, 0, 0, True, None
    for i in chosen():
        k = key(i)
        if previous is None:
            low = high = k
        else:
            ordered = ordered and previous <= k
            low, high = min(low, k), max(high, k)
        previous, count = k, count + 1
    if ordered:  # rows already in natural order (a plan played in order)
        return ((key(i), i) for i in chosen())
    code = index_code(rows + 1)  # places and counts run 0..rows
    span = high - low + 1
    if span > _SPAN_PER_ROW * count:
        # one integer per row, key then row: equal keys keep the rows' order
        packed = sorted(key(i) * rows + i for i in chosen())
        return (divmod(p, rows) for p in packed)
    # keys close together (a plan's seeds are a range): a counting sort, in arrays
    starts = array(code, [0]) * (span + 1)
    for i in chosen():
        starts[key(i) - low + 1] += 1
    total = 0
    for k in range(span + 1):
        total += starts[k]
        starts[k] = total  # now the place of the first row of key low + k
    placed = array(code, [0]) * count
    for i in chosen():
        k = key(i) - low
        placed[starts[k]] = i
        starts[k] += 1
    del starts
    return ((key(i), i) for i in placed)


def _fold(
    by_key: Iterable[tuple[int, int]],
    width: int,
    scores: Sequence[float],
    mean: Callable[[list[float]], float],
) -> tuple[array[int] | list[int], array[int], array[float]]:
    """Seeds, ranks and means of the cells of rows in key order (key = seed * width +
    rank), a cell's mean taken over its rows' scores in their order."""
    seeds: array[int] | list[int] = array("q")
    ranks = array(index_code(width))
    means = array("d")
    current: int | None = None
    values: list[float] = []
    for k, i in by_key:
        if k != current:
            if values:
                means.append(mean(values))
                values = []
            current = k
            seed, rank = divmod(k, width)
            try:
                seeds.append(seed)
            except OverflowError:  # a seed past 64 bits (none of this harness's): ints
                seeds = [*seeds, seed]
            ranks.append(rank)
        values.append(scores[i])
    if values:
        means.append(mean(values))
    return seeds, ranks, means


def _same(a: array[int] | list[int], b: array[int] | list[int]) -> bool:
    """Whether two seed columns hold the same seeds (an array and a list compare too)."""
    if type(a) is type(b):
        return a == b
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))


def _rank_maps(tables: Sequence[CellMeans]) -> list[Sequence[int]]:
    """For each table, its ranks' places in the sorted names of all ``tables``: keys
    that compare in natural order across tables of different names."""
    names = sorted({name for t in tables for name in t._names})
    if all(t._names == tuple(names) for t in tables):
        same = range(len(names))
        return [same] * len(tables)
    place = {name: i for i, name in enumerate(names)}
    return [[place[name] for name in t._names] for t in tables]


__all__ = ["Cell", "CellMeans", "as_given", "fsum_mean", "index_code"]
