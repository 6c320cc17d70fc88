"""The shared kit of the games' playable pages: their head, styles and script, one copy.

A game's ``page.html`` starts with the line ``<!-- page kit -->`` and goes on with the
rest of its head (its title, its own style); :func:`read_page` puts the kit
(``page_kit.html``) in place of that line when the page is read: the document's
opening and meta lines, ``page_kit.css`` (and, for a one-seat game's page,
``solo_kit.css``) and ``page_kit.js``, whose ``pageKit`` object the page's own script
uses. The kit is inlined rather than
linked so that a page stays one document: the server's Content-Security-Policy allows
its inline style and script by hash, and nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.errors import HarnessError

MARKER = "<!-- page kit -->"
_HERE = Path(__file__).parent
_BLANK = re.compile(r"__(STYLE|SCRIPT)__")


def kit_html(*, solo: bool = False) -> str:
    """The kit as it opens a page (``page_kit.html``, its blanks filled)."""
    styles = ["page_kit.css", *(["solo_kit.css"] if solo else [])]
    blanks = {"STYLE": "".join(_read(name) for name in styles), "SCRIPT": _read("page_kit.js")}
    # one pass, so that nothing put in one blank is taken for another
    return _BLANK.sub(lambda found: blanks[found.group(1)], _read("page_kit.html").rstrip("\n"))


def read_page(path: Path, *, solo: bool = False) -> str:
    """The page at ``path``, opened by the kit in place of its marker line.

    Read each time (as the pages always were), so that an edited page shows at once.
    """
    page = path.read_text(encoding="utf-8")
    if not page.startswith(MARKER + "\n") or page.count(MARKER) != 1:
        raise HarnessError(f"{path} must start with the line {MARKER}, and hold it once")
    return kit_html(solo=solo) + page.removeprefix(MARKER)


def _read(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


__all__ = ["MARKER", "kit_html", "read_page"]
