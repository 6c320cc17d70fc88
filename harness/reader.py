"""The one record reader: a record file's game and its lines, validated.

Replay, the results folder (committing, auditing and resuming episodes), reports and
the command line all read records through :func:`open_record`: the header names the
game, the registry gives its entry, and the game's record models validate every line.
A problem is a :class:`~harness.errors.RecordError` whose message starts with
``path:line:`` and whose ``line`` and ``tick`` attributes say where, as data.

Lines end at ``\\n`` only, so a character like U+2028 inside a string never splits one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.errors import ConfigError, RecordError
from harness.files import MAX_RECORD_BYTES, read_regular
from harness.json_reply import json_type
from harness.protocol import GameEntry
from harness.records import AgentInfo, decode_line, validate_line
from harness.registry import get_game

#: Who played a seat of a hand-written record (its header names no agent).
HAND_WRITTEN = AgentInfo(kind="scripted", name="hand-written")
#: The harness version a hand-written header (one that names none) is given.
HAND_WRITTEN_VERSION = "hand-written"


@dataclass(frozen=True)
class Record:
    """A record as read: its game, its header (validated) and its raw lines."""

    path: Path
    game: GameEntry
    header: Any
    raw: tuple[tuple[int, bytes], ...]
    """Every non-blank line after the header: its number in the file and its bytes."""

    def lines(self) -> list[Any]:
        """Every line, the header first, validated with the game's record models."""
        adapter = self.game.codec.record_adapter
        parsed = [self.header]
        for number, data in self.raw:
            try:
                parsed.append(validate_line(adapter, data, f"{self.path}:{number}", number))
            except RecordError as exc:
                exc.tick = _tick_of_line(data)
                raise
        return parsed

    def objects(self) -> list[tuple[int, dict[str, Any]]]:
        """Every line after the header as a JSON object, with its number; not validated.

        For readers that judge lines themselves (replay compares a recorded tick with
        the replayed one, and accepts a hand-written tick that holds decisions only).
        """
        return [(number, _object_line(data, self.path, number)) for number, data in self.raw]


def open_record(
    path: Path,
    *,
    hand_written: bool = False,
    default_game: str = "lighthouse",
    root: Path | None = None,
) -> Record:
    """Read the record at ``path``: its game (from the header) and its lines.

    With ``hand_written``, a header may leave out what can be filled in: the game
    (``default_game``), the harness version, the episode id (the file's stem) and each
    seat's agent. Raises :class:`RecordError` naming the file and line; also when the
    file is not a regular file, is larger than :data:`~harness.files.MAX_RECORD_BYTES`,
    or (with ``root``, its results folder) leads out of ``root`` (:mod:`harness.files`).
    """
    try:
        # a regular file (never a FIFO or a device), at most MAX_RECORD_BYTES
        data = read_regular(path, root, limit=MAX_RECORD_BYTES)
    except FileNotFoundError:
        raise RecordError(f"{path}: cannot read: No such file or directory") from None
    lines = [(number, text) for number, text in enumerate(data.split(b"\n"), 1) if text.strip()]
    if not lines:
        raise RecordError(f"{path}:1: the first line must be the header", line=1)
    number, first = lines[0]
    doc = _object_line(first, path, number)
    if doc.get("type") != "header":
        raise RecordError(f"{path}:{number}: the first line must be the header", line=number)
    if hand_written:
        doc = _fill_hand_written(doc, path, default_game)
    name = doc.get("game")
    if not isinstance(name, str):
        problem = "Field required" if name is None else "must be a string"
        raise RecordError(f"{path}:{number}: game: {problem}", line=number)
    try:
        game = get_game(name)
    except ConfigError as exc:
        raise RecordError(f"{path}:{number}: {exc}", line=number) from None
    try:
        header = game.codec.record_adapter.validate_python(doc)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise RecordError(f"{path}:{number}: {where}: {error['msg']}", line=number) from None
    return Record(path, game, header, tuple(lines[1:]))


def _fill_hand_written(doc: dict[str, Any], path: Path, default_game: str) -> dict[str, Any]:
    filled = dict(doc)
    filled.setdefault("harnessVersion", HAND_WRITTEN_VERSION)
    filled.setdefault("game", default_game)
    filled.setdefault("episodeId", path.stem)
    seats = filled.get("seats", [])
    if isinstance(seats, list):  # anything else is left for validation to name
        filled["seats"] = [
            {"agent": HAND_WRITTEN.model_dump(), **seat} if isinstance(seat, dict) else seat
            for seat in seats
        ]
    return filled


def _object_line(data: bytes, path: Path, number: int) -> dict[str, Any]:
    """One record line, which must be a JSON object; :class:`RecordError` otherwise."""
    value = decode_line(data, f"{path}:{number}", number)
    if not isinstance(value, dict):
        raise RecordError(
            f"{path}:{number}: a record line must be a JSON object, not {json_type(value)}",
            line=number,
        )
    return value


def _tick_of_line(data: bytes) -> int | None:
    """The tick a (possibly broken) line says it is, if it says so plainly."""
    try:
        value = decode_line(data, "")
    except RecordError:
        return None
    tick = value.get("tick") if isinstance(value, dict) else None
    return tick if type(tick) is int else None


__all__ = ["HAND_WRITTEN", "HAND_WRITTEN_VERSION", "Record", "open_record"]
