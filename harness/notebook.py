"""Episodes and results folders shown inline in a notebook (Jupyter's ``_repr_html_``).

An episode (:class:`harness.api.PlayResult`) shows as its viewer page
(:func:`harness.viewer.html.render_html`), the one ``lighthouse view`` writes, inside a
sandboxed ``<iframe>``: the page runs its own script (tick slider, play, keyboard)
apart from the notebook's, and every character of it reaches the notebook escaped, as
the frame's ``srcdoc``. A results folder (:class:`Results`) shows as the browser's
head and leaderboard (:func:`harness.browse.index.leaderboard_fragment`), a fragment of
plain HTML with every text escaped where it is made.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.report.model import Report

#: The episode frame's height, in pixels: the viewer's board, slider and seat cards.
FRAME_HEIGHT = 720


def episode_html(game: str, lines: Iterable[Mapping[str, Any]]) -> str:
    """An episode's record lines (JSON objects) as its viewer page in a sandboxed frame."""
    from harness.registry import get_game
    from harness.viewer.html import render_html

    entry = get_game(game)
    models = [entry.codec.record_adapter.validate_python(line) for line in lines]
    page = render_html(entry.view, models)
    # allow-scripts without allow-same-origin: the page's script runs, in an origin of
    # its own, with no reach into the notebook
    return (
        f'<iframe sandbox="allow-scripts" style="width: 100%; height: {FRAME_HEIGHT}px; '
        f'border: 0" title="episode viewer" srcdoc="{html.escape(page, quote=True)}">'
        "</iframe>"
    )


class Results:
    """A results folder, read once: its report, and in a notebook its leaderboard.

    ``harness.Results("results/smoke")`` reads the folder as ``lighthouse view`` does
    (never writing to it); :attr:`report` is the report ``lighthouse report`` prints,
    :meth:`markdown` its Markdown. A folder still being written shows as it stands,
    its figures marked incomplete.
    """

    def __init__(self, root: Path | str) -> None:
        from harness.browse.folder import read_folder

        self.root = Path(root)
        self._snapshot = read_folder(self.root)

    @property
    def report(self) -> Report:
        """The folder's report (the typed model behind ``lighthouse report``)."""
        return self._snapshot.report

    def markdown(self) -> str:
        """The report as ``lighthouse report`` prints it."""
        from harness.report.render import to_markdown

        return to_markdown(self.report)

    @cached_property
    def _html(self) -> str:
        from harness.browse.index import leaderboard_fragment

        return f'<div class="lighthouse-results">{leaderboard_fragment(self._snapshot)}</div>'

    def _repr_html_(self) -> str:
        return self._html

    def __repr__(self) -> str:
        return f"Results({str(self.root)!r}: {self.report.episodes} episodes)"


__all__ = ["FRAME_HEIGHT", "Results", "episode_html"]
