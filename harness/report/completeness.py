"""Planned against finished: what a results folder was meant to hold, and what it lacks.

The plan is read back from the folder's manifest by :func:`harness.tournament.plan.plan_of`
(the config as run and the shard: "I/N" for a shard's folder, "merged" for a merge of
shards, which plans the whole tournament). A report on a folder that lacks planned
episodes says so and marks its intervals; a merge names the shards it was not given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from harness.summary import EpisodeSummary


class PlanLookup(Protocol):
    """The planned episode ids, answered without listing them (a ``PlanIndex``)."""

    def locate(self, key: str) -> tuple[str, int] | None:
        """The entrant the id ``key`` is planned for and its place in the plan
        (0 .. len - 1), or None when it is not planned."""
        ...

    def __contains__(self, key: object) -> bool: ...

    def __len__(self) -> int: ...


class ListedPlan:
    """A :class:`PlanLookup` over ids listed in full (small plans: tests, tools)."""

    def __init__(self, by_entrant: Mapping[str, Iterable[str]]) -> None:
        self._places: dict[str, tuple[str, int]] = {}
        for name, ids in by_entrant.items():
            for episode in sorted(ids):
                self._places.setdefault(episode, (name, len(self._places)))

    def locate(self, key: str) -> tuple[str, int] | None:
        """The entrant ``key`` is planned for and its place, or None."""
        return self._places.get(key)

    def places(self) -> Iterable[tuple[str, int]]:
        """Every planned id's (entrant, place)."""
        return self._places.values()

    def __contains__(self, key: object) -> bool:
        return key in self._places

    def __len__(self) -> int:
        return len(self._places)


@dataclass(frozen=True)
class Plan:
    """What a folder was planned to hold: how many episodes per entrant, and which ids."""

    planned: dict[str, int]
    """Each entrant of the plan (in the config's order) and its planned episodes."""
    index: PlanLookup
    """Which episode ids are planned, and for whom."""
    shard: str
    """The folder's shard: "I/N", or "merged"."""
    missing_shards: tuple[str, ...] = ()
    """For a merged folder: the shards ("I/N") that were not merged into it."""

    @property
    def total(self) -> int:
        """Every planned episode."""
        return sum(self.planned.values())

    @classmethod
    def listed(
        cls, by_entrant: Mapping[str, Iterable[str]], shard: str, missing: tuple[str, ...] = ()
    ) -> Plan:
        """The plan of the ids listed per entrant (each id once)."""
        index = ListedPlan(by_entrant)
        counts = dict.fromkeys(by_entrant, 0)
        for name, _ in index.places():
            counts[name] += 1
        return cls(counts, index, shard, missing)


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


class FinishedCount:
    """Counts the distinct planned episodes finished, per entrant, one results line at a time.

    With a plan, a finished episode is one bit at its place in the plan (an eighth of
    a byte per planned episode, whatever the number finished); without one, the
    distinct ids are kept per entrant (a folder whose plan cannot be told).
    """

    def __init__(self, plan: Plan | None) -> None:
        self.plan = plan
        self._bits = bytearray((len(plan.index) + 7) // 8) if plan is not None else bytearray()
        self._finished: dict[str, int] = {}
        self._ids: dict[str, set[str]] = {}

    def add(self, entrant: str, episode: str) -> None:
        """Count the results line of ``episode``, played by ``entrant``."""
        if self.plan is None:
            self._ids.setdefault(entrant, set()).add(episode)
            return
        found = self.plan.index.locate(episode)
        if found is None or found[0] != entrant:
            return  # not planned, or planned for another entrant: not one of entrant's
        byte, bit = divmod(found[1], 8)
        if not self._bits[byte] >> bit & 1:
            self._bits[byte] |= 1 << bit
            self._finished[entrant] = self._finished.get(entrant, 0) + 1

    def result(self) -> Completeness:
        """Planned against finished; without a plan, what is there counts as complete."""
        if self.plan is None:
            counts = {name: len(ids) for name, ids in sorted(self._ids.items())}
            return Completeness(counts, counts)
        return Completeness(
            dict(self.plan.planned),
            {name: self._finished.get(name, 0) for name in self.plan.planned},
            self.plan.missing_shards,
        )


def completeness(plan: Plan | None, summaries: Iterable[EpisodeSummary]) -> Completeness:
    """Planned against finished; without a plan, what is there counts as complete."""
    count = FinishedCount(plan)
    for s in summaries:
        count.add(s.entrant, s.episode_id)
    return count.result()


__all__ = ["Completeness", "FinishedCount", "ListedPlan", "Plan", "PlanLookup", "completeness"]
