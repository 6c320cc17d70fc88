"""The texts of a report's figures, made once for every view of it (Markdown, the
results browser): an interval with why it is missing or of zero width, a p-value at
the resolution it has, a rank, and the sentences that say what each kind of interval
resamples and what a star means.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from harness.protocol import Column
from harness.report.methods import REASONS, Reason
from harness.report.methods.resample import EXACT_UP_TO, SIGN_FLIP_SEED
from harness.report.methods.signflip import seeds_to_reach, smallest_p
from harness.report.model import EntrantRow, Latency, Report


class Bounds(Protocol):
    """A figure and its interval's bounds (None where there are none), and why."""

    @property
    def mean(self) -> float | None: ...
    @property
    def low(self) -> float | None: ...
    @property
    def high(self) -> float | None: ...
    @property
    def reason(self) -> Reason | None: ...


class Ranks(Protocol):
    """A rank and its interval's bounds."""

    @property
    def rank(self) -> int: ...
    @property
    def rank_low(self) -> int: ...
    @property
    def rank_high(self) -> int: ...


class Flipped:
    """An interval read the other way round (``0.0 - x``, not ``-x``: no "-0.00")."""

    def __init__(self, iv: Bounds) -> None:
        self.mean = None if iv.mean is None else 0.0 - iv.mean
        self.low = None if iv.high is None else 0.0 - iv.high
        self.high = None if iv.low is None else 0.0 - iv.low
        self.reason = iv.reason


#: The tag an interval carries, in words, when it is missing, unbounded or zero-width.
TAGS: dict[Reason, str] = {
    "no seeds": "no seeds",
    "one seed": "one seed",
    "too few seeds": "too few seeds",
    "constant": "constant",
    "identical": "identical",
    "unbounded": "unbounded",
    "undefined": "undefined",
}


def interval_text(iv: Bounds | None, digits: int = 2, mark: str = "", *, pct: bool = False) -> str:
    """``mean [low, high]`` (``mean [-]`` without an interval), its tag in brackets when
    it has a reason (``(constant)``), then ``mark``; ``pct`` shows shares as percents."""
    if iv is None or iv.mean is None:
        return "-" if iv is None or iv.reason is None else f"- ({TAGS[iv.reason]}){mark}"
    scale, unit = (100.0, "%") if pct else (1.0, "")
    places = 1 if pct else digits

    def num(value: float) -> str:
        return f"{scale * value:.{places}f}{unit}"

    tag = f" ({TAGS[iv.reason]})" if iv.reason is not None else ""
    if iv.low is None or iv.high is None:
        return f"{num(iv.mean)} [-]{tag}{mark}"
    return f"{num(iv.mean)} [{num(iv.low)}, {num(iv.high)}]{tag}{mark}"


def mean_text(iv: Bounds | None, digits: int = 2, mark: str = "") -> str:
    """``mean`` then ``mark`` (``-`` without one): a figure whose interval is shown elsewhere."""
    if iv is None or iv.mean is None:
        return "-"
    return f"{iv.mean:.{digits}f}{mark}"


def reason_notes(intervals: Iterable[Bounds | None]) -> list[str]:
    """One line per tag the ``intervals`` carry, saying what it means."""
    seen = sorted({iv.reason for iv in intervals if iv is not None and iv.reason is not None})
    return [f"({TAGS[r]}): {REASONS[r]}." for r in seen]


def incomplete_mark(report: Report) -> str:
    """What every interval of an incomplete folder carries beside it."""
    return "" if report.complete else " (incomplete)"


def rank_text(figures: Ranks | None, mark: str = "") -> str:
    """``2 (1-3)``: the rank and its simultaneous interval, then ``mark``; an interval
    of one rank reads ``2 (2-2)``, never ``2 (2)``."""
    if figures is None:
        return "-"
    return f"{figures.rank} ({figures.rank_low}-{figures.rank_high}){mark}"


#: What the rank column says of an entrant ranked apart (mostly not its own play).
APART = "apart: not its own play"


#: What the rank column says of an entrant ranked apart for too few seeds.
FEW_SEEDS = "apart: too few seeds"


def entrant_rank_text(row: EntrantRow, mark: str = "") -> str:
    """An entrant's rank cell: :func:`rank_text`, or :data:`APART` for an entrant whose
    turns were mostly not its own, or :data:`FEW_SEEDS` for one with too few seeds."""
    if row.mostly_not_own:
        return APART
    return FEW_SEEDS if row.few_seeds else rank_text(row.rank, mark)


def few_seeds_note(rows: Sequence[EntrantRow]) -> str:
    """The line under a ranked table that names the entrants ranked apart for too few
    seeds (empty: none)."""
    few = [r for r in rows if r.few_seeds]
    if not few:
        return ""
    return (
        f'"{FEW_SEEDS}": an entrant that finished fewer than half the seeds the most '
        "complete entrant finished is ranked apart, since every rank is over the seeds "
        "all ranked entrants share and its few would narrow them all; its score and "
        "interval are over its own seeds: "
        + ", ".join(f"{r.entrant} ({r.seeds} seeds)" for r in few)
        + "."
    )


def few_seeds_line(names: Sequence[str]) -> str:
    """The line under a board that names the entrants it leaves out for too few seeds."""
    if not names:
        return ""
    return "Ranked apart, not on this board: " + ", ".join(names) + " (too few seeds)."


def apart_line(names: Sequence[str]) -> str:
    """The line under a board that names the entrants it ranks apart (empty: none)."""
    if not names:
        return ""
    return (
        "Ranked apart, not on this board: " + ", ".join(names) + " (most of a seat "
        "group's turns were not its own: its role's baseline played them)."
    )


def not_own_text(row: EntrantRow) -> str:
    """``keeper 27 of 27``: each seat group's turns the entrant did not play itself
    (``none`` when it played them all)."""
    parts = [f"{k} {c.not_own} of {c.turns}" for k, c in row.not_own.items() if c.not_own]
    return "; ".join(parts) or "none"


def shows_not_own(rows: Iterable[EntrantRow]) -> bool:
    """Whether a table of ``rows`` needs the column of turns not the entrant's own."""
    return any(c.not_own for r in rows for c in r.not_own.values())


def not_own_note(rows: Sequence[EntrantRow], flags: dict[str, str]) -> str:
    """What the ⚠ mark and the column of turns not the entrant's own mean (empty when no
    row has such a turn)."""
    if not shows_not_own(rows):
        return ""
    apart = [r.entrant for r in rows if r.mostly_not_own]
    text = (
        "Turns not its own: a seat group's turns its role's baseline played because the "
        "entrant's own player (a model, a Python agent, an Inspect model, or a record of "
        "one) gave no usable answer: a reply that did not parse, a failed or timed-out "
        "call, an agent that raised or returned junk. Such a turn scores as the "
        "baseline's play, not the entrant's."
    )
    if flags:
        text += (
            " ⚠ marks an entrant with more than 10% of a seat group's turns not its own, "
            "with that share."
        )
    if apart:
        text += (
            f" An entrant with more than half of a seat group's turns not its own is ranked "
            f'apart ("{APART}"), below the ranked entrants and left out of their ranks, '
            "so that it never shares a rank with the baseline that played for it: "
            + ", ".join(apart)
            + "."
        )
    return text


def episodes_text(report: Report, row: EntrantRow) -> str:
    """Episodes, as finished/planned when the folder is incomplete."""
    if report.complete or row.planned is None:
        return str(row.episodes)
    return f"{row.episodes}/{row.planned}"


def percent_text(value: float | None) -> str:
    """A share as a percent (``-`` when there is none)."""
    return "-" if value is None else f"{100 * value:.1f}%"


def latency_text(lat: Latency) -> str:
    """``p50 / p95 ms``."""
    if lat.p50 is None or lat.p95 is None:
        return "-"
    return f"{lat.p50:.0f} / {lat.p95:.0f} ms"


def level_text(value: float | None) -> str:
    """A confidence level as a percent, to two places (Holm's levels: 98.33%)."""
    return "-" if value is None else f"{100 * value:.2f}%"


def _figure(value: float) -> str:
    return f"{value:.3g}" if value >= 0.001 else f"{value:.2g}"


def p_text(value: float | None, floor: float | None = None, seeds: int = 0) -> str:
    """A p-value at the resolution it has: three significant figures (two below 0.001);
    ``<=`` its floor when random sign flips (beyond 16 seeds) found none as extreme as
    the observed one, so that the true p is below what they can tell."""
    if value is None:
        return "-"
    if floor is not None and seeds > EXACT_UP_TO and value <= floor:
        return f"<={_figure(floor)}"
    return _figure(value)


def sign_flip_words(flips: int) -> str:
    """What a comparison's test resamples, in words."""
    return (
        f"sign flips of the seed differences: all 2^n sign vectors up to {EXACT_UP_TO} "
        f"seeds, else {flips:,} drawn at random (seed {SIGN_FLIP_SEED})"
    )


def too_few_line(seeds: Sequence[int], alpha: float) -> str:
    """Why comparisons on so few seeds cannot conclude (empty when they can): the
    smallest p-value a sign-flip test gives on n seeds is 2^(1-n)."""
    most = max(seeds, default=0)
    if most < 1 or most > EXACT_UP_TO or smallest_p(most, 0) <= alpha:
        return ""
    return (
        f"**Too few seeds to conclude**: with {most} seed{'s' if most != 1 else ''} the "
        f"smallest p-value a sign-flip test can give is {smallest_p(most, 0):.3g}, above "
        f"{alpha:g}; no difference here can be told from chance before "
        f"{seeds_to_reach(alpha)} seeds."
    )


def columns_of(report: Report) -> list[Column]:
    """The game's columns the tables show, as the report holds them (CSV and JSON keep
    every column)."""
    return [
        Column(c.key, c.label, c.key, digits=c.digits, percent=c.percent, means=c.means)
        for c in report.columns
        if c.tables
    ]


def headline(report: Report) -> str:
    """The report's first sentence: what it is over, and its unit."""
    done = report.completeness
    shard = f" (shard {done.shard})" if done.shard not in (None, "1/1", "merged") else ""
    v = len(report.variants)
    return (
        f"{report.episodes} episodes of {report.game}{shard} on {report.seeds} seed"
        f"{'s' if report.seeds != 1 else ''} x {v} variant{'s' if v != 1 else ''} "
        f"({report.cells} (seed, variant) cells); {done.summary}. The unit of every "
        "statistic is the seed (the board): a seed's variants are the same board played "
        "another way, so every interval is taken over seeds, never over cells "
        "(docs/tournaments.md). The same results give the same report."
    )


def score_note(report: Report, ranked: bool, ranked_seeds: int = 0) -> str:
    """What the entrants table's score, variants, IQM, ceiling and rank are."""
    iv = report.intervals
    most = report.max_score
    top = f" (0 to {most:g}, the most the rules allow)" if most is not None else ""
    parts = [
        f"Score{top}: each seed's score is the balanced mean of the entrant's cell means over "
        "the variants (each variant weighs the same; repetitions are averaged within a "
        "cell), and the score is their mean over the seeds it finished in every variant "
        f"it played. Every interval is {100 * iv.level:.0f}% over seeds: the score's and "
        "each variant's (its mean over the same seeds) are skew-corrected t intervals, a "
        "closed form over the seed scores (nothing resampled); the IQM's (the mean of the "
        "middle half of the seed scores) a percentile bootstrap of the seeds, "
        f"{iv.resamples:,} resamples, seed {iv.seed}."
    ]
    if report.ceiling is not None:
        name = report.ceiling.name
        parts.append(
            f"score / {name}: the score as a share of {name}'s over the seeds both "
            "finished; interval: linearized skew-corrected t over those seeds."
        )
    if ranked:
        parts.append(
            f"Rank: 1 + the entrants with a higher score on the {ranked_seeds} seeds all "
            "share; the rank intervals hold all at once at 95%: each spans the ranks that "
            "no star of the pairwise differences rules out."
        )
    return " ".join(parts)


def ends_text(row: EntrantRow) -> str:
    """``all escaped 80, tick cap 20``: the row's episodes by how they ended (by the
    rules' reasons for a report of lines without the game's names)."""
    ends = row.ends or row.reasons
    return ", ".join(f"{k} {v}" for k, v in ends.items())


def ends_note(report: Report) -> str:
    """What the ended column's names mean (empty when the game names none)."""
    if not report.end_legend:
        return ""
    return f"Ended: how the episodes ended: {report.end_legend}."


def paired_note(report: Report, flips: int) -> str:
    """What the table against the reference shows."""
    ref = report.reference
    return (
        "Per seed both entrants finished in every variant both played: the difference "
        f"of their seed scores, entrant - {ref}. Interval: 95%, the union of the "
        f"sign-flip interval ({sign_flip_words(flips)}) and the skew-corrected t "
        "interval; p: the larger of the two tests' p-values. Neither is adjusted for "
        "multiple comparisons (the stars of the pairwise differences are). "
        f"P(entrant > {ref}): the share of those seeds the entrant scored more on, ties "
        "halved, with Wilson's interval over seeds. Wins, ties and losses count seeds."
    )


def pairwise_note(report: Report, flips: int) -> str:
    """What the pairwise table shows and what a star means."""
    pw = report.pairwise
    m, alpha = pw.comparisons, pw.alpha
    return (
        "Row minus column: the mean, over the seeds both entrants finished in every "
        "variant both played, of the difference of their seed scores. A pair's p-value "
        f"is the larger of a sign-flip test's ({sign_flip_words(flips)}) and a "
        f"skew-corrected t test's; the {m} "
        f"p-value{'s' if m != 1 else ''} go through Holm's step-down procedure and * "
        f"marks a Holm-adjusted p <= {alpha:g}: the chance that any star of this table "
        "joins two entrants that do not differ (equal in distribution on every seed) is "
        f"at most {100 * alpha:g}%; two of equal mean but unlike shapes can be starred "
        "more often, and the fewer the seeds, the more (docs/tournaments.md). The "
        f"comparison with the r-th smallest p has its interval at level 1 - {alpha:g}/"
        f'({m} - r + 1) (column "level"), the union of both tests\' intervals at that '
        "level, so a starred pair's interval excludes 0. The matrix gives each pair's "
        "mean difference and its star; its interval is in the list under it. Which to "
        "quote: for a pair with the reference, the 95% interval of the paired table above "
        "(this list's, at Holm's level, is wider and is what the star refers to); for any "
        "other pair, this list's."
    )


def board_note(group: str, context: str, seeds: int, cells: int, entrants: int) -> str:
    """What a leaderboard shows."""
    where = f" ({context})" if context else ""
    return (
        f"Entrants that differ only in their {group}{where}; score, interval and rank over "
        f"the {seeds} seeds all of them finished in every variant ({cells} (seed, variant) "
        "cells). Score intervals: skew-corrected t over those seeds; rank intervals: all "
        f"at once at 95%, from a Holm family of this board's {entrants} entrants."
    )


__all__ = [
    "APART",
    "FEW_SEEDS",
    "TAGS",
    "Bounds",
    "Flipped",
    "Ranks",
    "apart_line",
    "board_note",
    "columns_of",
    "ends_note",
    "ends_text",
    "entrant_rank_text",
    "episodes_text",
    "few_seeds_line",
    "few_seeds_note",
    "headline",
    "incomplete_mark",
    "interval_text",
    "latency_text",
    "level_text",
    "mean_text",
    "not_own_note",
    "not_own_text",
    "p_text",
    "paired_note",
    "pairwise_note",
    "percent_text",
    "rank_text",
    "reason_notes",
    "score_note",
    "shows_not_own",
    "sign_flip_words",
    "too_few_line",
]
