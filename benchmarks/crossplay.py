"""Speed and memory of the cross-play section and of the leaderboard's fit.

    python -m benchmarks.crossplay [--seeds 1000 10000] [--entrants 20]

Prints, for synthetic cell means (a board difficulty shared by every entrant, a
keeper and a runner effect, an interaction and noise):

1. ``crossplay_section`` (2,000 seed resamples and 2,000 sign flips) for a 3 x 3 and a
   6 x 6 matrix at each seed count, two variants a seed: seconds, and the peak of
   Python's traced allocations (numpy's arrays included);
2. ``rate`` (the Bradley-Terry scale with its bootstrap) for ``--entrants`` entrants
   on each seed count, one variant.

Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from functools import partial

import numpy as np

from harness.report.cells import Cell
from harness.report.crossplay import CrossplayLayout, crossplay_section
from harness.report.ratings import RatedInput, rate


def matrix_cells(
    rows: int, columns: int, seeds: int
) -> tuple[CrossplayLayout, dict[str, dict[Cell, float]]]:
    rng = np.random.default_rng(1)
    r = tuple(f"k{i}" for i in range(rows))
    c = tuple(f"t{j}" for j in range(columns))
    layout = CrossplayLayout("keeper", "runners", r, c, {(a, b): f"{a}+{b}" for a in r for b in c})
    board = rng.normal(20, 8, size=(seeds, 2))
    cells: dict[str, dict[Cell, float]] = {}
    for i, a in enumerate(r):
        for j, b in enumerate(c):
            noise = rng.normal(0, 4, size=(seeds, 2))
            values = board + 2 * i + j + (i - j) * 0.5 + noise
            cells[f"{a}+{b}"] = {
                (s, v): float(values[s, k])
                for s in range(seeds)
                for k, v in enumerate(("default", "spring"))
            }
    return layout, cells


def measure(label: str, work: Callable[[], object]) -> None:
    tracemalloc.start()
    start = time.perf_counter()
    work()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  {label:<44} {seconds:8.2f} s   peak {peak / 2**20:8.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--entrants", type=int, default=20)
    args = parser.parse_args()
    print("crossplay_section (2,000 resamples, 2,000 flips):")
    for seeds in args.seeds:
        for size in (3, 6):
            layout, cells = matrix_cells(size, size, seeds)
            label = f"{size} x {size}, {seeds:,} seeds x 2 variants"
            measure(label, partial(crossplay_section, layout, cells))
    print(f"rate ({args.entrants} entrants, 2,000 resamples):")
    rng = np.random.default_rng(2)
    for seeds in args.seeds:
        board = rng.normal(20, 8, size=seeds)
        inputs = [
            RatedInput(
                name=f"e{i}", folders=("f",), identity=None,
                cells={(s, "default", "{}"): float(board[s] + i * 0.3 + rng.normal(0, 5))
                       for s in range(seeds)},
            )
            for i in range(args.entrants)
        ]  # fmt: skip
        measure(f"{seeds:,} seeds", partial(rate, "lighthouse", ["f"], inputs))


if __name__ == "__main__":
    main()
