"""Lighthouse's page: a person plays the keeper or one runner in the browser (decision L4).

``lighthouse serve`` serves it at ``/lighthouse/`` over the step-by-step API
(:mod:`harness.server.stepped`): the page asks ``init`` with the seat, the player's
name and the optional per-tick timer, sends one reply a tick, draws only what its
seat's observation holds (the whole board for the keeper; for a runner its 3 x 3
window, inbox and own moves), and at the end shows the episode's record to save.
"""

from __future__ import annotations

from pathlib import Path

from harness.protocol.page_kit import read_page

PAGE_FILE = Path(__file__).with_name("page.html")


def page_html() -> str:
    """The page's HTML (read from the package each time, as the other games' pages)."""
    return read_page(PAGE_FILE)


__all__ = ["PAGE_FILE", "page_html"]
