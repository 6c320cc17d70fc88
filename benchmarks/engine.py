"""Throughput of the Lighthouse rules engine on one core (figures only, nothing asserted).

Usage::

    python benchmarks/engine.py [--seconds S]

Measures, in this one process:

* boards generated per second: ``generate_board`` over consecutive seeds at the
  default config (11 x 9, keyCount 3);
* ticks resolved per second: many whole games at the default config, each driven
  by decisions drawn in advance from a seeded ``random.Random``; only the
  ``resolve_tick`` calls are timed, not board generation or drawing the decisions.

Each measurement runs for about S seconds (default 3).
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from harness.games.lighthouse import (
    KeeperDecision,
    LighthouseConfig,
    Move,
    RunnerDecision,
    generate_board,
    new_game,
    resolve_tick,
)

MOVES: tuple[Move, ...] = tuple(Move)
MESSAGES: tuple[str, ...] = ("", "Sprocket N; Gizmo E; Ratchet hold", "all hold", "Gizmo S")


@dataclass(frozen=True)
class Rate:
    """How many operations ran in how many seconds."""

    count: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.count / self.seconds if self.seconds > 0 else float("nan")


def bench_boards(config: LighthouseConfig, seconds: float) -> Rate:
    """Generate boards over consecutive seeds for about ``seconds``."""
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        for _ in range(50):  # check the clock every 50 boards
            generate_board(config, seed)
            seed += 1
        now = time.perf_counter()
    return Rate(seed, now - start)


def bench_ticks(config: LighthouseConfig, seconds: float) -> tuple[Rate, int]:
    """Play seeded random games for about ``seconds`` of resolve_tick time.

    Returns the tick rate and how many games were played.
    """
    timed = 0.0
    ticks = 0
    games = 0
    seed = 0
    while timed < seconds:
        rng = random.Random(seed)
        state = new_game(config, generate_board(config, seed))
        # Draw every tick's decisions up front: the game cannot outlast maxTicks.
        keepers = [
            KeeperDecision(None, rng.choice(MESSAGES) if rng.random() < 0.4 else "")
            for _ in range(config.max_ticks)
        ]
        moves = [
            {seat: RunnerDecision(rng.choice(MOVES)) for seat in (1, 2, 3)}
            for _ in range(config.max_ticks)
        ]
        while not state.over:
            t = state.tick
            row = moves[t]
            decisions = {r.seat: row[r.seat] for r in state.runners if r.active}
            keeper = keepers[t]
            before = time.perf_counter()
            state, _ = resolve_tick(state, keeper, decisions)
            timed += time.perf_counter() - before
            ticks += 1
        games += 1
        seed += 1
    return Rate(ticks, timed), games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--seconds",
        type=float,
        default=3.0,
        help="about how long each measurement runs (default 3)",
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    config = LighthouseConfig()

    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}) "
        f"on {platform.machine()}, one process"
    )
    print(f"config: {config.width} x {config.height}, keyCount {config.key_count}")

    boards = bench_boards(config, args.seconds)
    print(
        f"boards generated: {boards.per_second:,.0f} per second "
        f"({boards.count} boards in {boards.seconds:.2f} s)"
    )

    ticks, games = bench_ticks(config, args.seconds)
    print(
        f"ticks resolved:   {ticks.per_second:,.0f} per second "
        f"({ticks.count} ticks over {games} games in {ticks.seconds:.2f} s of resolve_tick)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
