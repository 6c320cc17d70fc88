"""The report's statistics: seeds as the unit, valid at small n, error rates controlled.

Pure functions over numpy arrays; the same inputs give the same bits on the same
numpy (exact sums, seeded generators, seeds and variants in canonical order first;
:mod:`~harness.report.methods.exact`). Each module's docstring gives its formulas:

* :mod:`~harness.report.methods.table`: cells on a grid of seeds x variants
  (:class:`SeedTable`); the seed score, a balanced mean over variants; which seeds a
  statistic uses and what it drops (:func:`select`, :func:`pair`, :class:`Dropped`);
* :mod:`~harness.report.methods.resample`: the seed-cluster bootstrap (seeds drawn
  with replacement, carrying all their cells) and the sign-flip sets; how many;
* :mod:`~harness.report.methods.intervals`: :class:`Estimate` and its reasons; the
  skew-corrected t interval of a mean (:func:`mean_interval`), the plain t, the
  bootstrap-t and percentile intervals;
* :mod:`~harness.report.methods.signflip`: the exact sign-flip test of paired seed
  differences and its interval;
* :mod:`~harness.report.methods.paired`: the test of a pair, the larger p of the
  sign-flip and skew-corrected t tests, and the union of their intervals;
* :mod:`~harness.report.methods.family`: Holm over every pair (stars), "cannot
  conclude" below the seeds a test needs;
* :mod:`~harness.report.methods.ranks`: ranks, with simultaneous intervals from
  the same Holm decisions;
* :mod:`~harness.report.methods.figures`: IQM, P(X > Y), score / ceiling and the
  performance profile, each with its interval;
* :mod:`~harness.report.methods.planner`: the seeds ``--detect D`` needs;
* :mod:`~harness.report.methods.analysis`: all of it in one call (:func:`analyse`).

benchmarks/stats_study.py measures the coverage and the family-wise error of these
methods (and of the report's earlier ones) on real Lighthouse scores;
``python -m benchmarks.report_scale`` their speed.
"""

from harness.report.methods.analysis import Analysis, EntrantFigures, Share, Versus, analyse
from harness.report.methods.family import (
    ALPHA,
    Family,
    HolmStep,
    PairTest,
    compare_all,
    holm,
    paired_difference,
    seeds_needed_for,
)
from harness.report.methods.figures import (
    Profile,
    iqm,
    iqm_interval,
    performance_profile,
    probability_of_improvement,
    ratio_of_means,
)
from harness.report.methods.intervals import (
    LEVEL,
    REASONS,
    Estimate,
    Method,
    Reason,
    mean_interval,
    t_interval,
)
from harness.report.methods.planner import SeedPlan, SeedSpread, plan_seeds, seed_spread
from harness.report.methods.ranks import Rank, Ranking, rank_intervals, ranks_of
from harness.report.methods.table import Dropped, Pairing, SeedTable, Selection, pair, select

__all__ = [
    "ALPHA",
    "LEVEL",
    "REASONS",
    "Analysis",
    "Dropped",
    "EntrantFigures",
    "Estimate",
    "Family",
    "HolmStep",
    "Method",
    "PairTest",
    "Pairing",
    "Profile",
    "Rank",
    "Ranking",
    "Reason",
    "SeedPlan",
    "SeedSpread",
    "SeedTable",
    "Selection",
    "Share",
    "Versus",
    "analyse",
    "compare_all",
    "holm",
    "iqm",
    "iqm_interval",
    "mean_interval",
    "pair",
    "paired_difference",
    "performance_profile",
    "plan_seeds",
    "probability_of_improvement",
    "rank_intervals",
    "ranks_of",
    "ratio_of_means",
    "seed_spread",
    "seeds_needed_for",
    "select",
    "t_interval",
]
