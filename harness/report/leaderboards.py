"""Leaderboards of one seat group, and entrants that are the same entrant twice.

A leaderboard of a seat group (Lighthouse: the keeper) ranks entrants that differ in
that group and in nothing else: entrants are grouped by their specs for every other
seat group (for a keeper leaderboard, the same runners), and each such group whose
members differ in the ranked group gets its own board. So a board never pools
entrants whose other seats differ. Entrants with the same spec for every seat group
are the same entrant under two names; they are flagged.

An entrant's spec for a group is the config's spec (prompt files replaced by their
contents' sha256, as the manifest records them: :data:`Specs`), or, when the folder's
manifest has no readable config, the agents named in its episodes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.protocol import GameEntry
from harness.report.cells import Cell, CellMeans
from harness.report.compare import rank_intervals
from harness.report.model import BoardRow, Leaderboard, MeanInterval, Rank
from harness.report.stats import Draw, interval_from

#: entrant -> seat group key -> a canonical text of its spec
#: (:func:`harness.results.specs.entrant_specs` reads them from a folder's manifest)
Specs = Mapping[str, Mapping[str, str]]


def identical_entrants(names: Sequence[str], specs: Specs) -> list[list[str]]:
    """Groups of entrants (in ``names`` order) with the same spec for every seat group."""
    groups: dict[str, list[str]] = {}
    for name in names:
        if name in specs:
            key = json.dumps(sorted(specs[name].items()))
            groups.setdefault(key, []).append(name)
    return [members for members in groups.values() if len(members) > 1]


def shared_columns(
    names: Sequence[str], cells: Mapping[str, Mapping[Cell, float]]
) -> tuple[CellMeans, list[Sequence[float]]]:
    """The cells every one of ``names`` finished, and each one's cell means on them."""
    tables = [CellMeans.of(cells[n]) for n in names]
    common = CellMeans.common(tables)
    return common, [table.on(common) for table in tables]


@dataclass(frozen=True)
class Ranked:
    """An entrant's rank, its interval and its mean over the cells ``names`` share."""

    rank: int
    rank_low: int
    rank_high: int
    cells: int
    score: MeanInterval

    def figures(self) -> Rank:
        """The rank as an entrant's row holds it."""
        return Rank(
            rank=self.rank, rank_low=self.rank_low, rank_high=self.rank_high, cells=self.cells
        )


def ranked(
    names: Sequence[str],
    cells: Mapping[str, Mapping[Cell, float]],
    resample: Callable[[int], Iterable[Draw]],
) -> dict[str, Ranked]:
    """Each of ``names``: its mean and interval over the cells all of them share, and
    its rank with the 95% rank interval from the same resamples."""
    shared, columns = shared_columns(names, cells)
    if not shared:
        return {}
    n = len(shared)
    ranks = rank_intervals(columns, resample(n) if n > 1 else ())
    return {
        name: Ranked(r.rank, r.low, r.high, n, MeanInterval.of(interval_from(col, resample(n))))
        for name, col, r in zip(names, columns, ranks, strict=True)
    }


def leaderboards(
    game: GameEntry,
    names: Sequence[str],
    labels: Mapping[str, Mapping[str, str]],
    specs: Specs,
    cells: Mapping[str, Mapping[Cell, float]],
    resample: Callable[[int], Iterable[Draw]],
) -> list[Leaderboard]:
    """One board per seat group and per set of entrants alike in every other group."""
    same: dict[str, list[str]] = {}
    for twins in identical_entrants(names, specs):
        same.update(dict.fromkeys(twins, twins))
    boards = []
    for group in game.seat_groups:
        others = [g.key for g in game.seat_groups if g.key != group.key]
        contexts: dict[tuple[str, ...], list[str]] = {}
        for name in names:
            if name in specs:
                contexts.setdefault(tuple(specs[name][k] for k in others), []).append(name)
        for members in contexts.values():
            if len({specs[m][group.key] for m in members}) < 2:
                continue  # nothing differs in this group: nothing to rank
            figures = ranked(members, cells, resample)
            if not figures:
                continue
            rows = [
                BoardRow(
                    entrant=m,
                    agent=labels[m][group.key],
                    same_as=[o for o in same.get(m, []) if o != m and o in members],
                    rank=figures[m].rank,
                    rank_low=figures[m].rank_low,
                    rank_high=figures[m].rank_high,
                    cells=figures[m].cells,
                    score=figures[m].score,
                )
                for m in members
            ]
            rows.sort(key=lambda r: (r.rank, members.index(r.entrant)))
            boards.append(
                Leaderboard(
                    group=group.key,
                    context={k: labels[members[0]][k] for k in others},
                    cells=rows[0].cells,
                    rows=rows,
                )
            )
    return boards


__all__ = ["Ranked", "Specs", "identical_entrants", "leaderboards", "ranked", "shared_columns"]
