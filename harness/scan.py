"""Linear pre-scans of untrusted JSON and TOML text: how deep it nests, before parsing it.

Python's ``json`` and ``tomllib`` recurse once per level of nesting, so text nested a
few thousand levels deep raises :class:`RecursionError` (or, for TOML's dotted keys,
takes time quadratic in the key's length). Each parser of untrusted text therefore
scans its input first, in one forward pass, and refuses it when it nests deeper than
the parser's limit; only then is the text handed to the real parser.

A scan walks the text once: each step matches one possessive regular expression (a
run of plain characters, or the body of a string) from where the last step ended, so
no character is looked at twice and nothing backtracks. Brackets inside strings and
comments are not counted. On text that is not valid JSON or TOML the count is still a
safe over-estimate of what the parser would recurse into; the parser then reports the
text's real problem. A JSON scan also counts tokens, so that a caller can bound the
work of the scan (one loop turn per token) and of the parse that follows.

A :class:`ScanMeter` passed in counts the work done (steps and characters passed
over), so tests can hold a scan to linear time without timing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The most characters one match of a JSON scan covers. Each match runs in C without
#: letting other threads in; a cap keeps every one short (well under a millisecond),
#: so a scan in a worker thread never holds up the event loop for long.
CHUNK = 1 << 16


@dataclass
class ScanMeter:
    """The work a scan did: ``steps`` loop turns and ``chars`` characters passed over."""

    steps: int = 0
    chars: int = 0

    def add(self, chars: int) -> None:
        """Count one step that passed over ``chars`` characters."""
        self.steps += 1
        self.chars += chars


@dataclass(frozen=True)
class Shape:
    """What a scan found: the deepest nesting and the number of tokens seen.

    A scan stops as soon as a limit is passed, so ``depth`` and ``tokens`` are exact
    only within the limits given (and one past a limit when it stopped there).
    ``stopped_at`` is the index where the scan stopped, or the text's length.
    """

    depth: int
    tokens: int
    stopped_at: int


# JSON: outside strings only " [ ] { } , matter; a possessive run skips everything else.
_JSON_PLAIN = re.compile(r'[^"\[\]{},]*+')
# The body of a JSON string up to its closing quote, escapes included. It stops at the
# closing quote, at the end, or before a backslash whose escaped character is past
# the end (of the text, or of the chunk: the next step takes it up there).
_JSON_STRING = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+', re.DOTALL)


def json_shape(
    text: str,
    *,
    max_depth: int,
    max_tokens: int | None = None,
    meter: ScanMeter | None = None,
) -> Shape:
    """Scan ``text`` as JSON: the nesting of its arrays and objects, and its tokens.

    ``tokens`` counts the strings, brackets and commas outside strings; the scan stops
    once ``depth`` passes ``max_depth`` or ``tokens`` passes ``max_tokens``. The loop
    turns at most twice per token (a string's body is a turn of its own) and twice per
    :data:`CHUNK` characters.
    """
    meter = meter if meter is not None else ScanMeter()
    depth = deepest = tokens = 0
    in_string = False
    pos, end = 0, len(text)
    while pos < end:
        stop = min(pos + CHUNK, end)
        if in_string:
            after = _end(_JSON_STRING, text, pos, stop)
            if after < stop and text[after] == '"':
                after += 1  # the closing quote
                in_string = False
            elif after < stop and after + 1 >= end:
                after = end  # a lone backslash ends the text: the string never closes
            meter.add(after - pos)
            pos = after
            continue
        skip = _end(_JSON_PLAIN, text, pos, stop)
        if skip == stop:
            meter.add(skip - pos)
            pos = skip
            continue
        char = text[skip]
        meter.add(skip + 1 - pos)
        pos = skip + 1
        tokens += 1
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            # A closer with nothing open is a syntax error that the parser stops at
            # before recursing; never let it hide the depth of what follows.
            depth = max(depth - 1, 0)
        if deepest > max_depth or (max_tokens is not None and tokens > max_tokens):
            return Shape(deepest, tokens, pos)
    return Shape(deepest, tokens, pos)


def needs_json_scan(text: str) -> bool:
    """Whether ``text`` could make ``json`` recurse: it starts (after JSON whitespace)
    with ``[`` or ``{``. Anything else is one scalar, or an error at its first
    character, which ``json`` decodes in linear time without recursing."""
    first = _end(_JSON_SPACE, text, 0, len(text))
    return first < len(text) and text[first] in "[{"


_JSON_SPACE = re.compile(r"[ \t\n\r]*+")


# TOML: outside strings and comments, quotes, comments, brackets and key separators
# matter. A dotted key's parts are counted from the last = , [ ] { } or newline.
_TOML_PLAIN = re.compile(r"[^\"'#\[\]{}=,.\n]*+")
_TOML_BASIC = re.compile(r'[^"\\\n]*+(?:\\[^\n][^"\\\n]*+)*+')
_TOML_LITERAL = re.compile(r"[^'\n]*+")
_TOML_ML_BASIC = re.compile(r'[^"\\]*+(?:(?:\\.|"(?!""))[^"\\]*+)*+', re.DOTALL)
_TOML_ML_LITERAL = re.compile(r"[^']*+(?:'(?!'')[^']*+)*+")
_TOML_COMMENT = re.compile(r"#[^\n]*+")
# A multi-line string may end with up to two quotes of its own before the closing three.
_QUOTE_RUN = {'"': re.compile(r'"{0,5}+'), "'": re.compile(r"'{0,5}+")}


def toml_shape(text: str, *, max_depth: int, meter: ScanMeter | None = None) -> Shape:
    """Scan ``text`` as TOML: the deeper of its bracket nesting and its dotted keys.

    ``depth`` is the deepest of the nesting of arrays and inline tables and the number
    of parts of any dotted key (``a.b.c`` has 3); ``tokens`` is not counted (0). The
    scan stops once ``depth`` passes ``max_depth``.
    """
    meter = meter if meter is not None else ScanMeter()
    depth = deepest = 0
    parts = 1
    pos, end = 0, len(text)
    while pos < end:
        skip = _end(_TOML_PLAIN, text, pos)
        meter.add(skip - pos)
        pos = skip
        if pos >= end:
            break
        char = text[pos]
        if char in "\"'":
            after = _toml_string_end(text, pos)
        elif char == "#":
            after = _end(_TOML_COMMENT, text, pos)  # the newline is left to reset parts
        else:
            after = pos + 1
            if char == ".":
                parts += 1
                deepest = max(deepest, parts)
            else:
                parts = 1
                if char in "[{":
                    depth += 1
                    deepest = max(deepest, depth)
                elif char in "]}":
                    depth = max(depth - 1, 0)
        meter.add(after - pos)
        pos = after
        if deepest > max_depth:
            return Shape(deepest, 0, pos)
    return Shape(deepest, 0, pos)


def _toml_string_end(text: str, pos: int) -> int:
    """The index just past the TOML string that opens at ``pos``."""
    quote = text[pos]
    if text.startswith(quote * 3, pos):
        body = _TOML_ML_BASIC if quote == '"' else _TOML_ML_LITERAL
        close = _end(body, text, pos + 3)
        return _end(_QUOTE_RUN[quote], text, close)
    body = _TOML_BASIC if quote == '"' else _TOML_LITERAL
    close = _end(body, text, pos + 1)
    # A one-line string cannot hold a newline: one that reaches it ends there, as TOML
    # would refuse it, so nothing on the next line hides inside a runaway string.
    return close + 1 if close < len(text) and text[close] == quote else close


def _end(pattern: re.Pattern[str], text: str, pos: int, stop: int | None = None) -> int:
    """Where ``pattern``, matched at ``pos`` (up to ``stop``), ends; ``pos`` if no match."""
    match = pattern.match(text, pos, len(text) if stop is None else stop)
    return match.end() if match is not None else pos


def line_of(text: str, index: int) -> int:
    """The 1-based line number of ``text[index]``."""
    return text.count("\n", 0, index) + 1


__all__ = ["CHUNK", "ScanMeter", "Shape", "json_shape", "line_of", "needs_json_scan", "toml_shape"]
