"""Bradley-Terry ratings from paired per-seed outcomes, with seed-clustered intervals.

Two entrants that played the same (seed, variant) cell (the same board) meet there:
the higher cell mean wins, equal means (within the report's tie tolerance) are a tie,
counted as half a win to each. The Bradley-Terry model gives each entrant a strength
``p`` with ``P(i beats j) = p_i / (p_i + p_j)``; the fit is the maximum-likelihood
one, found by Hunter's MM iteration (2004), ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``
(``W_i`` its wins, ``n_ij`` the meetings of i and j).

The likelihood has a maximum only when no group of entrants wins or ties every
meeting with the rest (the graph of "beat or tied" is strongly connected). When it is
not, each pair that met is given one tie more (half a win each way), the smallest
prior that makes every strength finite; the result says so (``regularized``).

A rating is ``400 log10(p)``, centred on the entrants' mean (the Elo scale: 400
points more is ten to one). Intervals resample seeds with replacement, each seed
carrying all its meetings (every variant, every pair), with numpy's seeded generator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.report.methods import libm
from harness.report.methods.arrays import Floats
from harness.report.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, LEVEL

#: Elo's scale: a rating is this many times log10 of the strength.
ELO = 400.0
#: The MM iteration stops when no log-strength moves more than this.
TOLERANCE = 1e-10
MAX_ITERATIONS = 100_000
#: Resamples fitted at once.
CHUNK = 100


@dataclass(frozen=True)
class Fit:
    """Ratings (Elo scale, mean 0) and whether a prior was needed."""

    ratings: Floats
    regularized: bool


def strongly_connected(wins: Floats) -> npt.NDArray[np.bool_]:
    """Whether each (stacked) matrix's "won or tied against" graph is strongly connected:
    ``wins`` is (..., E, E), ``wins[i, j]`` i's wins over j (ties as halves)."""
    edges = wins > 0
    size = edges.shape[-1]
    reach = edges | np.eye(size, dtype=bool)
    steps = 1
    while steps < size:
        reach = np.matmul(reach.astype(np.int64), reach.astype(np.int64)) > 0
        steps *= 2
    return np.asarray(reach.all(axis=(-2, -1)))


def _with_prior(wins: Floats) -> Floats:
    """``wins`` with one tie more for each pair that met (half a win each way)."""
    met = (wins + np.swapaxes(wins, -1, -2)) > 0
    return wins + 0.5 * met


def mm_fit(wins: Floats) -> Floats:
    """Log-strengths (natural log, mean 0) maximising the likelihood of ``wins``
    (..., E, E); every entrant must have won something and the graph be strongly
    connected, or the strengths run off to the edges.

    The iteration runs on the strengths themselves: an MM step scales with them
    (strengths c p give c times the new ones), so each step may divide by its largest
    and the sequence is the same up to that scale. Only the end takes logarithms, once
    (see :mod:`harness.report.methods.libm` for why through the C library)."""
    meetings = wins + np.swapaxes(wins, -1, -2)
    total = wins.sum(axis=-1)
    p = np.ones(wins.shape[:-1])
    for _ in range(MAX_ITERATIONS):
        denominator = (meetings / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = total / denominator
        new /= new.max(axis=-1, keepdims=True) if new.size else 1.0
        # the largest relative step: |log(new/p)| to first order
        moved = float(np.abs(new / p - 1).max()) if new.size else 0.0
        p = new
        if moved < TOLERANCE:
            break
    log_p = libm.log(p)
    log_p -= log_p.mean(axis=-1, keepdims=True)
    return np.asarray(log_p, dtype=np.float64)


def fit(wins: Floats) -> Fit:
    """The ratings of one matrix of wins (E, E)."""
    regularized = not bool(strongly_connected(wins))
    used = _with_prior(wins) if regularized else wins
    return Fit(ratings=mm_fit(used) * ELO / math.log(10), regularized=regularized)


def weakly_connected(wins: Floats) -> npt.NDArray[np.bool_]:
    """Whether every entrant of each (stacked) matrix met every other through a chain."""
    return strongly_connected(wins + np.swapaxes(wins, -1, -2))


def bootstrap(
    by_seed: Floats, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[Floats, float, float]:
    """The ratings of ``resamples`` seed resamples of ``by_seed`` (S, E, E): each
    resample's wins are the drawn seeds' summed.

    Returns (resamples, E) ratings, the share of resamples that needed the prior, and
    the share left out (NaN rows) because the seeds drawn left some entrants without a
    chain of meetings to the others (folders that share few seeds)."""
    seeds, size = by_seed.shape[0], by_seed.shape[1]
    rng = np.random.default_rng(seed)
    flat = by_seed.reshape(seeds, -1)
    out = []
    prior = apart = 0
    for start in range(0, resamples, CHUNK):
        n = min(CHUNK, resamples - start)
        picks = rng.integers(0, seeds, size=(n, seeds))
        weights = np.stack([np.bincount(row, minlength=seeds) for row in picks]).astype(float)
        wins = np.einsum("bs,sk->bk", weights, flat, optimize=False).reshape(n, size, size)
        joined = weakly_connected(wins)
        connected = strongly_connected(wins)
        prior += int((joined & ~connected).sum())
        apart += int((~joined).sum())
        wins = np.where(connected[:, None, None], wins, _with_prior(wins))
        # a resample whose entrants fall apart has no one scale: fitted on a stand-in
        # (every pair tied once) and left out
        wins = np.where(joined[:, None, None], wins, 0.5 * (1 - np.eye(size))[None])
        ratings = mm_fit(wins) * ELO / math.log(10)
        out.append(np.where(joined[:, None], ratings, np.nan))
    return np.concatenate(out), prior / resamples, apart / resamples


def percentile_bounds(draws: Floats) -> tuple[Floats, Floats]:
    """The 95% percentile interval of each column of ``draws`` (NaN rows left out)."""
    kept = draws[~np.isnan(draws).any(axis=1)]
    if kept.shape[0] == 0:
        nan = np.full(draws.shape[1], np.nan)
        return nan, nan
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(kept, [tail, 100 - tail], axis=0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


__all__ = [
    "ELO",
    "Fit",
    "bootstrap",
    "fit",
    "mm_fit",
    "percentile_bounds",
    "strongly_connected",
    "weakly_connected",
]
