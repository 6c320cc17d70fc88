"""Strict JSON: the reply shape every game uses, and the loader for states and bodies.

Lighthouse's decision R1 settles it and Relayroam (RR19) takes the same shape: the
reply, stripped, may be wrapped in one fence (```` ``` ```` or ```` ```json ````, the tag
in any case, possibly on one line); inside must be exactly one JSON object (NaN and
Infinity are not JSON, nor is a number too large for a float, like ``1e999``). Nothing
is fished out of prose. Lone surrogates, in the text or made by JSON escapes, become
U+FFFD in keys and values at any depth (R3). Failures are returned as
:class:`ParseFailure` values whose messages a retry hint can quote; their kinds, for
every game, are the one closed set :class:`FailureKind`.

Every parse here takes time linear in its input: the fence is checked with string
methods and one possessive match (no backtracking), nesting is bounded by a linear
pre-scan (:mod:`harness.scan`) before ``json`` recurses into anything, and integers
are refused past :data:`MAX_INT_DIGITS` digits before Python converts them (a
conversion whose cost grows with the square of the length).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.scan import ScanMeter, json_shape, needs_json_scan
from harness.text import MAX_REPLY_BYTES, cut_short, scrub_surrogates

#: Arrays and objects nested deeper than this are refused (replies, states, bodies,
#: record lines) before ``json`` recurses into them.
MAX_JSON_DEPTH = 64
#: Replies, states and bodies with more tokens than this (strings, brackets and commas
#: outside strings) are refused before decoding: a reply is one small object, and the
#: scan and decode of hundreds of thousands of tokens would hold the interpreter for
#: a long time (``json`` decodes without ever letting another thread in).
MAX_JSON_TOKENS = 4096
#: Integers longer than this many digits are refused (Python's own default limit,
#: stated here so that no interpreter setting changes what parses).
MAX_INT_DIGITS = 4300

# A fence's tag: one possessive run of one character class, so it cannot backtrack.
_FENCE_TAG = re.compile(r"[A-Za-z0-9_.+-]*+")
_FENCE = "```"


class FailureKind(StrEnum):
    """Why a reply is not a decision: the closed set, for every game.

    The first seven say why text is not one JSON object; the rest, why an object is
    not a decision of the game (Lighthouse's replies use them). A refusal by the rules
    is not parsing: its kind is ``refused:<reason>`` (see :class:`ParseFailure`).
    """

    TOO_LONG = "too_long"
    EMPTY = "empty"
    BAD_FENCE = "bad_fence"
    NOT_JSON = "not_json"
    DUPLICATE_KEY = "duplicate_key"
    NOT_OBJECT = "not_object"
    TOO_COMPLEX = "too_complex"
    WRONG_TYPE = "wrong_type"
    MISSING_KEY = "missing_key"
    BAD_MOVE = "bad_move"


@dataclass(frozen=True)
class ParseFailure:
    """A reply that does not parse: an expected outcome, returned rather than raised.

    ``kind`` is a :class:`FailureKind`, or ``refused:<reason>`` when the rules refuse a
    parsed decision; ``message`` names the exact problem and the expected shape,
    precise enough to quote in a retry hint.
    """

    kind: str
    message: str


def decode_json_object(
    text: str,
    *,
    expect: str,
    reject_duplicate_keys: bool = False,
    meter: ScanMeter | None = None,
) -> dict[str, Any] | ParseFailure:
    """The one JSON object ``text`` holds, or why there is none.

    ``expect`` ends every message (e.g. ``expected {"move": "N"}``). With duplicate keys
    the last wins, unless ``reject_duplicate_keys``. ``meter``, when given, counts every
    pass over the text (tests hold the parse to linear time with it).
    """
    meter = meter if meter is not None else ScanMeter()
    clean = scrub_surrogates(text)
    size = len(clean.encode("utf-8"))
    meter.add(2 * len(text))
    if size > MAX_REPLY_BYTES:
        return ParseFailure(
            FailureKind.TOO_LONG,
            f"reply too long: {size} bytes, the limit is {MAX_REPLY_BYTES}; {expect}",
        )
    body = clean.strip()
    meter.add(len(text))
    if not body:
        return ParseFailure(FailureKind.EMPTY, f"the reply is empty; {expect}")
    if body.startswith(_FENCE):
        unfenced = _unfence(body, expect, meter)
        if isinstance(unfenced, ParseFailure):
            return unfenced
        body = unfenced
    problem = _shape_problem(body, MAX_JSON_DEPTH, MAX_JSON_TOKENS, meter)
    if problem is not None:
        return ParseFailure(FailureKind.TOO_COMPLEX, f"the reply is {problem}; {expect}")
    hook = _pairs_rejecting_duplicates if reject_duplicate_keys else _pairs
    try:
        value = _loads(body, hook)
    except _NonJsonConstant as exc:
        return ParseFailure(FailureKind.NOT_JSON, f"{exc} is not JSON; {expect}")
    except _NumberOutOfRange as exc:
        return ParseFailure(FailureKind.NOT_JSON, f"{exc}; {expect}")
    except RecursionError:  # unreachable past the pre-scan, unless the stack is nearly full
        return ParseFailure(FailureKind.TOO_COMPLEX, f"the reply nests too deeply; {expect}")
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


def _shape_problem(
    text: str, max_depth: int, max_tokens: int | None, meter: ScanMeter | None = None
) -> str | None:
    """Why ``text`` is too deep or too large to decode, or None (see :mod:`harness.scan`)."""
    if not needs_json_scan(text):
        return None
    shape = json_shape(text, max_depth=max_depth, max_tokens=max_tokens, meter=meter)
    if shape.depth > max_depth:
        return f"nested too deeply (more than {max_depth} levels of arrays and objects)"
    if max_tokens is not None and shape.tokens > max_tokens:
        return f"too large (more than {max_tokens} strings, brackets and commas)"
    return None


def _unfence(body: str, expect: str, meter: ScanMeter) -> str | ParseFailure:
    """What one fence around the whole of ``body`` wraps, or why it does not.

    ``body`` is stripped and starts with ```` ``` ````. Linear: one possessive match
    for the tag, then fixed-size checks and one slice and strip of the rest.
    """
    tag_end = _FENCE_TAG.match(body, len(_FENCE)).end()  # type: ignore[union-attr]
    rest = body[tag_end:]
    inner = rest[: -len(_FENCE)].strip()
    meter.add(tag_end + 2 * len(rest))
    if len(rest) < len(_FENCE) or not rest.endswith(_FENCE) or inner.startswith(_FENCE):
        return ParseFailure(
            FailureKind.BAD_FENCE,
            "the code fence is not closed by ``` at the very end of the reply; send one "
            f"JSON object, optionally inside one ```json fence; {expect}",
        )
    tag = body[len(_FENCE) : tag_end]
    if tag.lower() not in ("", "json"):
        shown = cut_short(tag, 40)
        return ParseFailure(
            FailureKind.BAD_FENCE,
            f"the code fence is tagged {shown!r}; only ``` or ```json may wrap the reply",
        )
    return inner


class StrictJsonError(ValueError):
    """Text that is not strict JSON: invalid, NaN or Infinity, a repeated key, too deep.

    ``reason`` says what is wrong without a position; ``at_end`` is True when the text
    stopped in the middle of a value (cut short); ``str()`` adds the position.
    """

    def __init__(self, reason: str, *, position: int | None = None, at_end: bool = False):
        where = f" at character {position}" if position is not None else ""
        super().__init__(reason + where)
        self.reason = reason
        self.at_end = at_end


def strict_loads(
    text: str, *, max_depth: int = MAX_JSON_DEPTH, max_tokens: int | None = MAX_JSON_TOKENS
) -> Any:
    """Decode strict JSON: no NaN, Infinity or 1e999, no repeated key, surrogates scrubbed.

    Text nesting deeper than ``max_depth``, or holding more than ``max_tokens`` strings,
    brackets and commas (None: no limit), is refused before it is decoded. Every
    failure, however deep or large the input, is a :class:`StrictJsonError`.
    """
    return _bounded_loads(text, max_depth, max_tokens, _strict)


def wire_loads(text: str, *, max_depth: int, max_tokens: int | None) -> Any:
    """Decode JSON as a server on the wire sends it, with the same bounds as :func:`strict_loads`.

    The grammar is the one Python's ``json`` (and so every SDK) accepts: NaN and
    Infinity, and numbers that overflow a float, decode to floats, and a repeated
    key's last value wins, so that a value the caller never reads cannot spoil an
    answer; what the caller reads it checks itself (a token count, say, see
    :func:`harness.llm.types.token_count`). Nesting and size are bounded by the
    pre-scan before anything is decoded, integers by :data:`MAX_INT_DIGITS`, and lone
    surrogates become U+FFFD. Every failure is a :class:`StrictJsonError`.
    """
    return _bounded_loads(text, max_depth, max_tokens, _lenient)


def _strict(text: str) -> Any:
    return _loads(text, _pairs_rejecting_duplicates)


def _lenient(text: str) -> Any:
    return json.loads(text, parse_int=_bounded_int, object_pairs_hook=_pairs)


def _bounded_loads(
    text: str, max_depth: int, max_tokens: int | None, decode: Callable[[str], Any]
) -> Any:
    problem = _shape_problem(text, max_depth, max_tokens)
    if problem is not None:
        raise StrictJsonError(problem)
    try:
        return decode(text)
    except _NonJsonConstant as exc:
        raise StrictJsonError(f"{exc} is not a JSON number") from None
    except _NumberOutOfRange as exc:
        raise StrictJsonError(str(exc)) from None
    except _DuplicateKey as exc:
        raise StrictJsonError(f"duplicate key {str(exc)!r}") from None
    except RecursionError:  # unreachable past the pre-scan, unless the stack is nearly full
        raise StrictJsonError("nested too deeply") from None
    except json.JSONDecodeError as exc:
        # An unterminated string runs to the end: the text stopped inside a value.
        unterminated = exc.msg.startswith("Unterminated string")
        at_end = unterminated or exc.pos >= len(text.rstrip())
        reason = exc.msg.removesuffix(" starting at")
        raise StrictJsonError(reason, position=exc.pos, at_end=at_end) from None
    except ValueError as exc:  # anything else json itself refuses
        raise StrictJsonError(str(exc)) from None


def _loads(text: str, hook: Any) -> Any:
    return json.loads(
        text,
        parse_constant=_reject_constant,
        parse_float=_finite_float,
        parse_int=_bounded_int,
        object_pairs_hook=hook,
    )


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


def a_json_type(value: Any) -> str:
    """:func:`json_type` as a sentence names it, with its article: ``null``, ``a number``,
    ``an object``, ..."""
    kind = json_type(value)
    return kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


class _NonJsonConstant(ValueError):
    pass


class _DuplicateKey(ValueError):
    pass


class _NumberOutOfRange(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonJsonConstant(name)


def _finite_float(text: str) -> float:
    value = float(text)  # linear in the length; rounds to infinity past 1.8e308
    if math.isinf(value):
        shown = cut_short(text, 24)
        raise _NumberOutOfRange(f"the number {shown} is too large (it overflows to infinity)")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise _NumberOutOfRange(
            f"an integer of {digits} digits is too large (at most {MAX_INT_DIGITS})"
        )
    try:
        return int(text)
    except ValueError:  # the interpreter's own digit limit, when set lower than ours
        raise _NumberOutOfRange(f"an integer of {digits} digits is too large") from None


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


__all__ = [
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "MAX_JSON_TOKENS",
    "FailureKind",
    "ParseFailure",
    "StrictJsonError",
    "a_json_type",
    "decode_json_object",
    "json_type",
    "strict_loads",
    "wire_loads",
]
