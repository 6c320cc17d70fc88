"""Text helpers every game's replies and records share: runes, surrogates, the 1 MiB cap.

"Rune" means a Unicode code point. Truncation never splits one, and lone surrogates
(which JSON can encode) become U+FFFD so every record is valid UTF-8 (decision R3).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

#: Replies longer than this many UTF-8 bytes are a parse failure (decision R8).
MAX_REPLY_BYTES = 1 << 20

_SURROGATE = re.compile("[\ud800-\udfff]")
_SCRUB_SLICE = 1 << 15


@dataclass(frozen=True)
class ClippedReply:
    """A raw reply as a record keeps it: whole up to 1 MiB, else cut (decision R8)."""

    text: str
    length: int
    sha256: str
    clipped: bool


def show_value(value: object, limit: int = 60, *, ascii_only: bool = False) -> str:
    """``value`` as a message shows it: JSON (``repr`` for what JSON cannot hold), cut to
    ``limit`` characters with ``...``; ``ascii_only`` escapes every other character."""
    try:
        text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)[:limit]
    return text if len(text) <= limit else text[: limit - 3] + "..."


def scrub_surrogates(text: str) -> str:
    """Replace every lone surrogate with U+FFFD, so the text is valid UTF-8 (decision R3)."""
    if text.isascii():  # the common case, answered without a pass over the text
        return text
    try:
        text.encode("utf-8")  # one fast pass; only a lone surrogate makes it fail
    except UnicodeEncodeError:
        # In slices: one substitution over a whole 1 MiB reply of surrogates would hold
        # the interpreter (and so the event loop, even from a worker thread) for tens
        # of milliseconds. A surrogate is one code point, so no slice splits one.
        return "".join(
            _SURROGATE.sub("\ufffd", text[i : i + _SCRUB_SLICE])
            for i in range(0, len(text), _SCRUB_SLICE)
        )
    return text


def truncate_runes(text: str, cap: int) -> str:
    """The first ``cap`` code points (runes) of ``text``; never splits a code point."""
    return text[:cap]


def utf8_length(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes (lone surrogates counted as U+FFFD would be)."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return len(scrub_surrogates(text).encode("utf-8"))


def clip_reply(text: str) -> ClippedReply:
    """Keep ``text`` whole up to 1 MiB of UTF-8, else cut on a rune boundary (decision R8)."""
    clean = scrub_surrogates(text)
    data = clean.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    if len(data) <= MAX_REPLY_BYTES:
        return ClippedReply(clean, len(data), digest, clipped=False)
    cut = data[:MAX_REPLY_BYTES].decode("utf-8", errors="ignore")  # drops a split rune
    return ClippedReply(cut, len(data), digest, clipped=True)


__all__ = [
    "MAX_REPLY_BYTES",
    "ClippedReply",
    "clip_reply",
    "scrub_surrogates",
    "truncate_runes",
    "utf8_length",
]
