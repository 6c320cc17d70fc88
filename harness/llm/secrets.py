"""The one redaction every outgoing message passes through.

A server may echo an API key back in an error body, whole or altered, and a model
may repeat one in its reply: a middle slice, percent-encoded, base64-encoded (as in
a ``Basic`` header), upper-cased, reversed, hex-encoded, every character shifted by
one, spread out with spaces or cut into groups of four. So a message is scrubbed of
every 8-character slice of each known key, and of each 8-character slice of these
forms of it:

- percent-encoding (``quote`` with and without ``/`` safe, ``quote_plus``),
- JSON and Python string escapes,
- base64, standard and URL-safe, in each of the three byte alignments a key can
  take inside a longer encoded text (only the characters the key alone decides),
- the key reversed, its UTF-8 in hexadecimal, and the key with every character's
  code point one up or one down.

Matching ignores ASCII case (hiding too much is harmless). Keys shorter than
8 characters are hidden whole. A second pass looks at the message with its
separators (:data:`SEPARATORS`: whitespace, dashes, dots, colons, commas, ...) taken
out, against the same forms with theirs taken out, so a key spelled ``s k - t e s t``
or ``sk-t est- CANA RY7f`` is found too; what it finds is hidden with the separators
inside it. The work is linear in the message: every slice of every form goes into a
set once per key, and each pass probes the message at every fourth position with
5-character pieces, checking the 8-character windows around a probe only when the
probe hits.

Keys are registered once, when they are read (:func:`register_secret`); from then
on :func:`redact` hides them in every text it is given, and every log record the
process creates is redacted too (a log record factory), whoever logs it.

The marker :data:`REDACTED` holds a non-ASCII character in every 8-character
window, so a marker can never combine with its neighbours into a slice of a key
(keys are ASCII, see :mod:`harness.llm.keys`): one pass is enough.
"""

from __future__ import annotations

import base64
import bisect
import functools
import json
import logging
import re
import threading
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, quote_plus

#: What a hidden piece of a key is replaced with.
REDACTED = "«secret»"

#: Slices of this many characters (of a key or an encoding of it) are hidden.
WINDOW = 8
# The scan probes every STEP-th position with PROBE characters: any WINDOW-long match
# holds a probe start at a multiple of STEP, since WINDOW - PROBE + 1 == STEP.
_PROBE = 5
_STEP = WINDOW - _PROBE + 1

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

#: Characters a key's echo may be spread out with, taken out by the second pass.
SEPARATORS = " \t\n\r\f\v-_.:,;|/\"'"
_DROP_SEPARATORS = str.maketrans("", "", SEPARATORS)
# the second pass maps what it found back to the message a block at a time
_BLOCK = 4096


def _lower(text: str) -> str:
    """ASCII-only lower case: the same length as ``text``, position for position."""
    return text.translate(_ASCII_LOWER)


def _base64_cores(data: bytes) -> list[str]:
    """The base64 characters decided by ``data`` alone, in each byte alignment.

    Inside a longer encoded text the key starts at some byte offset; modulo 3 there
    are three alignments. A character encodes 6 bits; it is kept when all of them
    are the key's.
    """
    cores = []
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for align in range(3):
            encoded = encode(b"\0" * align + data + b"\0\0\0").decode("ascii")
            first_bit, end_bit = 8 * align, 8 * (align + len(data))
            first = -(-first_bit // 6)  # ceil: the first character wholly inside the key
            last = end_bit // 6  # exclusive: characters ending at or before the key's end
            cores.append(encoded[first:last])
    return cores


def _shifted(secret: str, by: int) -> str:
    """``secret`` with every code point moved by ``by`` (kept inside Unicode)."""
    return "".join(chr(min(max(ord(c) + by, 0), 0x10FFFF)) for c in secret)


def encodings(secret: str) -> list[str]:
    """``secret`` and the encodings and alterations of it that are hidden along with it."""
    errors = "surrogatepass"  # any str at all, lone surrogates too, has an encoding
    forms = [
        secret,
        quote(secret, safe="", errors=errors),
        quote(secret, errors=errors),
        quote_plus(secret, errors=errors),
        quote_plus(secret, safe="/", errors=errors),
        json.dumps(secret)[1:-1],
        repr(secret)[1:-1],
        secret[::-1],
        secret.encode("utf-8", errors).hex(),
        _shifted(secret, 1),
        _shifted(secret, -1),
    ]
    return list(dict.fromkeys(forms))


@dataclass(frozen=True)
class _Needles:
    """What to look for: lower-cased windows, probes, and whole short forms."""

    windows: frozenset[str] = frozenset()
    probes: frozenset[str] = frozenset()
    whole: frozenset[str] = frozenset()

    def __or__(self, other: _Needles) -> _Needles:
        return _Needles(
            self.windows | other.windows, self.probes | other.probes, self.whole | other.whole
        )


@functools.lru_cache(maxsize=64)
def _needles(secret: str, compact: bool = False) -> _Needles:
    """What to look for in a message (``compact``: in a message without separators)."""
    windows: set[str] = set()
    probes: set[str] = set()
    whole: set[str] = set()
    forms = encodings(secret)
    fragments = _base64_cores(secret.encode("utf-8", "surrogatepass"))
    if compact:
        forms = [_compact(form) for form in forms]
        fragments = [_compact(fragment) for fragment in fragments]
    for form in forms + fragments:
        low = _lower(form)
        if len(low) < WINDOW:
            # a short key is hidden whole; a short base64 fragment would hide too much
            if form in forms and low:
                whole.add(low)
            continue
        for i in range(len(low) - WINDOW + 1):
            windows.add(low[i : i + WINDOW])
        for i in range(len(low) - _PROBE + 1):
            probes.add(low[i : i + _PROBE])
    return _Needles(frozenset(windows), frozenset(probes), frozenset(whole))


def _compact(text: str) -> str:
    """``text`` without :data:`SEPARATORS`."""
    return text.translate(_DROP_SEPARATORS)


def _spans(low: str, needles: _Needles) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) spans of ``low`` to hide."""
    found: list[tuple[int, int]] = []
    windows, probes, n = needles.windows, needles.probes, len(low)
    if windows:
        for j in range(0, n - _PROBE + 1, _STEP):
            if low[j : j + _PROBE] not in probes:
                continue
            # a window holding this probe starts at most WINDOW - PROBE before it (and
            # those starts lie after the previous probe's: the spans come out sorted)
            for t in range(max(j - (WINDOW - _PROBE), 0), min(j, n - WINDOW) + 1):
                if low[t : t + WINDOW] in windows:
                    found.append((t, t + WINDOW))
    if needles.whole:
        pattern = "|".join(re.escape(w) for w in sorted(needles.whole, key=len, reverse=True))
        found.extend(m.span() for m in re.finditer(pattern, low))
        found.sort()
    return _merged(found)


def _merged(found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted (start, end) spans with overlapping and touching ones joined."""
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _compact_spans(text: str, low: str, needles: _Needles) -> list[tuple[int, int]]:
    """Spans of ``text`` whose characters, separators left out, hold a piece of a key."""
    compact = _compact(low)
    if len(compact) == len(low):
        return []  # no separator: the first pass saw all there is
    found = _spans(compact, needles)
    if not found:
        return []
    # where a character of the compact text stands in the message: by blocks (their
    # compact lengths, counted in C), then within one block
    starts = [0]
    for at in range(0, len(low), _BLOCK):
        starts.append(starts[-1] + len(_compact(low[at : at + _BLOCK])))

    def place(index: int) -> int:
        block = bisect.bisect_right(starts, index) - 1
        left = index - starts[block]
        for at in range(block * _BLOCK, len(low)):
            if low[at] not in SEPARATORS:
                if left == 0:
                    return at
                left -= 1
        raise AssertionError("unreachable: the index is inside the compact text")

    return [(place(start), place(end - 1) + 1) for start, end in found]


class Redactor:
    """Hides a set of secrets; :meth:`add` more at any time (thread-safe)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._secrets: frozenset[str] = frozenset()
        self._needles = _Needles()
        self._compact = _Needles()
        for secret in secrets:
            self.add(secret)

    @property
    def secrets(self) -> frozenset[str]:
        """The secrets it hides."""
        return self._secrets

    def add(self, secret: str) -> None:
        """Hide ``secret`` from now on (empty strings are ignored)."""
        if not secret or secret in self._secrets:
            return
        with self._lock:
            # readers see either the old or the new snapshots, never a half-built one
            self._needles, self._compact = (
                self._needles | _needles(secret),
                self._compact | _needles(secret, compact=True),
            )
            self._secrets = self._secrets | {secret}

    def __call__(self, text: str, extra: Iterable[str] = ()) -> str:
        """``text`` with every piece of a secret (or of ``extra``) replaced by the marker."""
        needles, compact = self._needles, self._compact
        for secret in extra:
            if secret and secret not in self._secrets:
                needles = needles | _needles(secret)
                compact = compact | _needles(secret, compact=True)
        if not text or not (needles.windows or needles.whole):
            return text
        low = _lower(text)
        spans = _spans(low, needles)
        more = _compact_spans(text, low, compact)
        if more:
            spans = _merged(sorted(spans + more))
        if not spans:
            return text
        pieces, at = [], 0
        for start, end in spans:
            pieces += [text[at:start], REDACTED]
            at = end
        pieces.append(text[at:])
        return "".join(pieces)


#: The process's redactor: every key read is registered here.
_PROCESS = Redactor()


def register_secret(secret: str) -> None:
    """Hide ``secret`` in every message from now on, log records included."""
    _PROCESS.add(secret)
    _install_log_redaction()


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` scrubbed of every registered secret and of ``secrets``.

    This is the one redaction: error messages, warnings, and (through the log
    record factory) every log line go through it.
    """
    return _PROCESS(text, secrets)


_log_lock = threading.Lock()
_log_installed = False


def _install_log_redaction() -> None:
    """Wrap the log record factory once, so every record is redacted when created."""
    global _log_installed
    with _log_lock:
        if _log_installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            _redact_record(record)
            return record

        logging.setLogRecordFactory(factory)
        _log_installed = True


def _redact_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except (TypeError, ValueError, KeyError):
        # logging would report the bad format with the raw arguments: keep them out
        record.msg = redact(f"{record.msg} (arguments withheld: they do not fit the format)")
        record.args = None
    else:
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
    if record.exc_info and record.exc_info[0] is not None:
        # formatters use exc_text when it is set, so the traceback is redacted too
        record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip())
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


__all__ = [
    "REDACTED",
    "SEPARATORS",
    "WINDOW",
    "Redactor",
    "encodings",
    "redact",
    "register_secret",
]
