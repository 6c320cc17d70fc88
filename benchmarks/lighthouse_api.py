"""Lighthouse over HTTP: time per request, with episodes kept between requests and
without (each request playing its episode again from the token), and token sizes.

    python -m benchmarks.lighthouse_api [--seeds 10]

Plays seeds 0..S-1 through the API part itself (no HTTP: the figures are the
server's own work), the client playing the keeper and runner 2 with fixed replies
that parse, and prints (figures only, nothing asserted): milliseconds per request
(median, 95th percentile, worst) and per episode, and the final token's length
(median, worst), for a server that keeps its last episodes in play and for one that
keeps none.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from harness.registry import get_game
from harness.server.step_token import MAX_TOKEN_CHARS
from harness.server.stepped import SteppedApi

KEY = b"benchmark-key-of-thirty-two-byte"
PLAYS = "keeper,runner2"


def _reply(seat: str) -> str:
    """A reply for ``seat``: a fixed one that parses (the bench times the server)."""
    if seat == "keeper":
        return '{"transmit": true, "message": "Sprocket N; Gizmo E", "notes": "plan"}'
    return '{"move": "N", "notes": "going north"}'


def bench(label: str, live_episodes: int, seeds: range) -> None:
    api = SteppedApi(get_game("lighthouse"), live_episodes=live_episodes)
    per_request: list[float] = []
    per_episode: list[float] = []
    tokens: list[int] = []
    for seed in seeds:
        started = time.perf_counter()
        response = api.init(seed, None, PLAYS, KEY)
        per_request.append(time.perf_counter() - started)
        while not response["over"]:
            waiting = response["waiting"]
            assert isinstance(waiting, list)
            action = {str(seat): _reply(str(seat)) for seat in waiting}
            begun = time.perf_counter()
            response = api.action(response["stateToken"], action, KEY)
            per_request.append(time.perf_counter() - begun)
        per_episode.append(time.perf_counter() - started)
        tokens.append(len(str(response["stateToken"])))
    ms = sorted(t * 1000 for t in per_request)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    print(
        f"  {label:<26} {len(ms):5} requests  ms/request median {statistics.median(ms):6.1f}"
        f"  p95 {p95:6.1f}  worst {ms[-1]:6.1f}  |  ms/episode median "
        f"{statistics.median(per_episode) * 1000:7.0f}  |  token chars median "
        f"{statistics.median(tokens):5.0f} worst {max(tokens):5}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    seeds = range(args.seeds)
    print(f"Python {platform.python_version()}, seeds 0-{args.seeds - 1}, the client plays {PLAYS}")
    print(f"  (a token may hold {MAX_TOKEN_CHARS} characters)")
    bench("episodes kept (32)", 32, seeds)
    bench("none kept (replayed)", 0, seeds)


if __name__ == "__main__":
    main()
