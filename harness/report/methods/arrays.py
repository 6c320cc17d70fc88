"""The array types the statistics are written in: one name for each, for every module."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: Real numbers (scores, means, sums on a grid held as floats).
Floats = NDArray[np.float64]
#: Whole numbers (seeds, counts, indices).
Ints = NDArray[np.int64]
#: Yes or no per element (which cells, seeds or variants).
Mask = NDArray[np.bool_]

__all__ = ["Floats", "Ints", "Mask"]
