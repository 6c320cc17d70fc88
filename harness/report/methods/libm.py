"""Cube roots, powers, exponentials and logarithms that give the same bits on every CPU.

numpy picks a ufunc's loop by what the CPU offers. For ``cbrt``, ``exp``, ``log`` and
``power`` (other than squares and square roots) its AVX-512 loops are its own
vectorised approximations, which differ from the C library's results in the last bit
now and then; on a CPU without AVX-512 the same ufuncs call the C library. A report
computed with them would change its last digits from one machine to the next, so every
figure a report prints goes through these functions instead: each applies the C
library's function (through :mod:`math`) to one value at a time, which is what numpy
itself does where AVX-512 is absent. Square roots, sums, products and quotients need
none of this: IEEE 754 rounds them exactly, on every CPU.

The values come as numpy arrays and go back as numpy arrays of the same shape; edge
values follow numpy's ufuncs (``log(0) = -inf``, ``log`` of a negative number NaN, an
overflow infinity), never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from harness.report.methods.arrays import Floats


def _each(function: Callable[[float], float], values: Floats | float) -> Floats:
    array = np.asarray(values, dtype=np.float64)
    out = np.fromiter(map(function, array.ravel().tolist()), np.float64, count=array.size)
    return out.reshape(array.shape)


def _log(x: float) -> float:
    if x > 0:
        return math.log(x)
    return -math.inf if x == 0 else math.nan  # NaN, or a negative number


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _cube(x: float) -> float:
    try:
        return math.pow(x, 3.0)
    except OverflowError:
        return math.copysign(math.inf, x)


def cbrt(values: Floats | float) -> Floats:
    """Each value's real cube root."""
    return _each(math.cbrt, values)


def exp(values: Floats | float) -> Floats:
    """Each value's exponential (infinity where it overflows)."""
    return _each(_exp, values)


def log(values: Floats | float) -> Floats:
    """Each value's natural logarithm (-inf at 0, NaN below)."""
    return _each(_log, values)


def cube(values: Floats | float) -> Floats:
    """Each value to the power 3, as the C library's ``pow`` gives it."""
    return _each(_cube, values)


__all__ = ["cbrt", "cube", "exp", "log"]
