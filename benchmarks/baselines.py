"""LANTERN + 3 WALLHUG over many seeds: throughput and the baseline's calibration.

    python -m benchmarks.baselines [--seeds 500] [--variants default spring]

(Run it as a module: as a file, its name would shadow the `baselines` package.)

Plays every seed through the real async episode runner (no record written) on one
core and prints episodes per second, mean teamScore with a 95% confidence interval
(normal approximation), the escape rate, keys collected and the count of each
results.reason, for seeds 0..N-1 and for seeds 0..199. Figures only: nothing here
is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import time
from collections import Counter
from collections.abc import Sequence

from harness.episode import run_episode
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig, Variant
from harness.games.lighthouse.record import LighthouseResults
from harness.games.lighthouse.state import new_game
from harness.registry import get_game
from harness.seats import baseline_seats

GAME = get_game("lighthouse")


async def play_all(variant: Variant, seeds: range) -> list[LighthouseResults]:
    config = LighthouseConfig.for_variant(variant)
    out = []
    for seed in seeds:
        state = new_game(config, generate_board(config, seed))
        outcome = await run_episode(
            GAME, state, baseline_seats(GAME, state), episode_id=f"{variant}-{seed}"
        )
        assert isinstance(outcome.results, LighthouseResults)
        out.append(outcome.results)
    return out


def summarise(label: str, results: Sequence[LighthouseResults]) -> str:
    scores = [r.team_score for r in results]
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5
    escaped = sum(r.e for r in results) / (3 * len(results))
    keys = sum(r.k for r in results) / len(results)
    reasons = Counter(r.reason.value for r in results)
    reason_text = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
    return (
        f"  {label:<12} teamScore {mean:5.2f} +/- {half:4.2f} (95% CI)  "
        f"escaped {escaped:6.1%}  keys {keys:4.2f}/3  reasons: {reason_text}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args(argv)
    print(f"Python {platform.python_version()} on {platform.machine()}, one process")
    for variant in args.variants:
        started = time.perf_counter()
        results = asyncio.run(play_all(variant, range(args.seeds)))
        elapsed = time.perf_counter() - started
        print(
            f"{variant}: {args.seeds} episodes in {elapsed:.2f} s = "
            f"{args.seeds / elapsed:.1f} episodes/s "
            f"({sum(r.ticks for r in results) / elapsed:.0f} ticks/s)"
        )
        print(summarise(f"seeds 0-{args.seeds - 1}", results))
        if args.seeds > 200:
            print(summarise("seeds 0-199", results[:200]))


if __name__ == "__main__":
    main()
