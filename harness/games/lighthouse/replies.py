"""Parsing a seat's reply text into a decision (rules, "Replies"; decisions R1-R4, R8).

A reply that does not parse is an expected outcome, not an exception: the parsers
return a :class:`ParseFailure` whose ``message`` names the exact problem, so that the
retry hint can quote it to the model (decision R5).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness.games.lighthouse.state import KeeperDecision, Move, RunnerDecision
from harness.json_reply import FailureKind, ParseFailure, decode_json_object, json_type
from harness.text import (
    MAX_REPLY_BYTES,
    ClippedReply,
    clip_reply,
    scrub_surrogates,
    truncate_runes,
    utf8_length,
)

KEEPER_REPLY_SHAPE = '{"transmit": true, "message": "Sprocket N; Gizmo E", "notes": "..."}'
RUNNER_REPLY_SHAPE = '{"move": "N", "notes": "..."}'

#: Every spelling of a move the rules accept, upper-cased (matched ASCII-case-insensitively).
MOVE_ALIASES: dict[str, Move] = {
    "N": Move.N, "NORTH": Move.N, "UP": Move.N,
    "S": Move.S, "SOUTH": Move.S, "DOWN": Move.S,
    "E": Move.E, "EAST": Move.E, "RIGHT": Move.E,
    "W": Move.W, "WEST": Move.W, "LEFT": Move.W,
    "WAIT": Move.WAIT, "STAY": Move.WAIT, "HOLD": Move.WAIT, "H": Move.WAIT,
}  # fmt: skip


def parse_move(token: str) -> Move | None:
    """The move ``token`` names, matched exactly up to ASCII case, or None (decision R2)."""
    if not token.isascii():  # "\u017f".upper() == "S" in Python, but it is not a move
        return None
    return MOVE_ALIASES.get(token.upper())


def parse_keeper_reply(
    text: str, *, message_cap: int, notes_cap: int
) -> KeeperDecision | ParseFailure:
    """Parse a keeper reply ``{"transmit": bool, "message": str, "notes": str}``."""
    obj = _json_object(text, KEEPER_REPLY_SHAPE)
    if isinstance(obj, ParseFailure):
        return obj
    problem = _check_types(
        obj, {"transmit": bool, "message": str, "notes": str}, KEEPER_REPLY_SHAPE
    )
    if problem:
        return problem
    if "transmit" not in obj and "message" not in obj:
        return ParseFailure(
            FailureKind.MISSING_KEY,
            f'a keeper reply needs "transmit" or "message" (or both): {KEEPER_REPLY_SHAPE}',
        )
    notes = obj.get("notes")
    return KeeperDecision(
        transmit=obj.get("transmit"),
        message=truncate_runes(obj.get("message", ""), message_cap),
        notes=truncate_runes(notes, notes_cap) if notes is not None else None,
    )


def parse_runner_reply(text: str, *, notes_cap: int) -> RunnerDecision | ParseFailure:
    """Parse a runner reply ``{"move": "N|S|E|W|WAIT|...", "notes": str}``."""
    obj = _json_object(text, RUNNER_REPLY_SHAPE)
    if isinstance(obj, ParseFailure):
        return obj
    problem = _check_types(obj, {"move": str, "notes": str}, RUNNER_REPLY_SHAPE)
    if problem:
        return problem
    if "move" not in obj:
        return ParseFailure(
            FailureKind.MISSING_KEY, f'a runner reply needs "move"; expected {RUNNER_REPLY_SHAPE}'
        )
    move = parse_move(obj["move"])
    if move is None:
        return ParseFailure(
            FailureKind.BAD_MOVE,
            f'"move" is {json.dumps(obj["move"])}, which is not a move: use exactly one of '
            "N, S, E, W, WAIT (or NORTH/UP, SOUTH/DOWN, EAST/RIGHT, WEST/LEFT, STAY/HOLD/H), "
            "with no spaces",
        )
    notes = obj.get("notes")
    return RunnerDecision(
        move=move, notes=truncate_runes(notes, notes_cap) if notes is not None else None
    )


def _json_object(text: str, shape: str) -> dict[str, Any] | ParseFailure:
    """Exactly one strict JSON object, optionally in one code fence (R1, R3, R8).

    With duplicate keys the last wins (R1).
    """
    return decode_json_object(text, expect=f"expected {shape}")


def _check_types(
    obj: Mapping[str, object], types: dict[str, type], shape: str
) -> ParseFailure | None:
    for key, expected in types.items():
        if key in obj and not isinstance(obj[key], expected):
            wanted = "a boolean (true or false)" if expected is bool else "a string"
            return ParseFailure(
                FailureKind.WRONG_TYPE,
                f'"{key}" must be {wanted}, got {json_type(obj[key])}; expected {shape}',
            )
    return None


__all__ = [
    "KEEPER_REPLY_SHAPE",
    "MAX_REPLY_BYTES",
    "MOVE_ALIASES",
    "RUNNER_REPLY_SHAPE",
    "ClippedReply",
    "FailureKind",
    "ParseFailure",
    "clip_reply",
    "parse_keeper_reply",
    "parse_move",
    "parse_runner_reply",
    "scrub_surrogates",
    "truncate_runes",
    "utf8_length",
]
