"""No trace of an API key in any file, log line, captured output or error message."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import FatalProviderError
from harness.testing.llm_server import Drop, Fail, Reply, ScriptedLLMServer
from tests.llm.conftest import FAKE_KEY, KEY_ENV, play_llm

TRACES = (FAKE_KEY, FAKE_KEY[:12], FAKE_KEY[-12:])


def assert_no_trace(text: str, where: str) -> None:
    for trace in TRACES:
        assert trace not in text, f"API key trace {trace!r} found in {where}"


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_no_key_anywhere_in_a_run_with_failures(
    server: ScriptedLLMServer,
    tmp_path: Path,
    sdk: str,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)  # the SDKs' and HTTP layers' debug logs too
    echo = {"error": {"message": f"Incorrect API key provided: {FAKE_KEY}"}}
    server.push(
        Reply("not json"),
        Fail(500, body=echo),
        Fail(429, body=echo, headers={"retry-after": "0"}),
        Drop(),
        Reply('{"transmit": false}'),
    )
    play_llm(server, sdk, tmp_path / "ok.jsonl", max_ticks=3)
    server.push(Fail(401, body=echo))
    with pytest.raises(FatalProviderError) as info:
        play_llm(server, sdk, tmp_path / "auth.jsonl", max_ticks=3)
    assert_no_trace(str(info.value), "the exception message")
    assert_no_trace(repr(info.value), "the exception repr")
    assert info.value.__cause__ is None  # never chained to the SDK error that holds it
    out, err = capfd.readouterr()
    assert_no_trace(out, "stdout")
    assert_no_trace(err, "stderr")
    assert_no_trace(caplog.text, "the log")
    for record in caplog.records:
        assert_no_trace(record.getMessage(), "a log record")
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert_no_trace(path.read_text(encoding="utf-8", errors="replace"), str(path))


def test_no_key_in_the_command_line_output(server: ScriptedLLMServer, tmp_path: Path) -> None:
    server.push(Fail(401, body={"error": {"message": f"bad key {FAKE_KEY}"}}))
    record = tmp_path / "r.jsonl"
    proc = subprocess.run(
        [
            sys.executable, "-m", "harness.cli", "play", "--seed", "1",
            "--keeper", "openai:test-model", "--base-url", server.openai_url,
            "--api-key-env", KEY_ENV, "--record", str(record),
        ],
        env={**os.environ, KEY_ENV: FAKE_KEY},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "HTTP 401" in proc.stderr
    assert_no_trace(proc.stdout, "stdout")
    assert_no_trace(proc.stderr, "stderr")
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert_no_trace(path.read_text(encoding="utf-8", errors="replace"), str(path))
