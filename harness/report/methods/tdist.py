"""Student's t distribution for whole degrees of freedom: its CDF and its quantiles.

The intervals over seeds (:mod:`harness.report.methods.intervals`) need t quantiles
at any level (Holm's levels included) and any number of seeds. For a whole number
of degrees of freedom nu the CDF has a closed form (Abramowitz and Stegun 26.7.3-4):
with theta = atan(|t| / sqrt(nu)) and c = cos(theta)^2, the probability
A = P(|T| <= |t|) is

    nu = 1:     A = 2 theta / pi
    nu odd:     A = (2 / pi) (theta + sin(theta) cos(theta) (1 + (2/3) c + (2 4)/(3 5) c^2
                 + ... + (2 4 ... (nu-3)) / (3 5 ... (nu-2)) c^((nu-3)/2)))
    nu even:    A = sin(theta) (1 + (1/2) c + (1 3)/(2 4) c^2
                 + ... + (1 3 ... (nu-3)) / (2 4 ... (nu-2)) c^((nu-2)/2))

and P(T <= t) = (1 + sign(t) A) / 2. A quantile is found by bisection on that CDF,
to the last bit a float can tell. From nu = 1000 on, where the series grows long and
the distribution is close to normal, the quantile is Hill's (1970) expansion in
1/nu about the normal quantile z (its relative error there is below 1e-11):

    t = z + g1/nu + g2/nu^2 + g3/nu^3 + g4/nu^4,
    g1 = (z^3 + z) / 4,
    g2 = (5 z^5 + 16 z^3 + 3 z) / 96,
    g3 = (3 z^7 + 19 z^5 + 17 z^3 - 15 z) / 384,
    g4 = (79 z^9 + 776 z^7 + 1482 z^5 - 1920 z^3 - 945 z) / 92160.

Everything here is plain float arithmetic in a fixed order: the same arguments give
the same bits.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

#: From this many degrees of freedom on, quantiles come from Hill's expansion.
EXPANSION_FROM = 1000


def _check_df(df: int) -> None:
    if not isinstance(df, int) or df < 1:
        raise ValueError(f"degrees of freedom must be a whole number >= 1, got {df!r}")


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom (A and S 26.7.3-4)."""
    _check_df(df)
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    theta = math.atan(abs(t) / math.sqrt(df))
    c = math.cos(theta) ** 2
    s = math.sin(theta)
    if df % 2 == 1:
        total, term = 0.0, 1.0
        if df > 1:
            total = 1.0
            for k in range(1, (df - 3) // 2 + 1):
                term *= c * (2 * k) / (2 * k + 1)
                total += term
        inside = (2 / math.pi) * (theta + s * math.cos(theta) * total)
    else:
        total, term = 1.0, 1.0
        for k in range(1, (df - 2) // 2 + 1):
            term *= c * (2 * k - 1) / (2 * k)
            total += term
        inside = s * total
    inside = min(1.0, inside)
    return 0.5 + 0.5 * inside if t >= 0 else 0.5 - 0.5 * inside


def _hill(p: float, df: int) -> float:
    z = NormalDist().inv_cdf(p)
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    nu = float(df)
    return z + g1 / nu + g2 / nu**2 + g3 / nu**3 + g4 / nu**4


@lru_cache(maxsize=4096)
def t_quantile(p: float, df: int) -> float:
    """The ``p``-quantile of Student's t with ``df`` degrees of freedom (0 < p < 1)."""
    _check_df(df)
    if not 0 < p < 1:
        raise ValueError(f"a quantile's probability must be in (0, 1), got {p!r}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    if df >= EXPANSION_FROM:
        return _hill(p, df)
    high = 1.0
    while t_cdf(high, df) < p:
        high *= 2
    low = 0.0
    # bisection until the midpoint is one of its ends: the float closest from below
    while True:
        mid = (low + high) / 2
        if mid in (low, high):
            return high
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid


__all__ = ["EXPANSION_FROM", "t_cdf", "t_quantile"]
