"""Tournament-level claims, checked in process against the scripted server.

The unit tests pin each piece (the limiter, the seat, the summary); these check what a
user relies on when a whole tournament runs: episodes in flight never pass the
configured concurrency and reach it, a provider's in-flight cap and rate limit reach
the seats, and every results line says exactly what its record says. The figures of a
results line are recomputed here from the record's raw JSON, not through the code that
wrote them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness.testing.admissions import noting_admissions
from harness.testing.llm_server import Action, Fail, Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament

KEY_ENV = "CLAIMS_TEST_KEY"
ENVIRON = {KEY_ENV: "sk-claims-test-0123456789"}
HINT_MARK = "could not be used"
#: How long a held request waits for company before it is answered anyway. Only the
#: tail of a tournament (fewer episodes left than the target) ever waits this long.
HOLD_S = 0.25

TEMPLATE = """
name = "claims"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default"]
concurrency = {concurrency}
rules = {{ maxTicks = {max_ticks} }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"
{provider_extra}

[[entrants]]
name = "model"
keeper = {{ provider = "local", model = "scripted" }}
runners = {runners}
"""
BASELINE_RUNNERS = '{ baseline = "wallhug" }'
MODEL_RUNNERS = '{ provider = "local", model = "scripted" }'


def valid_reply(body: dict[str, Any]) -> Reply:
    if "You are the KEEPER" in json.dumps(body):
        return Reply('{"transmit": true, "message": "Sprocket N; Gizmo W"}')
    return Reply('{"move": "N"}')


def is_preflight(body: dict[str, Any]) -> bool:
    return "connection check before a game" in json.dumps(body)


class Holding:
    """Answers each request only once ``target`` requests are being answered at once.

    So if the harness allows ``target`` concurrent calls, the server sees that many; if
    it allows more, the held requests pile up past ``target``. The wait is bounded.
    """

    def __init__(self, target: int) -> None:
        self.target = target
        self.server: ScriptedLLMServer | None = None

    def __call__(self, path: str, body: dict[str, Any]) -> Action:
        assert self.server is not None
        give_up = time.monotonic() + HOLD_S
        while self.server.in_flight < self.target and time.monotonic() < give_up:
            time.sleep(0.001)
        return valid_reply(body)


def write_config(tmp_path: Path, server: ScriptedLLMServer, **fields: Any) -> Path:
    values = {
        "seeds": 6,
        "concurrency": 3,
        "max_ticks": 6,
        "url": server.openai_url,
        "key_env": KEY_ENV,
        "provider_extra": "",
        "runners": BASELINE_RUNNERS,
    }
    values.update(fields)
    path = tmp_path / "claims.toml"
    path.write_text(TEMPLATE.format(**values), encoding="utf-8")
    return path


def play(config_path: Path, out: Path) -> int:
    config = load_tournament(config_path)
    outcome = asyncio.run(run_tournament(config, out, environ=ENVIRON))
    return outcome.played


def results_lines(out: Path) -> list[dict[str, Any]]:
    text = (out / "episodes.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_episodes_in_flight_peak_at_the_configured_concurrency(
    tmp_path: Path, concurrency: int
) -> None:
    # One model seat per episode, so calls in flight at the server = episodes waiting on
    # their model; every episode makes a call on every tick.
    handler = Holding(target=concurrency + 1)
    with ScriptedLLMServer(default=handler) as server:
        handler.server = server
        config = write_config(tmp_path, server, concurrency=concurrency, seeds=6)
        assert play(config, tmp_path / "out") == 6
        assert server.peak_in_flight == concurrency
    assert len(results_lines(tmp_path / "out")) == 6


def test_the_providers_in_flight_cap_reaches_every_seat(tmp_path: Path) -> None:
    # Four model seats an episode and three episodes at once could put twelve calls in
    # flight; the provider allows two.
    handler = Holding(target=3)
    with ScriptedLLMServer(default=handler) as server:
        handler.server = server
        config = write_config(
            tmp_path,
            server,
            seeds=3,
            concurrency=3,
            max_ticks=3,
            runners=MODEL_RUNNERS,
            provider_extra="max_in_flight = 2",
        )
        assert play(config, tmp_path / "out") == 3
        assert server.peak_in_flight == 2


def test_the_providers_rate_limit_reaches_every_seat(tmp_path: Path) -> None:
    limit, period = 4, 1.0
    # The limit is kept where calls are admitted: admission k + limit comes a whole
    # period after admission k, whichever seat makes it.
    admitted: list[float] = []
    with ScriptedLLMServer(default=lambda path, body: valid_reply(body)) as server:
        config = write_config(
            tmp_path,
            server,
            seeds=2,
            concurrency=2,
            max_ticks=2,
            runners=MODEL_RUNNERS,
            provider_extra=f"requests_per_period = {limit}\nperiod_seconds = {period}",
        )
        with noting_admissions(admitted):
            play(config, tmp_path / "out")
        # The preflight call (one, before any episode) is not a seat's call.
        arrivals = sorted(r.received_at for r in server.requests if not is_preflight(r.body))
    calls = 2 * 2 * 4  # episodes x ticks x model seats, no retries
    assert len(admitted) == len(arrivals) == calls
    gaps = [later - earlier for earlier, later in zip(admitted, admitted[limit:], strict=False)]
    assert min(gaps) >= period - 0.005  # the event loop's clock, read a moment later
    busiest = max(sum(1 for t in admitted if start <= t < start + period) for start in admitted)
    assert busiest == limit
    # The server sees arrivals, which trail admissions by a delay that varies (on a
    # loaded machine, by a good part of a period): what it can count for certain is
    # that four waves of calls took at least three periods, less that variation.
    slack = 0.25
    assert arrivals[-1] - arrivals[0] >= (calls // limit - 1) * period - slack


class Mixed:
    """Valid replies, garbage (so retries and parse fallbacks), and transient 500s."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._first = itertools.count()
        self._hinted = itertools.count()

    def __call__(self, path: str, body: dict[str, Any]) -> Action:
        text = json.dumps(body)
        with self._lock:
            if HINT_MARK in text:
                n = next(self._hinted)
                if n % 2 == 0:
                    return Reply("still not JSON", input_tokens=71, output_tokens=3)
                return Reply(valid_reply(body).text, input_tokens=73, output_tokens=9)
            n = next(self._first)
        if n % 9 == 4:
            return Fail(500, headers={"retry-after": "0"})
        if n % 4 == 1:
            return Reply("I think we should go north.", input_tokens=60 + n % 7, output_tokens=8)
        return Reply(valid_reply(body).text, input_tokens=50 + n % 5, output_tokens=11)


FALLBACKS = {"fallback_parse", "fallback_timeout", "fallback_api", "fallback_refused"}


def figures_from_record(record: Path) -> tuple[dict[str, dict[str, Any]], bool]:
    """Each seat's accounting, added up from the record's raw JSON lines."""
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    header, ticks = lines[0], [line for line in lines if line["type"] == "tick"]
    assert lines[-1]["type"] == "end"
    seats: dict[str, dict[str, Any]] = {
        s["seat"]: {
            "turns": 0,
            "calls": 0,
            "attempts": 0,
            "retries": 0,
            "fallbacks": Counter(),
            "inputTokens": 0,
            "outputTokens": 0,
            "costUsd": 0.0,
        }
        for s in header["seats"]
    }
    fallback_free = True
    for tick in ticks:
        for seat_id, turn in tick["seats"].items():
            figures = seats[seat_id]
            figures["turns"] += 1
            figures["retries"] += turn["source"] == "llm_retry"
            if turn["source"] in FALLBACKS:
                figures["fallbacks"][turn["source"]] += 1
                fallback_free = False
            for call in turn["calls"]:
                figures["calls"] += 1
                figures["attempts"] += call["attempts"]
                figures["inputTokens"] += call["inputTokens"]
                figures["outputTokens"] += call["outputTokens"]
                figures["costUsd"] += call["costUsd"] or 0.0
    return seats, fallback_free


def test_every_results_line_says_what_its_record_says(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=Mixed()) as server:
        config = write_config(
            tmp_path,
            server,
            seeds=6,
            concurrency=3,
            max_ticks=8,
            runners=f"[{MODEL_RUNNERS}, {BASELINE_RUNNERS}, {BASELINE_RUNNERS}]",
            provider_extra=(
                'prices = { "scripted" = { input_per_mtok = 1000.0, output_per_mtok = 3000.0 } }'
            ),
        )
        out = tmp_path / "out"
        assert play(config, out) == 6

    lines = results_lines(out)
    assert len(lines) == 6
    seen: Counter[str] = Counter()
    for line in lines:
        seats, fallback_free = figures_from_record(out / "records" / f"{line['episodeId']}.jsonl")
        assert line["fallbackFree"] is fallback_free
        seen["fallback-free" if fallback_free else "fell back"] += 1
        for seat_id, expected in seats.items():
            stated = line["seats"][seat_id]
            for key in ("turns", "calls", "attempts", "retries", "inputTokens", "outputTokens"):
                assert stated[key] == expected[key], (line["episodeId"], seat_id, key)
            assert stated["costUsd"] == pytest.approx(expected["costUsd"], abs=1e-12)
            assert stated["fallbacks"] == dict(expected["fallbacks"])
            seen["retries"] += expected["retries"]
            seen["extra attempts"] += expected["attempts"] - expected["calls"]
            seen["fallbacks"] += sum(expected["fallbacks"].values())
            seen["cost"] += expected["costUsd"] > 0
    # The scripted mix really exercised every figure checked above.
    assert seen["fell back"] >= 1
    assert seen["retries"] >= 1
    assert seen["extra attempts"] >= 1
    assert seen["fallbacks"] >= 1
    assert seen["cost"] >= 1
