"""Tournaments that grow: what a folder already holds for the config run now.

A results folder is not tied to one config. Each run records its config as the
folder's plan (the manifest), and counts a finished episode as done when it is
planned now and was played by its entrant's current identity (identity.py). So a
wider seed range, more variants or repetitions, or a new entrant plays only the new
episodes, and an entrant whose spec changed plays again.

Episodes are never deleted:

- one planned no longer (a narrower seed range, a removed entrant) stays where it
  is, out of the report, and counts again if the plan takes it back;
- one played by an earlier identity of an entrant of the config is *superseded*:
  its record and results line move to ``superseded/N/`` (N counts such moves), out
  of the way of the episode that replaces it under the same id.

Only another game or another shard split conflicts with a folder
(``ResultsFolder.check_manifest``); the error names each key that differs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from harness.errors import RecordError
from harness.files import bounded_lines, open_regular, refusal
from harness.protocol import GameEntry
from harness.summary import EpisodeSummary
from harness.tournament.identity import LineIdentities, line_identities
from harness.tournament.manifest import HistoryEntry, JsonObject, Manifest
from harness.tournament.plan import DoneSet, PlanIndex
from harness.tournament.store import ResultsFolder, fsync_path, write_atomically

SUPERSEDED = "superseded"


@dataclass(frozen=True)
class Sorting:
    """A folder's finished episodes, sorted against the config run now."""

    done: DoneSet
    """Planned now and played by the entrant's current identity: not played again
    (a bit each, not the lines)."""
    superseded: list[EpisodeSummary]
    """Played by an earlier identity of an entrant of the config: set aside."""
    kept: int
    """How many else (not planned now): left in place, out of the report."""


def sort_finished(
    finished: Iterable[EpisodeSummary],
    planned: PlanIndex,
    identities: Mapping[str, str | None],
    known: LineIdentities,
) -> Sorting:
    """Sort ``finished`` (read one at a time) by the plan and each entrant's identity now
    (a line's identity as ``known`` counts it)."""
    done = DoneSet(planned)
    superseded, kept = [], 0
    for line in finished:
        found = classify(line, planned, identities, known)
        if found == "superseded":
            superseded.append(line)
        elif found == "done":
            done.add(line.episode_id)
        else:
            kept += 1
    return Sorting(done, superseded, kept)


def classify(
    line: EpisodeSummary,
    planned: Container[str],
    identities: Mapping[str, str | None],
    known: LineIdentities,
) -> Literal["done", "superseded", "kept"]:
    """Which part of a :class:`Sorting` the finished ``line`` belongs to."""
    own = known.of(line.identity, line.entrant)
    if line.entrant in identities and (own is None or own != identities[line.entrant]):
        return "superseded"
    if line.episode_id in planned and line.entrant in identities:
        return "done"
    return "kept"


def changed_keys(
    old: JsonObject | None, new: JsonObject | None, *, skip: Iterable[str] = ("entrants",)
) -> list[str]:
    """The top-level keys of two configs' JSON whose values differ (none when either is
    not known), less ``skip``."""
    if old is None or new is None:
        return []
    keys = (set(old) | set(new)) - set(skip)
    return sorted(k for k in keys if old.get(k) != new.get(k))


def describe_growth(
    old_config: JsonObject | None,
    new_config: JsonObject,
    old_ids: Mapping[str, str | None],
    new_ids: Mapping[str, str | None],
    sorting: Sorting,
    moved_to: str | None,
    code_changed: Container[str] = (),
    layout_changed: Container[str] = (),
) -> list[str]:
    """One note on what changed since the folder's last run, or none (``code_changed``:
    the entrants whose agent's code changed and nothing else; ``layout_changed``: those
    the folder played at an earlier prompt layout of the game)."""
    keys = changed_keys(old_config or {}, new_config)
    added = [n for n in new_ids if n not in old_ids]
    removed = [n for n in old_ids if n not in new_ids]
    changed = sorted({s.entrant for s in sorting.superseded})
    if not (keys or added or removed or changed):
        return []
    parts = []
    if keys:
        parts.append(f"changed: {', '.join(keys)}")
    if added:
        parts.append(f"entrants added: {', '.join(added)}")
    if removed:
        parts.append(
            f"entrants removed: {', '.join(removed)} (their episodes stay, out of the report)"
        )
    if changed:
        where = f" in {moved_to}" if moved_to else ""
        relaid = [n for n in changed if n in layout_changed]
        spec = [n for n in changed if n not in code_changed and n not in relaid]
        code = [n for n in changed if n in code_changed and n not in relaid]
        who = [f"entrants whose spec changed: {', '.join(spec)}"] if spec else []
        if code:
            who.append(f"entrants whose agent's code changed: {', '.join(code)}")
        if relaid:
            who.append(
                "entrants played at an earlier prompt layout of the game (this harness's "
                f"prompts read otherwise): {', '.join(relaid)}"
            )
        unless = " (run with --keep-agent-episodes if the edit changed nothing)" if code else ""
        parts.append(
            f"{'; '.join(who)} ({len(sorting.superseded)} earlier episode(s) set "
            f"aside{where}; they play again{unless})"
        )
    if sorting.done:
        parts.append(f"{len(sorting.done)} finished episode(s) reused")
    return ["the config differs from the folder's last run: " + "; ".join(parts)]


def next_manifest(old: Manifest | None, new: Manifest) -> Manifest:
    """The manifest a run writes over ``old``: the plan run now, with what must be kept.

    Kept from ``old``: when and by which version the folder was started, the identities
    of lines written before identities were (``legacyIdentities``, which the run sets),
    and the history of config hashes the folder was run with.
    """
    if old is None:
        return new
    history = list(old.history or ())
    if old.config_hash != new.config_hash:
        history.append(HistoryEntry(config_hash=old.config_hash, until=old.updated_at))
    return new.model_copy(
        update={
            "started_at": old.started_at,
            "harness_version": old.harness_version,
            "history": history or None,
        }
    )


def superseded_root(folder: ResultsFolder) -> Path:
    """Where superseded episodes are kept."""
    return folder.root / SUPERSEDED


def set_aside(folder: ResultsFolder, lines: Sequence[EpisodeSummary]) -> str | None:
    """Move the records and results lines of ``lines`` to a new ``superseded/N/``.

    The lines are written there first, then each record is moved: a crash in between
    leaves lines in the main episodes.jsonl whose records are gone, which the next
    resume drops (the copies are kept here). Returns the folder's relative path, or
    None when there was nothing to move. The caller rewrites episodes.jsonl without
    ``lines`` afterwards.
    """
    if not lines:
        return None
    base = superseded_root(folder)
    base.mkdir(exist_ok=True)
    taken = {int(p.name) for p in base.iterdir() if p.name.isdecimal()}
    number = max(taken, default=0) + 1
    target = base / str(number)
    (target / "records").mkdir(parents=True)
    text = "".join(s.model_dump_json(by_alias=True) + "\n" for s in lines)
    write_atomically(target / "episodes.jsonl", text)
    for line in lines:
        source = folder.record_path(line.episode_id)
        if source.is_file():
            os.replace(source, target / "records" / source.name)
    fsync_path(target / "records")
    fsync_path(folder.records)
    return f"{SUPERSEDED}/{number}"


def superseded_lines(root: Path) -> list[EpisodeSummary]:
    """Every superseded episode kept under ``root`` whose record is there too."""
    return list(iter_superseded_lines(root))


def iter_superseded_lines(root: Path) -> Iterator[EpisodeSummary]:
    """:func:`superseded_lines` one at a time, each file read line by line."""
    base = root / SUPERSEDED
    if not base.is_dir():
        return
    for part in sorted(base.iterdir()):
        path = part / "episodes.jsonl"
        for line in iter_lines_leniently(path, root):
            if refusal(part / "records" / f"{line.episode_id}.jsonl", root) is None:
                yield line


def read_lines_leniently(path: Path) -> list[EpisodeSummary]:
    """The results lines of ``path`` that parse; the rest (and a missing file) skipped.

    For estimates that must never stop a command (a dry run, the keys a run needs):
    a run itself checks every line against its record.
    """
    return list(iter_lines_leniently(path))


def iter_lines_leniently(path: Path, root: Path | None = None) -> Iterator[EpisodeSummary]:
    """:func:`read_lines_leniently` one line at a time, read as they are asked for; a
    file that is not a regular file inside ``root`` (when given) is read as empty."""
    try:
        handle = open_regular(path, root, limit=None)
    except (OSError, RecordError):
        return
    with handle:
        try:
            for raw in bounded_lines(handle):
                if raw is None:
                    continue
                try:
                    yield EpisodeSummary.model_validate_json(raw.removesuffix(b"\n"))
                except (ValidationError, ValueError):
                    continue
        except OSError:
            return


def pending_entrants(
    folder: ResultsFolder,
    game: GameEntry,
    planned: PlanIndex,
    identities: Mapping[str, str | None],
    known: Callable[[Manifest], LineIdentities] | None = None,
) -> set[str]:
    """The entrants with planned episodes the folder lacks, by its results lines as they
    are (read leniently, without the lock: an estimate, for what a run must check
    before it touches the folder). ``planned`` is the plan's :class:`PlanIndex`;
    ``known`` how the lines of a folder of a manifest count (default: as it records)."""
    if not folder.manifest_path.exists():
        return set(identities)
    try:
        manifest = folder.manifest()
    except RecordError:
        return set(identities)
    lines = known(manifest) if known is not None else line_identities(game, manifest)
    done = DoneSet(planned)
    for line in iter_lines_leniently(folder.episodes_path, folder.root):
        if (
            line.entrant in identities
            and lines.of(line.identity, line.entrant) == identities[line.entrant]
            and refusal(folder.record_path(line.episode_id), folder.root) is None
        ):
            done.add(line.episode_id)
    # counted from the plan's shape rather than listed: it may be a million episodes long
    wanted = planned.entrant_counts()
    return {entrant for entrant, count in wanted.items() if done.count(entrant) < count}


def recorded_cost(lines: Iterable[EpisodeSummary]) -> float:
    """The cost the lines record, in US dollars (calls without a price count 0)."""
    return math.fsum(seat.cost_usd for line in lines for seat in line.seats.values())


__all__ = [
    "SUPERSEDED",
    "Sorting",
    "changed_keys",
    "classify",
    "describe_growth",
    "iter_lines_leniently",
    "iter_superseded_lines",
    "next_manifest",
    "pending_entrants",
    "read_lines_leniently",
    "recorded_cost",
    "set_aside",
    "sort_finished",
    "superseded_lines",
    "superseded_root",
]
