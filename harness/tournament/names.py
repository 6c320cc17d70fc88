"""The names a tournament config gives: plain names and the entrants' names made of them.

A plain name becomes a file or folder name (a config's name, a cross-play member's); an
entrant's name is plain names joined by ``+`` (a cross-play entrant's: ``pilot+scout``).
"""

from __future__ import annotations

import re

_PLAIN = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"

#: A plain name: it becomes a file or folder name, so no separators, no ``..``, no NUL.
PLAIN_NAME = re.compile(_PLAIN)
PLAIN_RULE = "1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"

#: An entrant's name: up to eight plain names joined by ``+``.
ENTRANT_NAME = re.compile(rf"{_PLAIN}(?:\+{_PLAIN}){{0,7}}")
ENTRANT_RULE = f"{PLAIN_RULE}, or up to eight such names joined by '+'"

__all__ = ["ENTRANT_NAME", "ENTRANT_RULE", "PLAIN_NAME", "PLAIN_RULE"]
