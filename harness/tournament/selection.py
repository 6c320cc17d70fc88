"""Which of a folder's finished episodes a report counts.

A results folder may hold more than its current plan (tournaments grow, see
growth.py): episodes no longer planned (a narrower seed range, a removed entrant)
and, under ``superseded/``, episodes of an earlier spec of an entrant. A report
counts an episode only when it is planned now (the manifest's config and shard) and
was played by its entrant's current identity (the manifest's ``identities``; a line
from before identities counts by the folder's ``legacyIdentities``). What it left
out, and why a run stopped early (a cost cap, ``--limit``) or was narrowed, goes to
the report as its ``selection`` (rendered by :mod:`harness.report.selection`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.protocol import GameEntry
from harness.report.digest import Digest
from harness.summary import EpisodeSummary
from harness.tournament.growth import iter_superseded_lines
from harness.tournament.identity import legacy_identities, line_identity
from harness.tournament.planned import plan_of


@dataclass(frozen=True)
class Selection:
    """The episodes a report counts, and what it left out."""

    episodes: list[EpisodeSummary]
    """The counted lines (none when they were folded into a digest instead)."""
    set_aside: int
    """Finished episodes in episodes.jsonl that are not counted."""
    superseded: int
    """Episodes of an earlier spec of an entrant, kept in superseded/."""
    stopped: dict[str, Any] | None
    narrowing: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """As the report's JSON holds it."""
        return {
            "setAside": self.set_aside,
            "superseded": self.superseded,
            "stopped": self.stopped,
            "narrowing": self.narrowing,
        }


class Selector:
    """Decides, one results line at a time, whether a report on a folder counts it."""

    def __init__(self, game: GameEntry, manifest: Mapping[str, Any]) -> None:
        self.manifest = manifest
        self.plan = plan_of(manifest)
        kept = manifest.get("identities")
        self._current = kept if isinstance(kept, Mapping) else None
        self._legacy = legacy_identities(game, manifest)
        self.set_aside = 0
        """Lines seen and not counted."""

    def counts(self, s: EpisodeSummary) -> bool:
        """Whether the report counts ``s`` (planned now, by its entrant's identity now)."""
        planned = self.plan is None or s.episode_id in self.plan.index
        counted = planned and (
            self._current is None
            or line_identity(s.identity, s.entrant, self._legacy) == self._current.get(s.entrant)
        )
        self.set_aside += not counted
        return counted

    def selection(self, episodes: list[EpisodeSummary], root: Path | None) -> Selection:
        """The :class:`Selection` of the lines seen so far (``episodes``: those counted)."""
        stopped = self.manifest.get("stopped")
        narrowing = self.manifest.get("narrowing")
        return Selection(
            episodes,
            self.set_aside,
            sum(1 for _ in iter_superseded_lines(root)) if root is not None else 0,
            stopped if isinstance(stopped, dict) else None,
            narrowing if isinstance(narrowing, dict) else None,
        )


def select(
    game: GameEntry,
    manifest: Mapping[str, Any],
    summaries: Iterable[EpisodeSummary],
    root: Path | None = None,
) -> Selection:
    """The episodes of ``summaries`` a report on the folder of ``manifest`` counts.

    Without a readable plan every episode is planned; without recorded identities
    (a folder no run of this version has touched) every identity is current.
    """
    selector = Selector(game, manifest)
    return selector.selection([s for s in summaries if selector.counts(s)], root)


def select_digest(
    game: GameEntry, manifest: Mapping[str, Any], summaries: Iterable[EpisodeSummary], root: Path
) -> tuple[Digest, Selection]:
    """:func:`select`, each counted line folded into a :class:`Digest` as it streams
    past (the selection's ``episodes`` stay empty): what a report on a folder holds
    does not grow with the folder beyond each episode's cell and score."""
    selector = Selector(game, manifest)
    folded = Digest(game, selector.plan)
    for s in summaries:
        if selector.counts(s):
            folded.add(s)
    return folded, selector.selection([], root)


__all__ = ["Selection", "Selector", "select", "select_digest"]
