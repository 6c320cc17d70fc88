"""How many seeds a tournament needs to detect a difference (``--dry-run --detect D``).

It plans for the test the report runs: a pair is starred when Holm's procedure over
the m pairwise comparisons the config will make rejects its sign-flip test
(:mod:`harness.report.methods.family`), and Holm's first step, the strictest,
tests at alpha / m. So a pair whose true difference is delta should be found with
power 1 - beta by a two-sided test at alpha' = alpha / m on seed differences d(s),
each seed's score the balanced mean over the variants (both tides together). With
sigma_d the standard deviation of d(s), the seeds needed are the least n with

    n >= ((t(1 - alpha'/2; n - 1) + t(1 - beta; n - 1)) sigma_d / delta)^2

(the t test's power, which the sign-flip test's approaches; the t quantiles make it
honest at small n), and at least the n on which a sign-flip test can reach alpha' at
all (2^(1-n) <= alpha', :func:`~harness.report.methods.signflip.seeds_to_reach`).
benchmarks/stats_study.py checks the power at the planned n by simulation.

sigma_d comes from what has been played (:func:`seed_spread`), in this order:

1. paired seed differences: the largest sample standard deviation of d(s) over the
   pairs (with the reference, when there is one) that share at least
   :data:`MIN_SEEDS` seeds;
2. one entrant's spread: sqrt(2) s, s the standard deviation of the seed scores of
   the reference (else of the entrant with the most seeds), if it has
   :data:`MIN_SEEDS` seeds: sigma_d for two entrants as spread as that one and
   uncorrelated across seeds (entrants that find the same seeds hard are positively
   correlated, which pairing turns into a smaller sigma_d, so this errs towards more
   seeds).

With fewer than :data:`MIN_SEEDS` seeds it refuses to estimate, and says so: a
standard deviation from two or three seeds can be off by a factor of several.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from harness.report.methods.exact import mean_columns, variance_columns
from harness.report.methods.family import ALPHA
from harness.report.methods.signflip import seeds_to_reach
from harness.report.methods.table import SeedTable, pair, seed_scores, select
from harness.report.methods.tdist import t_quantile

POWER = 0.8
#: The fewest seeds a spread is measured on.
MIN_SEEDS = 5


@dataclass(frozen=True)
class SeedSpread:
    """sigma_d, the standard deviation of seed differences, and where it came from."""

    sigma: float
    source: str
    seeds: int
    """How many seeds it was measured on."""


def _sd(values: np.ndarray) -> float:
    mean = mean_columns(values)
    return float(np.sqrt(variance_columns(values, mean)))


def seed_spread(table: SeedTable, reference: str | None = None) -> SeedSpread | None:
    """sigma_d from the seeds played (see the module docstring); None when no pair and
    no entrant has :data:`MIN_SEEDS` seeds."""
    names = table.entrants
    best: SeedSpread | None = None
    for a, b in itertools.combinations(range(len(names)), 2):
        if reference is not None and reference in names and reference not in (names[a], names[b]):
            continue
        paired = pair(table, a, b)
        if paired.seeds < MIN_SEEDS:
            continue
        sd = _sd(paired.d)
        if best is None or sd > best.sigma:
            source = f"seed differences {names[a]} - {names[b]}, both variants together"
            best = SeedSpread(sd, source, paired.seeds)
    if best is not None:
        return best
    own = [select(table, [i]) for i in range(len(names))]
    ranked = sorted(
        range(len(names)),
        key=lambda i: (names[i] != reference, -int(own[i].seeds.sum()), names[i]),
    )
    for i in ranked:
        seeds = int(own[i].seeds.sum())
        if seeds >= MIN_SEEDS:
            s = _sd(seed_scores(table, i, own[i]))
            source = f"sqrt(2) x the spread of {names[i]}'s seed scores (no pair measured)"
            return SeedSpread(math.sqrt(2) * s, source, seeds)
    return None


@dataclass(frozen=True)
class SeedPlan:
    """The seeds needed to detect ``delta`` (see the module docstring)."""

    delta: float
    comparisons: int
    alpha: float
    power: float
    spread: SeedSpread | None
    seeds: int | None
    """None when it refused (``refused`` says why)."""
    floor: int
    """The fewest seeds on which the sign-flip test can reach alpha / m at all."""
    refused: str | None = None

    @property
    def per_test_alpha(self) -> float:
        """alpha / m: the level of Holm's first step."""
        return self.alpha / max(1, self.comparisons)

    def lines(self) -> list[str]:
        """The dry run's lines for ``--detect``."""
        head = f"to detect a difference of {self.delta:g}"
        if self.seeds is None or self.spread is None:
            return [f"{head}: {self.refused}"]
        m = self.comparisons
        floor = f" (the test needs {self.floor} to reach it)" if self.seeds == self.floor else ""
        return [
            f"{head} (paired over seeds, both variants together; sign-flip test, Holm over "
            f"{m} comparison{'s' if m != 1 else ''}: alpha {self.alpha:g} / {m} = "
            f"{self.per_test_alpha:.3g} at the first step; power {self.power:g}): "
            f"n >= ((t(1 - alpha'/2) + t({self.power:g})) x sigma_d / delta)^2 -> "
            f"{self.seeds} seed{'s' if self.seeds != 1 else ''}{floor}",
            f"  sigma_d = {self.spread.sigma:.3f}: {self.spread.source}, over "
            f"{self.spread.seeds} seeds",
        ]


def _needed(n: int, ratio: float, alpha: float, power: float) -> float:
    df = max(1, n - 1)
    return ((t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * ratio) ** 2


def plan_seeds(
    delta: float,
    spread: SeedSpread | None,
    comparisons: int,
    *,
    alpha: float = ALPHA,
    power: float = POWER,
) -> SeedPlan:
    """The seeds needed to detect ``delta`` over ``comparisons`` pairwise comparisons."""
    if not (math.isfinite(delta) and delta > 0):
        raise ValueError("the difference to detect must be a positive number")
    m = max(1, comparisons)
    per_test = alpha / m
    floor = seeds_to_reach(per_test)
    plan = SeedPlan(delta, m, alpha, power, spread, None, floor)
    if spread is None:
        return _refuse(plan, f"no pair and no entrant has finished {MIN_SEEDS} seeds yet "
                       "(fewer would not tell a spread); play a few seeds of the entrants "
                       "to compare, then ask again")  # fmt: skip
    if spread.seeds < MIN_SEEDS:
        return _refuse(plan, f"sigma_d was measured on {spread.seeds} seeds, fewer than "
                       f"{MIN_SEEDS}; it would not tell a sample size")  # fmt: skip
    if spread.sigma == 0:
        return _refuse(plan, f"the {spread.seeds} seeds measured do not vary (sigma_d = 0: "
                       f"{spread.source}), so they tell no sample size")  # fmt: skip
    ratio = spread.sigma / delta
    z = NormalDist()
    low = max(2, floor, math.ceil(((z.inv_cdf(1 - per_test / 2) + z.inv_cdf(power)) * ratio) ** 2))
    high = max(low, math.ceil(_needed(low, ratio, per_test, power)))
    while low < high:  # the least n with needed(n) <= n: needed falls as n grows
        mid = (low + high) // 2
        if _needed(mid, ratio, per_test, power) <= mid:
            high = mid
        else:
            low = mid + 1
    return SeedPlan(delta, m, alpha, power, spread, low, floor)


def _refuse(plan: SeedPlan, why: str) -> SeedPlan:
    return SeedPlan(
        plan.delta, plan.comparisons, plan.alpha, plan.power, plan.spread, None, plan.floor, why
    )


__all__ = ["MIN_SEEDS", "POWER", "SeedPlan", "SeedSpread", "plan_seeds", "seed_spread"]
