"""Planned against finished: what a results folder was meant to hold, and what it lacks.

The plan is read back from the folder's manifest by :func:`harness.tournament.plan.plan_of`
(the config as run and the shard: "I/N" for a shard's folder, "merged" for a merge of
shards, which plans the whole tournament). A report on a folder that lacks planned
episodes says so and marks its intervals; a merge names the shards it was not given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.summary import EpisodeSummary


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


__all__ = ["Completeness", "Plan", "completeness"]
