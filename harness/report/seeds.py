"""A report's episodes on a grid of seeds and variants: the table its statistics read.

The statistics of a report (:mod:`harness.report.methods`) take the seed as their
unit. This module lays a digest's episodes out as a
:class:`~harness.report.methods.SeedTable`: one row per entrant, and one more for the
ceiling (its cell means as :class:`~harness.report.build.Ceiling` holds them, under a
name no entrant can have), each cell the exact mean of its repetitions. The digest's
flat arrays go to numpy without a Python object per episode; a selection of an
entrant's episodes (those without a fallback) is read through its bitmap.

Seeds are the episodes' own when they fit in 64 bits (all of this harness's); a seed
beyond that turns every seed into its rank among the seeds played, which keeps their
order, and so every figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from harness.report.digest import EntrantDigest
from harness.report.methods import SeedTable
from harness.report.methods.arrays import Floats, Ints

if TYPE_CHECKING:
    from harness.report.cells import Cell

#: The ceiling's row in a report's table: no entrant's name starts with a NUL.
CEILING_ROW = "\x00ceiling"


def _picked(entry: EntrantDigest) -> NDArray[np.bool_] | None:
    """For a selection of another digest's episodes, which of them it holds."""
    if entry.of is None:
        return None
    total = len(entry.of.scores)
    marks = np.frombuffer(bytes(entry.marks), dtype=np.uint8)
    bits = np.unpackbits(marks, bitorder="little")[:total]
    return np.concatenate([bits, np.zeros(total - len(bits), np.uint8)]).astype(np.bool_)


def _rows(entry: EntrantDigest) -> tuple[list[int] | Ints, Ints, Floats]:
    """The seeds, variant numbers and scores of ``entry``'s episodes, in the digest's
    order (seeds as a list when one does not fit in 64 bits)."""
    source = entry.of if entry.of is not None else entry
    seeds: list[int] | Ints = (
        source.seeds if isinstance(source.seeds, list) else np.array(source.seeds, np.int64)
    )
    variants = np.array(source.variants, dtype=np.int64)
    scores = np.array(source.scores, dtype=np.float64)
    picked = _picked(entry)
    if picked is None:
        return seeds, variants, scores
    if isinstance(seeds, list):
        seeds = [s for s, keep in zip(seeds, picked.tolist(), strict=True) if keep]
    else:
        seeds = seeds[picked]
    return seeds, variants[picked], scores[picked]


def _seed_array(seeds: list[int]) -> list[int] | Ints:
    """``seeds`` as int64, or as they are when one does not fit in 64 bits."""
    try:
        return np.array(seeds, dtype=np.int64)
    except OverflowError:
        return seeds


def _codes(parts: Sequence[list[int] | Ints]) -> list[Ints]:
    """Each part's seeds as int64: themselves, or, when one is past 64 bits, every seed's
    rank among all of them (the same order)."""
    if not any(isinstance(p, list) for p in parts):
        return [np.asarray(p, dtype=np.int64) for p in parts]
    every = sorted({int(s) for p in parts for s in (p if isinstance(p, list) else p.tolist())})
    rank = {s: i for i, s in enumerate(every)}
    return [
        np.array([rank[int(s)] for s in (p if isinstance(p, list) else p.tolist())], np.int64)
        for p in parts
    ]


def seed_table(
    entries: Mapping[str, EntrantDigest],
    variants: Sequence[str],
    ceiling: Mapping[Cell, float] | None = None,
) -> SeedTable:
    """The table of ``entries`` (entrant -> its digest, in the report's order) over the
    digest's ``variants`` (its variant names by number), with the ceiling's cell means
    as one more row, :data:`CEILING_ROW`, when there is a ceiling."""
    names = list(entries)
    seeds: list[list[int] | Ints] = []
    entrant, variant, score = [], [], []
    for i, entry in enumerate(entries.values()):
        s, v, x = _rows(entry)
        seeds.append(s)
        entrant.append(np.full(len(x), i, np.int64))
        variant.append(v)
        score.append(x)
    names_of_variants = list(variants)
    if ceiling is not None:
        place = {name: i for i, name in enumerate(names_of_variants)}
        for _, name in ceiling:
            if name not in place:
                place[name] = len(names_of_variants)
                names_of_variants.append(name)
        cells = list(ceiling.items())
        seeds.append(_seed_array([seed for (seed, _), _ in cells]))
        entrant.append(np.full(len(cells), len(names), np.int64))
        variant.append(np.array([place[v] for (_, v), _ in cells], np.int64))
        score.append(np.array([value for _, value in cells], np.float64))
        names.append(CEILING_ROW)
    codes = _codes(seeds)
    empty = np.zeros(0, np.int64)
    return SeedTable.from_episodes(
        names,
        names_of_variants,
        np.concatenate(entrant) if entrant else empty,
        np.concatenate(codes) if codes else empty,
        np.concatenate(variant) if variant else empty,
        np.concatenate(score) if score else np.zeros(0),
    )


__all__ = ["CEILING_ROW", "seed_table"]
