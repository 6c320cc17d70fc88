"""Sums that do not depend on how they are added up: the same inputs, the same bits.

Two tools keep every figure of :mod:`harness.report.methods` byte-identical for the
same inputs on the same numpy, whatever the machine's BLAS, its thread count or the
number of columns computed at once:

* **Exact sums** (:func:`fsum_columns`): a column's sum by :func:`math.fsum`, the
  correctly rounded sum of its values, which no order of addition changes.
* **The integer grid** (:func:`to_grid`): before a resampling sums values many
  times over (``W @ y`` for bootstrap counts ``W``, ``F @ d`` for sign flips ``F``),
  each column is put on a grid of 2^-k: y_i -> round(y_i 2^k), integers held in
  float64, with k the largest (at most :data:`FINEST`) for which n max|y| 2^k stays
  below 2^52. Any sum of at most n such integers, with weights whose sum is at most
  n, is then an integer below 2^53: exact in float64, so BLAS may add in any order.
  The grid moves a value by at most 2^-(k+1) (about 5e-13 for Lighthouse's scores at
  1,000 seeds), far below anything a report prints; it is symmetric (round(-y) =
  -round(y), half to even), so a sign-flip test on the grid is as exact as on the
  values.
"""

from __future__ import annotations

import math

import numpy as np

from harness.report.methods import libm
from harness.report.methods.arrays import Floats

#: The finest grid used: 2^-40 (a value is moved by at most 2^-41).
FINEST = 40
#: Integers of magnitude below 2^52 stay exact through any sum of them.
_BUDGET = 52


def fsum_columns(values: Floats) -> Floats:
    """The exact (correctly rounded) sum of each column of ``values`` (axis 0)."""
    columns = np.asarray(values, dtype=np.float64)
    if columns.ndim == 1:
        return np.array(math.fsum(columns.tolist()))
    flat = columns.reshape(columns.shape[0], -1)
    out: Floats = np.array([math.fsum(col) for col in flat.T.tolist()], dtype=np.float64)
    return out.reshape(columns.shape[1:])


def mean_columns(values: Floats) -> Floats:
    """Each column's mean: its exact sum over its length (NaN for no rows)."""
    n = values.shape[0]
    if n == 0:
        return np.full(values.shape[1:], np.nan)
    result: Floats = fsum_columns(values) / n
    return result


def variance_columns(values: Floats, mean: Floats) -> Floats:
    """Each column's sample variance about ``mean``: sum((y - mean)^2) / (n - 1),
    summed exactly (NaN with fewer than two rows)."""
    n = values.shape[0]
    if n < 2:
        return np.full(values.shape[1:], np.nan)
    result: Floats = fsum_columns((values - mean) ** 2) / (n - 1)
    return result


def skewness_columns(values: Floats, mean: Floats, sd: Floats) -> Floats:
    """Each column's skewness gamma = (1/n) sum(((y - mean) / s)^3), summed exactly; 0
    where s is 0. The values are standardized before they are cubed, so that a column
    of tiny spread does not underflow to 0 / 0."""
    spread = np.where(sd > 0, sd, 1.0)
    result: Floats = np.where(sd > 0, mean_columns(libm.cube((values - mean) / spread)), 0.0)
    return result


def grid_exponent(largest: float, rows: int) -> int:
    """The k of the grid 2^-k for values of magnitude at most ``largest`` summed over
    at most ``rows`` of them (see the module docstring)."""
    if not math.isfinite(largest):
        raise ValueError("the grid needs finite values")
    if largest == 0 or rows == 0:
        return FINEST
    # 2^e > rows * largest, so rows * largest * 2^(52 - e) < 2^52
    _, e = math.frexp(rows * largest)
    return min(FINEST, _BUDGET - e)


def to_grid(values: Floats, rows: int | None = None) -> tuple[Floats, Floats]:
    """Each column of ``values`` on its own integer grid, and each column's scale 2^k.

    ``rows`` bounds how many values a sum adds (by default the column's length). A
    column's grid depends on that column alone, so computing it beside others
    changes nothing.
    """
    data = np.asarray(values, dtype=np.float64)
    count = data.shape[0] if rows is None else rows
    largest = np.max(np.abs(data), axis=0) if data.shape[0] else np.zeros(data.shape[1:])
    exponents = np.vectorize(lambda v: grid_exponent(float(v), count), otypes=[np.int64])(largest)
    scale = np.ldexp(1.0, exponents)
    return np.rint(data * scale), scale


__all__ = [
    "FINEST",
    "fsum_columns",
    "grid_exponent",
    "mean_columns",
    "skewness_columns",
    "to_grid",
    "variance_columns",
]
