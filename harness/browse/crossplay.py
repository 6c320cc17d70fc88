"""The browser's cross-play section: the keeper x runner matrix as a heat map.

Each cell of the matrix is shaded by its mean (the lowest mean of the matrix palest,
the highest darkest) and shows its interval under the mean, and again on hover; the
decomposition and the leads follow as the report prints them
(:mod:`harness.report.crossplay_render`). Every text is escaped.
"""

from __future__ import annotations

import html
import re

from harness.report.crossplay_model import Crossplay, SeedInterval
from harness.report.crossplay_render import (
    SELF_PLAY_LEGEND,
    ci,
    decomposition_legend,
    leads_legend,
    matrix_legend,
    notes,
)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _inline(text: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", _e(text))


def _shade(value: float | None, low: float, high: float) -> str:
    """A cell's background: white at ``low``, a full blue at ``high``."""
    if value is None or high <= low:
        return ""
    share = (value - low) / (high - low)
    lightness = 97 - round(share * 45)
    ink = "#fff" if lightness < 62 else "#222"
    return f' style="background: hsl(210, 60%, {lightness}%); color: {ink}"'


def _heat_cell(iv: SeedInterval, low: float, high: float) -> str:
    if iv.mean is None:
        return '<td class="num">-</td>'
    band = "" if iv.low is None or iv.high is None else f"[{iv.low:.2f}, {iv.high:.2f}]"
    return (
        f'<td class="num heat"{_shade(iv.mean, low, high)} title="{_e(ci(iv))}">'
        f"{iv.mean:.2f}<br><small>{_e(band)}</small></td>"
    )


def _legend(text: str) -> str:
    return f'<p class="legend">{_e(text)}</p>'


def _plain(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="wide">{table}</div>'


def _matrix_html(section: Crossplay) -> list[str]:
    """The heat map (each row with its mean over partners and its worst partner) and
    the columns' table of the same."""
    rows, cols = section.row_group, section.column_group
    means = [c.score.mean for c in section.matrix if c.score.mean is not None]
    low, high = (min(means), max(means)) if means else (0.0, 0.0)
    cell = {(c.row, c.column): c.score for c in section.matrix}
    by_row = {r.member: r for r in section.by_row}
    head = "".join(f"<th>{_e(c)}</th>" for c in section.columns)
    body = "".join(
        f"<tr><th>{_e(r)}</th>"
        + "".join(_heat_cell(cell[(r, c)], low, high) for c in section.columns)
        + f'<td class="num">{_e(ci(by_row[r].mean))}</td>'
        + f"<td>{_e(by_row[r].worst_partner)}: {_e(ci(by_row[r].worst))}</td></tr>"
        for r in section.rows
    )
    by_col = {c.member: c for c in section.by_column}
    return [
        f'<div class="wide"><table id="crossplay-matrix"><thead><tr><th>{_e(rows)} \\ '
        f"{_e(cols)}</th>{head}<th>mean over partners</th><th>worst partner</th></tr>"
        f"</thead><tbody>{body}</tbody></table></div>",
        _plain(
            [cols, f"mean over {rows}s", f"worst {rows}"],
            [
                [c, ci(by_col[c].mean), f"{by_col[c].worst_partner}: {ci(by_col[c].worst)}"]
                for c in section.columns
            ],
        ),
        _legend(matrix_legend(section)),
    ]


def _decomposition_html(section: Crossplay) -> list[str]:
    """The two-way decomposition's table and the interaction test's line."""
    rows, cols = section.row_group, section.column_group
    inter = {(i.row, i.column): i.interaction for i in section.interactions}
    effects = {e.member: e.effect for e in section.row_effects}
    parts = [
        f"<h3>Two-way decomposition (grand mean {_e(ci(section.grand))})</h3>",
        _plain(
            [rows, f"{rows} effect", *section.columns],
            [
                [r, ci(effects[r]), *(ci(inter[(r, c)]) for c in section.columns)]
                for r in section.rows
            ]
            + [[f"{cols} effect", "", *(ci(e.effect) for e in section.column_effects)]],
        ),
        _legend(decomposition_legend(section)),
    ]
    test = section.interaction_test
    if test is not None:
        p = "-" if test.p is None else f"{test.p:.4f}"
        parts.append(
            f'<p class="method">Interaction: {_e(ci(test.share, 3))} of the between-cell sum '
            f"of squares, a root mean square of {_e(ci(test.rms))} points; {_e(test.method)} "
            f"({test.resamples:,} flips): p = {p}.</p>"
        )
    return parts


def _leads_html(section: Crossplay) -> list[str]:
    """The leads by column and the self-play gaps, where the design has them."""
    rows, cols = section.row_group, section.column_group
    parts = []
    if section.leads:
        parts.append(f"<h3>Leads by {_e(cols)} team</h3>")
        parts.append(
            _plain(
                [f"{rows}s", *section.columns],
                [
                    [
                        f"{lead.row} - {lead.versus}",
                        *(ci(lead.by_column[c]) for c in section.columns),
                    ]
                    for lead in section.leads
                ],
            )
        )
        parts.append(_legend(leads_legend(section, changes=False)))
    if section.self_play:
        parts.append("<h3>Self-play against cross-play</h3>")
        parts.append(
            _plain(
                ["pair", "self-play", "cross-play", "gap"],
                [
                    [f"{g.row} + {g.column}", ci(g.self_play), ci(g.cross_play), ci(g.gap)]
                    for g in section.self_play
                ],
            )
        )
        parts.append(_legend(SELF_PLAY_LEGEND))
    return parts


def crossplay_html(section: Crossplay | None) -> list[str]:
    """The cross-play section of the index page; nothing for a folder without a design."""
    if section is None:
        return []
    parts = [
        '<section id="crossplay">',
        f"<h2>Cross-play: {_e(section.row_group)} x {_e(section.column_group)}</h2>",
        *(f'<p class="method">{_inline(line)}</p>' for line in notes(section)),
    ]
    if section.matrix:
        parts += [*_matrix_html(section), *_decomposition_html(section), *_leads_html(section)]
    return [*parts, "</section>"]


__all__ = ["crossplay_html"]
