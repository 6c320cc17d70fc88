"""Tables built from rows written out by hand, and a known population to draw from."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.report.methods import SeedTable

#: (entrant, seed, variant, score)
Row = tuple[str, int, str, float]


def table_of(rows: Sequence[Row], entrants: Sequence[str] | None = None) -> SeedTable:
    """A SeedTable of episode rows; entrants in the order given (else first seen)."""
    names = list(entrants) if entrants is not None else list(dict.fromkeys(r[0] for r in rows))
    variants = sorted({r[2] for r in rows})
    return SeedTable.from_episodes(
        names,
        variants,
        [names.index(r[0]) for r in rows],
        [r[1] for r in rows],
        [variants.index(r[2]) for r in rows],
        [r[3] for r in rows],
    )


def population(entrants: int, seeds: int, *, seed: int = 5) -> np.ndarray:
    """A known population, float [entrant, seed, variant], two variants: a skewed board
    effect per seed (shared by every entrant and both variants: they correlate), a
    tide effect, skewed noise per cell, floored at 0, like Lighthouse's scores; each
    entrant then shifted so that every entrant's true balanced mean is 20."""
    rng = np.random.Generator(np.random.PCG64(seed))
    board = rng.gamma(1.5, 6.0, size=seeds)
    cells = (
        board[None, :, None]
        + np.array([0.0, -4.0])[None, None, :]
        + rng.gamma(2.0, 2.0, size=(entrants, seeds, 2)) * rng.uniform(0.5, 1.5, (entrants, 1, 1))
    )
    cells = np.maximum(0.0, cells)
    truth = cells.mean(axis=2).mean(axis=1)
    shifted: np.ndarray = cells - truth[:, None, None] + 20.0
    return shifted


def draw_table(cells: np.ndarray, seeds: np.ndarray, names: Sequence[str]) -> SeedTable:
    """The SeedTable of a tournament on population seeds ``seeds`` (drawn with
    replacement: each draw a seed of its own), both variants."""
    k, n = cells.shape[0], len(seeds)
    e, s, v = np.meshgrid(np.arange(k), np.arange(n), np.arange(2), indexing="ij")
    values = cells[:, seeds, :]
    return SeedTable.from_episodes(
        list(names), ["default", "spring"], e.ravel(), s.ravel(), v.ravel(), values.ravel()
    )
