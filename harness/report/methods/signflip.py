"""The sign-flip (permutation) test of paired seed differences, and its interval.

For two entrants on the same n seeds, d_i = y_1(i) - y_2(i) is seed i's difference of
their seed scores (each a balanced mean over the variants). Under "no difference"
the two entrants are exchangeable within a seed, so each d_i is as likely to have
come out with the other sign: the test compares the observed total D = sum_i d_i with
the totals S(F) = D - 2 T(F), T(F) = sum_{i in F} d_i, of every way F of flipping
the signs of some seeds (all 2^n of them up to 16 seeds, the identity F = {} among
them; beyond, the identity and B flip sets drawn at random, see
:mod:`harness.report.methods.resample`). With N the size of that reference set
(2^n, or B + 1):

    c_up   = #{F : S(F) >= D} = #{F : T(F) <= 0}     (the identity counts)
    c_down = #{F : S(F) <= D} = #{F : T(F) >= 0}
    p      = min(1, 2 min(c_up, c_down) / N)

an exact two-sided p-value (for the random flips, the usual (1 + #)/(B + 1) form):
P(p <= a) <= a under the null, at any n. Its smallest possible value, 2/N at best,
is what n seeds allow: 2^(1-n), so 0.5 at 2 seeds and 0.25 at 3; no test at level
alpha is possible until 2^(1-n) <= alpha (6 seeds for 5%, :func:`seeds_to_reach`).
Seeds with d_i = 0 flip to themselves; they only make the test more careful. The
t statistic gives the same test: sum_i (eps_i d_i)^2 does not change under flips,
so |t| grows with |S|.

**Interval** (Hartigan 1969, by inverting the test): the test of "the mean difference
is delta" flips d_i - delta, and rejects on the upper side exactly when fewer than k
subsets F have mean M(F) = T(F) / |F| <= delta, k = floor(t N) at tail t = (1 -
level) / 2. So the interval at ``level`` is

    [ M_(k), M^(k) ]     the k-th smallest and the k-th largest subset mean

over the 2^n - 1 non-empty subsets (or the B drawn ones, an empty draw counting as
-inf for the lower end and +inf for the upper). It excludes delta exactly when the
test at 1 - level rejects it, so a star and an interval never disagree. When k = 0
there are too few seeds for the level and the interval is unbounded. With every
d_i equal, every subset mean is that value: a zero-width interval (it says why).

The sums T(F) are computed on each column's integer grid
(:mod:`harness.report.methods.exact`), so the comparisons T(F) <= 0 are exact and
the results do not depend on BLAS or on which columns are computed together.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from harness.report.methods.arrays import Floats
from harness.report.methods.exact import to_grid
from harness.report.methods.resample import (
    EXACT_UP_TO,
    SIGN_FLIP_SEED,
    flip_bytes,
    flip_sets,
    flips_for,
)

#: Sums computed at a time by :func:`flip_p_values` (rows x columns).
_PIECE_NUMBERS = 1 << 22


def seeds_to_reach(alpha: float) -> int:
    """The fewest seeds at which an exact sign-flip test can give p <= ``alpha``:
    the least n with 2^(1-n) <= alpha."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return max(1, math.ceil(round(1 - math.log2(alpha), 9)))


def smallest_p(n: int, flips: int) -> float:
    """The smallest p-value the test can give on ``n`` seeds (2^(1-n) enumerated;
    2 / (B + 1) with B random flips, or 2^(1-n) if that is larger)."""
    if n < 1:
        return 1.0
    exact = min(1.0, 2.0 ** (1 - n))
    return exact if n <= EXACT_UP_TO else max(exact, 2 / (flips + 1))


def _tail_rank(tail: float, reference: int) -> int:
    # rounded first so that 0.025 * 10000 is not a hair below 250
    return math.floor(round(tail * reference, 9))


@dataclass(frozen=True)
class FlipSums:
    """Every flip set's subset sums for columns of paired differences on n seeds.

    ``sums[r, j]`` is T(F_r) for column j on its grid (exact integers as floats),
    ``sizes[r]`` is |F_r|; for an enumeration row 0 (the identity) is left out, so the
    rows are the reference set less the identity either way.
    """

    seeds: int
    exact: bool
    reference: int
    """N: the size of the reference set, the identity included (2^n, or B + 1)."""
    sums: Floats
    sizes: Floats
    scale: Floats
    """Each column's grid scale 2^k."""

    @property
    def columns(self) -> int:
        """How many columns of differences these sums are of."""
        return int(self.sums.shape[1])


def flip_sums(
    differences: Floats, *, draws: int | None = None, seed: int = SIGN_FLIP_SEED
) -> FlipSums:
    """The subset sums of every column of ``differences`` (n seeds x columns).

    ``draws``: how many random flip sets beyond :data:`EXACT_UP_TO` seeds (by default
    :func:`flips_for` at the 95% level's tail).
    """
    flips = _flips_of(differences, draws, seed)
    parts, sizes = [], []
    for rows in flips.chunks:
        parts.append(rows @ flips.grid)
        sizes.append(rows.sum(axis=1))
    return _joined(flips.n, flips.exact, flips.chosen, parts, sizes, flips.scale)


def _checked(values: Floats, what: str) -> int:
    """The seeds (rows) of ``values``, which a sign-flip test needs finite and one at least."""
    n = int(values.shape[0])
    if n < 1:
        raise ValueError("a sign-flip test needs at least one seed")
    if not np.isfinite(values).all():
        raise ValueError(f"a sign-flip test needs finite {what}")
    return n


@dataclass(frozen=True)
class _Flips:
    """Columns of differences on their grids, and the flip sets to sum them over."""

    n: int
    chosen: int
    """B: the random flip sets drawn beyond :data:`EXACT_UP_TO` seeds."""
    exact: bool
    grid: Floats
    """(n, columns): the differences on each column's grid."""
    scale: Floats
    chunks: Iterator[Floats]


def _flips_of(differences: Floats, draws: int | None, seed: int) -> _Flips:
    """The columns of ``differences`` (n seeds x columns, or n) checked and put on
    their grids, with the flip sets of :func:`flip_sums` and :func:`flip_p_values`."""
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    n = _checked(d, "differences")
    chosen = flips_for(0.025) if draws is None else draws
    grid, scale = to_grid(d)
    exact, chunks = flip_sets(n, chosen, seed=seed)
    return _Flips(n, chosen, exact, grid, scale, chunks)


def _joined(
    n: int, exact: bool, chosen: int, parts: list[Floats], sizes: list[Floats], scale: Floats
) -> FlipSums:
    """The sums of every flip set, chunk after chunk, as :class:`FlipSums`."""
    sums = np.concatenate(parts)
    counted = np.concatenate(sizes)
    if exact:  # the identity is row 0: out of the rows, into the reference's count
        return FlipSums(n, True, 1 << n, sums[1:], counted[1:], scale)
    return FlipSums(n, False, chosen + 1, sums, counted, scale)


#: Bit i of byte b, for every byte: the seeds a byte of a packed flip set flips.
_BITS = ((np.arange(256, dtype=np.int64)[:, None] >> np.arange(8)) & 1).astype(np.int64)
#: Bytes of packed flip sets summed at a time by :func:`pair_flip_sums` (rows x width).
_PAIR_BYTES = 1 << 20


def _byte_tables(grid: NDArray[np.int64]) -> NDArray[np.int64]:
    """(width, 256, K): for byte j and each value b of it, the sum of the grid's rows
    8j .. 8j+7 whose bit is set in b (the seeds that byte flips), per column."""
    n, k = grid.shape
    padded = np.zeros((_width_of(n) * 8, k), dtype=np.int64)
    padded[:n] = grid
    eights = padded.reshape(-1, 8, k)
    # one (256 x 8) @ (8 x K) product per byte, in integers: exact, no BLAS
    tables: NDArray[np.int64] = np.matmul(_BITS[None, :, :], eights)
    return tables


def _width_of(n: int) -> int:
    return (n + 7) // 8


def _packed_rows(chunks: Iterator[NDArray[np.uint8]]) -> Iterator[NDArray[np.uint8]]:
    """The chunks of packed flip sets, joined into blocks of about _PAIR_BYTES bytes."""
    held: list[NDArray[np.uint8]] = []
    count = 0
    for chunk in chunks:
        held.append(chunk)
        count += chunk.size
        if count >= _PAIR_BYTES:
            yield np.concatenate(held)
            held, count = [], 0
    if held:
        yield np.concatenate(held)


def pair_flip_sums(
    scores: Floats,
    pairs: Sequence[tuple[int, int]],
    exponent: int,
    *,
    draws: int | None = None,
    seed: int = SIGN_FLIP_SEED,
) -> FlipSums:
    """The subset sums of the paired differences d = scores[:, a] - scores[:, b] of each
    of ``pairs`` (``scores``: n seeds x K entrants), every column on the one grid
    2^-``exponent``: T_ab(F) = T_a(F) - T_b(F), summed once per entrant rather than
    once per pair, in integers (exact in any order, no BLAS): each flip set is packed
    8 seeds a byte (:func:`~harness.report.methods.resample.flip_bytes`), and a table
    per byte gives the sum of the seeds each of its 256 values flips.

    ``exponent`` must keep n max|score| 2^exponent below 2^52
    (:func:`~harness.report.methods.exact.grid_exponent`); each T_a is then an exact
    integer below 2^52 and each difference exact below 2^53. The grid is symmetric, so
    the pair (b, a) gets exactly the negated sums.
    """
    x = np.asarray(scores, dtype=np.float64)
    n = _checked(x, "scores")
    scale = math.ldexp(1.0, exponent)
    grid = np.rint(x * scale)
    if n * float(np.max(np.abs(grid), initial=0.0)) >= 2.0**52:
        raise ValueError("pair_flip_sums: the grid is too fine for these scores")
    tables = _byte_tables(grid.astype(np.int64))
    first = np.array([a for a, _ in pairs], dtype=np.int64)
    second = np.array([b for _, b in pairs], dtype=np.int64)
    chosen = flips_for(0.025) if draws is None else draws
    exact, chunks = flip_bytes(n, chosen, seed=seed)
    ones = _BITS.sum(axis=1)
    parts, sizes = [], []
    for rows in _packed_rows(chunks):
        totals = np.zeros((len(rows), grid.shape[1]), dtype=np.int64)
        for j in range(rows.shape[1]):
            totals += tables[j][rows[:, j]]
        parts.append((totals[:, first] - totals[:, second]).astype(np.float64))
        sizes.append(ones[rows].sum(axis=1).astype(np.float64))
    return _joined(n, exact, chosen, parts, sizes, np.full(len(pairs), scale))


@dataclass(frozen=True)
class FlipTest:
    """Sign-flip results for each column: arrays of one value per column."""

    p: Floats
    up: NDArray[np.int64]
    """c_up: reference sets with a total at least the observed one (identity included)."""
    down: NDArray[np.int64]
    """c_down: reference sets with a total at most the observed one."""


def _test(up: NDArray[np.int64], down: NDArray[np.int64], reference: int) -> FlipTest:
    p = np.minimum(1.0, 2 * np.minimum(up, down) / reference)
    return FlipTest(p.astype(np.float64), up.astype(np.int64), down.astype(np.int64))


def flip_test(sums: FlipSums) -> FlipTest:
    """The two-sided p-value of every column (see the module docstring)."""
    up = 1 + np.count_nonzero(sums.sums <= 0, axis=0)
    down = 1 + np.count_nonzero(sums.sums >= 0, axis=0)
    return _test(up, down, sums.reference)


def flip_p_values(
    differences: Floats, *, draws: int | None = None, seed: int = SIGN_FLIP_SEED
) -> FlipTest:
    """:func:`flip_test` of :func:`flip_sums` without holding the sums: the counts are
    taken a chunk of flip sets at a time (the same sets, the same grid, the same
    p-values), for many columns at once when no interval is wanted."""
    flips = _flips_of(differences, draws, seed)
    n, chosen, exact, columns = flips.n, flips.chosen, flips.exact, flips.grid.shape[1]
    # the identity (the empty set, row 0 of an enumeration) is counted once, here
    up = np.ones(columns, dtype=np.int64)
    down = np.ones(columns, dtype=np.int64)
    first = exact
    # pieces of rows x columns of a few million numbers: memory stays flat
    piece = max(1, _PIECE_NUMBERS // max(1, columns))
    for chunk in flips.chunks:
        for start in range(0, len(chunk), piece):
            sums = chunk[start : start + piece] @ flips.grid
            if first:
                sums, first = sums[1:], False
            up += np.count_nonzero(sums <= 0, axis=0)
            down += np.count_nonzero(sums >= 0, axis=0)
    return _test(up, down, (1 << n) if exact else chosen + 1)


def flip_interval(sums: FlipSums, column: int, level: float) -> tuple[float, float]:
    """The Hartigan interval of one column at ``level`` (see the module docstring):
    (-inf, inf) when the seeds are too few for the level."""
    k = _tail_rank((1 - level) / 2, sums.reference)
    if k < 1:
        return -math.inf, math.inf
    totals = sums.sums[:, column]
    sizes = sums.sizes
    filled = sizes > 0
    means = np.divide(totals, sizes, out=np.zeros_like(totals), where=filled)
    means /= sums.scale[column]
    low_side = np.where(filled, means, -math.inf)
    high_side = np.where(filled, means, math.inf)
    low = float(np.partition(low_side, k - 1)[k - 1])
    high = float(np.partition(high_side, -k)[-k])
    return low, high


def flip_intervals(sums: FlipSums, levels: Floats) -> tuple[Floats, Floats]:
    """:func:`flip_interval` of every column, column j at ``levels[j]``."""
    lows = np.empty(sums.columns)
    highs = np.empty(sums.columns)
    for j in range(sums.columns):
        lows[j], highs[j] = flip_interval(sums, j, float(levels[j]))
    return lows, highs


__all__ = [
    "FlipSums",
    "FlipTest",
    "flip_interval",
    "flip_intervals",
    "flip_p_values",
    "flip_sums",
    "flip_test",
    "pair_flip_sums",
    "seeds_to_reach",
    "smallest_p",
]
