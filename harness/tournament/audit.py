"""Checking a results folder's results lines against its records.

A results line is derived from its record alone (``summarize``) and carries the
sha256 of the record's bytes. A line *matches* when its hash is the record's and every
figure it states equals the line the record gives now; a line written before lines
carried a hash matches on its figures alone (it is *unhashed*). Anything else (an
edited figure, a record changed or swapped, a record that is missing, unreadable or
has no end line, a second line for one episode, a line that is not a results line)
is a problem, named with the line's number and episode.

A record in records/ with no results line is an *orphan* (an episode a crash left
without its line), unless its header says it is a counterfactual
(``derivedFrom``: ``lighthouse replay --until-tick`` wrote it there): that is a
*stray*, no episode of the folder, named as such and never taken for one in play.

Checking a record against the engine is replay's job (:func:`engine_problem`); this
module only ties lines to records.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from pydantic.main import IncEx

from harness.errors import RecordError
from harness.files import (
    MAX_LINE_BYTES,
    MAX_RECORD_BYTES,
    numbered_lines,
    open_regular,
    refusal,
    regular_files,
)
from harness.protocol import GameEntry
from harness.reader import open_record
from harness.records import DerivedFrom
from harness.replay import first_difference, replay
from harness.summary import EpisodeSummary, split_episode_id, summarize_read


def file_sha256(path: Path, root: Path | None = None) -> str:
    """sha256 of a record's bytes, read in chunks (a regular file of at most
    :data:`~harness.files.MAX_RECORD_BYTES`, inside ``root`` when given)."""
    with open_regular(path, root, limit=MAX_RECORD_BYTES) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def derive(game: GameEntry, path: Path, root: Path | None = None) -> EpisodeSummary:
    """The results line the finished record at ``path`` gives now, its hash included.

    Raises :class:`RecordError` when the record cannot be read (with ``root``, its
    results folder: also when it leads out of it), is not of ``game``, has no end
    line, or holds another episode than its file name says.
    """
    try:
        digest = file_sha256(path, root)
        record = open_record(path, root=root)
        lines = record.lines()
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror}") from None
    except (ValueError, RecursionError) as exc:  # RecordError is a ValueError
        raise RecordError(str(exc) if isinstance(exc, RecordError) else f"{path}: {exc}") from None
    if record.game.name != game.name:
        raise RecordError(f"{path}: a {record.game.name} record, not {game.name}", line=1)
    if lines[-1].type != "end":
        raise RecordError(f"{path}: this record has no end line")
    header = lines[0]
    stem = path.name.removesuffix(".jsonl")
    if header.episode_id != stem:
        raise RecordError(f"{path}: this record is of episode {header.episode_id!r}, not {stem!r}")
    owner = split_episode_id(header.episode_id, header.variant, header.seed)
    if owner is None:
        raise RecordError(
            f"{path}: episode id {header.episode_id!r} is not "
            "<entrant>--<variant>--s<seed>--r<repetition> of its header's variant and seed"
        )
    try:
        summary = summarize_read(game.report, lines, entrant=owner[0], repetition=owner[1])
    except (LookupError, TypeError, ValueError, AttributeError) as exc:
        raise RecordError(f"{path}: cannot summarise it: {exc!r}") from None
    return summary.model_copy(update={"record_sha256": digest})


def derived_from(path: Path, root: Path | None = None) -> DerivedFrom | None:
    """The original a counterfactual record at ``path`` continues (its header's
    ``derivedFrom``); None for any other record, or one whose header cannot be read."""
    try:
        found = open_record(path, root=root).header.derived_from
    except (RecordError, OSError, ValueError, RecursionError):
        return None
    return found if isinstance(found, DerivedFrom) else None


def stray_note(name: str, origin: DerivedFrom) -> str:
    """The one line that names a counterfactual record found among a folder's records."""
    return (
        f"{name}: a counterfactual of {origin.episode_id} from tick {origin.until_tick} "
        "(lighthouse replay --until-tick), not an episode of this folder: left out of "
        "every count; move it out of the folder"
    )


def engine_problem(game: GameEntry, path: Path) -> str | None:
    """Why the record at ``path`` does not replay clean with the current engine, or None.

    Synchronous (it runs its own event loop): call it from a worker thread.
    """
    try:
        result = asyncio.run(replay(path, game))
    except RecordError as exc:
        return str(exc)
    if result.incomplete:
        return "this record has no end line"
    if result.mismatch is not None:
        return f"it does not replay clean: {result.mismatch.describe()}"
    return None


@dataclass(frozen=True)
class LineCheck:
    """What one line of episodes.jsonl was found to be."""

    number: int
    """The line's number in episodes.jsonl (1-based)."""
    line: EpisodeSummary | None
    """The line as written (None when it is not a results line)."""
    derived: EpisodeSummary | None
    """The line its record gives now (None when the record cannot give one)."""
    problem: str | None
    """Why the line cannot be trusted; None when it matches its record."""

    @property
    def episode_id(self) -> str | None:
        """The episode the line names."""
        return None if self.line is None else self.line.episode_id

    @property
    def unhashed(self) -> bool:
        """A matching line written before results lines carried the record's hash."""
        return self.problem is None and self.line is not None and self.line.record_sha256 is None

    def describe(self) -> str:
        """``N (ID): problem``: put the results file's path and a colon in front."""
        who = f" ({self.episode_id})" if self.episode_id else ""
        return f"{self.number}{who}: {self.problem}"


@dataclass(frozen=True)
class Audit:
    """Every results line of a folder checked, and what else was found."""

    checks: list[LineCheck]
    orphans: list[str]
    """Episodes with a record in records/ but no results line."""
    torn: bool
    """Whether episodes.jsonl ends in a line cut short (a run stopped mid-write)."""
    strays: dict[str, DerivedFrom]
    """Counterfactual records in records/ (by file stem), which are no episodes of it."""

    @property
    def problems(self) -> list[LineCheck]:
        """The lines that do not match their records."""
        return [c for c in self.checks if c.problem is not None]


def audit(episodes: Path, records: Path, game: GameEntry) -> Audit:
    """Check every line of ``episodes`` against its record in ``records`` (reads only)."""
    stream = AuditStream(episodes, records, game)
    checks = list(stream)
    return Audit(checks, stream.orphans(), torn=stream.torn, strays=stream.strays())


class AuditStream:
    """:func:`audit` one line at a time: iterate it once for every line's check (each
    read from the file and checked as it is asked for), then ask for the orphans.

    What it keeps while it reads is each episode id's first line number (to name a
    second line for one episode), not the lines.
    """

    def __init__(self, episodes: Path, records: Path, game: GameEntry) -> None:
        self.episodes = episodes
        self.records = records
        self.root = records.parent
        """The results folder: nothing outside it is read."""
        self.game = game
        self.torn = False
        """Whether episodes.jsonl ends in a line cut short (known once read to the end)."""
        self._first_line: dict[str, int] = {}
        self._listed: tuple[list[Path], list[str]] | None = None
        self._unlined: tuple[list[str], dict[str, DerivedFrom]] | None = None

    def __iter__(self) -> Iterator[LineCheck]:
        for number, raw in numbered_lines(self.episodes, self.root):
            if raw is None:
                yield LineCheck(number, None, None, f"not a results line: longer than "
                                f"{MAX_LINE_BYTES:,} bytes")  # fmt: skip
                continue
            if not raw.endswith(b"\n"):
                self.torn = True
                return
            yield _check(self.game, self.records, number, raw[:-1], self._first_line)

    def first_line(self, episode: str) -> int | None:
        """The number of the first line read so far that names ``episode``, or None."""
        return self._first_line.get(episode)

    def _records(self) -> tuple[list[Path], list[str]]:
        if self._listed is None:
            self._listed = regular_files(self.records, "*.jsonl", self.root)
        return self._listed

    def _without_lines(self) -> tuple[list[str], dict[str, DerivedFrom]]:
        """The records no line names (after iterating): orphans, and strays."""
        if self._unlined is None:
            named = self._first_line
            orphans: list[str] = []
            strays: dict[str, DerivedFrom] = {}
            for path in sorted(self._records()[0]):
                stem = path.name.removesuffix(".jsonl")
                if stem in named:
                    continue
                origin = derived_from(path, self.root)
                if origin is None:
                    orphans.append(stem)
                else:
                    strays[stem] = origin
            self._unlined = (sorted(orphans), strays)
        return self._unlined

    def orphans(self) -> list[str]:
        """Episodes with a record in records/ but no results line (after iterating);
        a record that cannot be read (:meth:`skipped`) is none, nor a counterfactual
        (:meth:`strays`)."""
        return list(self._without_lines()[0])

    def strays(self) -> dict[str, DerivedFrom]:
        """Counterfactual records in records/ that no line names (after iterating), by
        file stem, with the original each continues."""
        return dict(self._without_lines()[1])

    def skipped(self) -> list[str]:
        """A line for each entry of records/ that is not read: a symlink out of the
        folder, a FIFO, a device (:func:`harness.files.regular_files`)."""
        return list(self._records()[1])


def _unstated(line: EpisodeSummary) -> IncEx:
    """What not to compare of the line a record gives now: the line's hash, and each
    seat's figures that lines written before them never state (a seat's
    ``faithfulness``, which an older record gives too: a line without it matches on
    the figures it has)."""
    later: dict[str, IncEx | bool] = {
        seat: {"faithfulness"}
        for seat, stats in line.seats.items()
        if "faithfulness" not in stats.model_fields_set
    }
    unstated: dict[str, IncEx | bool] = {"record_sha256": True}
    if later:
        unstated["seats"] = later
    return unstated


def _check(
    game: GameEntry, records: Path, number: int, raw: bytes, first_line: dict[str, int]
) -> LineCheck:
    try:
        line = EpisodeSummary.model_validate_json(raw)
    except ValidationError as exc:
        return LineCheck(number, None, None, f"not a results line: {exc.errors()[0]['msg']}")
    earlier = first_line.setdefault(line.episode_id, number)
    if earlier != number:
        return LineCheck(number, line, None, f"a second line for it (the first: line {earlier})")
    path = records / f"{line.episode_id}.jsonl"
    refused = refusal(path, records.parent)
    if refused is not None:
        shown = f"{records.name}/{path.name}"
        return LineCheck(number, line, None, f"its record {shown} is {refused}")
    try:
        derived = derive(game, path, records.parent)
    except RecordError as exc:
        return LineCheck(number, line, None, f"its record cannot be used: {exc}")
    if line.record_sha256 is not None and line.record_sha256 != derived.record_sha256:
        return LineCheck(
            number, line, derived,
            f"its record changed since the line was written (the line holds sha256 "
            f"{line.record_sha256[:16]}..., the record is {(derived.record_sha256 or '')[:16]}...)",
        )  # fmt: skip
    stated = line.model_dump(mode="json", by_alias=True, exclude={"record_sha256"})
    given = derived.model_dump(mode="json", by_alias=True, exclude=_unstated(line))
    found = first_difference(stated, given)
    if found is not None:
        field, said, gives = found
        return LineCheck(
            number, line, derived, f"{field}: the line says {said!r}, its record gives {gives!r}"
        )
    return LineCheck(number, line, derived, None)


__all__ = [
    "Audit",
    "AuditStream",
    "LineCheck",
    "audit",
    "derive",
    "derived_from",
    "engine_problem",
    "file_sha256",
    "stray_note",
]
