"""Many entrants at once: paired differences, stars that hold their error rate, ranks.

**One comparison.** Entrants a and b are paired on the seeds both finished in every
variant both played (:func:`~harness.report.methods.table.pair`); the difference is
dbar = (1/n) sum_i d_i over seed differences d_i = y_a(i) - y_b(i), and its test and
interval are the paired ones (:mod:`harness.report.methods.paired`): p is the larger
of the sign-flip test's (:mod:`harness.report.methods.signflip`; exact up to 16
seeds, random flips beyond) and the skew-corrected t test's, and the interval the
union of theirs.

**The family.** All m = k(k-1)/2 pairs of k entrants (a pair with no seed in common
is no test and is not counted). Their p-values go through Holm's step-down
procedure: sorted p_(1) <= ... <= p_(m),

    adjusted p_(r) = max over r' <= r of min(1, (m - r' + 1) p_(r')),

and a pair is starred when its adjusted p <= alpha = 0.05. Holm needs only valid
p-values to keep the probability of starring any pair of equal entrants at most
alpha, however many entrants (strong control of the family-wise error). What is
promised depends on what "equal" means (docs/tournaments.md, "A star, and what it
promises"):

* entrants *exchangeable within a seed* (equal in distribution: swapping two names
  on any seed changes nothing). Each seed difference is then symmetric about 0, the
  sign-flip p-value is exact at any n and the paired p (never smaller) valid, so the
  family-wise error is at most alpha at every n. This is the report's promise;
* entrants of *equal means but unlike shapes*. No test of a mean has power above its
  level over all such shapes (Bahadur and Savage 1956), and this one holds alpha
  only as n grows: a pair whose seed differences are a small gap one way on most
  seeds and a large one the other way on a few (a keeper under two tide rules) is
  starred whenever the seeds miss the few. benchmarks/stats_study.py measures both
  nulls and prints, for the pairs it stars most, the chance (1 - q)^n that n seeds
  miss a rare side of share q.

A pair's interval is the paired interval at the level Holm tests it at,
1 - alpha / (m - r + 1) (equal p-values share the strictest), so a starred pair's
interval always excludes zero; an interval may exclude zero without a star when a
pair with a smaller p failed first (Holm stops there).

**When nothing can be concluded.** The smallest p-value n seeds allow is 2^(1-n)
(:func:`~harness.report.methods.signflip.smallest_p`); Holm's first step needs
p <= alpha / m. Below that many seeds (:func:`seeds_needed_for`: 6 for one pair, 7
for three, 11 for the 45 pairs of ten entrants) no pair can be starred, and the
family says so instead of starring nothing silently. So 2 seeds star nothing (p is
at least 0.5), and one seed gives no interval at all.

Ranks with intervals from the same decisions: :mod:`harness.report.methods.ranks`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from harness.report.methods.intervals import Estimate, Method, Reason, no_interval
from harness.report.methods.paired import PairedColumns, paired_columns_of, paired_interval
from harness.report.methods.resample import SIGN_FLIP_SEED, flips_for
from harness.report.methods.signflip import seeds_to_reach, smallest_p
from harness.report.methods.table import (
    TIE_TOLERANCE,
    Dropped,
    Pairing,
    SeedTable,
    Selection,
    pair,
)

ALPHA = 0.05
_METHOD: Method = "sign-flip and skew-t over seeds"


@dataclass(frozen=True)
class HolmStep:
    """Holm's verdict on one p-value."""

    adjusted: float
    """max over r' <= r of min(1, (m - r' + 1) p_(r'))."""
    level: float
    """1 - alpha / (m - r + 1): the level this comparison is tested (and shown) at."""
    rejected: bool
    """adjusted <= alpha."""


def holm(pvalues: Sequence[float], alpha: float = ALPHA) -> list[HolmStep]:
    """Holm's step-down adjustment of ``pvalues``, in their given order (see the module
    docstring). Equal p-values share the level of the first of them, so the result
    does not depend on the order they are given in."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i], i))
    out: dict[int, HolmStep] = {}
    running, level, previous = 0.0, 1.0, None
    for r, i in enumerate(order):
        running = max(running, min(1.0, (m - r) * pvalues[i]))
        if pvalues[i] != previous:
            level, previous = 1 - alpha / (m - r), pvalues[i]
        out[i] = HolmStep(adjusted=running, level=level, rejected=running <= alpha)
    return [out[i] for i in range(m)]


def seeds_needed_for(comparisons: int, alpha: float = ALPHA) -> int:
    """The fewest seeds on which Holm's first step over ``comparisons`` sign-flip
    tests can reject: the least n with 2^(1-n) <= alpha / comparisons."""
    return seeds_to_reach(alpha / max(1, comparisons))


@dataclass(frozen=True)
class PairTest:
    """Entrant ``first`` minus entrant ``second`` over the seeds both finished."""

    first: str
    second: str
    difference: Estimate
    """dbar with its paired interval at ``holm.level`` (or at the level asked)."""
    unadjusted: Estimate
    """dbar with its paired interval at the family's plain level (95%), from the same
    flips: what a table of this one comparison shows."""
    p: float | None
    """The paired p-value, unadjusted (None: no seed in common, no test)."""
    holm: HolmStep | None
    """Holm's verdict within the family (None outside one, or with no test)."""
    wins: int
    ties: int
    losses: int
    selection: Selection
    """The seeds and variants compared (and what that dropped)."""

    @property
    def dropped(self) -> Dropped:
        """What the comparison left out of the cells the two finished."""
        return self.selection.dropped

    @property
    def starred(self) -> bool:
        """Whether the family's Holm procedure rejects "no difference" for this pair."""
        return self.holm is not None and self.holm.rejected

    def reversed(self) -> PairTest:
        """The same comparison the other way round: ``second`` minus ``first``."""
        return replace(
            self,
            first=self.second,
            second=self.first,
            difference=_negated(self.difference),
            unadjusted=_negated(self.unadjusted),
            wins=self.losses,
            losses=self.wins,
        )


def _negated(estimate: Estimate) -> Estimate:
    # 0.0 - x, not -x: a difference of zero read the other way is 0.0, not -0.0
    return replace(
        estimate, value=0.0 - estimate.value, low=0.0 - estimate.high, high=0.0 - estimate.low
    )


def _estimate(
    columns: PairedColumns, column: int, mean: float, level: float, same: bool
) -> Estimate:
    sums = columns.flips
    n = sums.seeds
    resamples = sums.reference if sums.exact else sums.reference - 1  # 2^n, or the B drawn
    if n < 2:
        return no_interval(mean, n, level, _METHOD)
    low, high = paired_interval(columns, column, level)
    reason: Reason | None = None
    if math.isinf(low) or math.isinf(high):
        reason = "too few seeds"
    elif low == high:
        reason = "identical" if same else "constant"
    return Estimate(mean, low, high, level, n, _METHOD, resamples, reason)


def _dbar(pairing: Pairing) -> float:
    return math.fsum(pairing.d.tolist()) / pairing.seeds if pairing.seeds else math.nan


def _identical(pairing: Pairing) -> bool:
    return bool(np.all(np.abs(pairing.d) <= TIE_TOLERANCE))


def paired_difference(
    table: SeedTable,
    first: str,
    second: str,
    *,
    level: float = 0.95,
    seed: int = SIGN_FLIP_SEED,
) -> PairTest:
    """One comparison on its own (no family): dbar, its paired interval at ``level``
    and its unadjusted p-value, with wins, ties and losses by seed."""
    pairing = pair(table, table.index(first), table.index(second))
    wins, ties, losses = pairing.wins_ties_losses()
    chosen = pairing.selection
    if pairing.seeds == 0:
        none = no_interval(math.nan, 0, level, _METHOD)
        return PairTest(first, second, none, none, None, None, wins, ties, losses, chosen)
    tested = paired_columns_of(
        np.stack([pairing.x, pairing.y], axis=1),
        [(0, 1)],
        table.grid_exponent(),
        draws=flips_for((1 - level) / 2),
        seed=seed,
    )
    p = float(tested.p[0])
    estimate = _estimate(tested, 0, _dbar(pairing), level, _identical(pairing))
    return PairTest(first, second, estimate, estimate, p, None, wins, ties, losses, chosen)


@dataclass(frozen=True)
class Family:
    """Every pair of some entrants, Holm-adjusted (see the module docstring)."""

    entrants: tuple[str, ...]
    pairs: tuple[PairTest, ...]
    """(i < j) in the entrants' order."""
    comparisons: int
    """m: the pairs that are tests (at least one seed in common)."""
    alpha: float
    flips: int
    """Random flip sets drawn per pair beyond 16 seeds (the enumeration needs none)."""
    seeds_needed: int
    """The fewest seeds on which any pair could be starred (Holm's first step)."""

    @property
    def can_conclude(self) -> bool:
        """Whether any tested pair has the seeds to be starred at all."""
        return any(
            t.p is not None
            and smallest_p(t.difference.seeds, self.flips) <= self.alpha / max(1, self.comparisons)
            for t in self.pairs
        )

    def note(self) -> str:
        """Why nothing can be concluded, in words (empty when something can): "with 2
        seeds the smallest p-value ... no pair can be starred before 7 seeds"."""
        if self.can_conclude or not self.comparisons:
            return ""
        most = max(t.difference.seeds for t in self.pairs)
        return (
            f"with {most} seed{'s' if most != 1 else ''} the smallest "
            f"p-value a sign-flip test can give is {smallest_p(most, self.flips):.3g}, above "
            f"the {self.alpha / self.comparisons:.3g} (alpha / {self.comparisons}) Holm's "
            f"first step needs; no pair can be starred before {self.seeds_needed} seeds"
        )

    def starred(self) -> list[PairTest]:
        """The starred pairs."""
        return [t for t in self.pairs if t.starred]


def _groups(pairings: Sequence[Pairing]) -> list[list[int]]:
    """Pairings that use the very same seeds and variants (so every entrant's seed
    scores are the same in each of them), grouped: one flip computation each."""
    by_seeds: dict[bytes, list[int]] = {}
    for k, p in enumerate(pairings):
        if p.seeds:
            key = p.selection.seeds.tobytes() + p.selection.variants.tobytes()
            by_seeds.setdefault(key, []).append(k)
    return list(by_seeds.values())


def _flipped(
    pairings: Sequence[Pairing], exponent: int, flips: int, seed: int
) -> dict[int, tuple[PairedColumns, int]]:
    """Both tests of every pairing with seeds, by its index: a group of pairings on the
    same seeds is flipped as one table of its entrants' seed scores
    (:func:`~harness.report.methods.paired.paired_columns_of`)."""
    out: dict[int, tuple[PairedColumns, int]] = {}
    for group in _groups(pairings):
        members = list(
            dict.fromkeys(e for k in group for e in (pairings[k].first, pairings[k].second))
        )
        column = {e: j for j, e in enumerate(members)}
        scores = np.empty((pairings[group[0]].seeds, len(members)))
        for k in group:
            scores[:, column[pairings[k].first]] = pairings[k].x
            scores[:, column[pairings[k].second]] = pairings[k].y
        couples = [(column[pairings[k].first], column[pairings[k].second]) for k in group]
        both = paired_columns_of(scores, couples, exponent, draws=flips, seed=seed)
        out.update((k, (both, j)) for j, k in enumerate(group))
    return out


def compare_all(
    table: SeedTable,
    entrants: Sequence[str] | None = None,
    *,
    alpha: float = ALPHA,
    seed: int = SIGN_FLIP_SEED,
) -> Family:
    """Every pair of ``entrants`` (by default all of the table's), Holm-adjusted.

    Pairs that share the very same seeds (all of them, in a complete folder) are
    flipped together: one product of the flip sets with their entrants' columns of
    seed scores, on the table's grid. The random flips number
    :func:`~harness.report.methods.resample.flips_for` at Holm's strictest tail,
    alpha / (2 m), so every interval end and p-value threshold sits at least 25 draws
    in.
    """
    names = tuple(table.entrants if entrants is None else entrants)
    indices = [table.index(n) for n in names]
    couples = [(a, b) for i, a in enumerate(indices) for b in indices[i + 1 :]]
    pairings = [pair(table, a, b) for a, b in couples]
    tested = [k for k, p in enumerate(pairings) if p.seeds]
    m = len(tested)
    flips = flips_for(alpha / (2 * max(1, m)))
    sums_of = _flipped(pairings, table.grid_exponent(), flips, seed)
    pvalues = {k: float(both.p[j]) for k, (both, j) in sums_of.items()}
    steps = dict(zip(tested, holm([pvalues[k] for k in tested], alpha), strict=True))
    out = []
    for k, ((a, b), pairing) in enumerate(zip(couples, pairings, strict=True)):
        wins, ties, losses = pairing.wins_ties_losses()
        chosen = pairing.selection
        first, second = table.entrants[a], table.entrants[b]
        if k not in steps:
            none = no_interval(math.nan, 0, 1 - alpha, _METHOD)
            out.append(PairTest(first, second, none, none, None, None, wins, ties, losses, chosen))
            continue
        step = steps[k]
        sums, column = sums_of[k]
        dbar, same = _dbar(pairing), _identical(pairing)
        estimate = _estimate(sums, column, dbar, step.level, same)
        plain = _estimate(sums, column, dbar, 1 - alpha, same)
        out.append(
            PairTest(first, second, estimate, plain, pvalues[k], step, wins, ties, losses, chosen)
        )
    return Family(names, tuple(out), m, alpha, flips, seeds_needed_for(m, alpha))


__all__ = [
    "ALPHA",
    "Family",
    "HolmStep",
    "PairTest",
    "compare_all",
    "holm",
    "paired_difference",
    "seeds_needed_for",
]
