"""Relayroam: the rules' per-action speed, the observation's, and the solver's.

    python -m benchmarks.relayroam [--seeds 200] [--chambers 6] [--repeat 5] [--solver]

Prints, in this one process (figures only, nothing asserted):

* ``step`` calls per second, replaying each seed's optimal play (the solver's action
  sequences, chamber after chamber, with ``next`` between) through the rules, best
  of the repeats; and one refused action's cost for comparison;
* ``observe`` plus ``render_prompt`` per second on the same states;
* with ``--solver``, every one of the 78 chamber set-ups solved from cold, in seconds.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable, Sequence
from functools import cache
from itertools import product

from harness.games.relayroam.layouts import LAYOUT_CYCLE, layout_for
from harness.games.relayroam.observe import observe, render_prompt
from harness.games.relayroam.rules import Action, new_game, step
from harness.games.relayroam.solver import solve_chamber
from harness.games.relayroam.state import VENT_PERIOD, State, chamber_setup

NEXT: Action = {"type": "next"}


def optimal_play(seed: int, chambers: int) -> list[Action]:
    """The actions of ``seed``'s optimal play of ``chambers`` chambers."""
    actions: list[Action] = []
    for chamber in range(1, chambers + 1):
        if chamber > 1:
            actions.append(NEXT)
        setup = chamber_setup(seed, chamber)
        actions.extend(_solved(_layout_chamber(chamber), setup.reflected, setup.vent_offsets))
    return actions


@cache
def _solved(chamber: int, reflected: bool, offsets: tuple[int, ...]) -> tuple[Action, ...]:
    # The 78 set-ups repeat across seeds: solve each once.
    return solve_chamber(chamber, reflected, offsets).actions


def _layout_chamber(chamber: int) -> int:
    return (chamber - 1) % len(LAYOUT_CYCLE) + 1


def replay(seed: int, actions: Sequence[Action]) -> list[State]:
    """Every state of ``seed``'s game under ``actions``, the first included."""
    states = [new_game(seed)]
    for action in actions:
        result = step(states[-1], action)
        if not result.ok:
            raise RuntimeError(f"seed {seed}: {action} refused: {result.message}")
        states.append(result.state)
    return states


def best_rate(count: int, repeat: int, run: Callable[[], object]) -> float:
    """The best of ``repeat`` timings of ``run()`` in CPU seconds, as ``count`` per second."""
    # Process time, not wall time: the rate is the rules' own, however busy the machine.
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return count / best


def bench_solver() -> float:
    """Seconds to solve every set-up of every layout once, from cold."""
    started = time.perf_counter()
    for chamber in range(1, len(LAYOUT_CYCLE) + 1):
        for reflected in (False, True):
            vents = len(layout_for(chamber, reflected).vents)
            for offsets in product(range(VENT_PERIOD), repeat=vents):
                solve_chamber(chamber, reflected, offsets)
    return time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--chambers", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--solver", action="store_true", help="also time the cold solver")
    args = parser.parse_args(argv)
    print(f"Python {platform.python_version()} on {platform.machine()}, one process")
    plays = [(seed, optimal_play(seed, args.chambers)) for seed in range(args.seeds)]
    steps = sum(len(actions) for _, actions in plays)
    states = [s for seed, actions in plays for s in replay(seed, actions)]
    rate = best_rate(steps, args.repeat, lambda: [replay(s, a) for s, a in plays])
    print(f"step: {steps} actions of {args.seeds} seeds x {args.chambers} chambers")
    print(f"  {rate:,.0f} valid actions/s (best of {args.repeat})")
    refused = best_rate(len(states), args.repeat, lambda: [step(s, NEXT) for s in states])
    print(f"  {refused:,.0f} actions/s on every state given next (mostly refused)")
    shown = best_rate(len(states), args.repeat, lambda: [render_prompt(observe(s)) for s in states])
    print(f"observe + render_prompt: {shown:,.0f} states/s over {len(states)} states")
    if args.solver:
        print(f"solver: every set-up from cold in {bench_solver():.2f} s")


if __name__ == "__main__":
    main()
