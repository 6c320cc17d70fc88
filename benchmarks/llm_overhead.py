"""The harness's own client-side cost of an LLM call, per SDK and HTTP transport.

    python -m benchmarks.llm_overhead [--calls 600] [--ticks 150] [--rate-calls 200]

(Run it as a module, like every benchmark here.)

A scripted OpenAI- and Anthropic-compatible server runs in a process of its own
(benchmarks/_llm_server_process.py) and answers every request at once with a fixed
valid reply for the role, so ``time.process_time()`` here counts only the client:
harness, SDK and transport. For each SDK (openai, anthropic) and each transport
(httpx, aiohttp) it measures:

1. per call: ``--calls`` calls through ``call_llm`` with an unlimited CallLimiter,
   32 at a time: client CPU ms per call and calls per second of wall time;
2. per tick: whole Lighthouse episodes (until ``--ticks`` ticks are played) with a
   keeper and three runners, all LLM seats built by SeatFactory: ticks per second and
   client CPU ms per tick;
3. against a limit: ``--rate-calls`` calls, 64 at a time, through a CallLimiter of
   50 requests per 1.0 s. The limit admits waves of 50, one per period; the
   sustained rate is 50 calls per measured wave-to-wave time (first call of the
   first wave to the first of the last), a little under the limit because
   asyncio-throttle polls every 10 ms. Also shown: the overall rate (calls / wall
   time, first burst included) and the most calls started in any 1.0 s window.

The server raises its listen backlog above socketserver's default of 5: with that
default, a cold burst of new httpx connections fails some of them after ~1 s (the
harness retries them, and the figures would count it). Calls that failed or needed
a retry, and episode turns that fell back, are reported after the table.

Only dummy API keys are set (in this process's environment, restored at the end).
Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import os
import platform
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, get_args
from unittest import mock

from benchmarks._llm_server_process import spawn
from harness.episode import run_episode
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import new_game
from harness.llm.calls import CallReport, RetryPolicy, call_llm
from harness.llm.limits import CallLimiter, Limits
from harness.llm.openai_provider import Transport
from harness.llm.options import LLMSeatOptions, ProviderKind, ProviderOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.seat import SeatFactory
from harness.llm.types import Completion, CompletionRequest, Message, Provider
from harness.records import TickLine
from harness.registry import get_game
from harness.seats import Seat, baseline_seats

ROOT = Path(__file__).resolve().parents[1]
GAME = get_game("lighthouse")
MODEL = "bench-model"
DUMMY_KEY = "dummy-benchmark-key-not-real"
SDKS: tuple[ProviderKind, ...] = ("openai", "anthropic")
TRANSPORTS: tuple[Transport, ...] = get_args(Transport)
CALL_CONCURRENCY = 32
RATE_CONCURRENCY = 64
RATE_LIMIT = 50
RATE_PERIOD_S = 1.0
POLICY = RetryPolicy(call_timeout_s=30.0)
DEADLINE_S = 60.0
# Set to a dummy (keys) or removed (the rest) while the benchmark runs: no real
# credential, proxy or base URL from the caller's environment may reach a request.
KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
CLEARED_VARS = (
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


@contextlib.contextmanager
def dummy_environment() -> Iterator[None]:
    """Dummy API keys and no credentials, proxies or base URLs; restored on exit."""
    with mock.patch.dict(os.environ):
        for name in CLEARED_VARS:
            os.environ.pop(name, None)
        for name in KEY_VARS:
            os.environ[name] = DUMMY_KEY
        yield


def server_process() -> contextlib.AbstractContextManager[int]:
    """Start the scripted server in its own process; yield its port; stop it on exit."""
    return spawn(["-m", "benchmarks._llm_server_process"], cwd=ROOT)


def provider_options(sdk: ProviderKind, transport: Transport, port: int) -> ProviderOptions:
    base_url = f"http://127.0.0.1:{port}" + ("/v1" if sdk == "openai" else "")
    return ProviderOptions(kind=sdk, base_url=base_url, transport=transport)


def runner_request() -> CompletionRequest:
    """A real runner prompt: its system prompt and a tick-1 observation."""
    config = LighthouseConfig.for_variant("default")
    state = new_game(config, generate_board(config, 0))
    prompts = PromptSet.load(default_prompt_files(GAME.name, "runner"))
    observation = GAME.seat_io.render_observation(GAME.rules.observe(state, "runner1"))
    return CompletionRequest(
        model=MODEL,
        messages=(
            Message("system", prompts.system.text),
            Message("user", prompts.observation.fill(observation=observation)),
        ),
        max_tokens=512,
        timeout_s=POLICY.call_timeout_s,
    )


class StampedProvider:
    """A provider that notes when each attempt got past the limiter."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.starts: list[float] = []

    async def complete(self, request: CompletionRequest) -> Completion:
        self.starts.append(time.perf_counter())
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def many_calls(
    provider: Provider,
    request: CompletionRequest,
    limiter: CallLimiter,
    calls: int,
    concurrency: int,
) -> list[CallReport]:
    """``calls`` calls through ``call_llm``, at most ``concurrency`` at once."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(concurrency)

    async def one() -> CallReport:
        async with gate:
            return await call_llm(
                provider,
                request,
                limiter=limiter,
                policy=POLICY,
                deadline=loop.time() + DEADLINE_S,
            )

    return list(await asyncio.gather(*(one() for _ in range(calls))))


@dataclass
class Figures:
    """One (sdk, transport) row."""

    sdk: str
    transport: str
    cpu_ms_per_call: float = float("nan")
    calls_per_s: float = float("nan")
    ticks_per_s: float = float("nan")
    cpu_ms_per_tick: float = float("nan")
    ticks: int = 0
    episodes: int = 0
    sustained_rate: float = float("nan")
    overall_rate: float = float("nan")
    peak_in_window: int = 0
    failed_calls: int = 0
    retried_calls: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    error: str | None = None


def check(reports: Sequence[CallReport], figures: Figures) -> None:
    """Count calls that failed or needed a retry, and the errors they met."""
    for report in reports:
        figures.failed_calls += report.completion is None
        figures.retried_calls += report.completion is not None and report.attempts > 1
        figures.errors.update(report.errors)
        if report.failure is not None:
            figures.errors[f"failure: {report.failure}"] += 1


async def measure_calls(provider: Provider, calls: int, figures: Figures) -> None:
    request = runner_request()
    limiter = CallLimiter(Limits())
    # Warm up: connections, the SDK's lazy imports and caches.
    check(await many_calls(provider, request, limiter, CALL_CONCURRENCY, CALL_CONCURRENCY), figures)
    cpu, wall = time.process_time(), time.perf_counter()
    reports = await many_calls(provider, request, limiter, calls, CALL_CONCURRENCY)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    check(reports, figures)
    figures.cpu_ms_per_call = 1000 * cpu / calls
    figures.calls_per_s = calls / wall


async def measure_rate(provider: Provider, calls: int, figures: Figures) -> None:
    stamped = StampedProvider(provider)
    limiter = CallLimiter(Limits(requests=RATE_LIMIT, period_s=RATE_PERIOD_S))
    wall = time.perf_counter()
    check(await many_calls(stamped, runner_request(), limiter, calls, RATE_CONCURRENCY), figures)
    wall = time.perf_counter() - wall
    starts = sorted(stamped.starts)
    figures.overall_rate = len(starts) / wall
    # The limit lets a burst of RATE_LIMIT through, then RATE_LIMIT more each time
    # the oldest of the window ages out: call m * RATE_LIMIT opens wave m. The
    # sustained rate is RATE_LIMIT calls per (measured) wave-to-wave period.
    waves = (len(starts) - 1) // RATE_LIMIT
    if waves >= 1 and starts[waves * RATE_LIMIT] > starts[0]:
        figures.sustained_rate = waves * RATE_LIMIT / (starts[waves * RATE_LIMIT] - starts[0])
    figures.peak_in_window = max(
        bisect.bisect_left(starts, t + RATE_PERIOD_S) - i for i, t in enumerate(starts)
    )


def lighthouse_states() -> Iterator[tuple[int, Any]]:
    """(seed, tick-0 state) for seeds 0, 1, ... (the caller stops when it has enough)."""
    config = LighthouseConfig.for_variant("default")
    seed = 0
    while True:
        yield seed, new_game(config, generate_board(config, seed))
        seed += 1


async def play(seats_for: Any, ticks: int, figures: Figures | None) -> tuple[int, float, float]:
    """Play episodes until ``ticks`` ticks: (ticks, client CPU s, wall s) of the episodes."""
    played, cpu, wall = 0, 0.0, 0.0
    episodes = 0
    for seed, state in lighthouse_states():
        if played >= ticks:
            break
        seats: dict[str, Seat] = seats_for(state)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        outcome = await run_episode(GAME, state, seats, episode_id=f"bench-{seed}", seed=seed)
        cpu += time.process_time() - cpu0
        wall += time.perf_counter() - wall0
        played += int(getattr(outcome.results, "ticks", 0))
        episodes += 1
        if figures is not None:
            for line in outcome.lines:
                if isinstance(line, TickLine):
                    figures.sources.update(turn.source for turn in line.seats.values())
    if figures is not None:
        figures.episodes = episodes
    return played, cpu, wall


async def measure_ticks(options: ProviderOptions, ticks: int, figures: Figures) -> None:
    factory = SeatFactory()
    seat_options = LLMSeatOptions(
        provider=options, model=MODEL, call_timeout_seconds=30.0, allowance_seconds=60.0
    )

    def seats_for(state: Any) -> dict[str, Seat]:
        return {
            spec.seat: factory.seat(GAME, spec.role, seat_options)
            for spec in GAME.rules.seats(state)
        }

    try:
        await play(seats_for, 1, None)  # warm up
        played, cpu, wall = await play(seats_for, ticks, figures)
    finally:
        await factory.aclose()
    figures.ticks = played
    figures.ticks_per_s = played / wall
    figures.cpu_ms_per_tick = 1000 * cpu / played


async def bench_row(
    sdk: ProviderKind, transport: Transport, port: int, args: argparse.Namespace
) -> Figures:
    figures = Figures(sdk, transport)
    options = provider_options(sdk, transport, port)
    factory = SeatFactory()
    try:
        provider = factory.provider(options)
        await measure_calls(provider, args.calls, figures)
        await measure_rate(provider, args.rate_calls, figures)
    finally:
        await factory.aclose()
    await measure_ticks(options, args.ticks, figures)
    return figures


async def bench_baseline(ticks: int) -> tuple[float, float]:
    """Ticks per second and CPU ms per tick with scripted seats: the game's own share."""
    await play(lambda state: baseline_seats(GAME, state), 1, None)
    played, cpu, wall = await play(lambda state: baseline_seats(GAME, state), ticks, None)
    return played / wall, 1000 * cpu / played


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"


def table(rows: Sequence[Figures]) -> str:
    header = (
        f"{'sdk':<10} {'transport':<9} {'CPU ms/call':>11} {'calls/s':>8} "
        f"{'ticks/s':>8} {'CPU ms/tick':>11}  achieved rate vs limit"
    )
    out = [header, "-" * (len(header) + 20)]
    for f in rows:
        left = f"{f.sdk:<10} {f.transport:<9}"
        if f.error is not None:
            out.append(f"{left} FAILED: {f.error}")
            continue
        out.append(
            f"{left} {f.cpu_ms_per_call:11.2f} {f.calls_per_s:8.0f} "
            f"{f.ticks_per_s:8.1f} {f.cpu_ms_per_tick:11.2f}  "
            f"{f.sustained_rate:5.1f}/s vs {RATE_LIMIT}/s "
            f"(peak {f.peak_in_window}, {f.overall_rate:.1f}/s overall)"
        )
    return "\n".join(out)


def faster(rows: Sequence[Figures]) -> list[str]:
    lines = []
    for sdk in SDKS:
        ok = [f for f in rows if f.sdk == sdk and f.error is None]
        if len(ok) < 2:
            lines.append(f"  {sdk}: not compared (a transport failed)")
            continue
        by_cpu = min(ok, key=lambda f: f.cpu_ms_per_call)
        by_rate = max(ok, key=lambda f: f.calls_per_s)
        by_tick = min(ok, key=lambda f: f.cpu_ms_per_tick)
        other = next(f for f in ok if f is not by_cpu)
        text = (
            f"  {sdk}: {by_cpu.transport} uses less client CPU per call "
            f"({by_cpu.cpu_ms_per_call:.2f} vs {other.cpu_ms_per_call:.2f} ms, "
            f"{other.cpu_ms_per_call / by_cpu.cpu_ms_per_call:.2f}x); "
            f"more calls/s: {by_rate.transport}; less CPU per tick: {by_tick.transport}"
        )
        lines.append(text)
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=600, help="calls per row, 32 at a time")
    parser.add_argument("--ticks", type=int, default=150, help="episode ticks per row, at least")
    parser.add_argument(
        "--rate-calls",
        type=int,
        default=200,
        help="calls against the 50/s limit, 64 at a time (> 50)",
    )
    args = parser.parse_args(argv)
    if min(args.calls, args.ticks) < 1:
        parser.error("--calls and --ticks must be positive")
    if args.rate_calls <= RATE_LIMIT:
        parser.error(f"--rate-calls must be more than the limit, {RATE_LIMIT}")
    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}) on "
        f"{platform.machine()}, {os.cpu_count()} CPUs; openai {_version('openai')}, "
        f"anthropic {_version('anthropic')}, httpx2 {_version('httpx2')}, "
        f"aiohttp {_version('aiohttp')}"
    )
    print("Server: a separate process on 127.0.0.1, instant fixed replies; CPU is this process's.")
    rows: list[Figures] = []
    started = time.perf_counter()
    with dummy_environment(), server_process() as port:
        base_tps, base_cpu = asyncio.run(bench_baseline(args.ticks))
        for sdk in SDKS:
            for transport in TRANSPORTS:
                try:
                    figures = asyncio.run(bench_row(sdk, transport, port, args))
                except Exception as exc:  # report it and go on with the other rows
                    figures = Figures(sdk, transport, error=f"{type(exc).__name__}: {exc}")
                rows.append(figures)
                print(f"  done {sdk}/{transport} ({time.perf_counter() - started:.1f} s)")
    print()
    played = next((f for f in rows if f.error is None), None)
    print(
        f"Per call: {args.calls} calls via call_llm, {CALL_CONCURRENCY} at a time, no limits.\n"
        f"Per tick: Lighthouse episodes, keeper + 3 runners as LLM seats (SeatFactory), "
        + (f"{played.ticks} ticks in {played.episodes} episodes.\n" if played else "\n")
        + f"Rate: {args.rate_calls} calls, {RATE_CONCURRENCY} at a time, limit {RATE_LIMIT} "
        f"per {RATE_PERIOD_S:g} s: sustained rate (peak calls in any {RATE_PERIOD_S:g} s, "
        f"overall rate with the first burst).\n"
    )
    print(table(rows))
    print(
        f"{'baseline':<10} {'(no LLM)':<9} {'-':>11} {'-':>8} {base_tps:8.1f} {base_cpu:11.2f}"
        "  -   (scripted seats: the game and the episode runner alone)"
    )
    print()
    print("Faster transport per SDK (client CPU per call):")
    for line in faster(rows):
        print(line)
    for f in rows:
        if f.error is None and (f.failed_calls or f.retried_calls or set(f.sources) - {"llm"}):
            print(
                f"NOTE {f.sdk}/{f.transport}: {f.failed_calls} calls failed, "
                f"{f.retried_calls} succeeded on a retry (errors: {dict(f.errors)}); "
                f"episode turn sources {dict(f.sources)}"
            )
    print(f"Total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
