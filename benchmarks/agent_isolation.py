"""What isolating a Python agent costs: calls, starts, memory, and long runs of bad agents.

    python -m benchmarks.agent_isolation [--calls 300] [--starts 20] [--episodes 300]

(Run it as a module, like every benchmark here.)

1. per call: ``--calls`` calls of a trivial Lighthouse keeper (its reply a constant),
   one after the other, in each place an agent can run: a worker process (forked by
   the fork server, and a spawned interpreter) and the harness's process (a thread
   per call for a sync agent, the seat's own event loop for an async one). Median and
   95th percentile of the round trip, the agent's own time included (nil).
2. per start: the first answer of a new pool (its fork server, or its interpreter,
   started too), and the answer after a worker was killed on a timeout (a fork, or
   a new interpreter, then the agent's module): median of ``--starts``.
3. memory: the resident and proportional set size (RSS, PSS: shared pages split
   among the processes that share them) of a fork server and of one of its workers,
   and of a spawned worker, from /proc (Linux).
4. long runs: ``--episodes`` one-tick episodes, 4 at once, of each misbehaving agent
   of tests/agents_misbehaving.py (0.5 s per call), each in a process of its own
   (tests/agent_soak.py): wall time, episodes per second, and the process's threads
   and children before and after.

Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from harness.agents.call import AgentAnswer, AgentInput, load_agent
from harness.agents.inprocess import InProcessAgent
from harness.agents.pool import WorkerPool
from harness.registry import get_game

ROOT = Path(__file__).resolve().parents[1]
KEEPER = "tests.agents_misbehaving:tells_where"
SLOW = "tests.agents_misbehaving:slow_at_tick_1"


def sample_input(tick: int = 0) -> AgentInput:
    game = get_game("lighthouse")
    state = game.rules.new_state(game.rules.make_config("default", {}), 7)
    observation = game.rules.observe(state, "keeper")
    return AgentInput("lighthouse", "keeper", "keeper", tick, observation, "text", "system")


Call = Callable[[AgentInput, float, float], Awaitable[AgentAnswer | None]]


async def round_trips(call: Call, calls: int) -> list[float]:
    given = sample_input()
    await call(given, 60.0, math.inf)  # the first: a start, measured apart
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        await call(given, 60.0, math.inf)
        times.append(time.perf_counter() - started)
    return times


def quantiles(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {1e6 * statistics.median(ordered):8.0f} us   p95 {1e6 * p95:8.0f} us"


async def per_call(calls: int) -> None:
    print(f"\n1. per call ({calls} calls, one after the other)")
    keeper = load_agent(KEEPER)
    keeper_async = load_agent(KEEPER + "_async")
    model = get_game("lighthouse").codec.decision_model
    places: list[tuple[str, Any]] = [
        ("worker, forked", WorkerPool(KEEPER, game="lighthouse", launcher="fork")),
        ("worker, spawned", WorkerPool(KEEPER, game="lighthouse", launcher="spawn")),
        ("worker, forked, async agent", WorkerPool(KEEPER + "_async", game="lighthouse")),
        ("this process, sync agent", InProcessAgent(keeper, model)),
        ("this process, async agent", InProcessAgent(keeper_async, model)),
    ]
    for name, runner in places:
        try:
            times = await round_trips(runner.call, calls)
        finally:
            await runner.aclose()
        print(f"   {name:<30} {quantiles(times)}")


async def first_answer(launcher: Any) -> float:
    started = time.perf_counter()
    pool = WorkerPool(KEEPER, game="lighthouse", launcher=launcher)
    try:
        await pool.call(sample_input(), 60.0, math.inf)
        return time.perf_counter() - started
    finally:
        await pool.aclose()


async def replacement(launcher: Any) -> float:
    """The answer after a kill: tick 1 of slow_at_tick_1 times out at once."""
    pool = WorkerPool(SLOW, game="lighthouse", launcher=launcher)
    try:
        await pool.call(sample_input(0), 60.0, math.inf)
        await pool.call(sample_input(1), 0.01, math.inf)  # killed
        started = time.perf_counter()
        await pool.call(sample_input(2), 60.0, math.inf)
        return time.perf_counter() - started
    finally:
        await pool.aclose()


async def per_start(starts: int) -> None:
    print(f"\n2. per start (median of {starts})")
    for launcher in ("fork", "spawn"):
        first = [await first_answer(launcher) for _ in range(starts)]
        again = [await replacement(launcher) for _ in range(starts)]
        print(
            f"   {launcher:<6} first answer of a new pool {1e3 * statistics.median(first):7.1f} ms"
            f"   answer after a kill {1e3 * statistics.median(again):7.1f} ms"
        )


def memory_of(pid: int) -> str:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        pss = next(line.split()[1] for line in rollup.splitlines() if line.startswith("Pss:"))
    except (OSError, StopIteration):
        pss = "?"
    return f"RSS {int(rss) / 1024:6.1f} MiB, PSS {int(pss) / 1024 if pss != '?' else 0:6.1f} MiB"


async def memory() -> None:
    print("\n3. memory")
    if not sys.platform.startswith("linux"):
        print("   (Linux only)")
        return
    from tests.agent_soak import descendants

    for launcher in ("fork", "spawn"):
        pool = WorkerPool(KEEPER, game="lighthouse", launcher=launcher)
        try:
            answer = await pool.call(sample_input(), 60.0, math.inf)
            assert answer is not None
            assert answer.text is not None
            worker = int(json.loads(answer.text)["message"].split()[1])
            for pid in descendants(os.getpid()):
                what = "worker" if pid == worker else "fork server"
                print(f"   {launcher:<6} {what:<12} {memory_of(pid)}")
        finally:
            await pool.aclose()


def long_runs(episodes: int) -> None:
    print(f"\n4. long runs ({episodes} one-tick episodes, 4 at once, 0.5 s per call)")
    agents = ["exits", "holds_the_gil", "swallows_cancellation", "never_returns", "backtracks"]
    for agent in agents:
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run(
                [sys.executable, "-m", "tests.agent_soak", agent, str(episodes), folder,
                 "--concurrency", "4", "--ticks", "1"],
                cwd=ROOT, capture_output=True, text=True, check=False,
            )  # fmt: skip
        if done.returncode != 0:
            print(f"   {agent:<22} failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        figures = json.loads(done.stdout)
        before, after = figures["before"], figures["after"]
        wall = figures["wallSeconds"]
        print(
            f"   {agent:<22} {wall:7.1f} s  {episodes / wall:6.1f} episodes/s  "
            f"threads {before['threads']}/{before['os_threads']} -> "
            f"{after['threads']}/{after['os_threads']}, children {before['children']} -> "
            f"{after['children']}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--episodes", type=int, default=300)
    args = parser.parse_args()
    print(f"agent isolation: Python {platform.python_version()}, {platform.platform()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    asyncio.run(per_call(args.calls))
    asyncio.run(per_start(args.starts))
    asyncio.run(memory())
    long_runs(args.episodes)


if __name__ == "__main__":
    main()
