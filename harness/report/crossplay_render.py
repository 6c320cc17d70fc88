"""The cross-play section as Markdown and as a long CSV (one figure a row).

Both read a :class:`~harness.report.crossplay_model.Crossplay` only; the browser
shows the same section as a heat map (:mod:`harness.browse.crossplay`), through
:func:`ci` and :func:`notes`, so that the three say the same thing.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from harness.report.crossplay_model import Crossplay, SeedInterval
from harness.report.markdown import markdown_table


def ci(iv: SeedInterval, digits: int = 2) -> str:
    """``mean [low, high]``; ``-`` with no mean, and the mean alone with no interval."""
    if iv.mean is None:
        return "-"
    if iv.low is None or iv.high is None:
        return f"{iv.mean:.{digits}f}"
    return f"{iv.mean:.{digits}f} [{iv.low:.{digits}f}, {iv.high:.{digits}f}]"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def notes(section: Crossplay) -> list[str]:
    """The sentences that say what the section is over, and what is missing."""
    out = [
        f"Every {section.row_group} with every {section.column_group} team on the same "
        f"seeds: {len(section.rows)} x {len(section.columns)} entrants. Each figure is "
        f"over the {section.cells} (seed, variant) cells of {section.seeds} seeds that "
        f"every entrant of the matrix finished; intervals: {section.method}."
    ]
    if section.missing:
        out.append(
            f"**Incomplete**: no finished episode yet for {', '.join(section.missing)}; "
            "the matrix and its decomposition wait for them."
        )
    elif section.cells < section.all_cells:
        out.append(
            f"**Incomplete**: {section.all_cells - section.cells} of the "
            f"{section.all_cells} cells some entrant finished are left out, as not every "
            "entrant of the matrix finished them."
        )
    return out


def matrix_legend(section: Crossplay) -> str:
    """What the matrix's cells and margins are (the legend under it)."""
    rows, cols = section.row_group, section.column_group
    return (
        f"Each cell: the mean team score (0 to 42) of a {rows} (row) with a {cols} team "
        f"(column), with its 95% interval over seeds; mean over partners: a {rows}'s mean "
        f"over its {cols} teams (the last rows: a {cols} team's over the {rows}s); worst "
        "partner: the partner with the lowest mean, and that mean (its interval is of the "
        "minimum over partners, taken again in each resample)."
    )


def decomposition_legend(section: Crossplay) -> str:
    """What the two-way decomposition's figures are (the legend under its table)."""
    return (
        f"cell = grand mean + {section.row_group} effect + {section.column_group} effect "
        "+ interaction, exactly; an effect is a row's or column's mean less the grand "
        "mean (in points), an interaction what is left of the cell: how much better or "
        "worse that pair does than its row and column alone predict."
    )


def leads_legend(section: Crossplay, *, changes: bool = True) -> str:
    """What the leads table's figures are (the legend under it); ``changes``: the
    table has the column of the lead's changes."""
    lead = (
        f"A - B: how far {section.row_group} A (the one of higher mean) is ahead of B with "
        f"each {section.column_group} team, in points"
    )
    if not changes:
        return lead + "."
    return (
        f"{lead}; change of the lead: how that lead changes from one team to another (an "
        f"interval that excludes 0: the better {section.row_group} is not as far ahead "
        "with every partner)."
    )


#: What the self-play table's figures are (the legend under it).
SELF_PLAY_LEGEND = (
    "Where a row and a column are the same model: self-play, their combination's mean; "
    "cross-play, the mean of the other cells of its row and its column; gap, self-play "
    "less cross-play (above 0: the model plays better with itself)."
)


def _cell(section: Crossplay, row: str, column: str) -> SeedInterval:
    for cell in section.matrix:
        if cell.row == row and cell.column == column:
            return cell.score
    return SeedInterval(mean=None, low=None, high=None)


def crossplay_markdown(section: Crossplay) -> list[str]:
    """The section's Markdown lines (a report appends them)."""
    rows, cols = section.row_group, section.column_group
    parts = ["", f"## Cross-play: {rows} x {cols}", "", " ".join(notes(section))]
    if not section.matrix:
        return parts
    by_row = {r.member: r for r in section.by_row}
    by_col = {c.member: c for c in section.by_column}
    body = [
        [
            row,
            *(ci(_cell(section, row, c)) for c in section.columns),
            ci(by_row[row].mean),
            f"{by_row[row].worst_partner}: {ci(by_row[row].worst)}",
        ]
        for row in section.rows
    ]
    body.append([f"*mean over {rows}s*", *(ci(by_col[c].mean) for c in section.columns), "", ""])
    body.append(
        [
            f"*worst {rows}*",
            *(f"{by_col[c].worst_partner}: {ci(by_col[c].worst)}" for c in section.columns),
            "",
            "",
        ]
    )
    parts += [
        "",
        markdown_table(
            [f"{rows} \\ {cols}", *section.columns, "mean over partners", "worst partner"], body
        ),
        "",
        f"*{matrix_legend(section)}*",
    ]
    parts += _decomposition(section)
    parts += _leads(section)
    parts += _self_play(section)
    return parts


def _decomposition(section: Crossplay) -> list[str]:
    inter = {(i.row, i.column): i.interaction for i in section.interactions}
    effects = {e.member: e.effect for e in section.row_effects}
    body = [
        [row, ci(effects[row]), *(ci(inter[(row, c)]) for c in section.columns)]
        for row in section.rows
    ]
    body.append(
        [f"*{section.column_group} effect*", "", *(ci(e.effect) for e in section.column_effects)]
    )
    parts = [
        "",
        f"### Two-way decomposition (grand mean {ci(section.grand)})",
        "",
        markdown_table(
            [f"{section.row_group}", f"{section.row_group} effect", *section.columns], body
        ),
        "",
        f"*{decomposition_legend(section)}*",
    ]
    test = section.interaction_test
    if test is not None:
        parts += [
            "",
            f"Interaction: {ci(test.share, 3)} of the between-cell sum of squares "
            f"({section.row_group} + {section.column_group} + interaction), a root mean "
            f"square of {ci(test.rms)} points; {test.method} ({test.resamples:,} flips): "
            f"p = {_p(test.p)}.",
        ]
    return parts


def _leads(section: Crossplay) -> list[str]:
    if not section.leads:
        return []
    body = []
    for lead in section.leads:
        changes = "; ".join(f"{c.start} -> {c.to}: {ci(c.change)}" for c in lead.changes)
        body.append(
            [
                f"{lead.row} - {lead.versus}",
                *(ci(lead.by_column[c]) for c in section.columns),
                changes or "-",
            ]
        )
    return [
        "",
        f"### Leads by {section.column_group} team",
        "",
        markdown_table([f"{section.row_group}s", *section.columns, "change of the lead"], body),
        "",
        f"*{leads_legend(section)}*",
    ]


def _self_play(section: Crossplay) -> list[str]:
    if not section.self_play:
        return [
            "",
            f"Self-play: no {section.row_group} and {section.column_group} team of the "
            "design are the same model.",
        ]
    body = [
        [f"{g.row} + {g.column}", ci(g.self_play), ci(g.cross_play), ci(g.gap)]
        for g in section.self_play
    ]
    return [
        "",
        "### Self-play against cross-play",
        "",
        markdown_table(["pair", "self-play", "cross-play", "gap"], body),
        "",
        f"*{SELF_PLAY_LEGEND}*",
    ]


HEADER = ("figure", "row", "column", "mean", "low", "high")


def _figures(section: Crossplay) -> Iterator[tuple[str, str, str, SeedInterval]]:
    for cell in section.matrix:
        yield "cell", cell.row, cell.column, cell.score
    for r in section.by_row:
        yield "row_mean", r.member, "", r.mean
        yield "row_worst", r.member, r.worst_partner, r.worst
    for c in section.by_column:
        yield "column_mean", "", c.member, c.mean
        yield "column_worst", c.worst_partner, c.member, c.worst
    if section.matrix:
        yield "grand", "", "", section.grand
    for e in section.row_effects:
        yield "row_effect", e.member, "", e.effect
    for e in section.column_effects:
        yield "column_effect", "", e.member, e.effect
    for i in section.interactions:
        yield "interaction", i.row, i.column, i.interaction
    test = section.interaction_test
    if test is not None:
        yield "interaction_share", "", "", test.share
        yield "interaction_rms", "", "", test.rms
        p = SeedInterval(mean=test.p, low=None, high=None)
        yield "interaction_p", "", "", p
    for lead in section.leads:
        pair = f"{lead.row}-{lead.versus}"
        for column, iv in lead.by_column.items():
            yield "lead", pair, column, iv
        for change in lead.changes:
            yield "lead_change", pair, f"{change.start}->{change.to}", change.change
    for g in section.self_play:
        yield "self_play", g.row, g.column, g.self_play
        yield "cross_play", g.row, g.column, g.cross_play
        yield "self_play_gap", g.row, g.column, g.gap


def crossplay_csv(section: Crossplay | None) -> str:
    """The section as a long CSV: one figure a row (``lighthouse report --format
    crossplay-csv``); just the header when the folder has no design."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    for figure, row, column, iv in _figures(section) if section is not None else ():
        values = ("" if v is None else v for v in (iv.mean, iv.low, iv.high))
        writer.writerow([figure, row, column, *values])
    return buffer.getvalue()


__all__ = ["HEADER", "ci", "crossplay_csv", "crossplay_markdown", "notes"]
