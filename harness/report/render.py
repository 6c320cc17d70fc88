"""Rendering a report: Markdown tables, CSV rows, JSON, and an SVG of score distributions."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from harness.protocol import Column
from harness.report.build import canonical_order
from harness.report.selection import describe as selection_lines
from harness.report.servers import fallback_flags, flagged, server_section, unshown_line
from harness.summary import EpisodeSummary


def _ci(iv: dict[str, Any], digits: int = 2, mark: str = "") -> str:
    """``mean [low, high]`` (``mean [-]`` when one cell gives no interval), then ``mark``."""
    if iv.get("mean") is None:
        return "-"
    if iv.get("low") is None:
        return f"{iv['mean']:.{digits}f} [-]{mark}"
    return f"{iv['mean']:.{digits}f} [{iv['low']:.{digits}f}, {iv['high']:.{digits}f}]{mark}"


def _mark(report: dict[str, Any]) -> str:
    """What every interval of an incomplete folder carries beside it."""
    return "" if report["completeness"]["complete"] else " (incomplete)"


def _rank(figures: dict[str, Any] | None, mark: str = "") -> str:
    if figures is None:
        return "-"
    low, high = figures["rankLow"], figures["rankHigh"]
    span = str(low) if low == high else f"{low}-{high}"
    return f"{figures['rank']} ({span}){mark}"


def _count(report: dict[str, Any], row: dict[str, Any]) -> str:
    """Episodes, as finished/planned when the folder is incomplete."""
    if report["completeness"]["complete"] or row.get("planned") is None:
        return str(row["episodes"])
    return f"{row['episodes']}/{row['planned']}"


def _method(report: dict[str, Any], over: str = "") -> str:
    """How an interval was made: level, method, unit of resampling, resamples, seed."""
    iv = report["intervals"]
    return (
        f"{100 * iv['level']:.0f}% percentile bootstrap over {over or iv['unit'] + 's'}, "
        f"{iv['resamples']:,} resamples, seed {iv['seed']}"
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _columns(report: dict[str, Any]) -> list[Column]:
    return [
        Column(
            c["key"],
            c["label"],
            c["key"],
            digits=c["digits"],
            percent=c["percent"],
            means=c.get("means", ""),
        )
        for c in report["columns"]
    ]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _entrant_tables(
    report: dict[str, Any], rows: list[dict[str, Any]], *, legend: bool = False
) -> list[str]:
    columns = _columns(report)
    groups = report["seatGroups"]
    mark = _mark(report)
    ranked = any(r["rank"] for r in rows)
    ceiling = report.get("ceiling")
    share = [f"score / {ceiling['name']}"] if ceiling else []
    main = _table(
        ["entrant", *groups, "episodes", "cells", "score (95% CI)", *share,
         *(["rank (95% CI)"] if ranked else []), "reasons"],
        [
            [
                r["entrant"],
                *(r["seats"][g] for g in groups),
                _count(report, r),
                str(r["cells"]),
                _ci(r["score"], mark=mark),
                *([_pct(r.get("ceilingShare"))] if ceiling else []),
                *([_rank(r["rank"], mark)] if ranked else []),
                ", ".join(f"{k} {v}" for k, v in r["reasons"].items()),
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
        [[r["entrant"], *(c.format(r["columns"][c.key]) for c in columns)] for r in rows],
    )
    out = [main, "", note, "", game]
    if legend and report.get("legend"):
        out += ["", f"*{report['legend']}.*"]
    if any(r["calls"] for r in rows):
        roles = report["roles"]
        llm = _table(
            ["entrant", "calls", "retries", *(f"fallback {role}" for role in roles),
             "tokens in/out", "cost", "latency p50/p95"],
            [
                [
                    r["entrant"],
                    str(r["calls"]),
                    f"{r['retries']} ({r.get('rescued', 0)} rescued)",
                    *(_pct(r["fallbackRate"].get(role)) for role in roles),
                    f"{r['inputTokens']:,}/{r['outputTokens']:,}",
                    f"${r['costUsd']:.4f}",
                    _latency(r["latencyMs"]),
                ]
                for r in rows
            ],
        )  # fmt: skip
        out += ["", llm]
    return out


def _latency(lat: dict[str, Any]) -> str:
    if lat["p50"] is None:
        return "-"
    return f"{lat['p50']:.0f} / {lat['p95']:.0f} ms"


def _paired_table(rows: list[dict[str, Any]], mark: str, flags: dict[str, str]) -> str:
    return _table(
        ["entrant", "vs", "cells", "mean difference (95% CI)", "wins", "ties", "losses"],
        [
            [
                flagged(r["entrant"], flags),
                r["reference"],
                str(r["pairs"]),
                _ci(r["difference"], mark=mark),
                str(r["wins"]),
                str(r["ties"]),
                str(r["losses"]),
            ]
            for r in rows
        ],
    )


def _banner(report: dict[str, Any]) -> list[str]:
    done = report["completeness"]
    if done["complete"]:
        return []
    per = ", ".join(
        f"{name} {c['finished']}/{c['planned']}" for name, c in done["byEntrant"].items()
    )
    return [
        f"> **{done['summary'].capitalize()}** ({per}). Every figure below is computed on "
        "the finished episodes only, and every interval is marked (incomplete).",
        "",
    ]


def pairwise_cells(report: dict[str, Any]) -> dict[tuple[str, str], str]:
    """The pairwise matrix's cells: (row, column) -> row minus column with its interval,
    starred when Holm's procedure rejects no difference, marked when incomplete."""
    mark = _mark(report)
    cell: dict[tuple[str, str], str] = {}
    for r in report["pairwise"]["rows"]:
        d, star = r["difference"], "*" if r["significant"] else ""
        cell[r["entrant"], r["versus"]] = _ci(d, mark=star + mark)
        # the same comparison read the other way: the interval flips sign
        flipped = {  # 0.0 - x, not -x: no "-0.00"
            "mean": None if d["mean"] is None else 0.0 - d["mean"],
            "low": None if d["high"] is None else 0.0 - d["high"],
            "high": None if d["low"] is None else 0.0 - d["low"],
        }
        cell[r["versus"], r["entrant"]] = _ci(flipped, mark=star + mark)
    return cell


def _pairwise_tables(report: dict[str, Any]) -> list[str]:
    pw = report["pairwise"]
    mark = _mark(report)
    names = [r["entrant"] for r in report["entrants"]]
    cell = pairwise_cells(report)
    matrix = _table(
        ["row - column", *names],
        [[a, *("—" if a == b else cell.get((a, b), "-") for b in names)] for a in names],
    )
    details = _table(
        ["entrant", "versus", "cells", "mean difference (CI)", "level", "p", "p (Holm)"],
        [
            [
                r["entrant"],
                r["versus"],
                str(r["cells"]),
                _ci(r["difference"], mark=mark),
                _level(r["difference"]["level"]),
                _p(r["p"], report),
                _p(r["pHolm"], report) + ("*" if r["significant"] else ""),
            ]
            for r in pw["rows"]
        ],
    )
    m, alpha = pw["comparisons"], pw["alpha"]
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


def _p(value: float | None, report: dict[str, Any]) -> str:
    if value is None:
        return "-"
    # a p of 0 only says that no resample reached zero: below 1 / resamples
    if value == 0:
        return f"<{1 / report['intervals']['resamples']:g}"
    return f"{value:.4f}" if value < 0.001 else f"{value:.3f}"


def _leaderboard(report: dict[str, Any], board: dict[str, Any]) -> list[str]:
    group, mark = board["group"], _mark(report)
    context = ", ".join(f"{k}: {v}" for k, v in board["context"].items())
    rows = [
        [
            _rank(r, mark),
            r["agent"],
            flagged(r["entrant"], report.get("fallbackFlags", {}))
            + "".join(f" (= {o})" for o in r["sameAs"]),
            str(r["cells"]),
            _ci(r["score"], mark=mark),
        ]
        for r in board["rows"]
    ]
    return [
        "",
        f"## {group.capitalize()} leaderboard" + (f" ({context})" if context else ""),
        "",
        f"Entrants that differ only in their {group}"
        + (f" ({context})" if context else "")
        + f"; mean, interval and rank over the {board['cells']} (seed, variant) cells "
        f"all of them finished. Intervals: {_method(report, 'those cells')}; rank interval: "
        "2.5th-97.5th "
        "percentile of the rank over the same resamples.",
        "",
        _table(["rank (95% CI)", group, "entrant", "cells", "score (95% CI)"], rows),
    ]


def to_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown."""
    mark = _mark(report)
    parts = [f"# {report['title'] or 'Tournament report'}", "", *_banner(report)]
    done = report["completeness"]
    shard = f" (shard {done['shard']})" if done.get("shard") not in (None, "1/1", "merged") else ""
    parts.append(
        f"{report['episodes']} episodes of {report['game']}{shard} in {report['cells']} "
        f"(seed, variant) cells; {done['summary']}. Every interval is a "
        f"{_method(report)}: the same results give the same report."
    )
    told = selection_lines(report.get("selection"))
    if told:
        parts += ["", " ".join(told)]
    ceiling = report.get("ceiling")
    if ceiling:
        played = " (played for this report, not an entrant)" if ceiling["hidden"] else ""
        parts.append(
            f"score / {ceiling['name']}: the entrant's mean over cells as a share of "
            f"{ceiling['name']}'s{played} over the same (seed, variant) cells."
        )
    parts += ["", "## Entrants", "", *_entrant_tables(report, report["entrants"], legend=True)]
    if report["identical"]:
        twins = "; ".join(" = ".join(group) for group in report["identical"])
        parts += [
            "",
            f"**Identical entrants** (the same spec for every seat group): {twins}. "
            "Their differences measure chance alone; leaderboards mark them.",
        ]
    if report["paired"]:
        parts += [
            "",
            f"## Paired against {report['reference']}",
            "",
            "Per (seed, variant) cell both entrants finished, repetitions averaged within "
            "the cell; difference = entrant - reference. Interval: "
            f"{_method(report, 'those cells')} (not adjusted for multiple comparisons).",
            "",
            _paired_table(report["paired"], mark, report.get("fallbackFlags", {})),
        ]
    n = len(report["entrants"])
    if n > 2 or (n == 2 and not report["paired"]):
        parts += _pairwise_tables(report)
    clean = report["fallbackFree"]
    total_clean = sum(r["episodes"] for r in clean["entrants"])
    if total_clean != report["episodes"]:
        parts += [
            "",
            "## Without LLM fallbacks",
            "",
            f"Only the {total_clean} episodes in which no seat fell back to its baseline.",
            "",
        ]
        if clean["entrants"]:
            parts += _entrant_tables(report, clean["entrants"])
        if clean["paired"]:
            parts += ["", _paired_table(clean["paired"], mark, report.get("fallbackFlags", {}))]
        unshown = unshown_line(report, [r["entrant"] for r in clean["entrants"]])
        if unshown:
            parts += ["", unshown]
    for board in report["leaderboards"]:
        parts += _leaderboard(report, board)
    parts += server_section(report)
    return "\n".join(parts) + "\n"


def to_json(report: dict[str, Any]) -> str:
    """The report as JSON."""
    return json.dumps(report, indent=2, allow_nan=False) + "\n"


def to_csv(report: dict[str, Any]) -> str:
    """One row per entrant, every figure in its own column (paired figures included)."""
    paired = {r["entrant"]: r for r in report["paired"]}
    columns = [c["key"] for c in report["columns"]]
    groups = report["seatGroups"]
    roles = report["roles"]
    incomplete = "false" if report["completeness"]["complete"] else "true"
    header = [
        "entrant", *groups, "episodes", "planned_episodes", "cells", "score_mean",
        "score_low", "score_high", "rank", "rank_low", "rank_high",
        *columns, "reasons", "calls", "retries", *(f"fallback_rate_{r}" for r in roles),
        "input_tokens", "output_tokens", "cost_usd", "latency_ms_p50", "latency_ms_p95",
        "fallback_free_episodes", "paired_vs", "paired_pairs", "paired_diff_mean",
        "paired_diff_low", "paired_diff_high", "wins", "ties", "losses", "incomplete",
        "ceiling", "ceiling_share", "fallback_flag",
    ]  # fmt: skip
    ceiling = (report.get("ceiling") or {}).get("name", "")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for r in report["entrants"]:
        p = paired.get(r["entrant"], {})
        diff = p.get("difference", {})
        rank = r["rank"] or {}
        writer.writerow(
            [
                r["entrant"], *(r["seats"][g] for g in groups), r["episodes"],
                "" if r["planned"] is None else r["planned"], r["cells"],
                r["score"]["mean"], r["score"]["low"], r["score"]["high"],
                rank.get("rank", ""), rank.get("rankLow", ""), rank.get("rankHigh", ""),
                *(r["columns"][k] for k in columns),
                ";".join(f"{k}={v}" for k, v in r["reasons"].items()),
                r["calls"], r["retries"], *(r["fallbackRate"].get(role, "") for role in roles),
                r["inputTokens"], r["outputTokens"], r["costUsd"],
                r["latencyMs"]["p50"], r["latencyMs"]["p95"], r["fallbackFreeEpisodes"],
                p.get("reference", ""), p.get("pairs", ""), diff.get("mean", ""),
                diff.get("low", ""), diff.get("high", ""),
                p.get("wins", ""), p.get("ties", ""), p.get("losses", ""), incomplete,
                ceiling, "" if r.get("ceilingShare") is None else r["ceilingShare"],
                report.get("fallbackFlags", {}).get(r["entrant"], ""),
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
    "to_csv",
    "to_json",
    "to_markdown",
    "to_svg",
]
