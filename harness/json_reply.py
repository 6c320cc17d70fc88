"""Strict JSON: the reply shape every game uses, and the loader for states and bodies.

Lighthouse's decision R1 settles it and Relayroam (RR19) takes the same shape: the
reply, stripped, may be wrapped in one fence (```` ``` ```` or ```` ```json ````, the tag
in any case, possibly on one line); inside must be exactly one JSON object (NaN and
Infinity are not JSON). Nothing is fished out of prose. Lone surrogates, in the text or
made by JSON escapes, become U+FFFD in keys and values at any depth (R3). Failures are
returned as :class:`ParseFailure` values whose messages a retry hint can quote.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any

from harness.game import ParseFailure
from harness.text import MAX_REPLY_BYTES, scrub_surrogates, utf8_length

# One fence around the whole reply: ```tag? body ```; the tag is checked separately so
# that a wrong tag gets its own message.
_FENCE = re.compile(r"\A```([A-Za-z0-9_.+-]*)(.*)```\Z", re.DOTALL)


class FailureKind(StrEnum):
    """Why text is not one JSON object (games add their own kinds beside these)."""

    TOO_LONG = "too_long"
    EMPTY = "empty"
    BAD_FENCE = "bad_fence"
    NOT_JSON = "not_json"
    DUPLICATE_KEY = "duplicate_key"
    NOT_OBJECT = "not_object"


def decode_json_object(
    text: str, *, expect: str, reject_duplicate_keys: bool = False
) -> dict[str, Any] | ParseFailure:
    """The one JSON object ``text`` holds, or why there is none.

    ``expect`` ends every message (e.g. ``expected {"move": "N"}``). With duplicate keys
    the last wins, unless ``reject_duplicate_keys``.
    """
    size = utf8_length(text)
    if size > MAX_REPLY_BYTES:
        return ParseFailure(
            FailureKind.TOO_LONG,
            f"reply too long: {size} bytes, the limit is {MAX_REPLY_BYTES}; {expect}",
        )
    body = scrub_surrogates(text).strip()
    if not body:
        return ParseFailure(FailureKind.EMPTY, f"the reply is empty; {expect}")
    if body.startswith("```"):
        fence = _FENCE.match(body)
        if fence is None or fence.group(2).strip().startswith("```"):
            return ParseFailure(
                FailureKind.BAD_FENCE,
                "the code fence is not closed by ``` at the very end of the reply; send one "
                f"JSON object, optionally inside one ```json fence; {expect}",
            )
        tag = fence.group(1)
        if tag.lower() not in ("", "json"):
            return ParseFailure(
                FailureKind.BAD_FENCE,
                f"the code fence is tagged {tag!r}; only ``` or ```json may wrap the reply",
            )
        body = fence.group(2).strip()
    hook = _pairs_rejecting_duplicates if reject_duplicate_keys else _pairs
    try:
        value = json.loads(body, parse_constant=_reject_constant, object_pairs_hook=hook)
    except _NonJsonConstant as exc:
        return ParseFailure(FailureKind.NOT_JSON, f"{exc} is not JSON; {expect}")
    except _DuplicateKey as exc:
        return ParseFailure(
            FailureKind.DUPLICATE_KEY,
            f"the key {json.dumps(str(exc))} appears twice; give each field once; {expect}",
        )
    except json.JSONDecodeError as exc:
        hint = (
            "the reply must be exactly one JSON object with nothing before or after it"
            if exc.msg in ("Expecting value", "Extra data")
            else "the reply is not valid JSON"
        )
        return ParseFailure(
            FailureKind.NOT_JSON,
            f"{hint} ({exc.msg} at line {exc.lineno} column {exc.colno}); {expect}",
        )
    if not isinstance(value, dict):
        return ParseFailure(
            FailureKind.NOT_OBJECT,
            f"the reply is a JSON {json_type(value)}, not an object; {expect}",
        )
    return value


class StrictJsonError(ValueError):
    """Text that is not strict JSON: invalid, NaN or Infinity, a repeated key, too deep."""


def strict_loads(text: str) -> Any:
    """Decode strict JSON: no NaN or Infinity, no repeated key, surrogates scrubbed.

    Every failure, however deep or large the input, is a :class:`StrictJsonError`.
    """
    try:
        return json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_pairs_rejecting_duplicates
        )
    except _NonJsonConstant as exc:
        raise StrictJsonError(f"{exc} is not a JSON number") from None
    except _DuplicateKey as exc:
        raise StrictJsonError(f"duplicate key {str(exc)!r}") from None
    except RecursionError:
        raise StrictJsonError("nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and integers past Python's digit limit
        raise StrictJsonError(str(exc)) from None


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type (null, boolean, number, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _NonJsonConstant(ValueError):
    pass


class _DuplicateKey(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonJsonConstant(name)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Called for every object, innermost first: scrub keys and values at any depth.
    return {scrub_surrogates(key): _scrub(value) for key, value in pairs}


def _pairs_rejecting_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw_key, value in pairs:
        key = scrub_surrogates(raw_key)
        if key in out:
            raise _DuplicateKey(key)
        out[key] = _scrub(value)
    return out


def _scrub(value: Any) -> Any:
    # Objects were scrubbed by the pairs hook already; strings and arrays are done here.
    if isinstance(value, str):
        return scrub_surrogates(value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


__all__ = ["FailureKind", "StrictJsonError", "decode_json_object", "json_type", "strict_loads"]
