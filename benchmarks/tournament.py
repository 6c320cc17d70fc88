"""Whole tournaments through the real config path: throughput, memory, and the rate limit.

    python -m benchmarks.tournament [--episodes 1000] [--llm-episodes N] [--latency 0.05]
                                    [--rate 20] [--period 1.0] [--traced-episodes 120]

(Run it as a module, like every benchmark here.)

Every tournament is written as TOML into a temporary folder, loaded with
``load_tournament`` and played by ``run_tournament`` into a temporary results folder
(records fsynced, as in a real run), with the config's default concurrency. Each
phase runs in a fresh child process of its own, so its ``ru_maxrss`` is its own peak
and the tracing of one phase cannot slow another:

1. baselines: LANTERN vs SILENT keepers, both with WALLHUG runners, on seeds 0..S-1
   and both variants (``--episodes``, rounded up to a multiple of 4), untraced:
   episodes per second of wall time, CPU seconds, and the process's peak RSS;
2. the same config on fewer seeds (``--traced-episodes``, rounded up to a multiple
   of 4), traced by ``tracemalloc`` (tracing makes this code 3-4x slower, so a traced
   run of all 1,000 would not fit the time budget): the peak of Python allocations,
   and the Python memory the returned outcome holds per episode (the growth of a
   longer run; an extrapolation to ``--episodes`` is printed, marked as such);
3. LLM: an entrant whose keeper and three runners are LLM seats (provider kind
   "openai", aiohttp transport, ``base_url`` pointed at the scripted server, limited
   to ``--rate`` requests per ``--period`` seconds) against the LANTERN entrant, on
   ``--llm-episodes`` seeds of the default variant, traced by ``tracemalloc`` (the
   run is bound by the rate limit, not the CPU). The scripted server runs in a
   process of its own (its CPU is not counted here) and answers every request after
   ``--latency`` seconds: ``{"transmit": false}`` when the request contains "You are
   the KEEPER", else ``{"move": "WAIT"}``, so every runner drowns at tick 24 of the
   default rules (96 calls per episode; the default ``--llm-episodes`` is ~34 s of
   calls at the limit). The achieved rate is measured twice: from when the limiter
   admitted each call (``CallLimiter.slot`` is wrapped in the LLM phase to note it)
   and from when the server received it. As in benchmarks/llm_overhead.py, the limit
   admits waves of ``--rate`` calls, so the sustained rate is (waves x rate) calls
   over the time from the first call of the first wave to the first of the last; it
   binds from the first call to the last, as every LLM episode always has calls
   waiting. Also shown: calls / the whole run's wall time, the most calls in any
   ``--period`` window, and the delay from admission to arrival.

Memory figures, and which is which:
  * "Python peak" is ``tracemalloc``'s peak of Python allocations during the
    tournament (the tracer's own bookkeeping not included);
  * "ru_maxrss" is ``resource.getrusage(RUSAGE_SELF).ru_maxrss``: the whole child
    process's peak resident set (interpreter, imported modules, C libraries; in a
    traced phase, tracemalloc's own bookkeeping too);
  * "RSS start -> end" is the current resident set (``/proc/self/statm``) after the
    imports and the config load, and at the last finished episode.

Only a dummy API key is used: ``BENCH_KEY`` is set in the LLM phase's own
``os.environ`` (proxies and OpenAI base-URL variables removed there). Temporary
folders and the server process are removed at the end. Figures only: nothing here
is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import dataclasses
import gc
import io
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks._llm_server_process import spawn
from harness.summary import EpisodeSummary
from harness.testing.admissions import noting_admissions
from harness.tournament.progress import Progress

ROOT = Path(__file__).resolve().parents[1]
MODULE = "benchmarks.tournament"
KEY_ENV = "BENCH_KEY"
DUMMY_KEY = "dummy-benchmark-key-not-real"
MODEL = "bench-model"
LLM_ENTRANT = "llm"
KEEPER_MARK = "You are the KEEPER"
RUNNER_MARK = "You are a RUNNER"
#: Calls of one LLM episode with the scripted replies (every runner drowns at tick 24).
CALLS_PER_LLM_EPISODE = 96
#: The LLM phase's default length, in seconds of rate-limited calls.
LLM_TARGET_S = 34.0
CHILD_TIMEOUT_S = 600


# --- measuring ---------------------------------------------------------------------


def current_rss() -> int | None:
    """This process's resident set now, in bytes (None where /proc is absent)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def max_rss() -> int:
    """``ru_maxrss`` of this process, in bytes (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def mib(value: float | None) -> str:
    return "-" if value is None else f"{value / 2**20:.1f} MiB"


class Sampler(Progress):
    """A silent progress: counts like :class:`Progress` and samples memory every 10%."""

    def __init__(self) -> None:
        self.sink = io.StringIO()  # run_tournament writes preflight warnings here
        super().__init__(0, 0, stream=self.sink)
        self.samples: list[tuple[int, int | None, int | None]] = []
        self.reasons: Counter[str] = Counter()
        # The LLM entrant's figures, added up as episodes finish (keeping the summaries
        # here would add to the memory measured).
        self.llm_episodes = self.attempts = self.retries = 0
        self.fallback_kinds: Counter[str] = Counter()
        self.latencies_ms: list[float] = []

    def add(self, summary: EpisodeSummary) -> None:
        super().add(summary)
        self.reasons[summary.reason] += 1
        if summary.entrant == LLM_ENTRANT:
            self.llm_episodes += 1
            for seat in summary.seats.values():
                self.attempts += seat.attempts
                self.retries += seat.retries
                self.fallback_kinds.update(seat.fallbacks)
                self.latencies_ms.extend(seat.latencies_ms)
        every = max(1, self.total // 10)
        if self.done % every == 0 or self.done == self.total:
            traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None
            self.samples.append((self.done, current_rss(), traced))

    def show(self, *, final: bool = False) -> None:
        return  # quiet: the figures are printed at the end


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


async def _play(config: Any, out: Path, sampler: Sampler) -> tuple[Any, float, float]:
    from harness.tournament.run import run_tournament

    cpu, wall = time.process_time(), time.perf_counter()
    outcome = await run_tournament(config, out, progress=sampler)
    return outcome, time.perf_counter() - wall, time.process_time() - cpu


def play_phase(toml: str, folder: Path, *, traced: bool) -> dict[str, Any]:
    """Load ``toml`` through load_tournament, play it into ``folder``; the figures."""
    from harness.tournament.config import load_tournament
    from harness.tournament.run import plan_episodes

    path = folder / "tournament.toml"
    path.write_text(toml, encoding="utf-8")
    config = load_tournament(path)
    out = folder / "results"
    sampler = Sampler()
    rss_start = current_rss()
    if traced:
        tracemalloc.start()
        tracemalloc.reset_peak()
    outcome, wall, cpu = asyncio.run(_play(config, out, sampler))
    figures: dict[str, Any] = {"rss_end": current_rss(), "ru_maxrss": max_rss()}
    if traced:
        figures["traced_peak"] = tracemalloc.get_traced_memory()[1]
        gc.collect()  # cyclic garbage, so that what follows counts the outcome alone
        figures["traced_end"] = tracemalloc.get_traced_memory()[0]
    played, results = outcome.played, outcome.folder
    del outcome  # what run_tournament returned: every episode's summary
    gc.collect()
    if traced:
        figures["traced_outcome"] = figures["traced_end"] - tracemalloc.get_traced_memory()[0]
        figures["tracer_overhead"] = tracemalloc.get_tracemalloc_memory()
        tracemalloc.stop()
    figures |= {
        "planned": len(plan_episodes(config)),
        "played": played,
        "concurrency": config.concurrency,
        "wall_s": wall,
        "cpu_s": cpu,
        "rss_start": rss_start,
        "samples": sampler.samples,
        "reasons": dict(sampler.reasons),
        "results_lines": len(results.summaries()),
        "folder_bytes": folder_bytes(out),
        "warnings": [line for line in sampler.sink.getvalue().splitlines() if line],
    }
    latencies = sorted(sampler.latencies_ms)
    figures |= {
        "llm_episodes": sampler.llm_episodes,
        "calls": sampler.calls,
        "attempts": sampler.attempts,
        "retries": sampler.retries,
        "fallback_kinds": dict(sampler.fallback_kinds),
        "latency_p50_ms": statistics.median(latencies) if latencies else None,
        "latency_p95_ms": latencies[int(0.95 * (len(latencies) - 1))] if latencies else None,
    }
    return figures


# --- the tournaments -----------------------------------------------------------------


def baseline_toml(seeds: int) -> str:
    return f"""\
# LANTERN against a keeper that never speaks, both with WALLHUG runners.
name = "bench-baselines"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default", "spring"]
repetitions = 1
reference = "silent"

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "silent"
keeper = {{ baseline = "silent" }}
runners = {{ baseline = "wallhug" }}
"""


def llm_toml(seeds: int, port: int, rate: int, period: float) -> str:
    return f"""\
# Every seat of one entrant an LLM seat, against LANTERN; the model is the scripted server.
name = "bench-llm"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default"]
repetitions = 1
reference = "lantern"

[providers.bench]
kind = "openai"
base_url = "http://127.0.0.1:{port}/v1"
api_key_env = "{KEY_ENV}"
requests_per_period = {rate}
period_seconds = {period}

[[entrants]]
name = "{LLM_ENTRANT}"
keeper = {{ provider = "bench", model = "{MODEL}" }}
runners = {{ provider = "bench", model = "{MODEL}" }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
"""


@contextlib.contextmanager
def dummy_environment() -> Iterator[None]:
    """The dummy key set, proxies and base URLs removed; restored on exit."""
    from benchmarks.llm_overhead import CLEARED_VARS

    with mock.patch.dict(os.environ):
        for name in CLEARED_VARS:
            os.environ.pop(name, None)
        os.environ[KEY_ENV] = DUMMY_KEY
        yield


# --- the child processes -------------------------------------------------------------


def serve(latency: float, times: Path) -> None:
    """The scripted server: print ``PORT <n>``, answer until stdin ends, write the times."""
    from benchmarks._llm_server_process import KEEPER_REPLY, RUNNER_REPLY
    from harness.testing.llm_server import Reply, ScriptedLLMServer

    keeper = dataclasses.replace(KEEPER_REPLY, delay_s=latency)
    runner = dataclasses.replace(RUNNER_REPLY, delay_s=latency)
    seen: list[tuple[float, str]] = []
    server = ScriptedLLMServer()

    def handle(path: str, body: dict[str, Any]) -> Reply:
        server.requests.clear()  # it would keep every request otherwise
        text = json.dumps(body)
        kind = "keeper" if KEEPER_MARK in text else "runner" if RUNNER_MARK in text else "other"
        seen.append((time.monotonic(), kind))
        return keeper if kind == "keeper" else runner

    server.default = handle
    server.start()
    try:
        print(f"PORT {server.port}", flush=True)
        sys.stdin.read()  # until the parent closes the pipe (or dies)
    finally:
        server.stop()
        data = {"requests": seen, "cpu_s": time.process_time()}
        times.write_text(json.dumps(data), encoding="utf-8")


def server_process(latency: float, times: Path) -> contextlib.AbstractContextManager[int]:
    """Start the server in its own process; yield its port; stop it on exit."""
    argv = ["-m", MODULE, "--phase", "server", "--latency", str(latency), "--result", str(times)]
    return spawn(argv, cwd=ROOT)


def run_child(args: list[str], result: Path) -> dict[str, Any]:
    """Run one phase in a fresh process; its figures, or ``{"error": ...}``."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", MODULE, *args, "--result", str(result)],
            cwd=ROOT,
            timeout=CHILD_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {CHILD_TIMEOUT_S} s"}
    if done.returncode != 0 or not result.exists():
        return {"error": f"the phase exited with status {done.returncode} (see stderr above)"}
    data: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    return data


def child_main(args: argparse.Namespace) -> None:
    result = Path(args.result)
    if args.phase == "server":
        serve(args.latency, result)
        return
    folder = Path(args.folder)
    folder.mkdir(parents=True)
    if args.phase == "baseline":
        toml = baseline_toml(args.seeds)
        figures = play_phase(toml, folder, traced=args.traced)
    else:
        toml = llm_toml(args.seeds, args.port, args.rate, args.period)
        admitted: list[float] = []
        with dummy_environment(), noting_admissions(admitted):
            figures = play_phase(toml, folder, traced=True)
        figures["admitted"] = admitted
    result.write_text(json.dumps(figures), encoding="utf-8")


# --- the report ----------------------------------------------------------------------


def rate_figures(times: Sequence[float], limit: int, period: float) -> dict[str, Any]:
    """The achieved rate of calls started at ``times`` (seconds, any order)."""
    starts = sorted(times)
    out: dict[str, Any] = {"calls": len(starts)}
    if not starts:
        return out
    # The limit lets a burst of `limit` through, then `limit` more each time the oldest
    # of the window ages out: call m * limit opens wave m.
    waves = (len(starts) - 1) // limit
    if waves >= 1 and starts[waves * limit] > starts[0]:
        out["waves"] = waves
        out["span_s"] = starts[waves * limit] - starts[0]
        out["sustained"] = waves * limit / out["span_s"]
    out["peak_window"] = max(
        bisect.bisect_left(starts, t + period) - i for i, t in enumerate(starts)
    )
    return out


def rate_line(label: str, rates: dict[str, Any], args: argparse.Namespace) -> str:
    limit_rate = args.rate / args.period
    if "sustained" not in rates:
        return f"    {label}: {rates.get('calls', 0)} calls, too few for a rate"
    return (
        f"    {label}: sustained {rates['sustained']:.2f}/s = "
        f"{rates['sustained'] / limit_rate:.1%} of the limit ({rates['waves']} waves of "
        f"{args.rate} in {rates['span_s']:.2f} s); most in any {args.period:g} s window: "
        f"{rates['peak_window']}"
    )


def row(label: str, f: dict[str, Any]) -> str:
    if "error" in f:
        return f"{label:<26} FAILED: {f['error']}"
    eps = f["played"] / f["wall_s"] if f["wall_s"] else float("nan")
    return (
        f"{label:<26} {f['played']:>8} {f['wall_s']:7.1f} {eps:8.2f} {f['cpu_s']:7.1f} "
        f"{mib(f.get('traced_peak')):>12} {mib(f['ru_maxrss']):>12}  "
        f"{mib(f['rss_start'])} -> {mib(f['rss_end'])}"
    )


def memory_curve(f: dict[str, Any]) -> str:
    """RSS (and traced Python memory) after every tenth of the episodes."""

    def values(index: int) -> str:
        return "/".join("-" if x[index] is None else f"{x[index] / 2**20:.1f}" for x in samples)

    samples = f["samples"]
    text = f"after {'/'.join(str(x[0]) for x in samples)} episodes: RSS {values(1)} MiB"
    if any(x[2] is not None for x in samples):
        text += f"; Python {values(2)} MiB"
    return text


def report(
    args: argparse.Namespace,
    timed: dict[str, Any],
    traced: dict[str, Any] | None,
    llm: dict[str, Any],
    server: dict[str, Any],
) -> None:
    print()
    header = (
        f"{'phase':<26} {'episodes':>8} {'wall s':>7} {'ep/s':>8} {'CPU s':>7} "
        f"{'Python peak':>12} {'ru_maxrss':>12}  RSS start -> end"
    )
    print(header)
    print("-" * (len(header) + 12))
    print(row(f"baselines x{args.episodes_actual} (untraced)", timed))
    if traced is not None:
        print(row(f"baselines first {args.traced_episodes} (traced)", traced))
    print(row(f"LLM + lantern x{args.llm_episodes} (traced)", llm))
    print()
    print(
        "Python peak: tracemalloc peak of Python allocations during the tournament; "
        "ru_maxrss: the phase process's\npeak resident set (all of it: interpreter, "
        "modules, C libraries, and tracemalloc's bookkeeping when traced)."
    )
    if "error" not in timed:
        print(
            f"\nBaselines: concurrency {timed['concurrency']} (the config's default), "
            f"{timed['results_lines']} results lines, results folder "
            f"{mib(timed['folder_bytes'])}; reasons {timed['reasons']}.\n"
            f"  memory {memory_curve(timed)}"
        )
    if traced is not None and "error" not in traced and traced["played"]:
        per_episode = traced["traced_outcome"] / traced["played"]
        estimate = traced["traced_peak"] + per_episode * (args.episodes_actual - traced["played"])
        print(
            f"  traced {traced['played']} episodes: Python peak {mib(traced['traced_peak'])}; "
            f"held at the end {mib(traced['traced_end'])}, of it "
            f"{mib(traced['traced_outcome'])} by the outcome run_tournament returns (every "
            f"episode's summary) = {per_episode / 1024:.1f} KiB per episode; tracer's own "
            f"{mib(traced['tracer_overhead'])}.\n"
            f"  estimate for {args.episodes_actual} episodes (peak + that growth): "
            f"~{mib(estimate)} (an extrapolation, not a measurement).\n"
            f"  memory {memory_curve(traced)}"
        )
    if "error" in llm:
        return
    wall = llm["wall_s"]
    cpu_per_call = 1000 * llm["cpu_s"] / max(1, llm["calls"])
    print(
        f"\nLLM: {llm['llm_episodes']} LLM episodes + {llm['played'] - llm['llm_episodes']} "
        f"LANTERN episodes, concurrency {llm['concurrency']}; openai provider (aiohttp) -> "
        f"scripted server in its own process, {1000 * args.latency:g} ms per reply; limit "
        f"{args.rate} requests per {args.period:g} s."
    )
    print(
        f"  calls {llm['calls']} (attempts {llm['attempts']}, turns retried "
        f"{llm['retries']}, fallbacks {llm['fallback_kinds'] or 0}); LLM episodes/s "
        f"{llm['llm_episodes'] / wall:.3f}; client CPU {cpu_per_call:.2f} ms per call "
        "(the phase's CPU / calls: traced, LANTERN episodes included)."
    )
    if llm["latency_p50_ms"] is not None:
        print(
            f"  call latency seen by the harness (limiter wait included): p50 "
            f"{llm['latency_p50_ms']:.1f} ms, p95 {llm['latency_p95_ms']:.1f} ms"
        )
    admitted = rate_figures(llm["admitted"], args.rate, args.period)
    requests = server.get("requests", [])
    arrivals = rate_figures([t for t, k in requests if k != "other"], args.rate, args.period)
    others = sum(1 for _, k in requests if k == "other")
    lags = sorted(
        b - a
        for a, b in zip(
            sorted(llm["admitted"]), sorted(t for t, k in requests if k != "other"), strict=False
        )
    )
    print(
        f"  achieved call rate (ideal: the limit, {args.rate / args.period:g}/s; the limit "
        "binds from the first call to the last):"
    )
    print(rate_line("admitted by the limiter", admitted, args))
    print(rate_line("arrived at the server", arrivals, args))
    if lags:
        print(
            f"    admission to arrival (the k-th admitted paired with the k-th to arrive): "
            f"p50 {1000 * lags[len(lags) // 2]:.1f} ms, p95 "
            f"{1000 * lags[int(0.95 * (len(lags) - 1))]:.1f} ms, max {1000 * lags[-1]:.1f} ms"
        )
    print(
        f"    overall: {llm['calls']} calls / {wall:.1f} s of the whole run = "
        f"{llm['calls'] / wall:.2f}/s (start-up, the preflight call and the tail included)"
    )
    print(
        f"  memory {memory_curve(llm)}; held by the returned outcome at the end "
        f"{mib(llm['traced_outcome'])}"
    )
    print(
        f"  server process: {arrivals['calls']} game requests + {others} other (the "
        f"preflight); its CPU {server.get('cpu_s', float('nan')):.1f} s is not counted above"
    )
    notes = []
    if server and arrivals["calls"] != llm["attempts"]:
        notes.append(
            f"the server saw {arrivals['calls']} game requests but the records count "
            f"{llm['attempts']} attempts"
        )
    if admitted.get("peak_window", 0) > args.rate:
        notes.append(f"the limiter admitted more than {args.rate} calls in one period")
    if arrivals.get("peak_window", 0) > args.rate:
        notes.append(
            f"up to {arrivals['peak_window']} calls reached the server within one "
            f"{args.period:g} s window, though the limiter admitted at most "
            f"{admitted.get('peak_window')}: the limit is kept where calls are admitted, and "
            "the time from admission to arrival varies, so the head of one wave can arrive "
            "inside the previous wave's window (a provider counting arrivals over a strict "
            "sliding window would see this)"
        )
    if llm["fallback_kinds"] or llm["retries"]:
        notes.append(f"fallbacks {llm['fallback_kinds']}, retried turns {llm['retries']}")
    if llm["warnings"]:
        notes.append(f"warnings: {llm['warnings']}")
    for note in notes:
        print(f"NOTE: {note}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--episodes", type=int, default=1000, help="baseline episodes")
    parser.add_argument(
        "--traced-episodes",
        type=int,
        default=120,
        help="baseline episodes of the tracemalloc run (0: skip it)",
    )
    parser.add_argument(
        "--llm-episodes",
        type=int,
        default=None,
        help=f"LLM entrant's episodes (default: ~{LLM_TARGET_S:g} s of calls at the limit)",
    )
    parser.add_argument("--latency", type=float, default=0.05, help="server seconds per reply")
    parser.add_argument("--rate", type=int, default=20, help="requests per period")
    parser.add_argument("--period", type=float, default=1.0, help="the limit's period, s")
    # Internal: the child processes.
    parser.add_argument("--phase", choices=("baseline", "llm", "server"), help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--seeds", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase is not None:
        child_main(args)
        return
    if args.episodes < 1 or args.rate < 1 or args.period <= 0 or args.latency < 0:
        parser.error("--episodes and --rate must be positive, --period > 0, --latency >= 0")
    seeds = math.ceil(args.episodes / 4)  # 2 entrants x 2 variants per seed
    args.episodes_actual = 4 * seeds
    args.traced_episodes = min(max(0, args.traced_episodes), args.episodes_actual)
    if args.llm_episodes is None:
        per_s = args.rate / args.period
        args.llm_episodes = max(1, round(LLM_TARGET_S * per_s / CALLS_PER_LLM_EPISODE))
    if args.llm_episodes < 1:
        parser.error("--llm-episodes must be positive")

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}) on "
        f"{platform.machine()} {platform.system()}; os.cpu_count() {os.cpu_count()}"
        + (f", usable by this process {affinity}" if affinity is not None else "")
    )
    if args.episodes_actual != args.episodes:
        print(f"--episodes {args.episodes} rounded up to {args.episodes_actual} (4 per seed)")
    print("Each phase runs in a fresh process; the LLM server in another (its CPU not counted).")
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="bench-tournament-"))
    try:
        timed = run_child(
            ["--phase", "baseline", "--seeds", str(seeds), "--folder", str(tmp / "baselines")],
            tmp / "baselines.json",
        )
        print(f"  done: baselines, untraced ({time.perf_counter() - started:.1f} s)", flush=True)
        traced = None
        if args.traced_episodes:
            # The same config on fewer seeds: both entrants and variants, N/4 seeds.
            traced_seeds = str(math.ceil(args.traced_episodes / 4))
            traced = run_child(
                [
                    "--phase",
                    "baseline",
                    "--traced",
                    "--seeds",
                    traced_seeds,
                    "--folder",
                    str(tmp / "traced"),
                ],
                tmp / "traced.json",
            )
            args.traced_episodes = traced.get("played", args.traced_episodes)
            print(f"  done: baselines, traced ({time.perf_counter() - started:.1f} s)", flush=True)
        server: dict[str, Any] = {}
        times = tmp / "server.json"
        try:
            with server_process(args.latency, times) as port:
                llm = run_child(
                    [
                        "--phase",
                        "llm",
                        "--seeds",
                        str(args.llm_episodes),
                        "--port",
                        str(port),
                        "--rate",
                        str(args.rate),
                        "--period",
                        str(args.period),
                        "--folder",
                        str(tmp / "llm"),
                    ],
                    tmp / "llm.json",
                )
        except RuntimeError as exc:
            llm = {"error": str(exc)}
        if times.exists():
            server = json.loads(times.read_text(encoding="utf-8"))
        print(f"  done: LLM ({time.perf_counter() - started:.1f} s)", flush=True)
        report(args, timed, traced, llm, server)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nTotal {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
