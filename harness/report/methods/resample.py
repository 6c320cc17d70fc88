"""The seeded resamplings: seed-cluster bootstrap counts and sign-flip sets.

Every resampling here is a pure function of (the number of seeds, the number of
resamples, a fixed seed): two sets of n seeds are resampled identically, and nothing
depends on the order results were read in (the caller puts seeds in ascending order
first). The generator is numpy's PCG64, seeded by ``SeedSequence([seed, n])``.

**Seed-cluster bootstrap.** The unit is the seed (the board): one resample draws n
seeds with replacement, each carrying all its cells (every variant; repetitions were
averaged within a cell first). It is held as counts: W[b, i] = how many times seed i
was drawn in resample b (each row sums to n). A statistic that is a mean over seeds
of per-seed values y_i is then (W y)_b / n for every b at once.

**Sign flips.** For paired seed differences d_1..d_n, a sign vector eps in {+1, -1}^n
is held as the set F of seeds it flips (eps_i = -1 for i in F), as a 0/1 row. Up to
:data:`EXACT_UP_TO` seeds every one of the 2^n sets is enumerated, in the order of
the binary numbers 0..2^n-1 (bit i of row r is seed i), so row 0 is the empty set,
the identity. Beyond, ``draws`` sets are drawn uniformly (each seed flipped with
probability 1/2, independently).

The same resamples can be seen through their order statistics
(:func:`bootstrap_order_statistics`): what a trimmed mean (the IQM) of every
resample needs, without a count per seed.

**How many.** A quantile used at tail probability t (e.g. t = 0.025 for one end of a
95% interval) sits t B draws from its end; :func:`resamples_for` gives the B that
puts it at least :data:`MIN_TAIL_DRAWS` = 25 draws in.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

#: Enumerate every sign vector up to this many seeds; draw them beyond.
EXACT_UP_TO = 16
#: The fewest draws beyond any quantile (or any p-value threshold) used.
MIN_TAIL_DRAWS = 25
#: The default seeds of the two resamplings.
BOOTSTRAP_SEED = 20261129
SIGN_FLIP_SEED = 20261130
#: The fewest resamples of either kind, whatever the levels.
MIN_BOOTSTRAP = 2000
MIN_FLIPS = 10_000
#: Rows made at a time (about a million numbers, 8 MB of floats): memory stays flat at any size.
_CHUNK_NUMBERS = 1 << 20

Counts = NDArray[np.float64]


def resamples_for(tail: float, *, least: int = MIN_BOOTSTRAP) -> int:
    """The number of resamples B, a multiple of 1,000 and at least ``least``, for which
    a quantile at tail probability ``tail`` lies at least 25 draws from its end:
    floor(tail (B - 1)) >= 25, i.e. B >= 25 / tail + 1."""
    if not 0 < tail < 1:
        raise ValueError(f"a tail probability must be in (0, 1), got {tail!r}")
    needed = math.ceil(round(MIN_TAIL_DRAWS / tail, 9)) + 1
    return max(least, 1000 * math.ceil(needed / 1000))


def flips_for(tail: float) -> int:
    """The number of random sign flips B (beyond :data:`EXACT_UP_TO` seeds) for which
    the reference set of B + 1 (the observed signs and B draws) puts a one-sided
    p-value threshold or interval end at ``tail`` at least 25 draws in:
    floor(tail (B + 1)) >= 25. B + 1 is a multiple of 1,000, at least 10,000."""
    if not 0 < tail < 1:
        raise ValueError(f"a tail probability must be in (0, 1), got {tail!r}")
    needed = math.ceil(round(MIN_TAIL_DRAWS / tail, 9))
    return max(MIN_FLIPS, 1000 * math.ceil(needed / 1000)) - 1


def _generator(seed: int, n: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, n])))


def _rows_per_chunk(n: int) -> int:
    return max(1, _CHUNK_NUMBERS // max(1, n))


def bootstrap_counts(n: int, resamples: int, *, seed: int = BOOTSTRAP_SEED) -> Iterator[Counts]:
    """The seed-cluster bootstrap over ``n`` seeds as counts, ``resamples`` rows in all,
    a few thousand rows at a time: row b holds how often each seed was drawn."""
    if n < 1 or resamples < 1:
        return
    rng = _generator(seed, n)
    step = _rows_per_chunk(n)
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        drawn = rng.integers(0, n, size=(rows, n), dtype=np.int64)
        # one bincount for the whole chunk: row r's seeds are offset by r n
        offsets = (np.arange(rows, dtype=np.int64) * n)[:, None]
        counts = np.bincount((drawn + offsets).ravel(), minlength=rows * n)
        yield counts.reshape(rows, n).astype(np.float64)


def bootstrap_order_statistics(
    n: int, resamples: int, first: int, stop: int, *, seed: int = BOOTSTRAP_SEED
) -> Iterator[NDArray[np.int64]]:
    """The seed-cluster bootstrap over ``n`` seeds seen through the resamples' order
    statistics: row b holds, for k = ``first`` .. ``stop`` - 1, the place in the sorted
    sample of the k-th smallest of resample b's n draws (0-based), a few thousand rows
    at a time; the same rows serve every column of seed scores with n seeds.

    A draw is the sorted sample's entry floor(n U) for U uniform on [0, 1), a
    monotone map, so the resample's k-th smallest draw is floor(n U_(k)) with U_(k)
    the k-th smallest of n uniforms: U_(k) = (E_1 + ... + E_k) / (E_1 + ... + E_(n+1))
    for independent standard exponentials E (the running sums taken in order).
    """
    if n < 1 or resamples < 1 or not 0 <= first < stop <= n:
        return
    rng = _generator(seed, n)
    step = _rows_per_chunk(n + 1)
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        spans = np.cumsum(rng.standard_exponential(size=(rows, n + 1)), axis=1)
        uniforms = spans[:, first:stop] / spans[:, n : n + 1]
        yield np.minimum(np.floor(uniforms * n).astype(np.int64), n - 1)


def flip_sets(n: int, draws: int, *, seed: int = SIGN_FLIP_SEED) -> tuple[bool, Iterator[Counts]]:
    """The sign-flip sets over ``n`` seeds as 0/1 rows, a few thousand at a time, and
    whether they are every set (n <= :data:`EXACT_UP_TO`: 2^n rows, the identity
    first) or ``draws`` random ones: :func:`flip_bytes` unpacked."""
    exact, chunks = flip_bytes(n, draws, seed=seed)
    return exact, (_unpacked(chunk, n) for chunk in chunks)


def _unpacked(chunk: NDArray[np.uint8], n: int) -> Counts:
    return np.unpackbits(chunk, axis=1, count=n, bitorder="little").astype(np.float64)


def flip_bytes(
    n: int, draws: int, *, seed: int = SIGN_FLIP_SEED
) -> tuple[bool, Iterator[NDArray[np.uint8]]]:
    """The sets of :func:`flip_sets` packed, 8 seeds a byte: byte j of a row holds seeds
    8j .. 8j+7, seed 8j+i in bit i (bits for seeds past n are 0)."""
    if n <= EXACT_UP_TO:
        return True, _every_set(n)
    return False, _random_sets(n, draws, seed)


def _width(n: int) -> int:
    return (n + 7) // 8


def _every_set(n: int) -> Iterator[NDArray[np.uint8]]:
    step = _rows_per_chunk(n)
    total = 1 << n
    width = _width(n)
    for start in range(0, total, step):
        rows = np.arange(start, min(total, start + step), dtype="<u4")
        yield rows.view(np.uint8).reshape(len(rows), 4)[:, :width].copy()


#: Random flip sets drawn at a time: a fixed number, so that the draws, which a
#: generator makes a call at a time, do not depend on how memory is budgeted.
_FLIP_ROWS = 512


def _random_sets(n: int, draws: int, seed: int) -> Iterator[NDArray[np.uint8]]:
    rng = _generator(seed, n)
    step = _FLIP_ROWS
    width = _width(n)
    spare = (1 << (n % 8)) - 1 if n % 8 else 0xFF
    for start in range(0, draws, step):
        rows = min(step, draws - start)
        raw = rng.integers(0, 256, size=(rows, width), dtype=np.uint8)
        raw[:, -1] &= spare  # no bits for seeds past n
        yield raw


__all__ = [
    "BOOTSTRAP_SEED",
    "EXACT_UP_TO",
    "MIN_BOOTSTRAP",
    "MIN_FLIPS",
    "MIN_TAIL_DRAWS",
    "SIGN_FLIP_SEED",
    "bootstrap_counts",
    "bootstrap_order_statistics",
    "flip_bytes",
    "flip_sets",
    "flips_for",
    "resamples_for",
]
