"""The results folder, written so that a crash at any moment loses nothing finished.

    DIR/manifest.json           the config as run, its hash, harness version, prompts' sha256
    DIR/episodes.jsonl          one results line per finished episode, with its record's sha256
    DIR/records/ID.jsonl        each finished episode's full record
    DIR/records/ID.jsonl.partial  an episode being played (never read as finished)
    DIR/.lock                   locked by the one process writing the folder (lock.py)

An episode is finished only once its record has been fsynced and renamed into place
AND its results line has been appended and fsynced, in that order. On resume, a torn
last line of episodes.jsonl is cut off, partial records are discarded, and a finished
record whose results line never made it is summarised again from the record alone, so
a crash at any point costs at most the episodes that were in play. Resume also checks
every results line against its record, so an edited line or record never moves the
report silently (:meth:`ResultsFolder.examine`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from harness.episode import EpisodeOutcome
from harness.errors import ConfigError, RecordError
from harness.files import (
    MAX_LINE_BYTES,
    MAX_MANIFEST_BYTES,
    bounded_lines,
    numbered_lines,
    open_regular,
    read_regular,
    refusal,
    regular_files,
)
from harness.protocol import GameEntry
from harness.summary import EpisodeSummary, summarize
from harness.tournament.audit import AuditStream, derive, engine_problem
from harness.tournament.manifest import Manifest
from harness.version import harness_version

MANIFEST = "manifest.json"
EPISODES = "episodes.jsonl"
RECORDS = "records"
PARTIAL = ".partial"


def results_root(folder: Path) -> Path | None:
    """The results folder that ``folder`` is, or lies in (a folder holding a
    manifest.json beside records/ or episodes.jsonl); None when it lies in none."""
    for place in (folder, *folder.parents):
        try:
            if (place / MANIFEST).is_file() and (
                (place / RECORDS).is_dir() or (place / EPISODES).is_file()
            ):
                return place
        except OSError:  # a folder that cannot be looked into holds no results folder
            continue
    return None


def fsync_path(path: Path) -> None:
    """Make durable what was written to ``path``: a file's bytes, whoever wrote them,
    or a folder's renames and new files."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so a reader sees the old file or the new, never half."""
    write_lines_atomically(path, [text])


def write_lines_atomically(path: Path, parts: Iterable[str]) -> None:
    """:func:`write_atomically` of the text ``parts`` make, written as they come (the
    whole text is never held: ``parts`` may be read from the file being replaced)."""
    tmp = path.with_name(path.name + ".tmp")
    # made anew, never opened through what is there (a symlink would be followed)
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        with open(fd, "w", encoding="utf-8") as handle:
            for part in parts:
                handle.write(part)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)  # (a full disk, say) the old file stands; no half copy
        raise
    os.replace(tmp, path)
    fsync_path(path.parent)


@dataclass(frozen=True)
class Repair:
    """What resuming a folder will do, worked out before anything is written.

    The lines kept are not held: they are named by their line numbers in
    episodes.jsonl (a bit each) and read again, one at a time, when they are needed
    (:meth:`finished`; the folder is locked, so the file is the one examined).
    """

    episodes: Path
    """The episodes.jsonl examined."""
    kept: bytearray
    """Bit n - 1 set: line n matches its record and is kept."""
    rehashed: dict[int, str]
    """Kept lines written before lines carried their record's sha256: the sha256 each
    is written again with."""
    add: list[EpisodeSummary]
    """Lines written again from records that replay clean (lost in a crash, or untrusted)."""
    notes: list[str]
    """What was dropped or replaced, and why: the run prints these as warnings."""
    rewrite: bool
    """episodes.jsonl is written anew (a line dropped, replaced, re-hashed or torn)."""
    gone: frozenset[str] = frozenset()
    """Episodes left out of :meth:`finished` (set aside; episodes.jsonl is rewritten)."""

    def keeps(self, number: int) -> bool:
        """Whether line ``number`` (1-based) of episodes.jsonl is kept."""
        return _marked(self.kept, number)

    def finished(self) -> Iterator[EpisodeSummary]:
        """Every finished episode once the repair is applied, in order: the lines kept
        (read again from episodes.jsonl), then those added."""
        if any(self.kept):
            with open_regular(self.episodes, limit=None) as handle:
                for number, raw in enumerate(bounded_lines(handle), start=1):
                    if raw is None or not self.keeps(number):
                        continue
                    line = EpisodeSummary.model_validate_json(raw.removesuffix(b"\n"))
                    digest = self.rehashed.get(number)
                    if digest is not None:
                        line = line.model_copy(update={"record_sha256": digest})
                    if line.episode_id not in self.gone:
                        yield line
        for line in self.add:
            if line.episode_id not in self.gone:
                yield line

    def without(self, episodes: frozenset[str]) -> Repair:
        """This repair less ``episodes`` (set aside): episodes.jsonl is then rewritten."""
        if not episodes:
            return self
        return replace(self, gone=self.gone | episodes, rewrite=True)


def _marked(bits: bytearray, number: int) -> bool:
    byte, bit = divmod(number - 1, 8)
    return byte < len(bits) and bool(bits[byte] >> bit & 1)


def _mark(bits: bytearray, number: int) -> None:
    byte, bit = divmod(number - 1, 8)
    if byte >= len(bits):
        bits.extend(bytes(byte - len(bits) + 1))
    bits[byte] |= 1 << bit


def summarize_played(
    game: GameEntry, outcome: EpisodeOutcome, digest: str, *, entrant: str, repetition: int
) -> EpisodeSummary:
    """The results line of an episode just played into its partial record.

    From the episode's lines as the runner wrote them (JSON objects in the form the
    record models dump them: pinned in tests/test_record_lines.py, so the summary is
    the one reading the record back gives) and ``digest``, the sha256 of the bytes
    written (:attr:`RecordWriter.sha256`), so the record is neither read back nor
    validated again. Pure: a worker process calls it as well as the run.
    """
    summary = summarize(game.report, outcome.docs, entrant=entrant, repetition=repetition)
    return summary.model_copy(update={"record_sha256": digest})


class ResultsFolder:
    """One tournament's (or one shard's) results folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.records = root / RECORDS
        self.episodes_path = root / EPISODES
        self.manifest_path = root / MANIFEST

    # --- the manifest ---------------------------------------------------------------

    def check_manifest(self, manifest: Manifest) -> bool:
        """Whether the folder was started already; refuse one of another game or shard split.

        Any other difference is a tournament that grows (see growth.py). The error
        names every key that differs. Reads only.
        """
        if not self.manifest_path.exists():
            return False
        existing = self.manifest()
        found = [
            f"{key} was {was!r}, now {now!r}"
            for key, was, now in (
                ("game", existing.game, manifest.game),
                ("shard", existing.shard, manifest.shard),
            )
            if was != now
        ]
        if found:
            raise ConfigError(
                f"{self.root}: this folder holds another tournament's results "
                f"({'; '.join(found)}); {existing.made_by_hint()}, or choose another --out"
            )
        return True

    def open(self, manifest: Manifest) -> bool:
        """Create the folder, or take an existing one of the same game and shard split;
        either way write ``manifest`` as the folder's plan now.

        Returns True when resuming an existing folder. A new folder's manifest is
        stamped with the harness version and the start time; every write with
        ``updatedAt``.
        """
        resuming = self.check_manifest(manifest)
        self.records.mkdir(parents=True, exist_ok=True)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        stamped = manifest.model_copy(
            update={
                "harness_version": manifest.harness_version or harness_version(),
                "started_at": manifest.started_at or now,
                "updated_at": now,
            }
        )
        self.write_manifest(stamped)
        return resuming

    def write_manifest(self, manifest: Manifest) -> None:
        """Replace the manifest with ``manifest`` (e.g. with why a run stopped)."""
        write_atomically(self.manifest_path, manifest.to_json())

    def manifest(self) -> Manifest:
        """The folder's manifest, of any version (:meth:`Manifest.read`)."""
        try:
            data = read_regular(self.manifest_path, self.root, limit=MAX_MANIFEST_BYTES)
        except FileNotFoundError as exc:
            raise RecordError(f"{self.manifest_path}: unreadable manifest: {exc}") from None
        except RecordError as exc:
            problem = str(exc).removeprefix(f"{self.manifest_path}: ")
            raise RecordError(f"{self.manifest_path}: unreadable manifest: {problem}") from None
        return Manifest.read(data, str(self.manifest_path))

    # --- finished episodes --------------------------------------------------------------

    def record_path(self, episode_id: str) -> Path:
        """Where a finished episode's record lives."""
        return self.records / f"{episode_id}.jsonl"

    def partial_path(self, episode_id: str) -> Path:
        """Where an episode's record is written while it is played."""
        return self.records / f"{episode_id}.jsonl{PARTIAL}"

    def summaries(self) -> list[EpisodeSummary]:
        """Every results line, in the order written (a torn last line is ignored)."""
        return list(self.iter_summaries())

    def iter_summaries(self) -> Iterator[EpisodeSummary]:
        """:meth:`summaries` one line at a time, read as they are asked for: what a
        report over a folder of any size holds is one line, not the file."""
        for number, line in numbered_lines(self.episodes_path, self.root):
            if line is None:
                raise RecordError(
                    f"{self.episodes_path}:{number}: longer than {MAX_LINE_BYTES:,} "
                    "bytes: not a results line"
                )
            if not line.endswith(b"\n"):
                return  # a torn last line: an append a crash cut short
            try:
                yield EpisodeSummary.model_validate_json(line[:-1])
            except ValidationError as exc:
                raise RecordError(
                    f"{self.episodes_path}:{number}: {exc.errors()[0]['msg']}"
                ) from None

    def readable_summaries(self) -> tuple[list[EpisodeSummary], list[str]]:
        """Every results line that parses, in the order written, and a note for each
        that does not; a torn last line (an append in progress) is not read at all.

        For readers that must show a folder whatever state it is in (the results
        browser, on a folder still being written); reads only.
        """
        out: list[EpisodeSummary] = []
        notes: list[str] = []
        try:
            handle = open_regular(self.episodes_path, self.root, limit=None)
        except FileNotFoundError:
            return [], []
        except RecordError as exc:
            return [], [str(exc)]
        with handle:
            try:
                for number, line in enumerate(bounded_lines(handle), start=1):
                    if line is None:
                        notes.append(f"{EPISODES}:{number}: skipped: longer than "
                                     f"{MAX_LINE_BYTES:,} bytes")  # fmt: skip
                        continue
                    if not line.endswith(b"\n"):
                        break  # a torn last line: an append in progress
                    try:
                        out.append(EpisodeSummary.model_validate_json(line[:-1]))
                    except ValidationError as exc:
                        notes.append(f"{EPISODES}:{number}: skipped: {exc.errors()[0]['msg']}")
            except OSError as exc:
                notes.append(f"{self.episodes_path}: cannot read: {exc.strerror}")
        return out, notes

    def examine(self, game: GameEntry, plans: Mapping[str, tuple[str, int]]) -> Repair:
        """Work out how to bring the folder to a trusted, consistent state (reads only).

        ``plans`` maps each episode id planned now to (entrant, repetition).
        Every results line is checked against its record (sha256 and figures). A line
        that matches is kept, planned now or not (a plan may grow back to it). A line
        that is not a results line, repeats one, or whose record is gone is dropped
        (the episode is played again). A planned episode's line that does not match
        its record, and a record a crash left without a line, are written (again) from
        the record when it is complete, names its episode and replays clean with the
        current engine; if any record fails that, the folder is refused with a
        :class:`RecordError` naming each, and nothing is changed. A mismatched line of
        an episode not planned now is dropped and its record left as it is.
        """
        if not self.root.is_dir():
            return Repair(self.episodes_path, bytearray(), {}, [], [], rewrite=False)
        found = AuditStream(self.episodes_path, self.records, game)
        kept = bytearray()
        rehashes: dict[int, str] = {}
        notes: list[str] = []
        suspect: dict[str, str] = {}

        def named(episode: str) -> bool:
            # an earlier line of the episode was kept or is to be written again
            first = found.first_line(episode)
            return episode in suspect or (first is not None and _marked(kept, first))

        rewrite, rehashed = False, 0
        for check in found:  # one line at a time: a kept line is a bit, not the line
            episode, where = check.episode_id, f"{EPISODES}:{check.describe()}"
            if check.problem is None and check.line is not None:
                _mark(kept, check.number)
                if check.unhashed and check.derived:
                    rehashes[check.number] = check.derived.record_sha256 or ""
                rehashed += check.unhashed
                rewrite |= check.unhashed
                continue
            rewrite = True
            if episode is None:
                notes.append(f"{where}: dropped (not a results line)")
            elif named(episode):
                notes.append(f"{where}: dropped")
            elif (unread := refusal(self.record_path(episode), self.root)) is not None:
                why = "" if unread == "missing" else f" (its record is {unread})"
                notes.append(f"{where}: dropped{why}; the episode is played again")
            elif episode not in plans:
                notes.append(f"{where}: dropped (not planned now; its record stays)")
            else:
                suspect[episode] = check.problem or ""
        rewrite |= found.torn
        if rehashed:
            notes.append(
                f"{rehashed} results line(s) written before lines carried their record's "
                "sha256 match their records; they were written again with it"
            )
        add: list[EpisodeSummary] = []
        refused: list[str] = []
        notes += found.skipped()
        for episode in [*suspect, *(o for o in found.orphans() if o in plans)]:
            summary, problem = self._from_record(game, episode, plans[episode])
            if summary is None:
                refused.append(f"{episode}: {problem}")
                continue
            add.append(summary)
            if episode in suspect:
                notes.append(
                    f"{episode}: its results line did not match its record "
                    f"({suspect[episode]}); the record replays clean, so the line was "
                    "written again from it"
                )
        if refused:
            raise RecordError(
                f"{self.root}: cannot resume: {len(refused)} record(s) cannot be trusted "
                f"({'; '.join(refused)}); nothing was changed. `lighthouse replay "
                f"{self.root}` shows every problem; delete a record to play its episode again"
            )
        return Repair(self.episodes_path, kept, rehashes, add, notes, rewrite=rewrite)

    def _from_record(
        self, game: GameEntry, episode: str, plan: tuple[str, int]
    ) -> tuple[EpisodeSummary | None, str]:
        path = self.record_path(episode)
        try:
            summary = derive(game, path)
        except RecordError as exc:
            return None, str(exc)
        if (summary.entrant, summary.repetition) != plan:
            return None, f"{path}: not the episode planned under this id"
        problem = engine_problem(game, path)
        if problem is not None:
            return None, f"{path}: {problem}"
        return summary, ""

    def apply(self, repair: Repair) -> None:
        """Carry out a :class:`Repair`: drop partial records, write the results lines."""
        self.records.mkdir(parents=True, exist_ok=True)
        for partial in self.records.glob(f"*{PARTIAL}"):
            partial.unlink()
        if repair.rewrite:
            write_lines_atomically(
                self.episodes_path,
                (s.model_dump_json(by_alias=True) + "\n" for s in repair.finished()),
            )
        else:
            for summary in repair.add:
                self.append(summary)

    def repair(self, game: GameEntry, plans: Mapping[str, tuple[str, int]]) -> int:
        """Examine the folder and apply the repair; return how many episodes are finished."""
        repair = self.examine(game, plans)
        finished = sum(1 for _ in repair.finished())
        self.apply(repair)
        return finished

    def settle(self, summaries: Sequence[EpisodeSummary]) -> None:
        """Finish episodes whose records are complete (closed) at their partial paths.

        Each record is fsynced, then renamed into place, the renames made durable with
        one fsync of the folder, and only then the results lines appended in one write
        and one fsync: a crash between any two steps leaves partial records, which
        resuming discards, or finished records without lines, which it summarises again
        from the records (:meth:`examine`). Only the one process that holds the
        folder's lock calls this.

        The records are fsynced here, one after the other, not by whoever played them
        as each ended: every fsync of a new file waits for a journal commit, and
        episodes played in parallel fsyncing their own records made two workers wait on
        each other's commits (1.78x one worker's rate on two cores, against 1.91x when
        the run's one committer fsyncs a batch).
        """
        if not summaries:
            return
        episodes = [summary.episode_id for summary in summaries]
        moves = [(self.partial_path(e), self.record_path(e)) for e in episodes]
        for partial, _ in moves:
            fsync_path(partial)
        for partial, record in moves:
            os.replace(partial, record)
        fsync_path(self.records)
        self.append(*summaries)

    def append(self, *summaries: EpisodeSummary) -> None:
        """Append results lines durably, in a single write."""
        text = "".join(s.model_dump_json(by_alias=True) + "\n" for s in summaries)
        data = text.encode("utf-8")
        fd = os.open(self.episodes_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)

    def iter_records(self) -> Iterator[Path]:
        """Every finished record that can be read (:func:`harness.files.regular_files`)."""
        yield from regular_files(self.records, "*.jsonl", self.root)[0]


__all__ = [
    "EPISODES",
    "MANIFEST",
    "RECORDS",
    "Repair",
    "ResultsFolder",
    "fsync_path",
    "results_root",
    "summarize_played",
    "write_atomically",
    "write_lines_atomically",
]
