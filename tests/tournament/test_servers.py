"""Tournaments against servers that behave as local ones do: the call cache, resumed
after a SIGKILL, and a server that answers one request at a time.

Nothing here measures time: requests are counted and compared, and the server counts
how many it worked on at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from harness.commands.tournament import report_text
from harness.llm.cache import CACHE_FILE
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer, llama_cpp_python
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse

KEY_ENV = "SERVERS_TEST_KEY"
ENVIRON = {KEY_ENV: "sk-servers-test-0123456789"}
PREFLIGHT = "connection check before a game"
TICK = re.compile(r"Tick (\d+) of")

CONFIG = """
name = "servers"
seeds = [{seeds}]
variants = ["default"]
concurrency = 1
rules = {{ maxTicks = {max_ticks} }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "team"
keeper = {{ provider = "local", model = "small", structured_output = "auto", call_timeout_seconds = {timeout} }}
runners = {{ provider = "local", model = "small", structured_output = "auto", call_timeout_seconds = {timeout} }}
"""


def write_config(
    tmp_path: Path, server: ScriptedLLMServer, *, seeds: str, max_ticks: int, timeout: float = 10
) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(
        CONFIG.format(
            seeds=seeds,
            max_ticks=max_ticks,
            url=server.openai_url,
            key_env=KEY_ENV,
            timeout=timeout,
        )
    )
    return path


def answer(path: str, body: dict[str, Any]) -> Reply:
    if "You are the KEEPER" in json.dumps(body):
        return Reply('{"transmit": true, "message": "Sprocket N; Gizmo W", "notes": "k"}')
    return Reply('{"move": "N", "notes": "r"}')


def tick_of(body: dict[str, Any]) -> int | None:
    found = TICK.search(json.dumps(body))
    return int(found.group(1)) if found else None


def canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True)


def start(config: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", str(config), "--out", str(out), "--no-report"],
        env={**os.environ, **ENVIRON},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_a_killed_and_resumed_run_asks_nothing_it_had_answered(tmp_path: Path) -> None:
    # The first run's requests for tick 3 are held, so the kill comes while the episode
    # is in play with ticks 0-2 answered. One episode: two episodes may send the same
    # body (a runner's first view can be the same on two boards) and are asked apart.
    release = threading.Event()
    held = threading.Event()

    def server_answer(path: str, body: dict[str, Any]) -> Action:
        if tick_of(body) == 3 and not release.is_set():
            held.set()
            release.wait(timeout=120)
        return answer(path, body)

    with ScriptedLLMServer(default=server_answer, shapes=llama_cpp_python) as server:
        config = write_config(tmp_path, server, seeds="4", max_ticks=6)
        out = tmp_path / "out"
        first = start(config, out)
        try:
            assert held.wait(timeout=120), "the run never reached tick 3"
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            release.set()
        answered = [
            r
            for r in server.requests
            if PREFLIGHT not in json.dumps(r.body) and tick_of(r.body) != 3
        ]
        assert {tick_of(r.body) for r in answered} == {0, 1, 2}
        assert len(answered) == 3 * 4  # three ticks, four model seats
        before = len(server.requests)

        # resumed in this process
        second = lighthouse("run", config, "--out", out, "--no-report",
                            env={**os.environ, **ENVIRON})  # fmt: skip
        assert second.returncode == 0, second.stderr
        resumed = server.requests[before:]

    asked_again = {canonical(r.body) for r in resumed} & {canonical(r.body) for r in answered}
    assert asked_again == set()
    assert (out / CACHE_FILE).is_file()
    folder = ResultsFolder(out)
    assert len(folder.summaries()) == 1
    # the resumed run negotiated the shape again, then asked exactly for the calls its
    # records do not mark as cached
    made = [
        c
        for path in folder.iter_records()
        for line in path.read_text(encoding="utf-8").splitlines()[1:-1]
        for turn in json.loads(line)["seats"].values()
        for c in turn["calls"]
        if not c.get("cached")
    ]
    assert len([r for r in resumed if PREFLIGHT not in json.dumps(r.body)]) == len(made)
    record = folder.record_path("team--default--s4--r0")
    ticks = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()[1:-1]]
    for tick in ticks:
        calls = [c for turn in tick["seats"].values() for c in turn["calls"]]
        assert all(c.get("cached", False) == (tick["tick"] < 3) for c in calls), tick["tick"]
        if tick["tick"] < 3:
            # a cached call costs nothing now and is left out of every time figure
            assert tick["wallClock"]["calls"] == 0
            assert tick["wallClock"]["concurrency"] is None
    summary = next(s for s in folder.summaries() if s.episode_id == "team--default--s4--r0")
    assert sum(s.cached for s in summary.seats.values()) == 3 * 4
    assert sum(len(s.latencies_ms) for s in summary.seats.values()) == (len(ticks) - 3) * 4


def play(config: Path, out: Path, **kwargs: Any) -> Any:
    return asyncio.run(run_tournament(load_tournament(config), out, environ=ENVIRON, **kwargs))


def test_a_record_played_again_replays_the_cache_unless_told_not_to(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=answer) as server:
        config = write_config(tmp_path, server, seeds="4", max_ticks=3)
        out = tmp_path / "out"
        play(config, out)
        folder = ResultsFolder(out)
        record = folder.record_path("team--default--s4--r0")
        first = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
        asked = len(server.requests)

        record.unlink()  # played again on the next run
        play(config, out)
        again = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
        replayed = server.requests[asked:]
        assert all(PREFLIGHT in json.dumps(r.body) for r in replayed)  # the preflight only
        asked = len(server.requests)

        record.unlink()
        play(config, out, cache=False)
        fresh = server.requests[asked:]
    assert len([r for r in fresh if PREFLIGHT not in json.dumps(r.body)]) == 3 * 4
    calls = [c for line in again[1:-1] for turn in line["seats"].values() for c in turn["calls"]]
    assert calls
    assert all(c["cached"] for c in calls)
    assert all(
        "cached" not in c
        for line in first[1:-1]
        for t in line["seats"].values()
        for c in t["calls"]
    )
    # the same decisions and results as the episode that paid for them
    assert [line.get("state") for line in again] == [line.get("state") for line in first]
    assert again[-1]["results"] == first[-1]["results"]


def test_four_model_seats_on_a_one_request_server_finish_and_the_report_says_why_slow(
    tmp_path: Path,
) -> None:
    def slow(path: str, body: dict[str, Any]) -> Reply:
        reply = answer(path, body)
        return Reply(reply.text, delay_s=0.05)

    with ScriptedLLMServer(default=slow, serial=True) as server:
        config = write_config(tmp_path, server, seeds="4", max_ticks=8, timeout=30)
        out = tmp_path / "out"
        play(config, out)
        assert server.peak_serving == 1  # it answered one at a time...
        assert server.peak_in_flight == 4  # ...though the harness sent a tick's four at once
    folder = ResultsFolder(out)
    (summary,) = folder.summaries()
    assert summary.reason != "deadline"
    record = folder.record_path(summary.episode_id)
    lines = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
    # the default deadline fits the seats: 8 ticks, each at most a seat's allowance of
    # 30 s x (4 model seats + 1), in 60% of the episode timeout; never under 900 s
    assert lines[0]["config"]["episodeTimeoutSeconds"] == max(900.0, 8 * 30 * 5 / 0.6)
    turns = [t for line in lines[1:-1] for t in line["seats"].values()]
    assert turns
    assert all(t["source"] == "llm" for t in turns)
    assert all(line["wallClock"]["calls"] == 4 for line in lines[1:-1])
    assert all(line["wallClock"]["firstCalls"] == 4 for line in lines[1:-1])
    text = report_text(out, "md", None)
    assert "⚠ team: the server answered one request at a time" in text
    assert "the first calls of different seats in a tick, sent together (4.0 a tick)" in text


ONE_SEAT = """
name = "one-seat"
seeds = [4]
variants = ["default"]
concurrency = 1
rules = {{ maxTicks = 8 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "alone"
keeper = {{ provider = "local", model = "small", structured_output = "off" }}
runners = {{ baseline = "wallhug" }}
"""


def test_one_model_seat_that_retries_every_tick_is_no_sign_of_a_serial_server(
    tmp_path: Path,
) -> None:
    """Its two requests a tick are a call and its retry, which never overlap: a
    multi-threaded server must not be taken for one that answers one at a time."""

    def junk_then_fixed(path: str, body: dict[str, Any]) -> Reply:
        text = json.dumps(body)
        if "could not be used" in text:  # the retry, with its hint
            return Reply('{"transmit": true, "message": "Sprocket N", "notes": "k"}', delay_s=0.05)
        return Reply("I would rather not say.", delay_s=0.05)

    with ScriptedLLMServer(default=junk_then_fixed) as server:
        config = tmp_path / "one.toml"
        config.write_text(ONE_SEAT.format(url=server.openai_url, key_env=KEY_ENV))
        out = tmp_path / "out"
        play(config, out)
    folder = ResultsFolder(out)
    (summary,) = folder.summaries()
    record = folder.record_path(summary.episode_id)
    ticks = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()[1:-1]]
    assert ticks
    # two requests every tick (the tick's whole figures), none sent with another seat's
    assert all(t["seats"]["keeper"]["source"] == "llm_retry" for t in ticks)
    assert all(t["wallClock"]["calls"] == 2 for t in ticks)
    assert all(t["wallClock"]["firstCalls"] == 1 for t in ticks)
    assert summary.batch.first_calls
    assert summary.batch.ticks == 0
    text = report_text(out, "md", None)
    assert "## Model servers" in text
    assert "one request at a time" not in text
    assert "⚠ alone" not in text
    report = json.loads(report_text(out, "json", None))
    (row,) = report["servers"]
    assert (row["warning"], row["batchTicks"], row["concurrency"]) == (None, 0, None)
