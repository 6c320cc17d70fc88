"""An episode's page in the browser: the episode viewer, drawn from the episode's record.

The page is :func:`harness.viewer.html.render_html`'s, with a link back to the
results above it. A record still being played ends at its last whole line: a torn
last line (a write in progress) is left out, and the viewer says "unfinished".
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any

from harness.browse.folder import EpisodeRow, Snapshot
from harness.errors import RecordError
from harness.reader import Record, open_record
from harness.viewer.html import render_html

#: Above the viewer: back to the results, and what the episode is in the folder.
NAV = (
    '<nav id="results-nav" style="font: 14px system-ui, sans-serif; margin: 0 0 10px">'
    '<a href="../index.html">&larr; results</a> &middot; {what}</nav>'
)


def _lines(record: Record, partial: bool) -> list[Any]:
    try:
        return record.lines()
    except RecordError:
        if not partial or not record.raw:
            raise
    # a record being written may end in a line cut short: show it up to the line before
    return dataclasses.replace(record, raw=record.raw[:-1]).lines()


def episode_page(snapshot: Snapshot, row: EpisodeRow) -> str:
    """The viewer page of ``row``'s record; raises :class:`RecordError` when it cannot
    be read (a finished record that is damaged, a partial one without a whole line)."""
    if row.record is None:
        raise RecordError(f"{row.episode_id}: no record to show")
    record = open_record(row.record, root=snapshot.root)
    if record.game is not snapshot.game:
        raise RecordError(f"{row.record}: a record of {record.game.name}, not {snapshot.game.name}")
    lines = _lines(record, partial=row.status == "in progress")
    page = render_html(snapshot.game.view, lines)
    what = html.escape(f"{row.episode_id}: {row.status}")
    body = page.find("<body")
    if body < 0:
        return page
    after = page.find(">", body) + 1
    return page[:after] + "\n" + NAV.format(what=what) + page[after:]


__all__ = ["episode_page"]
