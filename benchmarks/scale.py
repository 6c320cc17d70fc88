"""Speed and scale of scripted tournaments: CPU per episode, every core, flat memory.

    python -m benchmarks.scale [--seeds 400] [--repeat 3] [--workers-max N]
                               [--memory-episodes 100000] [--million-seconds 60]
                               [--skip-memory]

(Run it as a module, like every benchmark here.) One run prints:

1. Episodes per CPU-second, LANTERN + 3 WALLHUG at the default tide, seeds 0..S-1:
   * the floor: a plain straight-line loop over the same engine functions the harness
     calls (board, observations, the two baselines, the tick), nothing recorded;
   * the episode runner in this process (``run_episode``, no record written);
   * ``lighthouse run --no-report`` as a whole process, records written, with
     ``--workers 0`` (every episode on the event loop) and ``--workers 1``: its user +
     system CPU (the workers' included: they are its own reaped children), less that
     of a one-seed run of the same command (start-up, imports, the pool); and
     ``--workers 1`` with the report printed too (its bootstrap is work per episode).
2. Scaling: the same ``lighthouse run --no-report`` with 1 .. N workers (default: the usable
   cores), episodes per second of wall time, start-up subtracted the same way.
3. Memory (``benchmarks.memory``): the peak RSS of a scripted tournament of
   ``--memory-episodes`` episodes beside one of 1,000, and a 1,000,000-seed config's
   first ``--million-seconds`` seconds.

Every ``lighthouse run`` figure is the best of ``--repeat`` runs (the fastest: the one
least disturbed by the rest of the machine, as :mod:`timeit` reports), the worker
counts taken in turn within each round so that a slow spell of a shared machine falls
on all of them; the slowest run is printed beside it, so the spread shows.

Figures only: nothing here is asserted. Noisy machines give noisy figures: run it on
a quiet one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from baselines.lighthouse import lantern, wallhug
from harness.episode import run_episode
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.observe import observe_keeper, observe_runner
from harness.games.lighthouse.rules import resolve_tick, results
from harness.games.lighthouse.state import new_game
from harness.registry import get_game
from harness.seats import BaselineSeat, Seat
from harness.tournament.pool import usable_cores

GAME = get_game("lighthouse")
SCRIPTED = """name = "scale"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default"]

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
"""


@dataclass(frozen=True)
class Usage:
    """What a child process used: wall seconds, CPU seconds (its children's included)."""

    wall: float
    cpu: float
    max_rss_kib: int


def floor(seeds: range) -> float:
    """A plain loop over the engine functions; CPU seconds it took."""
    config = LighthouseConfig()
    start = time.process_time()
    for seed in seeds:
        state = new_game(config, generate_board(config, seed))
        while not state.over:
            # the bots give their decisions with their text, as the harness uses them
            _, keeper = lantern.play(observe_keeper(state))
            moves = {
                runner.seat: wallhug.play(observe_runner(state, runner.seat))[1]
                for runner in state.runners
                if runner.active
            }
            state, _ = resolve_tick(state, keeper, moves)
        results(state)
    return time.process_time() - start


def in_process(seeds: range) -> float:
    """The episode runner in this process, no record written; CPU seconds it took."""

    async def play() -> None:
        for seed in seeds:
            state = GAME.rules.new_state(GAME.rules.make_config("default", {}), seed)
            seats: dict[str, Seat] = {
                spec.seat: BaselineSeat("lantern" if spec.role == "keeper" else "wallhug")
                for spec in GAME.rules.seats(state)
            }
            await run_episode(GAME, state, seats, episode_id=f"s{seed}")

    start = time.process_time()
    asyncio.run(play())
    return time.process_time() - start


def cli_run(config: Path, out: Path, workers: int, *, report: bool = False) -> Usage:
    """``lighthouse run CONFIG --out OUT --workers W [--no-report]`` in a child; what it
    used."""
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, "-m", "harness.cli", "run", str(config), "--out", str(out),
            "--workers", str(workers), *([] if report else ["--no-report"])]  # fmt: skip
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    # wait4: the child's rusage, which holds its own reaped children's (the workers)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"lighthouse run failed ({child.returncode}): {err.decode()[-2000:]}")
    return Usage(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def config_file(folder: Path, seeds: int) -> Path:
    path = folder / f"scale-{seeds}.toml"
    path.write_text(SCRIPTED.format(seeds=seeds))
    return path


def per_cpu_second(episodes: int, cpu: float) -> str:
    return f"{episodes / cpu:7.1f}" if cpu > 0 else "    n/a"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=400, help="episodes per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the best is shown")
    parser.add_argument("--workers-max", type=int, default=usable_cores())
    parser.add_argument("--memory-episodes", type=int, default=100_000)
    parser.add_argument("--million-seconds", type=float, default=60.0)
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args(argv)
    seeds = range(args.seeds)
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{usable_cores()} usable cores; LANTERN + 3 WALLHUG, default tide, "
        f"seeds 0..{args.seeds - 1}"
    )
    print("\nEpisodes per CPU-second (one core each):")
    floor_cpu = floor(seeds)
    print(f"  {per_cpu_second(len(seeds), floor_cpu)}  floor: a plain loop over the engine "
          "functions, nothing recorded")  # fmt: skip
    runner_cpu = in_process(seeds)
    print(f"  {per_cpu_second(len(seeds), runner_cpu)}  the episode runner in process, "
          f"no record ({runner_cpu / floor_cpu:.2f}x the floor's CPU)")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="lighthouse-scale-") as tmp:
        folder = Path(tmp)
        one, many = config_file(folder, 1), config_file(folder, args.seeds)
        episodes = len(seeds) - 1  # a one-seed run's start-up is subtracted
        # (workers, report) -> every round's (CPU seconds, wall seconds), start-up less
        runs: dict[tuple[int, bool], list[tuple[float, float]]] = {}
        kinds = [*((w, False) for w in range(args.workers_max + 1)), (1, True)]
        for _ in range(args.repeat):
            for workers, printed in kinds:
                startup = cli_run(one, folder / "out", workers, report=printed)
                full = cli_run(many, folder / "out", workers, report=printed)
                runs.setdefault((workers, printed), []).append(
                    (full.cpu - startup.cpu, full.wall - startup.wall)
                )

        def spread(kind: tuple[int, bool], part: int) -> tuple[float, float]:
            # the least and the most of a kind's runs (part 0: CPU seconds, 1: wall)
            values = [run[part] for run in runs[kind]]
            return min(values), max(values)

        for workers, printed in [(0, False), (1, False), (1, True)]:
            cpu, worst = spread((workers, printed), 0)
            what = (
                "with the report printed (its bootstrap grows with the episodes)"
                if printed
                else "--no-report: records written, whole process"
            )
            print(
                f"  {per_cpu_second(episodes, cpu)}  lighthouse run --workers {workers} "
                f"{what} ({cpu:.2f} s CPU, start-up less; slowest of {args.repeat}: "
                f"{per_cpu_second(episodes, worst).strip()}; "
                f"{cpu / floor_cpu * len(seeds) / episodes:.2f}x the floor's)"
            )
        print(
            "\nScaling (lighthouse run --no-report, records written; wall time, start-up "
            f"subtracted; best of {args.repeat}, slowest in brackets):"
        )
        one_worker = episodes / spread((1, False), 1)[0]
        for workers in [*range(1, args.workers_max + 1), 0]:
            fast, slow = spread((workers, False), 1)
            rate = episodes / fast
            where = "on the event loop" if workers == 0 else f"{rate / one_worker:.2f}x one worker"
            print(
                f"  --workers {workers}: {rate:7.1f} episodes/s  [{episodes / slow:7.1f}]  "
                f"({where})"
            )
    if not args.skip_memory:
        from benchmarks.memory import report

        print()
        report(args.memory_episodes, args.million_seconds)


if __name__ == "__main__":
    main()
