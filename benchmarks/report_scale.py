"""CPU time of the report's statistics at 6,000 and 100,000 episodes (figures only).

    python -m benchmarks.report_scale [--episodes 6000 100000] [--entrants 10] [--rounds 3]

Builds synthetic results of ``--entrants`` entrants on both tides, one repetition,
as many seeds as make the episodes (6,000 episodes of 10 entrants: 300 seeds;
100,000: 5,000), with Lighthouse-like scores (a board effect per seed, a tide effect,
an entrant effect, noise, floored at 0: skewed, correlated across a seed's tides),
and times the whole set of methods a report runs (harness.report.methods.analyse:
every entrant's score, per-variant means, IQM and profile; every pair with Holm; the
ranks; the comparisons with a reference with P(X > Y); every entrant's score /
ceiling), after building the table from the episodes' rows (``SeedTable.
from_episodes``). Each phase is timed by ``time.process_time`` (CPU, all threads of
this process) and ``time.perf_counter`` (wall); the best of ``--rounds`` rounds is
printed, and a digest of the figures, which must be the same every round.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from harness.report.methods import Analysis, SeedTable, analyse

T = TypeVar("T")


def synthetic(episodes: int, entrants: int) -> tuple[list[str], list[str], tuple[np.ndarray, ...]]:
    """Rows of ``episodes`` episodes (entrant, seed, variant, score), shuffled."""
    variants = ["default", "spring"]
    seeds = episodes // (entrants * len(variants))
    rng = np.random.Generator(np.random.PCG64(20261129))
    board = rng.gamma(2.0, 6.0, size=seeds)
    skill = np.linspace(-6, 6, entrants)
    e, s, v = np.meshgrid(
        np.arange(entrants), np.arange(seeds), np.arange(len(variants)), indexing="ij"
    )
    score = board[s] + skill[e] - 3.0 * v + rng.normal(0, 4, size=e.shape)
    score = np.maximum(0.0, np.round(score, 3))
    order = rng.permutation(e.size)  # results lines come in any order
    rows = tuple(a.ravel()[order] for a in (e, s * 7 + 3, v, score))
    return [f"entrant-{i}" for i in range(entrants)], variants, rows


def digest(result: Analysis) -> str:
    """A digest of every figure, to check that rounds agree."""
    h = hashlib.sha256()
    h.update(repr(result).encode())
    return h.hexdigest()[:16]


def timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    """``fn()`` with its CPU and wall seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    """Time the methods at each size and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[6000, 100_000])
    parser.add_argument("--entrants", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'episodes':>9} {'seeds':>6} | {'table':>15} | {'analyse':>15} | "
          f"{'total CPU':>9} | digest")  # fmt: skip
    for episodes in args.episodes:
        names, variants, rows = synthetic(episodes, args.entrants)
        best: tuple[float, float, float, float] | None = None
        digests = set()
        seeds = 0

        def build(names: list[str] = names, variants: list[str] = variants) -> SeedTable:
            return SeedTable.from_episodes(names, variants, *rows)  # noqa: B023

        for _ in range(args.rounds):
            table, t_cpu, t_wall = timed(build)
            seeds = len(table.seeds)
            result, a_cpu, a_wall = timed(
                lambda: analyse(table, reference=names[0], ceiling=names[-1])  # noqa: B023
            )
            digests.add(digest(result))
            now = (t_cpu, t_wall, a_cpu, a_wall)
            if best is None or now[0] + now[2] < best[0] + best[2]:
                best = now
        assert best is not None
        t_cpu, t_wall, a_cpu, a_wall = best
        same = digests.pop() if len(digests) == 1 else "DIFFERED between rounds"
        print(
            f"{episodes:>9,} {seeds:>6,} | {t_cpu:6.2f} s ({t_wall:4.2f}) | "
            f"{a_cpu:6.2f} s ({a_wall:4.2f}) | {t_cpu + a_cpu:7.2f} s | {same}"
        )
    print("(CPU seconds, wall seconds in brackets; best of the rounds)")


if __name__ == "__main__":
    main()
