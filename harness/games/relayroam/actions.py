"""Parsing a model's reply text into a Relayroam action (decision RR19).

A model replies with one action in the rules' action grammar, as strict JSON,
optionally inside one ```` ``` ```` or ```` ```json ```` fence. Text that is not one
JSON object is a :class:`ParseFailure` (an expected outcome, not an exception). A
well-formed object is returned as it stands, even one the rules will refuse: judging
an action (unknown type, extra field, wall, wrong phase) is the rules' job, and their
refusal carries the reason and the legal actions back to the model (RR12).
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any

from harness.game import ParseFailure
from harness.text import MAX_REPLY_BYTES, scrub_surrogates, utf8_length

#: What a reply looks like, quoted in every failure message.
ACTION_SHAPE = (
    '{"type":"move","direction":"up"} (or "right", "down", "left"), {"type":"wait"}, '
    '{"type":"next"} or {"type":"bank"}'
)

# One fence around the whole reply: ```tag? body ```; the tag is checked separately so
# that a wrong tag gets its own message.
_FENCE = re.compile(r"\A```([A-Za-z0-9_.+-]*)(.*)```\Z", re.DOTALL)


class FailureKind(StrEnum):
    """The closed set of reasons a reply fails to parse."""

    TOO_LONG = "too_long"
    EMPTY = "empty"
    BAD_FENCE = "bad_fence"
    NOT_JSON = "not_json"
    DUPLICATE_KEY = "duplicate_key"
    NOT_OBJECT = "not_object"


def parse_action(text: str) -> dict[str, Any] | ParseFailure:
    """The JSON object ``text`` holds, or a :class:`ParseFailure` saying why there is none.

    Lone surrogates, in the text or produced by JSON escapes, become U+FFFD.
    """
    size = utf8_length(text)
    if size > MAX_REPLY_BYTES:
        return ParseFailure(
            FailureKind.TOO_LONG,
            f"reply too long: {size} bytes, the limit is {MAX_REPLY_BYTES}; reply with one "
            f"short JSON action: {ACTION_SHAPE}",
        )
    body = scrub_surrogates(text).strip()
    if not body:
        return ParseFailure(
            FailureKind.EMPTY, f"the reply is empty; reply with one JSON action: {ACTION_SHAPE}"
        )
    if body.startswith("```"):
        fence = _FENCE.match(body)
        if fence is None or fence.group(2).strip().startswith("```"):
            return ParseFailure(
                FailureKind.BAD_FENCE,
                "the code fence is not closed by ``` at the very end of the reply; send one "
                f"JSON action, optionally inside one ```json fence: {ACTION_SHAPE}",
            )
        tag = fence.group(1)
        if tag.lower() not in ("", "json"):
            return ParseFailure(
                FailureKind.BAD_FENCE,
                f"the code fence is tagged {tag!r}; only ``` or ```json may wrap the reply",
            )
        body = fence.group(2).strip()
    try:
        value = json.loads(body, parse_constant=_reject_constant, object_pairs_hook=_pairs)
    except _NonJsonConstant as exc:
        return ParseFailure(
            FailureKind.NOT_JSON, f"{exc} is not JSON; reply with one JSON action: {ACTION_SHAPE}"
        )
    except _DuplicateKey as exc:
        return ParseFailure(
            FailureKind.DUPLICATE_KEY,
            f"the key {json.dumps(str(exc))} appears twice; give each field once: {ACTION_SHAPE}",
        )
    except json.JSONDecodeError as exc:
        hint = (
            "the reply must be exactly one JSON object with nothing before or after it"
            if exc.msg in ("Expecting value", "Extra data")
            else "the reply is not valid JSON"
        )
        return ParseFailure(
            FailureKind.NOT_JSON,
            f"{hint} ({exc.msg} at line {exc.lineno} column {exc.colno}); reply with one "
            f"JSON action: {ACTION_SHAPE}",
        )
    if not isinstance(value, dict):
        return ParseFailure(
            FailureKind.NOT_OBJECT,
            f"the reply is a JSON {_json_type(value)}, not an object; reply with one JSON "
            f"action: {ACTION_SHAPE}",
        )
    return value


class _NonJsonConstant(ValueError):
    pass


class _DuplicateKey(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonJsonConstant(name)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Called for every object, innermost first. JSON escapes such as "\ud800" decode to
    # lone surrogates, in keys and values at any depth: replace them all so the action
    # (and any record of it) is valid UTF-8. A repeated key would silently keep its last
    # value; an action must be unambiguous, so it is refused.
    out: dict[str, Any] = {}
    for raw_key, value in pairs:
        key = scrub_surrogates(raw_key)
        if key in out:
            raise _DuplicateKey(key)
        out[key] = _scrub(value)
    return out


def _scrub(value: Any) -> Any:
    # Objects were scrubbed by _pairs already; strings and arrays are scrubbed here.
    if isinstance(value, str):
        return scrub_surrogates(value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array"


__all__ = ["ACTION_SHAPE", "FailureKind", "ParseFailure", "parse_action"]
