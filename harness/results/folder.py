"""A results folder read once: its game, manifest, selection, ceiling and report.

Every command that shows a folder's results reads it here (``lighthouse report``,
its ``--plot``, ``merge``, ``view``, and the report ``run`` prints at the end), so
they all count the same episodes and show the same report:

1. the manifest (:class:`~harness.tournament.manifest.Manifest`, of any version) and
   the game it names;
2. the results lines, one at a time, each counted or left out by the
   :class:`~harness.results.selection.Selector` (planned now, played by its
   entrant's identity now) and folded into a :class:`~harness.report.digest.Digest`
   (what a report holds does not grow with the folder beyond each episode's cell
   and score), the lines themselves kept only when asked (the plot, the browser);
3. the ceiling (:func:`~harness.tournament.ceiling.find_ceiling`: an entrant, a
   hidden ceiling kept from an earlier report, or one played when ``--ceiling`` asks);
4. the report, built when first asked for (:attr:`FolderResults.report`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from harness.errors import ConfigError
from harness.protocol import GameEntry
from harness.registry import get_game
from harness.report.build import Ceiling, build_report, canonical_order
from harness.report.completeness import Completeness
from harness.report.digest import Digest
from harness.report.model import Report
from harness.report.render import report_svg
from harness.report.selection import Selected
from harness.results.crossplay import crossplay_layout
from harness.results.selection import Selector
from harness.results.specs import entrant_specs
from harness.summary import EpisodeSummary
from harness.tournament.ceiling import find_ceiling
from harness.tournament.manifest import Manifest
from harness.tournament.store import ResultsFolder


@dataclass(frozen=True)
class FolderResults:
    """What :func:`read_results` read of a folder."""

    root: Path
    game: GameEntry
    manifest: Manifest
    digest: Digest
    """Every counted episode, folded (its plan: the manifest's)."""
    selection: Selected
    """What the folder holds beyond the counted episodes, and why it stopped early."""
    ceiling: Ceiling | None
    reference: str | None
    """The entrant every other is paired against: the one asked for, else the config's."""
    kept: bool = False
    """Whether the lines themselves were kept (:attr:`counted`, :attr:`others`)."""
    counted: list[EpisodeSummary] = field(default_factory=list)
    """The counted lines in the order written (kept only when asked)."""
    others: list[EpisodeSummary] = field(default_factory=list)
    """The lines not counted, in the order written (kept only when asked)."""
    notes: list[str] = field(default_factory=list)
    """Lines that could not be read and were skipped (a lenient read only)."""

    @property
    def title(self) -> str:
        """The report's title: the config's name, else the folder's."""
        return self.manifest.title(self.root.name)

    @property
    def completeness(self) -> Completeness:
        """Planned against finished."""
        return self.digest.completeness()

    @cached_property
    def report(self) -> Report:
        """The folder's report (built once, when first asked for)."""
        return build_report(
            self.game,
            self.digest,
            reference=self.reference,
            order=self.manifest.run.entrant_names,
            title=self.title,
            ceiling=self.ceiling,
            specs=entrant_specs(self.game, self.manifest),
            plan=self.digest.plan,
            selection=self.selection,
            crossplay=crossplay_layout(self.game, self.manifest),
        )

    def in_canonical_order(self) -> list[EpisodeSummary]:
        """The counted lines (when kept) in the report's canonical order."""
        return canonical_order(self.counted)

    def plot(self) -> str:
        """The score plot of the report (of a folder read with ``keep``: it draws every
        episode)."""
        if not self.kept:
            raise ValueError("FolderResults.plot: the folder was read without its lines (keep)")
        return report_svg(self.report, self.counted, max_score=self.game.max_score)


def results_folder(root: Path) -> ResultsFolder:
    """The results folder at ``root``; a :class:`ConfigError` when it is none."""
    folder = ResultsFolder(root)
    # lexists, not is_file: a manifest that is a FIFO, a device or a symlink out is
    # named as such by the bounded reader, not taken for a folder that has none
    if not os.path.lexists(folder.manifest_path):
        raise ConfigError(f"{root}: no manifest.json here; is it a results folder?")
    return folder


def read_results(
    root: Path,
    *,
    reference: str | None = None,
    ceiling: str | None = None,
    keep: bool = False,
    lenient: bool = False,
) -> FolderResults:
    """Read the results folder ``root`` once (never writing to it, but for a hidden
    ceiling that ``ceiling`` asks to play).

    ``reference`` names the entrant every other is paired against (default: the
    config's) and must be an entrant; ``ceiling`` the entrant or baseline every
    entrant is measured against (default: the game's ceiling baseline when an entrant
    plays it, or it was kept). ``keep`` keeps the lines themselves
    (:attr:`FolderResults.counted`, :attr:`FolderResults.others`). ``lenient`` reads a
    folder in whatever state it is, for the browser: a line that does not parse is
    skipped and named in :attr:`FolderResults.notes`, where a strict read refuses the
    folder with a :class:`~harness.errors.RecordError`.

    Raises :class:`ConfigError` when ``root`` is no results folder, or ``reference``
    no entrant of it, and :class:`~harness.errors.RecordError` when its manifest
    cannot be read.
    """
    folder = results_folder(root)
    manifest = folder.manifest()
    game = get_game(manifest.game)
    entrants = manifest.run.entrant_names
    if reference is not None and reference not in entrants:
        # a paired section against nobody would be dropped without a word
        raise ConfigError(
            f"--reference: {reference!r} is not an entrant of {root} "
            f"(its entrants: {', '.join(entrants)})"
        )
    notes: list[str] = []
    lines: Iterable[EpisodeSummary]
    if lenient:
        lines, notes = folder.readable_summaries()
    else:
        lines = folder.iter_summaries()  # one line is held at a time, unless kept
    selector = Selector(game, manifest)
    folded = Digest(game, selector.plan)
    counted: list[EpisodeSummary] = []
    others: list[EpisodeSummary] = []
    for line in lines:
        if selector.counts(line):
            folded.add(line)
            if keep:
                counted.append(line)
        elif keep:
            others.append(line)
    return FolderResults(
        root=root,
        game=game,
        manifest=manifest,
        digest=folded,
        selection=selector.selected(root),
        ceiling=find_ceiling(game, root, manifest, folded, ceiling),
        reference=reference or manifest.run.reference,
        kept=keep,
        counted=counted,
        others=others,
        notes=notes,
    )


__all__ = ["FolderResults", "read_results", "results_folder"]
