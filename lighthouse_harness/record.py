"""An episode's record kept with its Inspect sample, and read back from it.

The solver keeps the whole record in the sample's store under :data:`RECORD_KEY`, as
the text of the record file ``lighthouse play --record`` would write (one JSON line
each for the header, every tick and the end), so the log holds it and
:mod:`lighthouse_harness.export` writes it back out byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.errors import RecordError
from harness.protocol import GameEntry
from harness.records import decode_line, validate_line
from harness.registry import game_names, get_game

#: The store key the record text is kept under.
RECORD_KEY = "lighthouse_harness/record"


def record_text(lines: Iterable[Mapping[str, Any]]) -> str:
    """Record lines (JSON objects) as the record file holds them: one compact line each."""
    return "".join(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n" for line in lines)


@dataclass(frozen=True)
class ParsedRecord:
    """A record read back: its game and its lines parsed with the game's record models."""

    game: GameEntry
    lines: list[Any]


def parse_record(text: str, where: str = "record") -> ParsedRecord:
    """The record ``text`` holds; a :class:`RecordError` naming ``where`` if it is not one."""
    raw = text.encode("utf-8", errors="replace").splitlines()
    if not raw:
        raise RecordError(f"{where}: empty")
    header = decode_line(raw[0], f"{where}:1", 1)  # strict JSON, its depth bounded
    game_name = header.get("game", "lighthouse") if isinstance(header, dict) else None
    if not isinstance(game_name, str) or game_name not in game_names():
        raise RecordError(f"{where}:1: the header names no game of the harness", line=1)
    game = get_game(game_name)
    adapter = game.codec.record_adapter
    lines = [
        validate_line(adapter, data, f"{where}:{number}", number)
        for number, data in enumerate(raw, start=1)
    ]
    if lines[0].type != "header" or lines[-1].type != "end":
        raise RecordError(f"{where}: a record runs from a header to an end line")
    return ParsedRecord(game, lines)


__all__ = ["RECORD_KEY", "ParsedRecord", "parse_record", "record_text"]
