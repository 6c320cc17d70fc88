"""Hourloom: chamber generation time, and TIMESTEP against PLANNER under the caps.

    python -m benchmarks.hourloom [--gen-seeds 100] [--seeds 200]

Prints, in this one process (figures only, nothing asserted):

* generation time per chamber number 1-15 over runs of seeds 0..G-1 (each chamber
  drawn from the stream the one before left, as DESCEND does): median and worst
  milliseconds, and the mean and worst number of attempts;
* TIMESTEP over seeds 0..S-1 at the default caps (H33: 6 chambers, 1500 actions):
  mean score with a 95% confidence interval, chambers sealed, laps completed and
  the count of each end reason, beside PLANNER's mean score on the same seeds.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections import Counter
from collections.abc import Sequence

from baselines.hourloom import planner, timestep
from harness.games.hourloom.capped import MAX_ACTIONS, MAX_CHAMBERS, CappedRun, play_capped
from harness.games.hourloom.generator import generate

CHAMBERS = range(1, 16)


def bench_generation(seeds: range) -> None:
    """Time every chamber 1-15 of the runs of ``seeds``."""
    times: dict[int, list[float]] = {n: [] for n in CHAMBERS}
    attempts: dict[int, list[int]] = {n: [] for n in CHAMBERS}
    for seed in seeds:
        word = seed
        for number in CHAMBERS:
            started = time.perf_counter()
            built = generate(number, word)
            times[number].append(time.perf_counter() - started)
            attempts[number].append(built.attempts)
            word = built.rng_state
    print(f"Generation, chambers 1-15 of seeds 0-{len(seeds) - 1}:")
    print("  chamber  median ms  worst ms  attempts mean  attempts worst")
    for number in CHAMBERS:
        ms = [t * 1000 for t in times[number]]
        print(
            f"  {number:>7}  {statistics.median(ms):9.1f}  {max(ms):8.1f}  "
            f"{statistics.fmean(attempts[number]):13.2f}  {max(attempts[number]):14}"
        )
    every = [t * 1000 for ts in times.values() for t in ts]
    print(f"  all      {statistics.median(every):9.1f}  {max(every):8.1f}")


def summarise(label: str, runs: Sequence[CappedRun]) -> str:
    scores = [r.score for r in runs]
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 else 0.0
    sealed = statistics.fmean(r.chambers_sealed for r in runs)
    laps = statistics.fmean(r.laps_completed for r in runs)
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(Counter(r.reason for r in runs).items()))
    return (
        f"  {label:<9} score {mean:8.1f} +/- {half:6.1f} (95% CI)  chambers sealed {sealed:4.2f}"
        f"  laps {laps:5.2f}  reasons: {reasons}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--gen-seeds", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"Python {platform.python_version()} on {platform.machine()}, one process")
    started = time.perf_counter()
    bench_generation(range(args.gen_seeds))
    print(f"  ({time.perf_counter() - started:.1f} s)")
    seeds = range(args.seeds)
    print(f"Runs of seeds 0-{args.seeds - 1}, caps {MAX_CHAMBERS} chambers, {MAX_ACTIONS} actions:")
    for label, player in (("TIMESTEP", timestep), ("PLANNER", planner)):
        started = time.perf_counter()
        runs = [play_capped(seed, player) for seed in seeds]
        elapsed = time.perf_counter() - started
        print(summarise(label, runs) + f"  ({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
