"""Coverage and family-wise error, checked by simulation from a known population.

A small, seeded version of benchmarks/stats_study.py: three entrants of equal true
means (skewed scores floored at 0, a board effect shared by both tides of a seed and
by every entrant, spreads that differ), 300 simulated tournaments of 10 seeds at two
variants. With 300 tournaments a coverage of 0.95 is measured to about 0.013, a
family-wise error of 0.05 to about 0.013; the bounds below leave three of those.
"""

from __future__ import annotations

import math

import numpy as np

from harness.report.methods import compare_all, mean_interval, select
from harness.report.methods.table import seed_scores
from harness.report.methods.tdist import t_quantile
from tests.report.methods.helpers import draw_table, population

NAMES = ("a", "b", "c")
TOURNAMENTS = 300
SEEDS = 10


def test_intervals_cover_and_stars_hold_their_error_rate() -> None:
    cells = population(len(NAMES), 400)
    truth = cells.mean(axis=2).mean(axis=1)  # 20 for every entrant, by construction
    assert np.allclose(truth, 20.0)
    rng = np.random.Generator(np.random.PCG64(17))
    covered = np.zeros(len(NAMES))
    naive = np.zeros(len(NAMES))
    pair_covered = 0
    pairs = 0
    any_star = 0
    for _ in range(TOURNAMENTS):
        table = draw_table(cells, rng.integers(0, cells.shape[1], size=SEEDS), NAMES)
        for i in range(len(NAMES)):
            est = mean_interval(seed_scores(table, i, select(table, [i])))
            covered[i] += est.low <= truth[i] <= est.high
            # the mistake the seed as unit avoids: a seed's two cells as two units
            flat = table.means[i].ravel()
            half = t_quantile(0.975, len(flat) - 1) * flat.std(ddof=1) / math.sqrt(len(flat))
            naive[i] += abs(flat.mean() - truth[i]) <= half
        family = compare_all(table)
        any_star += bool(family.starred())
        for t in family.pairs:
            pairs += 1
            pair_covered += t.unadjusted.low <= 0 <= t.unadjusted.high
    coverage = covered / TOURNAMENTS
    assert np.all(coverage >= 0.91), coverage
    assert pair_covered / pairs >= 0.91
    assert any_star / TOURNAMENTS <= 0.09
    # the population is one where cells as units do fail: the check can tell
    assert np.all(naive / TOURNAMENTS < 0.91), naive / TOURNAMENTS
