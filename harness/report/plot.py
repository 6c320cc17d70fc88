"""The score plot: every episode's score per entrant, with the mean and its interval.

Drawn by matplotlib (Agg-free: a bare :class:`~matplotlib.figure.Figure` saved as
SVG) rather than by hand: the same code serves ``lighthouse report --plot`` and the
results browser, which embeds the SVG in its pages, so the plot works from ``file://``
with no JavaScript plotting runtime to vendor. The output is deterministic: the SVG
ids come from a fixed hash salt, the date is left out, and dots are jittered by their
index, so the same results give the same bytes.

The interval is the report's: the percentile bootstrap over (seed, variant) cells
(:mod:`harness.report.stats`), passed in from a built report or computed with the same
functions. An interval of a folder that is incomplete is drawn dashed with a hollow
mean, and an entrant flagged for fallbacks carries its flag beside its name, so that
nothing provisional looks final.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.report.build import canonical_order
from harness.report.model import MeanInterval
from harness.report.stats import LEVEL, bootstrap_mean, cell_means
from harness.summary import EpisodeSummary

#: The salt of matplotlib's SVG ids: fixed, so two drawings of one plot are identical.
HASH_SALT = "lighthouse-harness-score-plot"
#: matplotlib's settings are global: one drawing at a time (the browser serves threads).
_DRAWING = threading.Lock()
DOT = "#3a6ea5"
MEAN = "#c0392b"
FLAGGED = "#d35400"


@dataclass(frozen=True)
class Strip:
    """One entrant's row of the plot."""

    name: str
    scores: tuple[float, ...]
    """Every episode's score, in canonical order."""
    mean: float | None
    low: float | None
    """The interval's bounds; None with fewer than two cells (no interval)."""
    high: float | None
    flag: str | None = None
    """The report's fallback flag, if the entrant has one."""


def strips(
    summaries: Sequence[EpisodeSummary],
    order: Sequence[str],
    *,
    intervals: Mapping[str, MeanInterval] | None = None,
    flags: Mapping[str, str] | None = None,
) -> list[Strip]:
    """One strip per entrant of ``order`` that has episodes (then any others, sorted).

    ``intervals`` (entrant -> its score in the report) gives each mean and interval;
    an entrant it lacks gets them from the same bootstrap over its cells.
    """
    ordered = canonical_order(summaries)
    present = {s.entrant for s in ordered}
    names = [n for n in order if n in present] + sorted(present - set(order))
    out = []
    for name in names:
        mine = [s for s in ordered if s.entrant == name]
        given = (intervals or {}).get(name)
        if given is None:
            cells = cell_means(((s.seed, s.variant), s.score) for s in mine)
            given = MeanInterval.of(bootstrap_mean(list(cells.values())))
        scores = tuple(s.score for s in mine)
        out.append(Strip(name, scores, given.mean, given.low, given.high, (flags or {}).get(name)))
    return out


def _jitter(index: int) -> float:
    # a fixed pattern by index: the same results put every dot in the same place
    return ((index * 7919) % 17 - 8) * 0.022


def score_plot(
    rows: Sequence[Strip],
    *,
    high: float,
    note: str = "",
    unit: str = "(seed, variant) cells",
) -> str:
    """The plot of ``rows`` as an SVG document (text).

    ``high`` is the right end of the score axis (the game's best score, or the best
    seen); ``note`` (e.g. "incomplete: 50/360 episodes") goes under the title and
    marks every interval provisional.
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
        fig = Figure(figsize=(8.0, 1.5 + 0.5 * max(len(rows), 1)), layout="constrained")
        ax = fig.add_subplot()
        count = len(rows)
        for i, row in enumerate(rows):
            y = count - 1 - i  # the first entrant on top
            colour = FLAGGED if row.flag else DOT
            ax.scatter(
                [min(max(s, 0.0), high) for s in row.scores],
                [y + _jitter(j) for j in range(len(row.scores))],
                s=12,
                color=colour,
                alpha=0.45,
                linewidths=0,
                gid=f"episodes-{i}",
            )
            if row.mean is None:
                continue
            low = row.mean - row.low if row.low is not None else 0.0
            up = row.high - row.mean if row.high is not None else 0.0
            bars = ax.errorbar(
                [row.mean],
                [y],
                xerr=[[low], [up]] if row.low is not None else None,
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
        ax.set_yticks(
            range(count),
            [f"{r.name} ⚠ {r.flag}" if r.flag else r.name for r in reversed(rows)],
        )
        ax.set_ylim(-0.6, max(count, 1) - 0.4)
        ax.set_xlim(0, high)
        ax.grid(axis="x", color="#dddddd")
        ax.set_axisbelow(True)
        ax.set_xlabel("score per episode")
        title = (
            f"Score per episode (dots), mean (circle) and {100 * LEVEL:.0f}% interval\n"
            f"percentile bootstrap over {unit}"
        )
        ax.set_title(title + (f"\n{note}: provisional (dashed)" if provisional else ""))
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
