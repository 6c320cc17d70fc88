"""Rendering a report: Markdown tables, CSV rows, JSON, and an SVG of score distributions.

Every renderer reads the typed :class:`~harness.report.model.Report`; the texts of
its figures (an interval, a rank, a p-value) are made here once, for every view of
the report (the results browser takes them too).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Protocol

from harness.protocol import Column
from harness.report.build import canonical_order
from harness.report.crossplay_render import crossplay_markdown
from harness.report.model import EntrantRow, Latency, Leaderboard, PairedRow, Report
from harness.report.selection import describe as selection_lines
from harness.report.servers import fallback_flags, flagged, server_section, unshown_line
from harness.summary import EpisodeSummary, cost_text


class Bounds(Protocol):
    """A mean and its interval's bounds (None where there are none)."""

    @property
    def mean(self) -> float | None: ...
    @property
    def low(self) -> float | None: ...
    @property
    def high(self) -> float | None: ...


class Ranks(Protocol):
    """A rank and its interval's bounds."""

    @property
    def rank(self) -> int: ...
    @property
    def rank_low(self) -> int: ...
    @property
    def rank_high(self) -> int: ...


class _Flipped:
    """An interval read the other way round (``0.0 - x``, not ``-x``: no "-0.00")."""

    def __init__(self, iv: Bounds) -> None:
        self.mean = None if iv.mean is None else 0.0 - iv.mean
        self.low = None if iv.high is None else 0.0 - iv.high
        self.high = None if iv.low is None else 0.0 - iv.low


def _ci(iv: Bounds, digits: int = 2, mark: str = "") -> str:
    """``mean [low, high]`` (``mean [-]`` when one cell gives no interval), then ``mark``."""
    if iv.mean is None:
        return "-"
    if iv.low is None or iv.high is None:
        return f"{iv.mean:.{digits}f} [-]{mark}"
    return f"{iv.mean:.{digits}f} [{iv.low:.{digits}f}, {iv.high:.{digits}f}]{mark}"


def _mark(report: Report) -> str:
    """What every interval of an incomplete folder carries beside it."""
    return "" if report.complete else " (incomplete)"


def _rank(figures: Ranks | None, mark: str = "") -> str:
    if figures is None:
        return "-"
    low, high = figures.rank_low, figures.rank_high
    span = str(low) if low == high else f"{low}-{high}"
    return f"{figures.rank} ({span}){mark}"


def _count(report: Report, row: EntrantRow) -> str:
    """Episodes, as finished/planned when the folder is incomplete."""
    if report.complete or row.planned is None:
        return str(row.episodes)
    return f"{row.episodes}/{row.planned}"


def _method(report: Report, over: str = "") -> str:
    """How an interval was made: level, method, unit of resampling, resamples, seed."""
    iv = report.intervals
    return (
        f"{100 * iv.level:.0f}% percentile bootstrap over {over or iv.unit + 's'}, "
        f"{iv.resamples:,} resamples, seed {iv.seed}"
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _columns(report: Report) -> list[Column]:
    return [
        Column(c.key, c.label, c.key, digits=c.digits, percent=c.percent, means=c.means)
        for c in report.columns
    ]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _entrant_tables(report: Report, rows: list[EntrantRow], *, legend: bool = False) -> list[str]:
    columns = _columns(report)
    groups = report.seat_groups
    mark = _mark(report)
    ranked = any(r.rank is not None for r in rows)
    ceiling = report.ceiling
    share = [f"score / {ceiling.name}"] if ceiling is not None else []
    main = _table(
        ["entrant", *groups, "episodes", "cells", "score (95% CI)", *share,
         *(["rank (95% CI)"] if ranked else []), "reasons"],
        [
            [
                r.entrant,
                *(r.seats[g] for g in groups),
                _count(report, r),
                str(r.cells),
                _ci(r.score, mark=mark),
                *([_pct(r.ceiling_share)] if ceiling is not None else []),
                *([_rank(r.rank, mark)] if ranked else []),
                ", ".join(f"{k} {v}" for k, v in r.reasons.items()),
            ]
            for r in rows
        ],
    )  # fmt: skip
    note = (
        f"*Score: mean over (seed, variant) cells, repetitions averaged within a cell; "
        f"interval: {_method(report)}."
    )
    if ranked:
        note += (
            " Rank: 1 + the entrants with a higher mean on the cells all entrants share; "
            "its interval: 2.5th-97.5th percentile of the rank over the same resamples.*"
        )
    else:
        note += "*"
    game = _table(
        ["entrant", *(c.label for c in columns)],
        [[r.entrant, *(c.format(r.columns[c.key]) for c in columns)] for r in rows],
    )
    out = [main, "", note, "", game]
    if legend and report.legend:
        out += ["", f"*{report.legend}.*"]
    if any(r.calls for r in rows):
        roles = report.roles
        llm = _table(
            ["entrant", "calls", "retries", *(f"fallback {role}" for role in roles),
             "tokens in/out", "cost", "latency p50/p95"],
            [
                [
                    r.entrant,
                    str(r.calls),
                    f"{r.retries} ({r.rescued} rescued)",
                    *(_pct(r.fallback_rate.get(role)) for role in roles),
                    f"{r.input_tokens:,}/{r.output_tokens:,}",
                    cost_text(r.cost_usd, r.unpriced_calls),
                    _latency(r.latency_ms),
                ]
                for r in rows
            ],
        )  # fmt: skip
        out += ["", llm]
    return out


def _latency(lat: Latency) -> str:
    if lat.p50 is None or lat.p95 is None:
        return "-"
    return f"{lat.p50:.0f} / {lat.p95:.0f} ms"


def _paired_table(rows: list[PairedRow], mark: str, flags: dict[str, str]) -> str:
    return _table(
        ["entrant", "vs", "cells", "mean difference (95% CI)", "wins", "ties", "losses"],
        [
            [
                flagged(r.entrant, flags),
                r.reference,
                str(r.pairs),
                _ci(r.difference, mark=mark),
                str(r.wins),
                str(r.ties),
                str(r.losses),
            ]
            for r in rows
        ],
    )


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
    """The pairwise matrix's cells: (row, column) -> row minus column with its interval,
    starred when Holm's procedure rejects no difference, marked when incomplete."""
    mark = _mark(report)
    cell: dict[tuple[str, str], str] = {}
    for r in report.pairwise.rows:
        star = "*" if r.significant else ""
        cell[r.entrant, r.versus] = _ci(r.difference, mark=star + mark)
        # the same comparison read the other way: the interval flips sign
        cell[r.versus, r.entrant] = _ci(_Flipped(r.difference), mark=star + mark)
    return cell


def _pairwise_tables(report: Report) -> list[str]:
    pw = report.pairwise
    mark = _mark(report)
    names = [r.entrant for r in report.entrants]
    cell = pairwise_cells(report)
    matrix = _table(
        ["row - column", *names],
        [[a, *("—" if a == b else cell.get((a, b), "-") for b in names)] for a in names],
    )
    details = _table(
        ["entrant", "versus", "cells", "mean difference (CI)", "level", "p", "p (Holm)"],
        [
            [
                r.entrant,
                r.versus,
                str(r.cells),
                _ci(r.difference, mark=mark),
                _level(r.difference.level),
                _p(r.p, report),
                _p(r.p_holm, report) + ("*" if r.significant else ""),
            ]
            for r in pw.rows
        ],
    )
    m, alpha = pw.comparisons, pw.alpha
    return [
        "",
        "## Pairwise differences",
        "",
        f"Row minus column: the mean over the (seed, variant) cells both entrants "
        f"finished of the difference of their cell means, repetitions averaged within "
        f"a cell. Holm-adjusted for the {m} comparison{'s' if m != 1 else ''}: the "
        f"bootstrap p-values are adjusted by Holm's step-down method, * marks an "
        f"adjusted p <= {alpha:.2f}, and the comparison with the r-th smallest p has "
        f'its interval at level 1 - {alpha:.2f}/({m} - r + 1) (column "level"). '
        f"Intervals: {_method(report, 'the cells both finished')}.",
        "",
        matrix,
        "",
        details,
    ]


def _level(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def _p(value: float | None, report: Report) -> str:
    if value is None:
        return "-"
    # a p of 0 only says that no resample reached zero: below 1 / resamples
    if value == 0:
        return f"<{1 / report.intervals.resamples:g}"
    return f"{value:.4f}" if value < 0.001 else f"{value:.3f}"


def _leaderboard(report: Report, board: Leaderboard) -> list[str]:
    group, mark = board.group, _mark(report)
    context = ", ".join(f"{k}: {v}" for k, v in board.context.items())
    rows = [
        [
            _rank(r, mark),
            r.agent,
            flagged(r.entrant, report.fallback_flags) + "".join(f" (= {o})" for o in r.same_as),
            str(r.cells),
            _ci(r.score, mark=mark),
        ]
        for r in board.rows
    ]
    return [
        "",
        f"## {group.capitalize()} leaderboard" + (f" ({context})" if context else ""),
        "",
        f"Entrants that differ only in their {group}"
        + (f" ({context})" if context else "")
        + f"; mean, interval and rank over the {board.cells} (seed, variant) cells "
        f"all of them finished. Intervals: {_method(report, 'those cells')}; rank interval: "
        "2.5th-97.5th "
        "percentile of the rank over the same resamples.",
        "",
        _table(["rank (95% CI)", group, "entrant", "cells", "score (95% CI)"], rows),
    ]


def to_markdown(report: Report) -> str:
    """The report as Markdown."""
    mark = _mark(report)
    parts = [f"# {report.title or 'Tournament report'}", "", *_banner(report)]
    done = report.completeness
    shard = f" (shard {done.shard})" if done.shard not in (None, "1/1", "merged") else ""
    parts.append(
        f"{report.episodes} episodes of {report.game}{shard} in {report.cells} "
        f"(seed, variant) cells; {done.summary}. Every interval is a "
        f"{_method(report)}: the same results give the same report."
    )
    told = selection_lines(report.selection)
    if told:
        parts += ["", " ".join(told)]
    ceiling = report.ceiling
    if ceiling is not None:
        played = " (played for this report, not an entrant)" if ceiling.hidden else ""
        parts.append(
            f"score / {ceiling.name}: the entrant's mean over cells as a share of "
            f"{ceiling.name}'s{played} over the same (seed, variant) cells."
        )
    parts += ["", "## Entrants", "", *_entrant_tables(report, report.entrants, legend=True)]
    if report.identical:
        twins = "; ".join(" = ".join(group) for group in report.identical)
        parts += [
            "",
            f"**Identical entrants** (the same spec for every seat group): {twins}. "
            "Their differences measure chance alone; leaderboards mark them.",
        ]
    if report.paired:
        parts += [
            "",
            f"## Paired against {report.reference}",
            "",
            "Per (seed, variant) cell both entrants finished, repetitions averaged within "
            "the cell; difference = entrant - reference. Interval: "
            f"{_method(report, 'those cells')} (not adjusted for multiple comparisons).",
            "",
            _paired_table(report.paired, mark, report.fallback_flags),
        ]
    n = len(report.entrants)
    if n > 2 or (n == 2 and not report.paired):
        parts += _pairwise_tables(report)
    clean = report.fallback_free
    total_clean = sum(r.episodes for r in clean.entrants)
    if total_clean != report.episodes:
        parts += [
            "",
            "## Without LLM fallbacks",
            "",
            f"Only the {total_clean} episodes in which no seat fell back to its baseline.",
            "",
        ]
        if clean.entrants:
            parts += _entrant_tables(report, clean.entrants)
        if clean.paired:
            parts += ["", _paired_table(clean.paired, mark, report.fallback_flags)]
        unshown = unshown_line(report, [r.entrant for r in clean.entrants])
        if unshown:
            parts += ["", unshown]
    for board in report.leaderboards:
        parts += _leaderboard(report, board)
    if report.crossplay is not None:
        parts += crossplay_markdown(report.crossplay)
    parts += server_section(report)
    return "\n".join(parts) + "\n"


def to_json(report: Report) -> str:
    """The report as JSON (:meth:`Report.to_json`)."""
    return report.to_json()


def _blank(value: object) -> object:
    """A CSV cell: empty for a figure that is not there."""
    return "" if value is None else value


def to_csv(report: Report) -> str:
    """One row per entrant, every figure in its own column (paired figures included)."""
    paired = {r.entrant: r for r in report.paired}
    columns = [c.key for c in report.columns]
    groups = report.seat_groups
    roles = report.roles
    incomplete = "false" if report.complete else "true"
    header = [
        "entrant", *groups, "episodes", "planned_episodes", "cells", "score_mean",
        "score_low", "score_high", "rank", "rank_low", "rank_high",
        *columns, "reasons", "calls", "retries", *(f"fallback_rate_{r}" for r in roles),
        "input_tokens", "output_tokens", "cost_usd", "latency_ms_p50", "latency_ms_p95",
        "fallback_free_episodes", "paired_vs", "paired_pairs", "paired_diff_mean",
        "paired_diff_low", "paired_diff_high", "wins", "ties", "losses", "incomplete",
        "ceiling", "ceiling_share", "fallback_flag",
    ]  # fmt: skip
    ceiling = report.ceiling.name if report.ceiling is not None else ""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for r in report.entrants:
        p = paired.get(r.entrant)
        diff = p.difference if p is not None else None
        rank = r.rank
        writer.writerow(
            [
                r.entrant, *(r.seats[g] for g in groups), r.episodes, _blank(r.planned),
                r.cells, r.score.mean, r.score.low, r.score.high,
                *(("", "", "") if rank is None else (rank.rank, rank.rank_low, rank.rank_high)),
                *(r.columns[k] for k in columns),
                ";".join(f"{k}={v}" for k, v in r.reasons.items()),
                r.calls, r.retries, *(r.fallback_rate.get(role, "") for role in roles),
                r.input_tokens, r.output_tokens, r.cost_usd,
                r.latency_ms.p50, r.latency_ms.p95, r.fallback_free_episodes,
                *(
                    ("", "", "", "", "", "", "", "")
                    if p is None or diff is None
                    else (p.reference, p.pairs, diff.mean, diff.low, diff.high,
                          p.wins, p.ties, p.losses)
                ),
                incomplete, ceiling, _blank(r.ceiling_share),
                report.fallback_flags.get(r.entrant, ""),
            ]
        )  # fmt: skip
    return buffer.getvalue()


def to_svg(
    summaries: Sequence[EpisodeSummary], order: Sequence[str], *, high: float, note: str = ""
) -> str:
    """The score plot (see :mod:`harness.report.plot`): every episode's score per
    entrant, the mean and its 95% interval over (seed, variant) cells.

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
    """The plot of ``report`` over its episodes ``summaries``: each entrant's interval
    and fallback flag as the report gives them, provisional (dashed) when the folder
    is incomplete. The score axis ends at ``max_score`` (the game's best), else at the
    best score seen."""
    from harness.report.plot import score_plot, strips

    rows = strips(
        summaries,
        [r.entrant for r in report.entrants],
        intervals={r.entrant: r.score for r in report.entrants},
        flags=report.fallback_flags,
    )
    high = max_score or max([s.score for s in summaries] + [1.0])
    note = "" if report.complete else report.completeness.summary
    return score_plot(rows, high=high, note=note)


# The texts of a report's figures, for every other view of it (the results browser):
# one figure reads the same wherever it is shown.
interval_text = _ci
incomplete_mark = _mark
rank_text = _rank
episodes_text = _count
method_text = _method
percent_text = _pct
latency_text = _latency
level_text = _level
p_text = _p
columns_of = _columns

__all__ = [
    "columns_of",
    "episodes_text",
    "incomplete_mark",
    "interval_text",
    "latency_text",
    "level_text",
    "method_text",
    "p_text",
    "pairwise_cells",
    "percent_text",
    "rank_text",
    "report_svg",
    "to_csv",
    "to_json",
    "to_markdown",
    "to_svg",
]
