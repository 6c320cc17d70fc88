"""The score plot: every episode's score per entrant, the score and its interval over
seeds, and each entrant's performance profile.

Drawn by matplotlib (Agg-free: a bare :class:`~matplotlib.figure.Figure` saved as
SVG) rather than by hand: the same code serves ``lighthouse report --plot`` and the
results browser, which embeds the SVG in its pages, so the plot works from ``file://``
with no JavaScript plotting runtime to vendor. The output is deterministic: the SVG
ids come from a fixed hash salt, the date is left out, and dots are jittered by their
index, so the same results give the same bytes.

The top panel draws every episode's score (dots) and the report's score (the mean
over seeds of each seed's balanced mean over the variants) with its 95% interval
over seeds; the bottom one each entrant's performance profile, the share of seeds
whose seed score is at least tau, for every tau (a step that falls at each seed
score). Both come from the report (:mod:`harness.report.estimates`), or from the
same functions over the episodes given. An interval of a folder that is incomplete
is drawn dashed with a hollow mean, its profile dashed too, and an entrant flagged
for fallbacks carries its flag beside its name, so that nothing provisional looks
final.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.report.build import canonical_order
from harness.report.estimates import entrant_stats
from harness.report.methods import LEVEL, SeedTable
from harness.report.model import MeanInterval, Profile
from harness.summary import EpisodeSummary

#: The salt of matplotlib's SVG ids: fixed, so two drawings of one plot are identical.
HASH_SALT = "lighthouse-harness-score-plot"
#: matplotlib's settings are global: one drawing at a time (the browser serves threads).
_DRAWING = threading.Lock()
DOT = "#3a6ea5"
MEAN = "#c0392b"
FLAGGED = "#d35400"
#: The profiles' colours, entrant by entrant (then again from the first).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip


@dataclass(frozen=True)
class Strip:
    """One entrant's row of the plot."""

    name: str
    scores: tuple[float, ...]
    """Every episode's score, in canonical order."""
    mean: float | None
    low: float | None
    """The interval's bounds; None where there is none (fewer than two seeds)."""
    high: float | None
    flag: str | None = None
    """The report's fallback flag, if the entrant has one."""
    profile: Profile | None = None
    """The entrant's performance profile (None: not drawn)."""


def _own(
    ordered: Sequence[EpisodeSummary], names: Sequence[str]
) -> dict[str, tuple[MeanInterval, Profile]]:
    """Each of ``names``' score and profile from ``ordered`` alone (no report)."""
    variants = sorted({s.variant for s in ordered})
    table = SeedTable.from_episodes(
        list(names),
        variants,
        [names.index(s.entrant) for s in ordered],
        [s.seed for s in ordered],
        [variants.index(s.variant) for s in ordered],
        [s.score for s in ordered],
    )
    return {n: (f.score, f.profile) for n, f in entrant_stats(table, names, ceiling=False).items()}


def strips(
    summaries: Sequence[EpisodeSummary],
    order: Sequence[str],
    *,
    intervals: Mapping[str, MeanInterval] | None = None,
    profiles: Mapping[str, Profile] | None = None,
    flags: Mapping[str, str] | None = None,
) -> list[Strip]:
    """One strip per entrant of ``order`` that has episodes (then any others, sorted).

    ``intervals`` (entrant -> its score in the report) and ``profiles`` give each
    score, interval and profile; without them they come from the same statistics
    over the episodes given.
    """
    ordered = canonical_order(summaries)
    present = {s.entrant for s in ordered}
    names = [n for n in order if n in present] + sorted(present - set(order))
    own = _own(ordered, names) if intervals is None or profiles is None else {}
    out = []
    for name in names:
        mine = [s for s in ordered if s.entrant == name]
        given = (intervals or {}).get(name) or own[name][0]
        profile = (profiles or {}).get(name) or own[name][1]
        scores = tuple(s.score for s in mine)
        flag = (flags or {}).get(name)
        out.append(Strip(name, scores, given.mean, given.low, given.high, flag, profile))
    return out


def _jitter(index: int) -> float:
    # a fixed pattern by index: the same results put every dot in the same place
    return ((index * 7919) % 17 - 8) * 0.022


def _draw_strip(ax: Any, row: Strip, i: int, y: int, high: float, provisional: bool) -> None:
    """One entrant's dots, score and interval at height ``y``."""
    ax.scatter(
        [min(max(s, 0.0), high) for s in row.scores],
        [y + _jitter(j) for j in range(len(row.scores))],
        s=12,
        color=FLAGGED if row.flag else DOT,
        alpha=0.45,
        linewidths=0,
        gid=f"episodes-{i}",
    )
    if row.mean is None:
        return
    bounded = row.low is not None and row.high is not None
    bars = ax.errorbar(
        [row.mean],
        [y],
        xerr=[[row.mean - (row.low or 0.0)], [(row.high or 0.0) - row.mean]] if bounded else None,
        fmt="o",
        color=MEAN,
        markerfacecolor="white" if provisional else MEAN,
        markersize=7,
        capsize=5,
        elinewidth=2,
    )
    bars.lines[0].set_gid(f"mean-{i}")
    for bar in bars.lines[2]:
        bar.set_gid(f"interval-{i}")
        if provisional:
            bar.set_linestyle("--")


def _label(row: Strip) -> str:
    return f"{row.name} ⚠ {row.flag}" if row.flag else row.name


def _strips_panel(ax: Any, rows: Sequence[Strip], high: float, provisional: bool) -> None:
    count = len(rows)
    for i, row in enumerate(rows):
        _draw_strip(ax, row, i, count - 1 - i, high, provisional)  # the first on top
    ax.set_yticks(range(count), [_label(r) for r in reversed(rows)])
    ax.set_ylim(-0.6, max(count, 1) - 0.4)
    ax.set_xlim(0, high)
    ax.grid(axis="x", color="#dddddd")
    ax.set_axisbelow(True)
    ax.set_xlabel("score per episode")


def _steps(profile: Profile, high: float) -> tuple[list[float], list[float]]:
    """The profile as a step line: 1 below the lowest seed score, then at each seed
    score tau_j the share of seeds scoring more than it, to the axis' end."""
    xs = [min(0.0, *profile.thresholds[:1]), *profile.thresholds]
    ys = [1.0, *profile.shares[1:], 0.0]
    end = max(high, xs[-1])
    return [*xs, end], [*ys, 0.0]


def _profiles_panel(ax: Any, rows: Sequence[Strip], high: float, provisional: bool) -> None:
    for i, row in enumerate(rows):
        if row.profile is None or not row.profile.seeds:
            continue
        xs, ys = _steps(row.profile, high)
        (line,) = ax.step(
            xs,
            ys,
            where="post",
            color=PALETTE[i % len(PALETTE)],
            linewidth=1.6,
            linestyle="--" if provisional else "-",
            label=_label(row),
        )
        line.set_gid(f"profile-{i}")
    ax.set_xlim(0, high)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(color="#dddddd")
    ax.set_axisbelow(True)
    ax.set_xlabel("tau (seed score: the balanced mean over a seed's variants)")
    ax.set_ylabel("share of seeds >= tau")
    ax.set_title("Performance profile: the share of seeds scoring at least tau")
    if any(r.profile is not None and r.profile.seeds for r in rows):
        ax.legend(loc="upper right", fontsize=8, frameon=False)


def score_plot(rows: Sequence[Strip], *, high: float, note: str = "") -> str:
    """The plot of ``rows`` as an SVG document (text).

    ``high`` is the right end of the score axes (the game's best score, or the best
    seen); ``note`` (e.g. "incomplete: 50/360 episodes") goes under the title and
    marks every interval and profile provisional.
    """
    import matplotlib
    from matplotlib.figure import Figure

    provisional = bool(note)
    with (
        _DRAWING,
        matplotlib.rc_context(
            {
                "svg.hashsalt": HASH_SALT,
                "svg.fonttype": "none",  # text stays text: smaller, searchable, selectable
                "font.family": "DejaVu Sans",
                "font.size": 10,
            }
        ),
    ):
        count = max(len(rows), 1)
        fig = Figure(figsize=(8.0, 4.6 + 0.5 * count), layout="constrained")
        top, bottom = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.0 + 0.5 * count, 3.0]})
        _strips_panel(top, rows, high, provisional)
        _profiles_panel(bottom, rows, high, provisional)
        title = (
            f"Score per episode (dots), score (circle), {100 * LEVEL:.0f}% interval over seeds\n"
            "(score: the mean over seeds of each seed's balanced mean over variants)"
        )
        top.set_title(title + (f"\n{note}: provisional (dashed)" if provisional else ""))
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    document = buffer.getvalue()
    # From <svg> on: a whole SVG file still (it declares its namespaces), and an
    # element that an HTML page can hold as it is (no XML prolog, no DTD).
    return document[document.index("<svg") :]


def svg_groups(svg: str, prefix: str) -> dict[str, int]:
    """The plot's groups whose id starts with ``prefix`` and how many marks each holds
    (a dot, a mean or an interval bar each count one): for tests and checks."""
    from xml.etree import ElementTree

    ns = "{http://www.w3.org/2000/svg}"
    out = {}
    for group in ElementTree.fromstring(svg).iter(f"{ns}g"):
        gid = group.get("id", "")
        if gid.startswith(prefix):
            out[gid] = sum(1 for _ in group.iter(f"{ns}use")) or 1
    return out


__all__ = ["HASH_SALT", "Strip", "score_plot", "strips", "svg_groups"]
