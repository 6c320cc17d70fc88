"""`lighthouse play` with LLM seats against the scripted server: as a real subprocess
where the process is what is tested (its exit status and streams, its environment, a
call still hanging as it ends), in this process where only the command line is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.cli import main
from harness.testing.llm_server import Action, Hang, Reply, ScriptedLLMServer, llama_cpp_python
from tests.in_process import command
from tests.llm.conftest import FAKE_KEY, KEY_ENV


def lighthouse(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a real subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        env={**os.environ, KEY_ENV: FAKE_KEY},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in this process, with the key in the environment."""
    return command(main, *args, env={**os.environ, KEY_ENV: FAKE_KEY})


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
    proc = in_process("play", "--seed", "1", "--keeper", "gemini:pro")
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


def test_play_shows_the_shape_found_names_a_seat_that_always_fell_back_and_reuses_a_cache(
    tmp_path: Path,
) -> None:
    # llama-cpp-python refuses json_schema; the keeper's model answers prose every time
    def answer(path: str, body: dict[str, Any]) -> Reply:
        if "You are the KEEPER" in json.dumps(body):
            return Reply("I would rather not say.")
        return Reply('{"move": "WAIT", "notes": ""}')

    cache, record = tmp_path / "calls.sqlite", tmp_path / "ep.jsonl"
    args = (
        "play", "--seed", "7", "--quiet", "--keeper", "openai:small", "--runners", "wallhug",
        "--base-url", "URL", "--api-key-env", KEY_ENV, "--structured",
        "--record", str(record), "--cache", str(cache),
    )  # fmt: skip
    with ScriptedLLMServer(default=answer, shapes=llama_cpp_python) as server:
        argv = [server.openai_url if a == "URL" else a for a in args]
        first = in_process(*argv)
        asked = len(server.requests)
        second = in_process(*argv)
        again = server.requests[asked:]
    assert first.returncode == 0, first.stderr
    assert (
        "openai:small: structured output json_object_schema (refused: json_schema:" in first.stdout
    )
    assert "Input should be 'text' or 'json_object'" in first.stdout
    assert "keeper (openai:small): all turns fell back" in first.stdout
    ticks = [json.loads(x) for x in record.read_text().splitlines()[1:-1]]
    assert asked == 2 + 2 * len(ticks)  # the preflight's two shapes; a reply and a retry a tick
    # the second run asked the preflight's two shapes, and replayed every turn's calls
    assert second.returncode == 0, second.stderr
    assert len(again) == 2
    assert second.stdout.splitlines()[-3:] == first.stdout.splitlines()[-3:]


def test_play_uses_no_cache_unless_asked(server: ScriptedLLMServer) -> None:
    args = (
        "play", "--seed", "7", "--quiet", "--keeper", "openai:test-model", "--runners",
        "wallhug", "--base-url", server.openai_url, "--api-key-env", KEY_ENV,
    )  # fmt: skip
    assert in_process(*args).returncode == 0
    first = len(server.requests)
    assert in_process(*args).returncode == 0
    assert first > 1
    assert len(server.requests) == 2 * first  # the second run asked everything again


def test_play_says_when_the_deadline_ended_the_episode(server: ScriptedLLMServer) -> None:
    def answer(path: str, body: dict[str, Any]) -> Action:
        if "connection check" in json.dumps(body):
            return Reply('{"transmit": false}')
        return Hang(30)  # no tick is ever answered

    server.default = answer
    proc = lighthouse(
        "play", "--seed", "7", "--quiet", "--keeper", "openai:test-model", "--runners",
        "wallhug", "--base-url", server.openai_url, "--api-key-env", KEY_ENV,
        "--episode-timeout", "1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "ended: deadline" in proc.stdout
    assert (
        "the episode ended by deadline: its play budget of 0.6 s (60% of 1 s) ran out after "
        "0 ticks; raise it with --episode-timeout SECONDS"
    ) in proc.stdout
