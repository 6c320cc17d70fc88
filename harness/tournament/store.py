"""The results folder, written so that a crash at any moment loses nothing finished.

    DIR/manifest.json           the config as run, its hash, harness version, prompts' sha256
    DIR/episodes.jsonl          one results line per finished episode
    DIR/records/ID.jsonl        each finished episode's full record
    DIR/records/ID.jsonl.partial  an episode being played (never read as finished)

An episode is finished only once its record has been fsynced and renamed into place
AND its results line has been appended and fsynced, in that order. On resume, a torn
last line of episodes.jsonl is cut off, partial records are discarded, and a finished
record whose results line never made it is summarised again from the record alone, so
a crash at any point costs at most the episodes that were in play.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness import __version__
from harness.errors import ConfigError, RecordError
from harness.game import Game
from harness.records import read_lines
from harness.tournament.summary import EpisodeSummary, summarize

MANIFEST = "manifest.json"
EPISODES = "episodes.jsonl"
RECORDS = "records"
PARTIAL = ".partial"


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so a reader sees the old file or the new, never half."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


class ResultsFolder:
    """One tournament's (or one shard's) results folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.records = root / RECORDS
        self.episodes_path = root / EPISODES
        self.manifest_path = root / MANIFEST

    # --- the manifest ---------------------------------------------------------------

    def open(self, manifest: dict[str, Any]) -> bool:
        """Create the folder, or check that it was made by the same config and shard.

        Returns True when resuming an existing folder.
        """
        if self.manifest_path.exists():
            existing = self.manifest()
            for key in ("configHash", "shard", "game"):
                if existing.get(key) != manifest.get(key):
                    raise ConfigError(
                        f"{self.root}: this folder was made by a different "
                        f"{'config' if key == 'configHash' else key} "
                        f"({key} {existing.get(key)!r}, now {manifest.get(key)!r}); "
                        "run the original config, or choose another --out"
                    )
            return True
        self.records.mkdir(parents=True, exist_ok=True)
        stamped = {**manifest, "harnessVersion": __version__,
                   "startedAt": datetime.now(UTC).isoformat(timespec="seconds")}  # fmt: skip
        write_atomically(self.manifest_path, json.dumps(stamped, indent=2, sort_keys=True) + "\n")
        return False

    def manifest(self) -> dict[str, Any]:
        """The folder's manifest."""
        try:
            data: dict[str, Any] = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RecordError(f"{self.manifest_path}: unreadable manifest: {exc}") from None
        return data

    # --- finished episodes --------------------------------------------------------------

    def record_path(self, episode_id: str) -> Path:
        """Where a finished episode's record lives."""
        return self.records / f"{episode_id}.jsonl"

    def partial_path(self, episode_id: str) -> Path:
        """Where an episode's record is written while it is played."""
        return self.records / f"{episode_id}.jsonl{PARTIAL}"

    def summaries(self) -> list[EpisodeSummary]:
        """Every results line, in the order written (a torn last line is ignored)."""
        if not self.episodes_path.exists():
            return []
        data = self.episodes_path.read_bytes()
        whole = data[: data.rfind(b"\n") + 1]
        out = []
        for number, line in enumerate(whole.decode("utf-8").splitlines(), start=1):
            try:
                out.append(EpisodeSummary.model_validate_json(line))
            except ValidationError as exc:
                raise RecordError(
                    f"{self.episodes_path}:{number}: {exc.errors()[0]['msg']}"
                ) from None
        return out

    def repair(self, game: Game[Any], plans: dict[str, tuple[str, int]]) -> list[EpisodeSummary]:
        """Bring the folder to a consistent state after a crash; return the finished episodes.

        ``plans`` maps each episode id of the tournament to (entrant, repetition).
        """
        self.records.mkdir(parents=True, exist_ok=True)
        if self.episodes_path.exists():
            data = self.episodes_path.read_bytes()
            cut = data.rfind(b"\n") + 1
            if cut != len(data):  # a line torn by a crash mid-write: drop it
                with self.episodes_path.open("r+b") as handle:
                    handle.truncate(cut)
                    os.fsync(handle.fileno())
        for partial in self.records.glob(f"*{PARTIAL}"):
            partial.unlink()
        summaries = []
        seen: set[str] = set()
        dropped = False
        for summary in self.summaries():
            if summary.episode_id in seen or not self.record_path(summary.episode_id).exists():
                dropped = True  # a duplicate, or a record deleted by hand: play it again
                continue
            seen.add(summary.episode_id)
            summaries.append(summary)
        if dropped:
            write_atomically(
                self.episodes_path,
                "".join(s.model_dump_json(by_alias=True) + "\n" for s in summaries),
            )
        for record in sorted(self.records.glob("*.jsonl")):
            episode_id = record.name.removesuffix(".jsonl")
            if episode_id in seen or episode_id not in plans:
                continue
            lines = self._finished_record(game, record)
            if lines is None:
                record.unlink()  # unfinished or damaged: play it again
                continue
            entrant, repetition = plans[episode_id]
            summary = summarize(game, lines, entrant=entrant, repetition=repetition)
            self.append(summary)
            summaries.append(summary)
            seen.add(episode_id)
        return summaries

    @staticmethod
    def _finished_record(game: Game[Any], path: Path) -> list[Any] | None:
        try:
            lines = list(read_lines(path, game.record_adapter))
        except (RecordError, ValueError):
            return None
        if not lines or lines[0].type != "header" or lines[-1].type != "end":
            return None
        return lines

    def commit(
        self, game: Game[Any], episode_id: str, entrant: str, repetition: int
    ) -> EpisodeSummary:
        """Finish an episode whose record was written (and fsynced) to its partial path."""
        partial, final = self.partial_path(episode_id), self.record_path(episode_id)
        lines = list(read_lines(partial, game.record_adapter))
        os.replace(partial, final)
        fsync_dir(self.records)
        summary = summarize(game, lines, entrant=entrant, repetition=repetition)
        self.append(summary)
        return summary

    def append(self, summary: EpisodeSummary) -> None:
        """Append one results line durably, in a single write."""
        data = (summary.model_dump_json(by_alias=True) + "\n").encode("utf-8")
        fd = os.open(self.episodes_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)

    def iter_records(self) -> Iterator[Path]:
        """Every finished record."""
        yield from sorted(self.records.glob("*.jsonl"))


__all__ = ["EPISODES", "MANIFEST", "RECORDS", "ResultsFolder", "fsync_dir", "write_atomically"]
