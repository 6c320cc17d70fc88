"""A results folder's plan, read back from its manifest: which episodes it should hold.

The manifest holds the config as run and the shard ("I/N" for a shard's folder,
"merged" for a merge of shards, which plans the whole tournament); the report compares
the plan with the folder's results lines (:mod:`harness.report.completeness`).
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.errors import ConfigError
from harness.report.completeness import Plan
from harness.tournament.manifest import MERGED, Manifest
from harness.tournament.plan import PlanIndex, parse_shard


def _shard(label: str | None) -> tuple[int, int] | None:
    try:
        return parse_shard(label) if label is not None else None
    except ConfigError:
        return None


def shards_of(manifest: Manifest) -> set[str]:
    """The shards a folder holds: its own "I/N", or those a merge recorded."""
    label = manifest.shard
    if label == MERGED:
        return set(manifest.shards or ())
    return {label} if label is not None and _shard(label) is not None else set()


def missing_shards(covered: Iterable[str]) -> tuple[str, ...]:
    """The shards of a split not in ``covered`` ("2/4"), in order.

    Named only when every covered shard is of one split (one N); shards of different
    splits overlap, so "missing" is then not a set of shards (the episode counts still
    tell what is missing).
    """
    parsed = {p for p in (_shard(s) for s in covered) if p is not None}
    counts = {n for _, n in parsed}
    if len(counts) != 1:
        return ()
    (n,) = counts
    return tuple(f"{i}/{n}" for i in range(1, n + 1) if (i, n) not in parsed)


def plan_of(manifest: Manifest) -> Plan | None:
    """What the folder of ``manifest`` was planned to hold; None when it cannot be told."""
    label = manifest.shard
    config = manifest.tournament_config() if label is not None else None
    if config is None or label is None:
        return None
    if label == MERGED:
        shard: tuple[int, int] | None = (1, 1)
        gaps = tuple(manifest.missing_shards or ())
    else:
        shard, gaps = _shard(label), ()
    if shard is None:
        return None
    index = PlanIndex(config, shard)  # answers by parsing ids: nothing listed
    return Plan(index.entrant_counts(), index, label, gaps)


__all__ = ["MERGED", "missing_shards", "plan_of", "shards_of"]
