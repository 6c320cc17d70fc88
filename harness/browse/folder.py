"""A results folder as the browser shows it: the report, and every episode's row.

Everything is read, nothing written: the folder as ``lighthouse report`` reads it
(:func:`harness.results.read_results`, leniently: a torn last line is left unread and
any line it skips is named), the list of records, and the header of each record still
being played (``records/ID.jsonl.partial``). The report is the one ``lighthouse
report`` prints; a hidden ceiling is used only when a report kept its scores, never
played.

An episode row is ``finished`` (a results line the report counts), ``not counted``
(a results line the report leaves out: not planned now, or of an earlier spec) or
``in progress`` (a record being played, or one whose results line is not written yet).
A counterfactual record found in records/ (``lighthouse replay --until-tick`` wrote
it there) is none of these: it is named once, among the folder's strays.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from harness.errors import RecordError
from harness.files import regular_files
from harness.protocol import GameEntry
from harness.reader import open_record
from harness.records import FALLBACK_SOURCES
from harness.report.build import canonical_order
from harness.report.model import Report
from harness.results import read_results
from harness.summary import EpisodeSummary, split_episode_id
from harness.tournament.audit import stray_note
from harness.tournament.store import PARTIAL, RECORDS, ResultsFolder

Status = Literal["finished", "not counted", "in progress"]
#: An episode id that can name its page's file as it is; any other gets a hashed name.
PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,150}")


def page_name(episode_id: str) -> str:
    """The file name of an episode's viewer page (``episodes/NAME``): the id when plain."""
    if PLAIN_ID.fullmatch(episode_id) and ".." not in episode_id:
        return f"{episode_id}.html"
    return f"episode-{hashlib.sha256(episode_id.encode()).hexdigest()[:16]}.html"


@dataclass(frozen=True)
class EpisodeRow:
    """One episode of the folder, as the episodes table lists it."""

    episode_id: str
    entrant: str
    seed: int | None
    variant: str | None
    repetition: int | None
    status: Status
    score: float | None = None
    reason: str | None = None
    fallbacks: int = 0
    """Turns, over every seat, that fell back to the seat's baseline."""
    tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0
    """Calls answered with no price (their cost is not in ``cost_usd``)."""
    record: Path | None = None
    """The record the episode's page is drawn from (finished or partial), if any."""

    @property
    def page(self) -> str | None:
        """The file name of its viewer page, when it has a record to draw it from."""
        return page_name(self.episode_id) if self.record is not None else None


@dataclass(frozen=True)
class Snapshot:
    """What the browser shows of a results folder at one moment."""

    root: Path
    game: GameEntry
    title: str
    report: Report
    counted: list[EpisodeSummary]
    """The episodes the report counts, in canonical order."""
    rows: list[EpisodeRow]
    notes: list[str]
    """What could not be read, and was skipped (a results line, a record)."""
    strays: list[str] = field(default_factory=list)
    """Records in records/ that are no episodes of the folder (counterfactuals), one
    line each."""

    @property
    def in_progress(self) -> int:
        """Episodes being played or written now."""
        return sum(1 for row in self.rows if row.status == "in progress")

    def page_of(self, name: str) -> EpisodeRow | None:
        """The episode whose viewer page is ``name`` (a file name), or None."""
        return next((row for row in self.rows if row.page == name), None)


def _summary_row(
    folder: ResultsFolder, summary: EpisodeSummary, status: Status, readable: set[Path]
) -> EpisodeRow:
    """``readable``: the records the folder's listing found readable."""
    record = folder.record_path(summary.episode_id)
    seats = summary.seats.values()
    return EpisodeRow(
        episode_id=summary.episode_id,
        entrant=summary.entrant,
        seed=summary.seed,
        variant=summary.variant,
        repetition=summary.repetition,
        status=status,
        score=summary.score if math.isfinite(summary.score) else None,
        reason=summary.reason,
        fallbacks=sum(n for s in seats for k, n in s.fallbacks.items() if k in FALLBACK_SOURCES),
        tokens=sum(s.input_tokens + s.output_tokens for s in seats),
        cost_usd=math.fsum(s.cost_usd for s in seats),
        unpriced=sum(s.unpriced for s in seats),
        record=record if record in readable else None,
    )


def _unlisted_row(
    path: Path, episode_id: str, notes: list[str], strays: list[str]
) -> EpisodeRow | None:
    """A record with no results line yet (being played, or just finished): its header;
    a counterfactual is named in ``strays`` instead."""
    try:
        header = open_record(path).header
    except RecordError as exc:
        notes.append(f"{path.name}: in progress, not shown yet: {exc}")
        return None
    if header.derived_from is not None:
        strays.append(stray_note(f"{RECORDS}/{path.name}", header.derived_from))
        return None
    seed, variant = header.seed, header.variant
    split = split_episode_id(episode_id, variant, seed)
    entrant, repetition = split if split is not None else (episode_id, None)
    return EpisodeRow(
        episode_id=episode_id,
        entrant=entrant,
        seed=seed,
        variant=variant,
        repetition=repetition,
        status="in progress",
        record=path,
    )


def _records(folder: ResultsFolder, notes: list[str]) -> tuple[dict[str, Path], dict[str, Path]]:
    """Finished records and partial ones, by episode id; an entry that is not a regular
    file inside the folder (a FIFO, a device, a symlink out) is named in ``notes``."""
    finished: dict[str, Path] = {}
    partial: dict[str, Path] = {}
    if not folder.records.is_dir():
        return finished, partial
    for suffix, found in ((".jsonl", finished), (".jsonl" + PARTIAL, partial)):
        paths, skipped = regular_files(folder.records, f"*{suffix}", folder.root)
        notes.extend(skipped)
        found.update((path.name.removesuffix(suffix), path) for path in paths)
    return finished, partial


def read_folder(root: Path) -> Snapshot:
    """Read the results folder ``root`` (never writing to it).

    Raises :class:`ConfigError` when ``root`` is no results folder and
    :class:`RecordError` when its manifest cannot be read; anything else unreadable is
    skipped and named in :attr:`Snapshot.notes`.
    """
    results = read_results(root, keep=True, lenient=True)
    folder = ResultsFolder(root)
    counted = results.in_canonical_order()
    notes = list(results.notes)
    finished, partial = _records(folder, notes)
    readable = set(finished.values())
    ids = {s.episode_id for s in counted}
    rows = [_summary_row(folder, s, "finished", readable) for s in counted]
    listed = set(ids)
    for s in canonical_order([s for s in results.others if s.episode_id not in ids]):
        if s.episode_id not in listed:
            listed.add(s.episode_id)
            rows.append(_summary_row(folder, s, "not counted", readable))
    strays: list[str] = []
    for episode_id, path in sorted({**partial, **finished}.items()):
        if episode_id in listed:
            continue
        row = _unlisted_row(path, episode_id, notes, strays)
        if row is not None:
            rows.append(row)
    return Snapshot(root, results.game, results.title, results.report, counted, rows, notes, strays)


__all__ = ["EpisodeRow", "Snapshot", "Status", "page_name", "read_folder"]
