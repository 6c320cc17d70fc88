"""How well the report's statistics hold their promise, measured by simulation.

    python -m benchmarks.stats_study [--tournaments 400] [--population-seeds 1000]
                                     [--sections means,differences,others,fwer,planner]
                                     [--fwer-seeds 3,5,8,10,12,16,20,50] [--skip-ten]

The population is real Lighthouse play (benchmarks/stats_population.py: SILENT,
LANTERN and PILOT keepers with WALLHUG runners on 1,000 seeds at both tides, and the
same keepers under three other tide rules). A simulated tournament of n seeds draws n
of the population's seeds with replacement (the same seeds for every entrant) and
takes their cells: the default tide only ("1 variant") or both ("2 variants"). The
truth is the population's own figure, so the coverage of an interval is the share of
simulated tournaments whose interval holds it. Every figure comes from
``--tournaments`` simulated tournaments (seeded; the same run prints the same table).

Methods compared:

* **cell pct**: the report's method before seeds were its unit, a percentile
  bootstrap over (seed, variant) cells (2,000 resamples drawn by Python's
  ``random.Random(20261129).choices``, as the report drew them), with bootstrap
  p-values and Holm for the stars; re-computed here with numpy on those very draws
  (checked at the start against the interval that report gave of configs/smoke.toml's
  LANTERN, tests/golden/folders/smoke.tar.gz);
* **seed pct**: a percentile bootstrap over seeds, each carrying its cells;
* **seed boot-t**: the studentized bootstrap over seeds;
* **t seeds**: the t interval over seed scores;
* **skew t**: the skew-corrected t interval over seed scores (Hall 1992; the new
  method for means);
* **sign-flip**: the sign-flip test over seed differences alone, with Holm;
* **paired**: the new method for differences, the larger p of the sign-flip and the
  skew-corrected t tests and the union of their intervals, with Holm for the stars.

Coverage of means: each of SILENT, LANTERN, PILOT (default rules); of differences:
each of their three pairs; "min-max" over those. Family-wise error: the share of
tournaments in which any pair of k equal entrants is starred, k = 3 (the
default-rules keepers) and k = 10 (ten of the twelve), under two nulls:

* **exchangeable** (the null the report promises its 5% under): within each drawn
  seed the k entrants' score sets (each one entrant's cells of that seed) are dealt
  to the k labels in a random order, so the entrants are equal in distribution and
  exchangeable within a seed, correlated through the board. Under it every pair's
  sign-flip p-value is exact and Holm holds the family-wise error at any n;
* **shifted** (harsher, not promised): each entrant's scores shifted to one mean, its
  own spread, skew and correlation across seeds kept: equal means, unlike shapes.
  Among the ten are near-twins (one keeper under two tide rules) whose shifted seed
  differences sit on one side of zero on 85-90% of the seeds and far on the other
  side on the rest (or have a long tail, skewness 3-4): a tournament whose seeds miss
  that rare side looks like a clear, consistent difference, and no test of a mean
  can tell it from one (Bahadur and Savage 1956: over all distributions of a given
  mean, no test has power above its level). The study prints, for the pairs starred
  most often, how often a tournament of n seeds misses the rare side, (1 - q)^n.

An interval that the seeds cannot bound (paired below 6 seeds) counts as covering;
the share of those is printed beside. Last, the --detect planner: the seeds it plans
for a difference, and the power the report's procedure then has.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.stats_population import Population, population
from harness.report.methods.family import holm
from harness.report.methods.figures import (
    iqm,
    iqm_bootstrap,
    iqm_interval,
    probability_of_improvement,
    ratio_of_means,
)
from harness.report.methods.intervals import (
    bootstrap_means,
    bootstrap_t_bounds,
    percentile_bounds,
    skew_t_bounds,
    t_bounds,
)
from harness.report.methods.paired import paired_columns, paired_interval, skew_t_p
from harness.report.methods.planner import SeedSpread, plan_seeds
from harness.report.methods.resample import flips_for
from harness.report.methods.signflip import flip_p_values

SEEDS = (3, 5, 10, 20, 50)
#: The family-wise error is also shown at 8 seeds, where a sign-flip test alone can
#: first reach Holm's alpha / 3 and its skew shows, and at 12 and 16, the first seeds
#: at which ten entrants' 45 pairs can be starred (11) and the last enumerated.
FWER_SEEDS = (3, 5, 8, 10, 12, 16, 20, 50)
BASE = ("silent", "lantern", "pilot")
ALPHA = 0.05
#: The study's own generator seed; each figure gets its own stream from it.
STUDY_SEED = 7_2026


def _rng(*key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([STUDY_SEED, *key])))


@dataclass(frozen=True)
class Sample:
    """R simulated tournaments of n seeds: cells[entrant, r, i, v]."""

    cells: np.ndarray

    @property
    def seed_scores(self) -> np.ndarray:
        """[entrant, r, i]: each seed's balanced mean over the variants taken."""
        total = np.zeros(self.cells.shape[:3])
        for v in range(self.cells.shape[3]):
            total = total + self.cells[..., v]
        result: np.ndarray = total / self.cells.shape[3]
        return result

    @property
    def cell_values(self) -> np.ndarray:
        """[entrant, r, cell]: the cells in (seed, variant) order, as the report sorts them."""
        k, r, n, v = self.cells.shape
        result: np.ndarray = self.cells.reshape(k, r, n * v)
        return result


def draw(scores: np.ndarray, n: int, variants: int, tournaments: int, key: int) -> Sample:
    """``tournaments`` tournaments of ``n`` seeds drawn with replacement from ``scores``
    [entrant, seed, variant], the first ``variants`` variants."""
    picks = _rng(key, n, variants).integers(0, scores.shape[1], size=(tournaments, n))
    return Sample(scores[:, picks, :variants])


def truth(scores: np.ndarray, variants: int) -> np.ndarray:
    """Each entrant's population figure: the mean of its balanced seed scores."""
    result: np.ndarray = scores[:, :, :variants].mean(axis=2).mean(axis=1)
    return result


# -- the method until now, with numpy on its own draws ---------------------------------

#: The report's bootstrap before seeds were its unit: resamples, generator seed, level.
OLD_RESAMPLES = 2000
OLD_SEED = 20261129
OLD_LEVEL = 0.95
OLD_TIE = 1e-9
_COUNTS: dict[int, np.ndarray] = {}


def old_counts(cells: int) -> np.ndarray:
    """The report's 2,000 bootstrap draws over ``cells`` cells, as counts (B x cells):
    ``random.Random(20261129).choices(range(cells), k=cells)`` once per resample."""
    if cells not in _COUNTS:
        rng = random.Random(OLD_SEED)
        counts = np.zeros((OLD_RESAMPLES, cells))
        for b in range(OLD_RESAMPLES):
            np.add.at(counts[b], rng.choices(range(cells), k=cells), 1)
        _COUNTS[cells] = counts
    return _COUNTS[cells]


def old_bounds(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """[columns, cells] -> the old percentile interval's ends and the resampled means."""
    cells = values.shape[-1]
    boot = old_counts(cells) @ values.T / cells  # (B, columns)
    low, high = percentile_bounds(boot, OLD_LEVEL)
    return low, high, boot


def old_p(boot: np.ndarray) -> np.ndarray:
    """The old bootstrap p-value of each column of resampled mean differences."""
    below = np.count_nonzero(boot <= OLD_TIE, axis=0)
    above = np.count_nonzero(boot >= -OLD_TIE, axis=0)
    result: np.ndarray = np.minimum(1.0, 2 * np.minimum(below, above) / boot.shape[0])
    return result


def old_seeds_needed(sigma_cells: float, delta: float, variants: int = 2) -> int:
    """The old ``--detect`` planner: ((z(0.975) + z(0.8)) sigma_d / delta)^2 cells,
    sigma_d over (seed, variant) cells taken as independent, then seeds at V a seed."""
    z = statistics.NormalDist()
    cells = max(2, math.ceil(((z.inv_cdf(0.975) + z.inv_cdf(0.8)) * sigma_cells / delta) ** 2))
    return -(-cells // variants)


def self_check() -> None:
    """The numpy re-computation of the old method gives the interval the report gave of
    configs/smoke.toml's LANTERN before seeds were its unit (its golden report):
    17.37 [14.79, 20.09] over 100 cells."""
    from harness.tournament.store import ResultsFolder
    from tests.golden.folders import unpack

    with tempfile.TemporaryDirectory() as scratch:
        folder = ResultsFolder(unpack("smoke", Path(scratch)))
        cells = sorted(
            ((s.seed, s.variant), s.score) for s in folder.summaries() if s.entrant == "lantern"
        )
    values = np.array([[x for _, x in cells]])
    low, high, _ = old_bounds(values)
    assert math.isclose(float(low[0]), 14.79281693648817, rel_tol=1e-12), low
    assert math.isclose(float(high[0]), 20.08644084682441, rel_tol=1e-12), high


# -- coverage -----------------------------------------------------------------------------


def _covers(low: np.ndarray, high: np.ndarray, true: float) -> np.ndarray:
    result: np.ndarray = (low <= true) & (true <= high)
    return result


def _batched(
    columns: np.ndarray, batch: int, fn: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    lows, highs = [], []
    for start in range(0, columns.shape[1], batch):
        low, high = fn(columns[:, start : start + batch])
        lows.append(low)
        highs.append(high)
    return np.concatenate(lows), np.concatenate(highs)


def mean_coverage(
    pop: Population, n: int, variants: int, tournaments: int
) -> dict[str, list[float]]:
    """Coverage of each base entrant's mean by each method."""
    scores = pop.pick(BASE)
    true = truth(scores, variants)
    sample = draw(scores, n, variants, tournaments, key=1)
    out: dict[str, list[float]] = {
        "cell pct": [],
        "seed pct": [],
        "seed boot-t": [],
        "t seeds": [],
        "skew t": [],
    }
    for e in range(len(BASE)):
        low, high, _ = old_bounds(sample.cell_values[e])
        out["cell pct"].append(_covers(low, high, true[e]).mean())
        y = sample.seed_scores[e].T  # (n, R)
        boot = bootstrap_means(y, 2000)
        low, high = percentile_bounds(boot)
        out["seed pct"].append(_covers(low, high, true[e]).mean())
        low, high = bootstrap_t_bounds(y, 2000)
        out["seed boot-t"].append(_covers(low, high, true[e]).mean())
        _, low, high, _ = t_bounds(y)
        out["t seeds"].append(_covers(low, high, true[e]).mean())
        _, low, high, _ = skew_t_bounds(y)
        out["skew t"].append(_covers(low, high, true[e]).mean())
    return out


def _paired_bounds(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    tested = paired_columns(d, draws=flips_for(0.025))
    ends = [paired_interval(tested, j, 0.95) for j in range(d.shape[1])]
    return np.array([e[0] for e in ends]), np.array([e[1] for e in ends])


def difference_coverage(
    pop: Population, n: int, variants: int, tournaments: int
) -> tuple[dict[str, list[float]], float]:
    """Coverage of each base pair's mean difference by each method, and the share of
    sign-flip intervals the seeds cannot bound."""
    scores = pop.pick(BASE)
    true = truth(scores, variants)
    sample = draw(scores, n, variants, tournaments, key=2)
    out: dict[str, list[float]] = {"cell pct": [], "seed pct": [], "t seeds": [], "paired": []}
    unbounded = []
    for a, b in ((0, 1), (0, 2), (1, 2)):
        gap = true[a] - true[b]
        low, high, _ = old_bounds(sample.cell_values[a] - sample.cell_values[b])
        out["cell pct"].append(_covers(low, high, gap).mean())
        d = (sample.seed_scores[a] - sample.seed_scores[b]).T
        low, high = percentile_bounds(bootstrap_means(d, 2000))
        out["seed pct"].append(_covers(low, high, gap).mean())
        _, low, high, _ = t_bounds(d)
        out["t seeds"].append(_covers(low, high, gap).mean())
        low, high = _batched(d, 400, _paired_bounds)
        out["paired"].append(_covers(low, high, gap).mean())
        unbounded.append(np.isinf(low).mean())
    return out, float(np.mean(unbounded))


def other_coverage(pop: Population, n: int, tournaments: int) -> dict[str, list[float]]:
    """Coverage (both variants) of each base entrant's IQM, of P(X > Y) for each pair,
    and of silent's and lantern's score / pilot."""
    scores = pop.pick(BASE)
    population_seeds = scores.mean(axis=2)
    sample = draw(scores, n, 2, tournaments, key=4)
    seed = sample.seed_scores
    out: dict[str, list[float]] = {"IQM": [], "P(X > Y)": [], "score / pilot": []}
    for e in range(len(BASE)):
        true = iqm(population_seeds[e])
        low, high = percentile_bounds(iqm_bootstrap(seed[e].T, 2000))
        out["IQM"].append(_covers(low, high, true).mean())
        if n > 1:  # the report's function gives the same interval for one tournament
            alone = iqm_interval(seed[e, 0])
            assert (alone.low, alone.high) == (float(low[0]), float(high[0]))
    for a, b in ((1, 0), (2, 1), (2, 0)):
        d = population_seeds[a] - population_seeds[b]
        true = float(np.mean(np.where(np.abs(d) <= 1e-9, 0.5, d > 0)))
        hits = [probability_of_improvement(seed[a, r], seed[b, r]) for r in range(tournaments)]
        out["P(X > Y)"].append(float(np.mean([h.low <= true <= h.high for h in hits])))
    for e in (0, 1):
        true = population_seeds[e].mean() / population_seeds[2].mean()
        hits = [ratio_of_means(seed[e, r], seed[2, r]) for r in range(tournaments)]
        out["score / pilot"].append(float(np.mean([h.low <= true <= h.high for h in hits])))
    return out


# -- family-wise error --------------------------------------------------------------------


def equal_entrants(pop: Population, names: tuple[str, ...], variants: int) -> np.ndarray:
    """The entrants' scores, each shifted so that its population figure is the same."""
    scores = pop.pick(names)[:, :, :variants]
    true = truth(scores, variants)
    result: np.ndarray = scores - true[:, None, None] + true.mean()
    return result


def exchangeable(scores: np.ndarray, n: int, variants: int, tournaments: int, key: int) -> Sample:
    """Tournaments of entrants equal in distribution: each drawn seed's k score sets
    (one entrant's cells of that seed each) dealt to the k labels in a random order,
    a fresh order for every seed of every tournament."""
    sample = draw(scores, n, variants, tournaments, key)
    k = scores.shape[0]
    order = np.argsort(_rng(key, n, variants, 1).random((tournaments, n, k)), axis=2)
    cells = sample.cells.transpose(1, 2, 0, 3)  # (R, n, k, v)
    mixed = np.take_along_axis(cells, order[..., None], axis=2)
    return Sample(mixed.transpose(2, 0, 1, 3))


@dataclass(frozen=True)
class Stars:
    """Which pairs each method starred in each simulated tournament (R x m)."""

    pairs: list[tuple[int, int]]
    old: np.ndarray
    flip: np.ndarray
    new: np.ndarray
    differences: np.ndarray
    """(n, R, m): the seed differences of each pair in each tournament."""

    def rates(self) -> tuple[float, float, float]:
        """The share of tournaments with any star: old, sign-flip alone, the report's."""
        old, flip, new = (float(x.any(axis=1).mean()) for x in (self.old, self.flip, self.new))
        return old, flip, new


def stars(sample: Sample) -> Stars:
    """The stars of each tournament: by the old method, by the sign-flip test alone with
    Holm, and by the new one (the paired test with Holm).

    Holm stars something exactly when its first step does, min p <= alpha / m, so a
    pair is marked here when its p <= alpha / m: the share of tournaments with any mark
    is exactly the share with any Holm star; a pair Holm stars at a later step only
    (p <= alpha / (m - r + 1)) is not marked, so :func:`diagnosis` counts a pair's
    first-step stars.
    """
    k, tournaments, n, _ = sample.cells.shape
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    m = len(pairs)
    old = np.zeros((tournaments, m), dtype=bool)
    cells = sample.cell_values
    for j, (a, b) in enumerate(pairs):
        _, _, boot = old_bounds(cells[a] - cells[b])
        old[:, j] = old_p(boot) <= ALPHA / m
    seed = sample.seed_scores
    diffs = np.stack([(seed[a] - seed[b]).T for a, b in pairs], axis=2)  # (n, R, m)
    flat = diffs.reshape(n, tournaments * m)
    flips = flips_for(ALPHA / (2 * m))
    flip = _flip_p(flat, flips).reshape(tournaments, m)
    paired = np.maximum(flip, skew_t_p(flat).reshape(tournaments, m))
    return Stars(pairs, old, flip <= ALPHA / m, paired <= ALPHA / m, diffs)


def fwer(sample: Sample) -> tuple[float, float, float]:
    """The share of tournaments with any star: by the old method, by the sign-flip test
    alone with Holm, and by the new one (see :func:`stars`)."""
    return stars(sample).rates()


def diagnosis(
    found: Stars, population_scores: np.ndarray, names: tuple[str, ...], top: int = 4
) -> list[str]:
    """For the pairs the report starred most often: how often; the share q of the
    population's seeds on the rare side of the pair's shifted difference and the
    chance (1 - q)^n that n seeds miss it; the skewness, and the share of seeds more
    than two standard deviations out with the part of the balance they carry (their
    net sum over half the total absolute difference), and the chance n seeds miss them; and how many
    of the starred tournaments had every seed difference on one side of zero, or the
    same difference on every seed."""
    tournaments = found.new.shape[0]
    n = found.differences.shape[0]
    counts = found.new.sum(axis=0)
    every = found.differences.transpose(1, 2, 0)[found.new]  # (starred, n)
    lines = [
        f"    {len(every)} starred pairs in all: {int(np.sum(np.all(every > 0, axis=1)))}"
        f" + {int(np.sum(np.all(every < 0, axis=1)))} with every seed on one side, "
        f"{int(np.sum(np.ptp(every, axis=1) <= 1e-9))} constant"
    ]
    for j in np.argsort(-counts, kind="stable")[:top]:
        if not counts[j]:
            break
        a, b = found.pairs[j]
        d = population_scores[a].mean(axis=1) - population_scores[b].mean(axis=1)
        rare = float(min(np.mean(d < -1e-9), np.mean(d > 1e-9)))
        starred = found.differences[:, found.new[:, j], j]
        one_side = int(np.sum(np.all(starred > 0, axis=0) | np.all(starred < 0, axis=0)))
        constant = int(np.sum(np.ptp(starred, axis=0) <= 1e-9))
        centred = d - d.mean()
        skew = float(np.mean(centred**3) / np.std(centred) ** 3)
        far = np.abs(centred) > 2 * np.std(centred)
        far_share = float(far.mean())
        # the part of one side's total (each side's is half the absolute total) that
        # the far seeds make up, net of those on the other side
        balance = float(abs(centred[far].sum()) / (np.abs(centred).sum() / 2))
        lines.append(
            f"    {names[a]} - {names[b]}: starred in {counts[j] / tournaments:.3f}; "
            f"rare side q = {rare:.3f}, (1 - q)^{n} = {(1 - rare) ** n:.3f}; skewness "
            f"{skew:.2f}, {far_share:.3f} of the seeds beyond 2 sd carry {balance:.2f} of "
            f"the balance, (1 - that)^{n} = {(1 - far_share) ** n:.3f}; of the "
            f"{int(counts[j])} starred, {one_side} with every seed on one side, {constant} "
            "constant"
        )
    return lines


def _flip_p(flat: np.ndarray, flips: int) -> np.ndarray:
    parts = [
        flip_p_values(flat[:, s : s + 4000], draws=flips).p for s in range(0, flat.shape[1], 4000)
    ]
    return np.concatenate(parts)


def holm_check() -> None:
    """Holm's first step decides whether anything is starred (what fwer() counts)."""
    rng = _rng(11)
    for _ in range(200):
        p = rng.uniform(0, 0.1, size=6).tolist()
        steps = holm(p)
        assert any(s.rejected for s in steps) == (min(p) <= ALPHA / 6)


# -- the planner ----------------------------------------------------------------------------


def planner_check(pop: Population, deltas: tuple[float, ...], tournaments: int) -> list[str]:
    """For three entrants of equal means but one raised by delta: the seeds the planner
    asks for (sigma_d from the population's own seed differences), and the share of
    simulated tournaments of that many seeds in which the report stars that pair."""
    lines = []
    scores = equal_entrants(pop, BASE, 2)
    seed_scores = scores.mean(axis=2)
    sigmas = [
        float(np.std(seed_scores[a] - seed_scores[b], ddof=1)) for a, b in ((0, 1), (0, 2), (1, 2))
    ]
    sigma = max(sigmas)
    worst = int(np.argmax(sigmas))
    a, b = ((0, 1), (0, 2), (1, 2))[worst]
    for delta in deltas:
        plan = plan_seeds(delta, SeedSpread(sigma, "population", scores.shape[1]), 3)
        assert plan.seeds is not None
        n = plan.seeds
        raised = scores.copy()
        raised[a] += delta
        sample = draw(raised, n, 2, tournaments, key=50 + int(delta * 10))
        seed = sample.seed_scores
        pairs = [(0, 1), (0, 2), (1, 2)]
        diffs = np.stack([(seed[i] - seed[j]).T for i, j in pairs], axis=2)
        flat = diffs.reshape(n, tournaments * 3)
        flips = flips_for(ALPHA / 6)
        ps = np.maximum(_flip_p(flat, flips), skew_t_p(flat)).reshape(tournaments, 3)
        hits = 0
        target = pairs.index((a, b))
        for r in range(tournaments):
            hits += holm(ps[r].tolist())[target].rejected
        # the old planner: sigma_d of (seed, variant) cell differences, cells as units
        cell_sigma = float(np.std((scores[a] - scores[b]).ravel(), ddof=1))
        old_n = old_seeds_needed(cell_sigma, delta)
        lines.append(
            f"  delta {delta:g} ({BASE[a]} - {BASE[b]}, sigma_d {sigma:.2f}): planned "
            f"{n} seeds (the old planner: {old_n}); the new procedure stars the pair in "
            f"{hits / tournaments:.3f} of {tournaments} tournaments of {n} seeds"
        )
    return lines


# -- the table ---------------------------------------------------------------------------------


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.3f}" if abs(hi - lo) < 0.0005 else f"{lo:.3f}-{hi:.3f}"


def population_lines(pop: Population) -> list[str]:
    """The population: means, spread and how alike a seed's two variants are."""
    lines = ["population (1,000 seeds each):"]
    for name in pop.names:
        cells = pop.pick((name,))[0]
        rho = float(np.corrcoef(cells[:, 0], cells[:, 1])[0, 1])
        seed = cells.mean(axis=1)
        lines.append(
            f"  {name:<22} default {cells[:, 0].mean():6.2f}  spring {cells[:, 1].mean():6.2f}"
            f"  balanced {seed.mean():6.2f}  sd(seed) {seed.std(ddof=1):5.2f}"
            f"  corr(default, spring) {rho:5.2f}  variance / cell bootstrap's {1 + rho:4.2f}"
        )
    return lines


SECTIONS = ("means", "differences", "others", "fwer", "planner")


def means_section(pop: Population, R: int) -> None:
    """Coverage of the means."""
    print("coverage of the 95% interval of a mean (min-max over silent, lantern, pilot)")
    header = f"{'seeds':>5} {'variants':>8} | " + " | ".join(
        f"{m:>11}" for m in ("cell pct", "seed pct", "seed boot-t", "t seeds", "skew t")
    )
    print(header)
    for variants in (1, 2):
        for n in SEEDS:
            cov = mean_coverage(pop, n, variants, R)
            row = " | ".join(f"{_span(v):>11}" for v in cov.values())
            print(f"{n:>5} {variants:>8} | {row}", flush=True)


def differences_section(pop: Population, R: int) -> None:
    """Coverage of the paired differences."""
    print("coverage of the 95% interval of a paired difference (min-max over the 3 pairs)")
    header = f"{'seeds':>5} {'variants':>8} | " + " | ".join(
        f"{m:>11}" for m in ("cell pct", "seed pct", "t seeds", "paired")
    )
    print(header + " | paired unbounded")
    for variants in (1, 2):
        for n in SEEDS:
            cov, unbounded = difference_coverage(pop, n, variants, R)
            row = " | ".join(f"{_span(v):>11}" for v in cov.values())
            print(f"{n:>5} {variants:>8} | {row} | {unbounded:.3f}", flush=True)


def others_section(pop: Population, R: int) -> None:
    """Coverage of IQM, P(X > Y) and score / pilot."""
    print("coverage of the other figures' 95% intervals, both variants (min-max)")
    print(f"{'seeds':>5} | {'IQM (seed pct)':>15} | {'P(X > Y) (Wilson)':>17} | "
          f"{'score / pilot (lin. skew t)':>27}")  # fmt: skip
    for n in SEEDS:
        cov = other_coverage(pop, n, R)
        print(f"{n:>5} | {_span(cov['IQM']):>15} | {_span(cov['P(X > Y)']):>17} | "
              f"{_span(cov['score / pilot']):>27}", flush=True)  # fmt: skip


def fwer_section(pop: Population, R: int, ten: bool, seeds: tuple[int, ...] = FWER_SEEDS) -> None:
    """Family-wise error of the stars under both nulls, at each of ``seeds``."""
    print("family-wise error: share of tournaments with any star among equal entrants")
    print(f"{'entrants':>8} {'seeds':>5} {'variants':>8} | {'cell pct+Holm':>13} | "
          f"{'sign-flip+Holm':>14} | {'paired+Holm':>11}")  # fmt: skip
    groups: list[tuple[str, ...]] = [BASE]
    if ten:
        groups.append(pop.names[:10])
    for null in ("exchangeable", "shifted"):
        print(f"{null}:")
        for names in groups:
            for variants in (1, 2):
                scores = equal_entrants(pop, names, variants)
                for n in seeds:
                    key = 3 + len(names)
                    if null == "shifted":
                        sample = draw(scores, n, variants, R, key)
                    else:
                        sample = exchangeable(pop.pick(names), n, variants, R, key)
                    found = stars(sample)
                    old, flip, new = found.rates()
                    print(f"{len(names):>8} {n:>5} {variants:>8} | {old:>13.3f} | "
                          f"{flip:>14.3f} | {new:>11.3f}", flush=True)  # fmt: skip
                    if null == "shifted" and len(names) > 3 and n in (20, 50):
                        print("\n".join(diagnosis(found, scores, names)), flush=True)


def main() -> None:
    """Run the study (or some of its sections) and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=400)
    parser.add_argument("--population-seeds", type=int, default=1000)
    parser.add_argument("--skip-ten", action="store_true", help="leave out the 10 entrants")
    parser.add_argument(
        "--sections", default=",".join(SECTIONS), help=f"some of {', '.join(SECTIONS)}"
    )
    parser.add_argument(
        "--fwer-seeds",
        default=",".join(map(str, FWER_SEEDS)),
        help="the numbers of seeds the family-wise error is measured at",
    )
    args = parser.parse_args()
    try:
        fwer_seeds = tuple(int(part) for part in args.fwer_seeds.split(",") if part.strip())
    except ValueError:
        parser.error(f"--fwer-seeds: not a list of whole numbers: {args.fwer_seeds!r}")
    if not fwer_seeds or min(fwer_seeds) < 2:
        parser.error("--fwer-seeds: give numbers of seeds of at least 2")
    chosen = [part.strip() for part in args.sections.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        parser.error(f"--sections: no section {', '.join(unknown)}; they are {', '.join(SECTIONS)}")
    pop = population(args.population_seeds)
    self_check()
    holm_check()
    R = args.tournaments
    started = time.process_time()
    print("\n".join(population_lines(pop)))
    print(f"\neach figure: {R} simulated tournaments (seeds drawn with replacement)")
    for section in SECTIONS:
        if section not in chosen:
            continue
        print()
        if section == "means":
            means_section(pop, R)
        elif section == "differences":
            differences_section(pop, R)
        elif section == "others":
            others_section(pop, R)
        elif section == "fwer":
            fwer_section(pop, R, not args.skip_ten, fwer_seeds)
        else:
            print("the --detect planner (power 0.8 asked, Holm over 3 comparisons, both variants)")
            print("\n".join(planner_check(pop, (2.0, 4.0), R)))
    print(f"\nstudy CPU time: {time.process_time() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
