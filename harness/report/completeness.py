"""Planned against finished: what a results folder was meant to hold, and what it lacks.

The plan is read back from the folder's manifest: the config as run and the shard
("I/N" for a shard's folder, "merged" for a merge of shards, which plans the whole
tournament). A report on a folder that lacks planned episodes says so and marks its
intervals; a merge names the shards it was not given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from harness.errors import ConfigError
from harness.tournament.config import TournamentConfig
from harness.tournament.run import parse_shard, plan_episodes
from harness.tournament.summary import EpisodeSummary

MERGED = "merged"


@dataclass(frozen=True)
class Plan:
    """The episode ids a folder was planned to hold, per entrant."""

    by_entrant: dict[str, frozenset[str]]
    shard: str
    """The folder's shard: "I/N", or "merged"."""
    missing_shards: tuple[str, ...] = ()
    """For a merged folder: the shards ("I/N") that were not merged into it."""

    @property
    def total(self) -> int:
        """Every planned episode."""
        return sum(len(ids) for ids in self.by_entrant.values())


@dataclass(frozen=True)
class Completeness:
    """Planned against finished episodes, per entrant and overall."""

    planned: dict[str, int]
    finished: dict[str, int]
    missing_shards: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """Every planned episode finished, and no shard missing."""
        return not self.missing_shards and all(
            self.finished.get(name, 0) >= count for name, count in self.planned.items()
        )

    def summary(self) -> str:
        """``complete: 360/360`` or ``incomplete: 50/360 (missing shards: 2/2)``."""
        done, planned = sum(self.finished.values()), sum(self.planned.values())
        text = f"{'complete' if self.complete else 'incomplete'}: {done}/{planned} episodes"
        if self.missing_shards:
            text += f" (missing shard{'s' if len(self.missing_shards) > 1 else ''}: "
            text += ", ".join(self.missing_shards) + ")"
        return text


def _config(manifest: Mapping[str, Any]) -> TournamentConfig | None:
    try:
        return TournamentConfig.model_validate(manifest.get("config"))
    except (ValidationError, ValueError, TypeError):
        return None  # a manifest from another version: the plan cannot be told


def _shard(label: Any) -> tuple[int, int] | None:
    try:
        return parse_shard(label) if isinstance(label, str) else None
    except ConfigError:
        return None


def shards_of(manifest: Mapping[str, Any]) -> set[str]:
    """The shards a folder holds: its own "I/N", or those a merge recorded."""
    if manifest.get("shard") == MERGED:
        listed = manifest.get("shards")
        return {s for s in listed if isinstance(s, str)} if isinstance(listed, list) else set()
    label = manifest.get("shard")
    return {label} if isinstance(label, str) and _shard(label) is not None else set()


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


def plan_of(manifest: Mapping[str, Any]) -> Plan | None:
    """What the folder of ``manifest`` was planned to hold; None when it cannot be told."""
    config = _config(manifest)
    label = manifest.get("shard")
    if config is None or not isinstance(label, str):
        return None
    if label == MERGED:
        shard: tuple[int, int] | None = (1, 1)
        missing = manifest.get("missingShards")
        gaps = tuple(s for s in missing if isinstance(s, str)) if isinstance(missing, list) else ()
    else:
        shard, gaps = _shard(label), ()
    if shard is None:
        return None
    by_entrant: dict[str, set[str]] = {e.name: set() for e in config.entrants}
    for plan in plan_episodes(config, shard):
        by_entrant[plan.entrant.name].add(plan.episode_id)
    return Plan({k: frozenset(v) for k, v in by_entrant.items()}, label, gaps)


def completeness(plan: Plan | None, summaries: Sequence[EpisodeSummary]) -> Completeness:
    """Planned against finished; without a plan, what is there counts as complete."""
    done: dict[str, set[str]] = {}
    for s in summaries:
        done.setdefault(s.entrant, set()).add(s.episode_id)
    if plan is None:
        counts = {name: len(ids) for name, ids in sorted(done.items())}
        return Completeness(counts, counts)
    return Completeness(
        {name: len(ids) for name, ids in plan.by_entrant.items()},
        {name: len(ids & done.get(name, set())) for name, ids in plan.by_entrant.items()},
        plan.missing_shards,
    )


__all__ = [
    "MERGED",
    "Completeness",
    "Plan",
    "completeness",
    "missing_shards",
    "plan_of",
    "shards_of",
]
