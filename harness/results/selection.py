"""Which of a folder's finished episodes a report counts.

A results folder may hold more than its current plan (tournaments grow, see
growth.py): episodes no longer planned (a narrower seed range, a removed entrant)
and, under ``superseded/``, episodes of an earlier spec of an entrant. A report
counts an episode only when it is planned now (the manifest's config and shard) and
was played by its entrant's current identity (the manifest's ``identities``; a line
from before identities counts by the folder's ``legacyIdentities``, one from before
agents' code entered identities by its ``identityAliases``). What it left
out, and why a run stopped early (a cost cap, ``--limit``) or was narrowed, goes to
the report as its ``selection`` (:class:`~harness.report.selection.Selected`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.protocol import GameEntry
from harness.report.digest import Digest
from harness.report.selection import Selected
from harness.summary import EpisodeSummary
from harness.tournament.growth import iter_superseded_lines
from harness.tournament.identity import line_identities
from harness.tournament.manifest import Manifest
from harness.tournament.planned import plan_of


@dataclass(frozen=True)
class Selection:
    """The episodes a report counts, and what it left out."""

    episodes: list[EpisodeSummary]
    """The counted lines (none when they were folded into a digest instead)."""
    info: Selected
    """What was left out, and why the folder stopped early: the report's ``selection``."""


class Selector:
    """Decides, one results line at a time, whether a report on a folder counts it."""

    def __init__(self, game: GameEntry, manifest: Manifest) -> None:
        self.manifest = manifest
        self.plan = plan_of(manifest)
        self._current = manifest.identities
        self._lines = line_identities(game, manifest)
        self.set_aside = 0
        """Lines seen and not counted."""

    def counts(self, s: EpisodeSummary) -> bool:
        """Whether the report counts ``s`` (planned now, by its entrant's identity now)."""
        planned = self.plan is None or s.episode_id in self.plan.index
        counted = planned and (
            self._current is None
            or self._lines.of(s.identity, s.entrant) == self._current.get(s.entrant)
        )
        self.set_aside += not counted
        return counted

    def selected(self, root: Path | None) -> Selected:
        """What the lines seen so far left out (and the folder at ``root`` set aside in
        superseded/), and why the folder stopped early."""
        return Selected(
            set_aside=self.set_aside,
            superseded=sum(1 for _ in iter_superseded_lines(root)) if root is not None else 0,
            stopped=self.manifest.stopped,
            narrowing=self.manifest.narrowing,
        )


def select(
    game: GameEntry,
    manifest: Manifest,
    summaries: Iterable[EpisodeSummary],
    root: Path | None = None,
) -> Selection:
    """The episodes of ``summaries`` a report on the folder of ``manifest`` counts.

    Without a readable plan every episode is planned; without recorded identities
    (a folder no run of this version has touched) every identity is current.
    """
    selector = Selector(game, manifest)
    counted = [s for s in summaries if selector.counts(s)]
    return Selection(counted, selector.selected(root))


def select_digest(
    game: GameEntry, manifest: Manifest, summaries: Iterable[EpisodeSummary], root: Path
) -> tuple[Digest, Selection]:
    """:func:`select`, each counted line folded into a :class:`Digest` as it streams
    past (the selection's ``episodes`` stay empty): what a report on a folder holds
    does not grow with the folder beyond each episode's cell and score."""
    selector = Selector(game, manifest)
    folded = Digest(game, selector.plan)
    for s in summaries:
        if selector.counts(s):
            folded.add(s)
    return folded, Selection([], selector.selected(root))


__all__ = ["Selection", "Selector", "select", "select_digest"]
