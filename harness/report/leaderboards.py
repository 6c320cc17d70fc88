"""Leaderboards of one seat group, and entrants that are the same entrant twice.

A leaderboard of a seat group (Lighthouse: the keeper) ranks entrants that differ in
that group and in nothing else: entrants are grouped by their specs for every other
seat group (for a keeper leaderboard, the same runners), and each such group whose
members differ in the ranked group gets its own board. So a board never pools
entrants whose other seats differ. Entrants with the same spec for every seat group
are the same entrant under two names; they are flagged.

An entrant's spec for a group is the config's spec (prompt files replaced by their
contents' sha256, as the manifest records them), or, when the folder's manifest has
no readable config, the agents named in its episodes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from harness.protocol import GameEntry
from harness.report.cells import Cell, CellMeans
from harness.report.compare import rank_intervals
from harness.report.stats import Draw, Interval, interval_from

#: entrant -> seat group key -> a canonical text of its spec
Specs = Mapping[str, Mapping[str, str]]


def entrant_specs(game: GameEntry, manifest: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Each configured entrant's spec per seat group, as canonical text."""
    config = manifest.get("config")
    prompts = manifest.get("prompts")
    hashes = prompts if isinstance(prompts, dict) else {}
    entrants = config.get("entrants") if isinstance(config, dict) else None
    out: dict[str, dict[str, str]] = {}
    for entrant in entrants if isinstance(entrants, list) else []:
        if not isinstance(entrant, dict) or not isinstance(entrant.get("name"), str):
            continue
        seats = entrant.get("seats")
        if not isinstance(seats, dict):
            continue
        out[entrant["name"]] = {
            g.key: _canonical(seats.get(g.key), len(g.seats), hashes) for g in game.seat_groups
        }
    return out


def _canonical(spec: Any, seats: int, hashes: Mapping[str, Any]) -> str:
    # One spec for all seats and the same spec listed once per seat are the same entrant.
    specs = spec if isinstance(spec, list) else [spec] * seats
    return json.dumps([_by_content(s, hashes) for s in specs], sort_keys=True)


def _by_content(spec: Any, hashes: Mapping[str, Any]) -> Any:
    if not isinstance(spec, dict) or not isinstance(spec.get("prompts"), dict):
        return spec
    files = {k: hashes.get(v, v) if isinstance(v, str) else v for k, v in spec["prompts"].items()}
    return {**spec, "prompts": files}


def identical_entrants(names: Sequence[str], specs: Specs) -> list[list[str]]:
    """Groups of entrants (in ``names`` order) with the same spec for every seat group."""
    groups: dict[str, list[str]] = {}
    for name in names:
        if name in specs:
            key = json.dumps(sorted(specs[name].items()))
            groups.setdefault(key, []).append(name)
    return [members for members in groups.values() if len(members) > 1]


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def interval_dict(iv: Interval) -> dict[str, Any]:
    """An interval as the report's JSON holds it (NaN as null)."""
    return {
        "mean": _num(iv.mean),
        "low": _num(iv.low),
        "high": _num(iv.high),
        "n": iv.n,
        "episodes": iv.episodes,
    }


def shared_columns(
    names: Sequence[str], cells: Mapping[str, Mapping[Cell, float]]
) -> tuple[CellMeans, list[Sequence[float]]]:
    """The cells every one of ``names`` finished, and each one's cell means on them."""
    tables = [CellMeans.of(cells[n]) for n in names]
    common = CellMeans.common(tables)
    return common, [table.on(common) for table in tables]


def ranked(
    names: Sequence[str],
    cells: Mapping[str, Mapping[Cell, float]],
    resample: Callable[[int], Iterable[Draw]],
) -> dict[str, dict[str, Any]]:
    """Each of ``names``: its mean and interval over the cells all of them share, and
    its rank with the 95% rank interval from the same resamples."""
    shared, columns = shared_columns(names, cells)
    if not shared:
        return {}
    n = len(shared)
    ranks = rank_intervals(columns, resample(n) if n > 1 else ())
    return {
        name: {
            "rank": r.rank,
            "rankLow": r.low,
            "rankHigh": r.high,
            "cells": n,
            "score": interval_dict(interval_from(col, resample(n))),
        }
        for name, col, r in zip(names, columns, ranks, strict=True)
    }


def leaderboards(
    game: GameEntry,
    names: Sequence[str],
    labels: Mapping[str, Mapping[str, str]],
    specs: Specs,
    cells: Mapping[str, Mapping[Cell, float]],
    resample: Callable[[int], Iterable[Draw]],
) -> list[dict[str, Any]]:
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
                {
                    "entrant": m,
                    "agent": labels[m][group.key],
                    "sameAs": [o for o in same.get(m, []) if o != m and o in members],
                    **figures[m],
                }
                for m in members
            ]
            rows.sort(key=lambda r: (r["rank"], members.index(r["entrant"])))
            boards.append(
                {
                    "group": group.key,
                    "context": {k: labels[members[0]][k] for k in others},
                    "cells": rows[0]["cells"],
                    "rows": rows,
                }
            )
    return boards


__all__ = [
    "Specs",
    "entrant_specs",
    "identical_entrants",
    "interval_dict",
    "leaderboards",
    "ranked",
    "shared_columns",
]
