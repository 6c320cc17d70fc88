"""Text helpers every game's replies and records share: runes, surrogates, the 1 MiB cap,
and the two ways outside text is shown: on a terminal, and inside a page's script.

"Rune" means a Unicode code point. Truncation never splits one, and lone surrogates
(which JSON can encode) become U+FFFD so every record is valid UTF-8 (decision R3).

Text from outside (a model's reply or notes, a server's error message, a record's
fields, a file name) reaches a terminal only through :func:`terminal_safe`, which
shows each control character as ``\\uXXXX`` instead of letting the terminal act on
it; the ``lighthouse`` command passes everything it prints through a
:class:`TerminalGuard`, and the harness's own control sequences (a status line
redrawn in place) go past it with :func:`write_control`. Data inlined into a page's
``<script>`` goes through :func:`script_json`, so that no string can end the script
or comment it out.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass
from typing import TextIO

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


def cut_short(text: str, limit: int) -> str:
    """``text`` as a message shows it: whole when it has at most ``limit`` characters,
    else its first ``limit - 3`` runes and ``...``, so never more than ``limit`` in all.

    Each message decides whether to quote the text before it is cut (the quotes and
    escapes then count in ``limit``) or after (they come on top). The cut is on code
    points, as :func:`truncate_runes`, so it never splits one; a lone surrogate the
    text already holds is kept as it is.
    """
    if limit < 3:
        raise ValueError(f"a limit of {limit} leaves no room for the '...'")
    return text if len(text) <= limit else truncate_runes(text, limit - 3) + "..."


def show_value(value: object, limit: int = 60, *, ascii_only: bool = False) -> str:
    """``value`` as a message shows it: JSON (``repr`` for what JSON cannot hold), cut to
    ``limit`` characters with ``...``; ``ascii_only`` escapes every other character."""
    try:
        text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)[:limit]
    return cut_short(text, limit)


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


#: What a terminal acts on or reorders, and what it cannot show: the C0 controls
#: (tab and newline aside), DEL, the C1 controls (CSI, OSC, ... in one byte), Unicode's
#: bidirectional marks, embeddings, overrides and isolates (which reorder what follows
#: them on the line), the line and paragraph separators, and lone surrogates (which no
#: encoding can carry: printing one raises).
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile(f"[{_CONTROLS}]")
#: The same, and tab and newline too: for text that must stay on one line.
_UNSAFE_ON_ONE_LINE = re.compile(f"[\t\n{_CONTROLS}]")


def _shown(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def terminal_safe(text: str, *, one_line: bool = False) -> str:
    """``text`` as a terminal may show it: every control character (see ``_CONTROLS``)
    written out as ``\\uXXXX``, so none is executed; tab and newline are kept unless
    ``one_line`` (a value inside a line of the harness's own, such as a warning).

    The escapes are JSON's, so JSON that passes through stays valid JSON with the same
    value. Linear time; text with nothing to show is returned as it is.
    """
    pattern = _UNSAFE_ON_ONE_LINE if one_line else _UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_shown, text)


class TerminalGuard(io.TextIOBase):
    """A text stream that writes everything through :func:`terminal_safe` into
    ``unguarded``: whatever a command prints, no control character of its text reaches
    the terminal. The harness's own control sequences go past it (:func:`write_control`).
    """

    def __init__(self, unguarded: TextIO) -> None:
        super().__init__()
        self.unguarded = unguarded

    def write(self, text: str) -> int:
        """Write ``text`` with its control characters shown; returns ``len(text)``."""
        self.unguarded.write(terminal_safe(text))
        return len(text)

    def flush(self) -> None:
        """Flush the stream underneath."""
        self.unguarded.flush()

    def isatty(self) -> bool:
        """Whether the stream underneath is a terminal."""
        return self.unguarded.isatty()

    def fileno(self) -> int:
        """The file descriptor underneath."""
        return self.unguarded.fileno()

    def writable(self) -> bool:
        """A guard is written to."""
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """The encoding of the stream underneath."""
        return self.unguarded.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        """The error handler of the stream underneath."""
        return self.unguarded.errors


def write_control(stream: TextIO | TerminalGuard, sequence: str) -> None:
    """Write ``sequence``, a terminal control the harness itself draws with (e.g. clearing
    its status line), to ``stream``, past a :class:`TerminalGuard` if it is one."""
    target = stream.unguarded if isinstance(stream, TerminalGuard) else stream
    target.write(sequence)


#: Characters that could end a ``<script>`` element or comment it out (``</script>``,
#: ``<!--``), or that JavaScript did not always allow inside a string literal.
_SCRIPT_UNSAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_json(value: object) -> str:
    """``value`` as JSON to inline in a page's ``<script>``: ``<``, ``>``, ``&``, U+2028
    and U+2029 are written as escapes (only ever inside strings, so JSON.parse reads
    the same value), so no string can end the element or open a comment in it."""
    return json.dumps(value, ensure_ascii=False).translate(_SCRIPT_UNSAFE)


__all__ = [
    "MAX_REPLY_BYTES",
    "ClippedReply",
    "TerminalGuard",
    "clip_reply",
    "cut_short",
    "script_json",
    "scrub_surrogates",
    "terminal_safe",
    "truncate_runes",
    "utf8_length",
    "write_control",
]
