"""Tournaments against a fleet of servers and against a server shared by episodes.

- A provider with two base URLs, one refusing connections: the tournament finishes,
  every call answered by the live one, and the report names both endpoints, with
  the dead one's errors.
- Queueing: a one-slot server that reports its own time (as llama.cpp does) and is
  shared by two episodes at once is warned about; a single seat on it is not.

Nothing here bounds time: the requests the servers counted and the figures the
records hold are compared.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

from harness.commands.tournament import report_text
from harness.llm.fleet import COOL_DOWN_SECONDS
from harness.report.endpoints import QUEUE_WARN_INFLATION
from harness.testing.llm_server import Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

KEY_ENV = "FLEET_TEST_KEY"
ENVIRON = {KEY_ENV: "sk-fleet-test-0123456789"}

CONFIG = """
name = "fleet"
seeds = [{seeds}]
variants = ["default"]
concurrency = {concurrency}
rules = {{ maxTicks = {max_ticks} }}

[providers.local]
kind = "openai"
base_url = {urls}
api_key_env = "{key_env}"

[[entrants]]
name = "team"
keeper = {{ provider = "local", model = "small", structured_output = "off" }}
runners = {runners}
"""
MODEL_RUNNERS = '{ provider = "local", model = "small", structured_output = "off" }'


def answer(path: str, body: dict[str, Any], delay_s: float = 0.0) -> Reply:
    if "You are the KEEPER" in json.dumps(body):
        return Reply('{"transmit": true, "message": "Sprocket N", "notes": "k"}', delay_s=delay_s)
    return Reply('{"move": "N", "notes": "r"}', delay_s=delay_s)


def slow(delay_s: float) -> Any:
    return lambda path, body: answer(path, body, delay_s)


def write(
    tmp_path: Path,
    urls: list[str],
    *,
    seeds: str = "4",
    concurrency: int = 1,
    max_ticks: int = 6,
    runners: str = '{ baseline = "wallhug" }',
) -> Path:
    path = tmp_path / "fleet.toml"
    path.write_text(
        CONFIG.format(
            seeds=seeds,
            concurrency=concurrency,
            max_ticks=max_ticks,
            urls=json.dumps(urls if len(urls) > 1 else urls[0]),
            key_env=KEY_ENV,
            runners=runners,
        )
    )
    return path


def play(config: Path, out: Path) -> None:
    asyncio.run(run_tournament(load_tournament(config), out, environ=ENVIRON))


def calls_of(folder: ResultsFolder) -> list[dict[str, Any]]:
    return [
        call
        for path in folder.iter_records()
        for line in path.read_text(encoding="utf-8").splitlines()[1:-1]
        for turn in json.loads(line)["seats"].values()
        for call in turn["calls"]
    ]


def refused_url() -> str:
    """An OpenAI base URL on a port nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_fleet_with_a_dead_endpoint_finishes_on_the_live_one(tmp_path: Path) -> None:
    dead = refused_url()
    # 25 ticks, each waiting at least 120 ms for its answers: the run lasts at least
    # 3 s, past the dead endpoint's first cool-down (COOL_DOWN_SECONDS, 2 s), so calls
    # try it again, and fail there, in the records too
    assert COOL_DOWN_SECONDS < 25 * 0.12
    with ScriptedLLMServer(default=slow(0.12)) as live:
        config = write(tmp_path, [dead, live.openai_url], max_ticks=25, runners=MODEL_RUNNERS)
        out = tmp_path / "out"
        play(config, out)
    folder = ResultsFolder(out)
    (summary,) = folder.summaries()
    assert summary.reason != "deadline"
    assert summary.fallback_free  # every turn the model's own
    calls = calls_of(folder)
    assert calls
    assert all(c["failure"] is None for c in calls)
    assert all(c["endpoint"] == live.openai_url for c in calls)  # every answer the live one's
    dead_errors = sum(c.get("endpointErrors", {}).get(dead, 0) for c in calls)
    assert dead_errors >= 1
    assert all(set(c.get("endpointErrors", {})) <= {dead} for c in calls)
    assert len(live.requests) == len(calls) + 1  # and the preflight
    text = report_text(out, "md", None)
    rows = {
        line.split(" | ")[0].removeprefix("| "): line
        for line in text.splitlines()
        if line.startswith("| http://127.0.0.1:")
    }
    assert set(rows) == {dead, live.openai_url}
    assert rows[dead].startswith(f"| {dead} | 0 | {dead_errors} |")
    assert rows[live.openai_url].startswith(f"| {live.openai_url} | {len(calls)} | 0 |")
    report = json.loads(report_text(out, "json", None))
    named = {row["endpoint"]: row for row in report["endpoints"]}
    assert named[dead]["errors"] == dead_errors
    assert named[dead]["calls"] == 0
    assert named[live.openai_url]["calls"] == len(calls)


def queueing_row(out: Path, url: str) -> tuple[dict[str, Any], str]:
    report = json.loads(report_text(out, "json", None))
    (row,) = [r for r in report["endpoints"] if r["endpoint"] == url]
    return row, report_text(out, "md", None)


def test_a_one_slot_server_shared_by_two_episodes_is_warned_about(tmp_path: Path) -> None:
    # one model seat an episode, two episodes at once: within an episode nothing
    # overlaps, so only the queue across episodes can show
    with ScriptedLLMServer(default=slow(0.05), serial=True, timings=True) as server:
        config = write(tmp_path, [server.openai_url], seeds="4, 5", concurrency=2, max_ticks=10)
        out = tmp_path / "out"
        play(config, out)
        assert server.peak_serving == 1
        assert server.peak_in_flight == 2  # the two episodes' calls waited for each other
    folder = ResultsFolder(out)
    calls = calls_of(folder)
    assert all("serverMs" in c["wallClock"] for c in calls)
    assert any(c["wallClock"]["overlapped"] for c in calls)
    row, text = queueing_row(out, server.openai_url)
    assert row["inflationBasis"] == "server time"
    assert row["inflation"] > QUEUE_WARN_INFLATION
    assert row["queueMsMean"] > 0
    assert row["warning"] is not None
    assert f"⚠ {server.openai_url}: calls took" in text


def test_a_single_seat_on_a_one_slot_server_is_not(tmp_path: Path) -> None:
    # 100 ms of the server's work a call: the client's own overhead is small beside it
    with ScriptedLLMServer(default=slow(0.1), serial=True, timings=True) as server:
        config = write(tmp_path, [server.openai_url], max_ticks=10)
        out = tmp_path / "out"
        play(config, out)
        assert server.peak_in_flight == 1
    calls = calls_of(ResultsFolder(out))
    assert calls
    assert not any(c["wallClock"]["overlapped"] for c in calls)
    row, text = queueing_row(out, server.openai_url)
    assert row["inflationBasis"] == "server time"
    assert row["inflation"] <= QUEUE_WARN_INFLATION
    assert row["warning"] is None
    assert "calls took" not in text
