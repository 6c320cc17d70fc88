"""Rendering a report: Markdown tables, CSV rows, JSON, and an SVG of score distributions."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from html import escape
from typing import Any

from harness.report.columns import Column
from harness.report.servers import flagged, server_section, unshown_line
from harness.tournament.summary import EpisodeSummary


def _ci(iv: dict[str, Any], digits: int = 2) -> str:
    if iv.get("mean") is None:
        return "-"
    return f"{iv['mean']:.{digits}f} [{iv['low']:.{digits}f}, {iv['high']:.{digits}f}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _columns(report: dict[str, Any]) -> list[Column]:
    return [
        Column(c["key"], c["label"], c["key"], digits=c["digits"], percent=c["percent"])
        for c in report["columns"]
    ]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _entrant_tables(report: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    columns = _columns(report)
    groups = report["seatGroups"]
    ceiling = report.get("ceiling")
    share = [f"score / {ceiling['name']}"] if ceiling else []
    main = _table(
        ["entrant", *groups, "episodes", "score (95% CI)", *share, "reasons"],
        [
            [
                r["entrant"],
                *(r["seats"][g] for g in groups),
                str(r["episodes"]),
                _ci(r["score"]),
                *([_pct(r.get("ceilingShare"))] if ceiling else []),
                ", ".join(f"{k} {v}" for k, v in r["reasons"].items()),
            ]
            for r in rows
        ],
    )
    game = _table(
        ["entrant", *(c.label for c in columns)],
        [[r["entrant"], *(c.format(r["columns"][c.key]) for c in columns)] for r in rows],
    )
    out = [main, "", game]
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


def _paired_table(rows: list[dict[str, Any]], flags: dict[str, str]) -> str:
    return _table(
        ["entrant", "vs", "pairs", "mean difference (95% CI)", "wins", "ties", "losses"],
        [
            [
                flagged(r["entrant"], flags),
                r["reference"],
                str(r["pairs"]),
                _ci(r["difference"]),
                str(r["wins"]),
                str(r["ties"]),
                str(r["losses"]),
            ]
            for r in rows
        ],
    )


def to_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown."""
    parts = [f"# {report['title'] or 'Tournament report'}", ""]
    parts.append(
        f"{report['episodes']} episodes of {report['game']}. Score intervals are 95% "
        "bootstrap intervals (seeded, reproducible)."
    )
    ceiling = report.get("ceiling")
    if ceiling:
        played = " (played for this report, not an entrant)" if ceiling["hidden"] else ""
        parts.append(
            f"score / {ceiling['name']}: the entrant's mean score as a share of "
            f"{ceiling['name']}'s{played} on the same seeds and variants."
        )
    parts += ["", "## Entrants", "", *_entrant_tables(report, report["entrants"])]
    if report["paired"]:
        parts += [
            "",
            f"## Paired against {report['reference']}",
            "",
            "Per (seed, variant), repetitions averaged; difference = entrant - reference.",
            "",
            _paired_table(report["paired"], report.get("fallbackFlags", {})),
        ]
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
            parts += ["", _paired_table(clean["paired"], report.get("fallbackFlags", {}))]
        unshown = unshown_line(report, [r["entrant"] for r in clean["entrants"]])
        if unshown:
            parts += ["", unshown]
    if report["leaderboard"]:
        lead = report["leader"]
        parts += [
            "",
            f"## {lead.capitalize()} leaderboard",
            "",
            _table(
                [lead, "entrants", "episodes", "score (95% CI)"],
                [
                    [
                        flagged(k["agent"], report.get("leaderboardFlags", {})),
                        ", ".join(k["entrants"]),
                        str(k["score"]["n"]),
                        _ci(k["score"]),
                    ]
                    for k in report["leaderboard"]
                ],
            ),
        ]
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
    header = [
        "entrant", *groups, "episodes", "score_mean", "score_low", "score_high",
        *columns, "reasons", "calls", "retries", *(f"fallback_rate_{r}" for r in roles),
        "input_tokens", "output_tokens", "cost_usd", "latency_ms_p50", "latency_ms_p95",
        "fallback_free_episodes", "paired_vs", "paired_pairs", "paired_diff_mean",
        "paired_diff_low", "paired_diff_high", "wins", "ties", "losses",
        "ceiling", "ceiling_share", "fallback_flag",
    ]  # fmt: skip
    ceiling = (report.get("ceiling") or {}).get("name", "")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for r in report["entrants"]:
        p = paired.get(r["entrant"], {})
        diff = p.get("difference", {})
        writer.writerow(
            [
                r["entrant"], *(r["seats"][g] for g in groups), r["episodes"],
                r["score"]["mean"], r["score"]["low"], r["score"]["high"],
                *(r["columns"][k] for k in columns),
                ";".join(f"{k}={v}" for k, v in r["reasons"].items()),
                r["calls"], r["retries"], *(r["fallbackRate"].get(role, "") for role in roles),
                r["inputTokens"], r["outputTokens"], r["costUsd"],
                r["latencyMs"]["p50"], r["latencyMs"]["p95"], r["fallbackFreeEpisodes"],
                p.get("reference", ""), p.get("pairs", ""), diff.get("mean", ""),
                diff.get("low", ""), diff.get("high", ""),
                p.get("wins", ""), p.get("ties", ""), p.get("losses", ""),
                ceiling, "" if r.get("ceilingShare") is None else r["ceilingShare"],
                report.get("fallbackFlags", {}).get(r["entrant"], ""),
            ]
        )  # fmt: skip
    return buffer.getvalue()


def to_svg(summaries: Sequence[EpisodeSummary], order: Sequence[str], *, high: float) -> str:
    """A strip plot of every episode's score per entrant, with the mean marked."""
    names = [n for n in order if any(s.entrant == n for s in summaries)]
    row_h, left, width, plot_w = 40, 170, 760, 560
    height = 60 + row_h * len(names)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for tick in range(0, int(high) + 1, max(int(high) // 7, 1)):
        x = left + plot_w * tick / high
        out.append(f'<line x1="{x:.1f}" y1="20" x2="{x:.1f}" y2="{height - 30}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 12}" text-anchor="middle">{tick}</text>')
    for i, name in enumerate(names):
        y = 40 + row_h * i
        scores = [s.score for s in summaries if s.entrant == name]
        out.append(f'<text x="{left - 10}" y="{y + 4}" text-anchor="end">{escape(name)}</text>')
        for j, score in enumerate(scores):
            jitter = ((j * 7919) % 17 - 8) * 1.2
            x = left + plot_w * min(max(score, 0.0), high) / high
            out.append(
                f'<circle cx="{x:.1f}" cy="{y + jitter:.1f}" r="2.5" fill="#3a6ea5" '
                'fill-opacity="0.45"/>'
            )
        mean = sum(scores) / len(scores)
        x = left + plot_w * min(max(mean, 0.0), high) / high
        out.append(
            f'<line x1="{x:.1f}" y1="{y - 14}" x2="{x:.1f}" y2="{y + 14}" stroke="#c0392b" '
            'stroke-width="3"/>'
        )
    out.append(
        f'<text x="{left + plot_w / 2}" y="14" text-anchor="middle">'
        "score per episode (red: mean)</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = ["to_csv", "to_json", "to_markdown", "to_svg"]
