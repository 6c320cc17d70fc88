"""LANTERN and PILOT, each with 3 WALLHUG runners, over many seeds: throughput and calibration.

    python -m benchmarks.baselines [--seeds 500] [--variants default spring]
                                   [--keepers lantern pilot]

(Run it as a module: as a file, its name would shadow the `baselines` package.)

Plays every seed through the real async episode runner (no record written) on one
core and prints, per keeper and tide, episodes per second, mean teamScore with a 95%
confidence interval (normal approximation), the escape rate, keys collected,
transmissions per episode and the count of each results.reason, for seeds 0..N-1 and
for seeds 0..199. Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.episode import run_episode
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig, Variant
from harness.games.lighthouse.game import KEEPER
from harness.games.lighthouse.record import LighthouseResults
from harness.games.lighthouse.state import new_game
from harness.registry import get_game
from harness.seats import BaselineSeat, Seat

GAME = get_game("lighthouse")


@dataclass(frozen=True)
class Played:
    """One episode's results and how often its keeper transmitted."""

    results: LighthouseResults
    transmissions: int


async def play_all(keeper: str, variant: Variant, seeds: range) -> list[Played]:
    config = LighthouseConfig.for_variant(variant)
    out = []
    for seed in seeds:
        state = new_game(config, generate_board(config, seed))
        seats: dict[str, Seat] = {
            spec.seat: BaselineSeat(keeper if spec.role == KEEPER else "wallhug")
            for spec in GAME.rules.seats(state)
        }
        outcome = await run_episode(GAME, state, seats, episode_id=f"{variant}-{seed}")
        assert isinstance(outcome.results, LighthouseResults)
        lines: Sequence[Any] = outcome.lines
        spoken = sum(
            1 for line in lines if line.type == "tick" and line.state.transmission is not None
        )
        out.append(Played(outcome.results, spoken))
    return out


def summarise(label: str, played: Sequence[Played]) -> str:
    results = [p.results for p in played]
    scores = [r.team_score for r in results]
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5
    escaped = sum(r.e for r in results) / (3 * len(results))
    keys = sum(r.k for r in results) / len(results)
    spoken = sum(p.transmissions for p in played) / len(played)
    reasons = Counter(r.reason.value for r in results)
    reason_text = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
    return (
        f"  {label:<12} teamScore {mean:5.2f} +/- {half:4.2f} (95% CI)  "
        f"escaped {escaped:6.1%}  keys {keys:4.2f}/3  transmissions {spoken:4.1f}/episode  "
        f"reasons: {reason_text}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument(
        "--keepers", nargs="+", choices=GAME.baseline_names(KEEPER), default=["lantern", "pilot"]
    )
    args = parser.parse_args(argv)
    print(f"Python {platform.python_version()} on {platform.machine()}, one process")
    for variant in args.variants:
        for keeper in args.keepers:
            started = time.perf_counter()
            played = asyncio.run(play_all(keeper, variant, range(args.seeds)))
            elapsed = time.perf_counter() - started
            ticks = sum(p.results.ticks for p in played)
            print(
                f"{keeper.upper()} at the {variant} tide: {args.seeds} episodes in "
                f"{elapsed:.2f} s = {args.seeds / elapsed:.1f} episodes/s "
                f"({ticks / elapsed:.0f} ticks/s)"
            )
            print(summarise(f"seeds 0-{args.seeds - 1}", played))
            if args.seeds > 200:
                print(summarise("seeds 0-199", played[:200]))


if __name__ == "__main__":
    main()
