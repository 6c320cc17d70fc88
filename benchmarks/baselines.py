"""The scripted keepers with each scripted runner, over many seeds: throughput and calibration.

    python -m benchmarks.baselines [--seeds 500] [--variants default spring]
                                   [--keepers silent lantern pilot]
                                   [--runners wallhug scout] [--rules KEY=VALUE ...]

(Run it as a module: as a file, its name would shadow the `baselines` package.)

Plays every seed through the real async episode runner (no record written) on one
core, for every keeper with three runners of every runner baseline, and prints, per
tide, keeper and runner, episodes per second, mean teamScore with a 95% confidence
interval (normal approximation over the seeds), the escape rate, keys collected,
transmissions per episode and the count of each results.reason, for seeds 0..N-1 and
for seeds 0..199; then the seeds 0..N-1 figures again as the Markdown table of the
README's Baselines section. ``--rules`` overrides rules parameters by their camelCase
names (``--rules width=31 height=31 runnerNotesCap=100``), values read as JSON. Figures
only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.episode import run_episode
from harness.errors import ConfigError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig, Variant
from harness.games.lighthouse.game import KEEPER, RUNNER
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


async def play_all(
    keeper: str,
    runner: str,
    variant: Variant,
    seeds: range,
    rules: dict[str, Any] | None = None,
) -> list[Played]:
    config = LighthouseConfig.for_variant(variant, **(rules or {}))
    out = []
    for seed in seeds:
        state = new_game(config, generate_board(config, seed))
        seats: dict[str, Seat] = {
            spec.seat: BaselineSeat(keeper if spec.role == KEEPER else runner)
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


@dataclass(frozen=True)
class Summary:
    """The figures of a batch of episodes."""

    mean: float
    half_width: float  # of the 95% confidence interval, normal approximation over seeds
    escaped: float  # share of runners escaping
    keys: float  # keys collected per episode
    transmissions: float  # per episode
    reasons: Counter[str]


def summary(played: Sequence[Played]) -> Summary:
    results = [p.results for p in played]
    scores = [r.team_score for r in results]
    return Summary(
        mean=statistics.fmean(scores),
        half_width=1.96 * statistics.stdev(scores) / len(scores) ** 0.5,
        escaped=sum(r.e for r in results) / (3 * len(results)),
        keys=sum(r.k for r in results) / len(results),
        transmissions=sum(p.transmissions for p in played) / len(played),
        reasons=Counter(r.reason.value for r in results),
    )


def summarise(label: str, played: Sequence[Played]) -> str:
    s = summary(played)
    reason_text = ", ".join(f"{k} {v}" for k, v in sorted(s.reasons.items()))
    return (
        f"  {label:<12} teamScore {s.mean:5.2f} +/- {s.half_width:4.2f} (95% CI)  "
        f"escaped {s.escaped:6.1%}  keys {s.keys:4.2f}/3  "
        f"transmissions {s.transmissions:4.1f}/episode  reasons: {reason_text}"
    )


def table_row(variant: str, keeper: str, runner: str, played: Sequence[Played]) -> str:
    s = summary(played)
    return (
        f"| {variant} | {keeper.upper()} | {runner.upper()} | {s.mean:.2f} +/- {s.half_width:.2f} "
        f"| {s.escaped:.1%} | {s.keys:.2f} | {s.transmissions:.1f} |"
    )


def _setting(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        raise argparse.ArgumentTypeError(f"{text!r}: the value is not JSON") from None


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument(
        "--keepers",
        nargs="+",
        choices=GAME.baseline_names(KEEPER),
        default=["silent", "lantern", "pilot"],
    )
    parser.add_argument(
        "--runners", nargs="+", choices=GAME.baseline_names(RUNNER), default=["wallhug", "scout"]
    )
    parser.add_argument(
        "--rules",
        nargs="+",
        type=_setting,
        default=[],
        metavar="KEY=VALUE",
        help="rules parameters to override, e.g. width=31 (values are JSON)",
    )
    args = parser.parse_args(argv)
    rules = dict(args.rules)
    for variant in args.variants:
        try:
            LighthouseConfig.for_variant(variant, **rules)
        except ConfigError as exc:
            parser.error(str(exc))
    if rules:
        print(f"rules: {json.dumps(rules)}")
    print(f"Python {platform.python_version()} on {platform.machine()}, one process")
    rows = []
    for variant in args.variants:
        for keeper in args.keepers:
            for runner in args.runners:
                started = time.perf_counter()
                played = asyncio.run(play_all(keeper, runner, variant, range(args.seeds), rules))
                elapsed = time.perf_counter() - started
                ticks = sum(p.results.ticks for p in played)
                print(
                    f"{keeper.upper()} + 3 {runner.upper()} at the {variant} tide: {args.seeds} "
                    f"episodes in {elapsed:.2f} s = {args.seeds / elapsed:.1f} episodes/s "
                    f"({ticks / elapsed:.0f} ticks/s)"
                )
                print(summarise(f"seeds 0-{args.seeds - 1}", played))
                if args.seeds > 200:
                    print(summarise("seeds 0-199", played[:200]))
                rows.append(table_row(variant, keeper, runner, played))
    print(f"\nSeeds 0-{args.seeds - 1}:\n")
    print(
        "| tide | keeper | runners | mean teamScore (95% CI) | runners escaping | keys "
        "| transmissions / episode |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
