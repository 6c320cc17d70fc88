"""`lighthouse play` with LLM seats, as a real subprocess against the scripted server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.testing.llm_server import Reply, ScriptedLLMServer
from tests.llm.conftest import FAKE_KEY, KEY_ENV


def lighthouse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        env={**os.environ, KEY_ENV: FAKE_KEY},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_play_with_an_llm_keeper(server: ScriptedLLMServer, tmp_path: Path) -> None:
    server.default = lambda path, body: Reply(
        '{"transmit": true, "message": "Sprocket N; Gizmo N; Ratchet N"}'
        if "You are the KEEPER" in json.dumps(body)
        else '{"move": "WAIT"}'
    )
    record = tmp_path / "ep.jsonl"
    proc = lighthouse(
        "play", "--seed", "7", "--keeper", "openai:test-model", "--runners", "wallhug",
        "--base-url", server.openai_url, "--api-key-env", KEY_ENV, "--record", str(record),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "keeper openai:test-model, runners wallhug" in proc.stdout
    assert "keeper: 'Sprocket N; Gizmo N; Ratchet N'" in proc.stdout
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0]["seats"][0]["agent"]["name"] == "openai:test-model"
    ticks = [line for line in lines if line["type"] == "tick"]
    assert {t["seats"]["keeper"]["source"] for t in ticks} == {"llm"}
    assert {t["seats"]["runner1"]["source"] for t in ticks if "runner1" in t["seats"]} == {
        "baseline"
    }
    # one preflight call, then one call per tick
    assert len(server.requests) == 1 + len(ticks)


def test_play_refuses_an_unknown_seat_spec() -> None:
    proc = lighthouse("play", "--seed", "1", "--keeper", "gemini:pro")
    assert proc.returncode == 2
    assert (
        "--keeper: 'gemini:pro' is not a baseline (lantern, silent, pilot), openai:MODEL or anthropic:MODEL"
        in proc.stderr
    )


def test_play_without_the_key_variable_says_which_is_missing(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "play", "--seed", "1", "--runners", "anthropic:m"],
        env={k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "environment variable ANTHROPIC_API_KEY is not set" in proc.stderr
