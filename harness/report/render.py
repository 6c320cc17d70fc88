"""Rendering a report: Markdown tables, CSV rows, JSON, and an SVG of scores and profiles.

Every renderer reads the typed :class:`~harness.report.model.Report`; the texts of
its figures (an interval and why it is missing or of zero width, a rank, a p-value)
and the sentences that say what each interval resamples are made once, in
:mod:`harness.report.texts`, for every view of the report (the results browser takes
them too).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence

from harness.report.build import canonical_order
from harness.report.crossplay_render import crossplay_markdown
from harness.report.faithfulness import (
    faithfulness_csv_cells,
    faithfulness_csv_header,
    faithfulness_markdown,
)
from harness.report.markdown import markdown_table
from harness.report.model import (
    BoardRow,
    EntrantRow,
    Leaderboard,
    MeanInterval,
    PairedRow,
    Report,
)
from harness.report.selection import describe as selection_lines
from harness.report.servers import fallback_flags, flagged, server_section, unshown_line
from harness.report.texts import (
    Flipped,
    apart_line,
    board_note,
    columns_of,
    ends_note,
    ends_text,
    entrant_rank_text,
    episodes_text,
    few_seeds_line,
    few_seeds_note,
    headline,
    incomplete_mark,
    interval_text,
    latency_text,
    level_text,
    mean_text,
    not_own_note,
    not_own_text,
    p_text,
    paired_note,
    pairwise_note,
    percent_text,
    rank_text,
    reason_notes,
    score_note,
    shows_not_own,
    too_few_line,
)
from harness.summary import EpisodeSummary, cost_text


def _notes(
    intervals: Iterable[MeanInterval | None], dropped: Iterable[tuple[str, str]]
) -> list[str]:
    """The lines under a table: what its intervals' tags mean, and what was left out."""
    lines = reason_notes(intervals)
    lines += [f"{name}: {text}." for name, text in dropped if text]
    return ["", *(f"- {line}" for line in lines)] if lines else []


def variants_shown(report: Report) -> list[str]:
    """The variants given a column of their own (none when there is only one)."""
    return report.variants if len(report.variants) > 1 else []


def entrant_cells(report: Report, r: EntrantRow, mark: str) -> list[str]:
    """An entrant's score, per-variant means, IQM and score / ceiling, as texts."""
    out = [interval_text(r.score, mark=mark)]
    out += [interval_text(r.per_variant.get(v), mark=mark) for v in variants_shown(report)]
    out.append(interval_text(r.iqm, mark=mark))
    if report.ceiling is not None:
        out.append(interval_text(r.ceiling_ratio, mark=mark, pct=True))
    return out


def entrant_heads(report: Report) -> list[str]:
    """The headers of :func:`entrant_cells`."""
    heads = ["score (95% CI)", *(f"{v} (95% CI)" for v in variants_shown(report)), "IQM (95% CI)"]
    if report.ceiling is not None:
        heads.append(f"score / {report.ceiling.name} (95% CI)")
    return heads


def entrant_figures(report: Report, r: EntrantRow, mark: str) -> list[str]:
    """An entrant's episodes, seeds and :func:`entrant_cells`, as texts: the figures
    every view shows between its seat groups and its rank."""
    return [episodes_text(report, r), str(r.seeds), *entrant_cells(report, r, mark)]


def entrant_ends(r: EntrantRow, mine: bool) -> list[str]:
    """An entrant's last cells: its turns not its own (when ``mine``, the table shows
    them) and how its episodes ended, as texts."""
    return [*([not_own_text(r)] if mine else []), ends_text(r)]


def paired_cells(r: PairedRow, mark: str) -> list[str]:
    """A paired row's cells after its entrant: the reference, seeds, the mean
    difference, p, P(entrant > reference), wins, ties and losses, as texts."""
    return [
        r.reference,
        str(r.seeds),
        interval_text(r.difference, mark=mark),
        p_text(r.p, r.p_floor, r.seeds),
        interval_text(r.improvement, mark=mark),
        str(r.wins),
        str(r.ties),
        str(r.losses),
    ]


def board_cells(r: BoardRow, mark: str, name: str, text: Callable[[str], str]) -> list[str]:
    """A leaderboard row's cells: rank, agent, the entrant (``name``, as the view shows
    it, with the entrants it is the same as), seeds and score; every text passes
    through ``text`` (the view's escaping) but ``name``, which the view made."""
    return [
        text(rank_text(r, mark)),
        text(r.agent),
        name + "".join(f" (= {text(o)})" for o in r.same_as),
        str(r.score.seeds),
        text(interval_text(r.score, mark=mark)),
    ]


def _intervals(r: EntrantRow) -> list[MeanInterval | None]:
    return [r.score, *r.per_variant.values(), r.iqm, r.ceiling_ratio]


def _score_table(report: Report, rows: list[EntrantRow]) -> list[str]:
    groups = report.seat_groups
    mark = incomplete_mark(report)
    ranked = any(r.rank is not None or r.mostly_not_own for r in rows)
    mine = shows_not_own(rows)
    flags = report.fallback_flags
    table = markdown_table(
        ["entrant", *groups, "episodes", "seeds", *entrant_heads(report),
         *(["rank (95% simultaneous)"] if ranked else []),
         *(["turns not its own"] if mine else []), "ended"],
        [
            [
                flagged(r.entrant, flags),
                *(r.seats[g] for g in groups),
                *entrant_figures(report, r, mark),
                *([entrant_rank_text(r, mark)] if ranked else []),
                *entrant_ends(r, mine),
            ]
            for r in rows
        ],
    )  # fmt: skip
    seeds = next((r.rank.seeds for r in rows if r.rank is not None), 0)
    ended = ends_note(report)
    note = f"*{score_note(report, ranked, seeds)}{' ' + ended if ended else ''}*"
    told = not_own_note(rows, {n: f for n, f in flags.items() if n in {r.entrant for r in rows}})
    few = few_seeds_note(rows)
    notes = _notes(
        [iv for r in rows for iv in _intervals(r)], [(r.entrant, r.dropped) for r in rows]
    )
    return [
        table, "", note, *(["", f"*{told}*"] if told else []), *(["", f"*{few}*"] if few else []),
        *notes,
    ]  # fmt: skip


#: What the LLM table's columns count.
LLM_LEGEND = (
    "calls: model requests answered, retries included; retries: turns that sent the "
    "retry with a hint, and how many of them it rescued; fallback ROLE: the share of the "
    "role's model turns its baseline played instead; tokens in/out: the known input and "
    "output tokens; cost: at the provider's prices (no price: a model without one); "
    "latency: per call, median / 95th percentile, answers from the cache left out."
)


def _llm_table(report: Report, rows: list[EntrantRow]) -> list[str]:
    if not any(r.calls for r in rows):
        return []
    roles = report.roles
    llm = markdown_table(
        ["entrant", "calls", "retries", *(f"fallback {role}" for role in roles),
         "tokens in/out", "cost", "latency p50/p95"],
        [
            [
                r.entrant,
                str(r.calls),
                f"{r.retries} ({r.rescued} rescued)",
                *(percent_text(r.fallback_rate.get(role)) for role in roles),
                f"{r.input_tokens:,}/{r.output_tokens:,}",
                cost_text(r.cost_usd, r.unpriced_calls),
                latency_text(r.latency_ms),
            ]
            for r in rows
        ],
    )  # fmt: skip
    return ["", llm, "", f"*{LLM_LEGEND}*"]


def _entrant_tables(report: Report, rows: list[EntrantRow], *, legend: bool = False) -> list[str]:
    columns = columns_of(report)
    game = markdown_table(
        ["entrant", *(c.label for c in columns)],
        [[r.entrant, *(c.format(r.columns[c.key]) for c in columns)] for r in rows],
    )
    out = [*_score_table(report, rows), "", game]
    if legend and report.legend:
        out += ["", f"*{report.legend}.*"]
    return out + _llm_table(report, rows)


def _paired_table(report: Report, rows: list[PairedRow], mark: str) -> list[str]:
    flags = report.fallback_flags
    ref = report.reference
    table = markdown_table(
        ["entrant", "vs", "seeds", "mean difference (95% CI)", "p",
         f"P(entrant > {ref}) (95% CI)", "wins", "ties", "losses"],
        [[flagged(r.entrant, flags), *paired_cells(r, mark)] for r in rows],
    )  # fmt: skip
    notes = _notes(
        [iv for r in rows for iv in (r.difference, r.improvement)],
        [(f"{r.entrant} - {r.reference}", r.dropped) for r in rows],
    )
    return [table, "", f"*{paired_note(report, report.pairwise.flips)}*", *notes]


def _banner(report: Report) -> list[str]:
    done = report.completeness
    if done.complete:
        return []
    per = ", ".join(f"{name} {c.finished}/{c.planned}" for name, c in done.by_entrant.items())
    return [
        f"> **{done.summary.capitalize()}** ({per}). Every figure below is computed on "
        "the finished episodes only, and every interval is marked (incomplete).",
        "",
    ]


def pairwise_cells(report: Report) -> dict[tuple[str, str], str]:
    """The pairwise matrix's cells: (row, column) -> the mean of row minus column,
    starred when Holm's procedure rejects no difference, marked when incomplete (its
    interval is the details list's, at Holm's level: one interval per comparison)."""
    mark = incomplete_mark(report)
    cell: dict[tuple[str, str], str] = {}
    for r in report.pairwise.rows:
        star = "*" if r.significant else ""
        # the mean only: a pair's one interval is in the list below the matrix
        cell[r.entrant, r.versus] = mean_text(r.difference, mark=star + mark)
        # the same comparison read the other way: the difference flips sign
        cell[r.versus, r.entrant] = mean_text(Flipped(r.difference), mark=star + mark)
    return cell


def pairwise_details(report: Report) -> list[list[str]]:
    """The rows of the pairwise details table, as texts."""
    mark = incomplete_mark(report)
    return [
        [
            r.entrant,
            r.versus,
            str(r.seeds),
            interval_text(r.difference, mark=mark),
            level_text(r.difference.level if r.p is not None else None),
            p_text(r.p, r.p_floor, r.seeds),
            p_text(r.p_holm) + ("*" if r.significant else ""),
        ]
        for r in report.pairwise.rows
    ]


def _pairwise_tables(report: Report) -> list[str]:
    pw = report.pairwise
    names = [r.entrant for r in report.entrants]
    cell = pairwise_cells(report)
    matrix = markdown_table(
        ["row - column", *names],
        [[a, *("—" if a == b else cell.get((a, b), "-") for b in names)] for a in names],
    )
    details = markdown_table(
        [
            "entrant",
            "versus",
            "seeds",
            "mean difference (CI at Holm's level)",
            "level",
            "p",
            "p (Holm)",
        ],
        pairwise_details(report),
    )
    notes = _notes(
        [r.difference for r in pw.rows], [(f"{r.entrant} - {r.versus}", r.dropped) for r in pw.rows]
    )
    told = [f"**Too few seeds to conclude**: {pw.note}.", ""] if pw.note else []
    return [
        "",
        "## Pairwise differences",
        "",
        *told,
        matrix,
        "",
        details,
        "",
        f"*{pairwise_note(report, pw.flips)}*",
        *notes,
    ]


def _leaderboard(report: Report, board: Leaderboard) -> list[str]:
    group, mark = board.group, incomplete_mark(report)
    context = ", ".join(f"{k}: {v}" for k, v in board.context.items())
    rows = [
        board_cells(r, mark, flagged(r.entrant, report.fallback_flags), str) for r in board.rows
    ]
    told = [f"**Too few seeds to conclude**: {board.note}.", ""] if board.note else []
    apart = apart_line([flagged(n, report.fallback_flags) for n in board.apart])
    short = few_seeds_line([flagged(n, report.fallback_flags) for n in board.few_seeds])
    return [
        "",
        f"## {group.capitalize()} leaderboard" + (f" ({context})" if context else ""),
        "",
        *told,
        markdown_table(
            ["rank (95% simultaneous)", group, "entrant", "seeds", "score (95% CI)"], rows
        ),
        "",
        f"*{board_note(group, context, board.seeds, board.cells, len(board.rows))}*",
        *(["", apart] if apart else []),
        *(["", short] if short else []),
        *_notes([r.score for r in board.rows], []),
    ]


def _head(report: Report) -> list[str]:
    parts = [f"# {report.title or 'Tournament report'}", "", *_banner(report)]
    parts.append(headline(report))
    told = selection_lines(report.selection)
    if told:
        parts += ["", " ".join(told)]
    ceiling = report.ceiling
    if ceiling is not None:
        played = " (played for this report, not an entrant)" if ceiling.hidden else ""
        parts.append(
            f"score / {ceiling.name}: the entrant's score as a share of "
            f"{ceiling.name}'s{played} over the seeds both finished."
        )
    return parts


def _paired_section(report: Report) -> list[str]:
    if not report.paired:
        return []
    few = too_few_line([r.seeds for r in report.paired], report.pairwise.alpha)
    return [
        "",
        f"## Paired against {report.reference}",
        "",
        *([few, ""] if few else []),
        *_paired_table(report, report.paired, incomplete_mark(report)),
    ]


def _fallback_free(report: Report) -> list[str]:
    clean = report.fallback_free
    total_clean = sum(r.episodes for r in clean.entrants)
    if total_clean == report.episodes:
        return []
    parts = [
        "",
        "## Without LLM fallbacks",
        "",
        f"Only the {total_clean} episodes in which no seat fell back to its baseline.",
        "",
    ]
    if clean.entrants:
        parts += _entrant_tables(report, clean.entrants)
    if clean.paired:
        parts += ["", *_paired_table(report, clean.paired, incomplete_mark(report))]
    unshown = unshown_line(report, [r.entrant for r in clean.entrants])
    if unshown:
        parts += ["", unshown]
    return parts


def to_markdown(report: Report) -> str:
    """The report as Markdown."""
    parts = _head(report)
    parts += ["", "## Entrants", "", *_entrant_tables(report, report.entrants, legend=True)]
    if report.identical:
        twins = "; ".join(" = ".join(group) for group in report.identical)
        parts += [
            "",
            f"**Identical entrants** (the same spec for every seat group): {twins}. "
            "Their differences measure chance alone; leaderboards mark them.",
        ]
    parts += _paired_section(report)
    n = len(report.entrants)
    if n > 2 or (n == 2 and not report.paired):
        parts += _pairwise_tables(report)
    parts += _fallback_free(report)
    for board in report.leaderboards:
        parts += _leaderboard(report, board)
    if report.crossplay is not None:
        parts += crossplay_markdown(report.crossplay)
    parts += faithfulness_markdown(report.faithfulness)
    parts += server_section(report)
    return "\n".join(parts) + "\n"


def to_json(report: Report) -> str:
    """The report as JSON (:meth:`Report.to_json`)."""
    return report.to_json()


def _blank(value: object) -> object:
    """A CSV cell: empty for a figure that is not there."""
    return "" if value is None else value


def _bounds(iv: MeanInterval | None) -> tuple[object, object, object]:
    return ("", "", "") if iv is None else (_blank(iv.mean), _blank(iv.low), _blank(iv.high))


#: The columns every CSV had before seeds were the unit; new ones come after them.
CSV_COLUMNS = (
    "episodes", "planned_episodes", "cells", "score_mean", "score_low", "score_high",
    "rank", "rank_low", "rank_high",
)  # fmt: skip


def _csv_header(report: Report) -> list[str]:
    return [
        "entrant", *report.seat_groups, *CSV_COLUMNS, *(c.key for c in report.columns),
        "reasons", "calls", "retries", *(f"fallback_rate_{r}" for r in report.roles),
        "input_tokens", "output_tokens", "cost_usd", "latency_ms_p50", "latency_ms_p95",
        "fallback_free_episodes", "paired_vs", "paired_pairs", "paired_diff_mean",
        "paired_diff_low", "paired_diff_high", "wins", "ties", "losses", "incomplete",
        "ceiling", "ceiling_share", "fallback_flag",
        "seeds", "score_reason", "iqm_mean", "iqm_low", "iqm_high", "ceiling_share_low",
        "ceiling_share_high", "paired_seeds", "paired_p", "improvement", "improvement_low",
        "improvement_high", "dropped",
        *(f"{v}_{part}" for v in report.variants for part in ("mean", "low", "high")),
        *(f"{part}_{g}" for g in report.seat_groups for part in ("turns", "not_own")),
        "mostly_not_own", "few_seeds",
    ]  # fmt: skip


def _csv_row(report: Report, r: EntrantRow, p: PairedRow | None) -> list[object]:
    rank = r.rank
    ceiling = report.ceiling.name if report.ceiling is not None else ""
    diff = p.difference if p is not None else None
    return [
        r.entrant, *(r.seats[g] for g in report.seat_groups), r.episodes, _blank(r.planned),
        r.cells, *_bounds(r.score),
        *(("", "", "") if rank is None else (rank.rank, rank.rank_low, rank.rank_high)),
        *(_blank(r.columns[c.key]) for c in report.columns),
        ";".join(f"{k}={v}" for k, v in r.reasons.items()),
        r.calls, r.retries, *(r.fallback_rate.get(role, "") for role in report.roles),
        r.input_tokens, r.output_tokens, r.cost_usd,
        _blank(r.latency_ms.p50), _blank(r.latency_ms.p95), r.fallback_free_episodes,
        *(("", "") if p is None else (p.reference, p.pairs)), *_bounds(diff),
        *(("", "", "") if p is None else (p.wins, p.ties, p.losses)),
        "false" if report.complete else "true", ceiling, _blank(r.ceiling_share),
        report.fallback_flags.get(r.entrant, ""),
        r.seeds, r.score.reason or "", *_bounds(r.iqm), *_bounds(r.ceiling_ratio)[1:],
        *(("", "") if p is None else (p.seeds, _blank(p.p))),
        *_bounds(None if p is None else p.improvement), r.dropped,
        *(x for v in report.variants for x in _bounds(r.per_variant.get(v))),
        *(x for g in report.seat_groups for x in _not_own_cells(r, g)),
        "true" if r.mostly_not_own else "false", "true" if r.few_seeds else "false",
    ]  # fmt: skip


def _not_own_cells(r: EntrantRow, group: str) -> tuple[object, object]:
    count = r.not_own.get(group)
    return ("", "") if count is None else (count.turns, count.not_own)


def to_csv(report: Report) -> str:
    """One row per entrant, every figure in its own column (paired figures included)."""
    paired = {r.entrant: r for r in report.paired}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    # faithfulness columns only where a results line measures it (older CSVs stay as they were)
    groups = report.seat_groups if report.faithfulness else []
    writer.writerow([*_csv_header(report), *faithfulness_csv_header(groups)])
    for r in report.entrants:
        faith = faithfulness_csv_cells(report.faithfulness, r.entrant, groups)
        writer.writerow([*_csv_row(report, r, paired.get(r.entrant)), *faith])
    return buffer.getvalue()


def to_svg(
    summaries: Sequence[EpisodeSummary], order: Sequence[str], *, high: float, note: str = ""
) -> str:
    """The score plot (see :mod:`harness.report.plot`): every episode's score per
    entrant, the score and its 95% interval over seeds, and the performance profiles.

    The same results give the same picture, byte for byte; ``note`` (e.g.
    "incomplete: 50/360 episodes") is added to the title and marks the intervals
    provisional. Entrants flagged for fallbacks carry their flag.
    """
    from harness.report.plot import score_plot, strips

    by_entrant: dict[str, list[EpisodeSummary]] = {}
    for s in canonical_order(summaries):
        by_entrant.setdefault(s.entrant, []).append(s)
    flags = fallback_flags(by_entrant)
    return score_plot(strips(summaries, order, flags=flags), high=high, note=note)


def report_svg(
    report: Report, summaries: Sequence[EpisodeSummary], *, max_score: float | None
) -> str:
    """The plot of ``report`` over its episodes ``summaries``: each entrant's interval,
    profile and fallback flag as the report gives them, provisional (dashed) when the
    folder is incomplete. The score axes end at ``max_score`` (the game's best), else
    at the best score seen."""
    from harness.report.plot import score_plot, strips

    rows = strips(
        summaries,
        [r.entrant for r in report.entrants],
        intervals={r.entrant: r.score for r in report.entrants},
        profiles={r.entrant: r.profile for r in report.entrants if r.profile is not None},
        flags=report.fallback_flags,
    )
    high = max_score or max([s.score for s in summaries] + [1.0])
    note = "" if report.complete else report.completeness.summary
    return score_plot(rows, high=high, note=note)


# The texts of a report's figures, for every other view of it (the results browser, a
# notebook): one figure reads the same wherever it is shown (harness/report/texts.py).
__all__ = [
    "CSV_COLUMNS",
    "board_cells",
    "columns_of",
    "entrant_cells",
    "entrant_ends",
    "entrant_figures",
    "entrant_heads",
    "episodes_text",
    "incomplete_mark",
    "interval_text",
    "latency_text",
    "level_text",
    "p_text",
    "paired_cells",
    "pairwise_cells",
    "pairwise_details",
    "percent_text",
    "rank_text",
    "report_svg",
    "to_csv",
    "to_json",
    "to_markdown",
    "to_svg",
    "variants_shown",
]
