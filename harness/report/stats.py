"""Percentiles of the figures a report shows beside its scores (model-call latencies,
server times), and the report's statistical constants for the sections that draw their
own seed bootstrap (cross-play, ratings): the definitions of
:mod:`harness.report.methods`, so that every section resamples alike."""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.report.methods.intervals import LEVEL
from harness.report.methods.resample import BOOTSTRAP_SEED, MIN_BOOTSTRAP
from harness.report.methods.table import TIE_TOLERANCE

#: Bootstrap resamples of the seeds: the fewest any of the report's bootstraps uses.
BOOTSTRAP_RESAMPLES = MIN_BOOTSTRAP


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(rank), math.ceil(rank)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (rank - lo)


__all__ = ["BOOTSTRAP_RESAMPLES", "BOOTSTRAP_SEED", "LEVEL", "TIE_TOLERANCE", "percentile"]
