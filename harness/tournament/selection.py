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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.game import GameEntry
from harness.summary import EpisodeSummary
from harness.tournament.growth import superseded_lines
from harness.tournament.identity import legacy_identities, line_identity
from harness.tournament.planned import plan_of


@dataclass(frozen=True)
class Selection:
    """The episodes a report counts, and what it left out."""

    episodes: list[EpisodeSummary]
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


def select(
    game: GameEntry,
    manifest: Mapping[str, Any],
    summaries: Sequence[EpisodeSummary],
    root: Path | None = None,
) -> Selection:
    """The episodes of ``summaries`` a report on the folder of ``manifest`` counts.

    Without a readable plan every episode is planned; without recorded identities
    (a folder no run of this version has touched) every identity is current.
    """
    plan = plan_of(manifest)
    planned = plan.index if plan is not None else None
    kept = manifest.get("identities")
    current = kept if isinstance(kept, Mapping) else None
    legacy = legacy_identities(game, manifest)
    counted = [
        s
        for s in summaries
        if (planned is None or s.episode_id in planned)
        and (
            current is None
            or line_identity(s.identity, s.entrant, legacy) == current.get(s.entrant)
        )
    ]
    stopped = manifest.get("stopped")
    narrowing = manifest.get("narrowing")
    return Selection(
        counted,
        len(summaries) - len(counted),
        len(superseded_lines(root)) if root is not None else 0,
        stopped if isinstance(stopped, dict) else None,
        narrowing if isinstance(narrowing, dict) else None,
    )


__all__ = ["Selection", "select"]
