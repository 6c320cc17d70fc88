"""No trace of an API key in any file, log line, captured output or error message.

A trace is any 8-character slice of the key, or of the altered forms of it that a
server echoes (a middle slice, percent-encoded, base64 as in a Basic header).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from harness.errors import FatalProviderError
from harness.llm.seat import SeatFactory
from harness.testing.llm_server import Action, Drop, Fail, Reply, ScriptedLLMServer
from tests.llm.conftest import FAKE_KEY, GAME, KEY_ENV, play_llm, seat_options

#: A key holding characters that URL-encoding changes, so its encodings differ from it.
ODD_KEY = "sk-test-CANARY/7f3a+9b2c=4d5e%6f70~8192a3b4&c5d6"
PREFLIGHT_MARK = "connection check before a game"


def slices(text: str) -> Iterator[str]:
    for i in range(len(text) - 7):
        yield text[i : i + 8]


def altered(key: str) -> dict[str, str]:
    """The key as a server might echo it back, changed."""
    return {
        "slice": key[13:29],
        "quote": quote(key, safe=""),
        "quote_plus": quote_plus(key[2:]),
        "basic": base64.b64encode(f"user:{key}".encode()).decode(),
        "urlsafe_b64": base64.urlsafe_b64encode(key[7:].encode()).decode(),
        "upper": key.upper(),
    }


def traces(key: str) -> set[str]:
    """Every 8-character piece of the key and of its altered forms (base64: the inner part)."""
    found = set(slices(key))
    for name, form in altered(key).items():
        found |= set(slices(form[4:-4] if "b64" in name or name == "basic" else form))
    return found


def echo_body(key: str) -> dict[str, Any]:
    forms = "; ".join(f"{name}={form}" for name, form in altered(key).items())
    return {"error": {"message": f"Incorrect API key provided: {key}; we also saw {forms}"}}


def assert_no_trace(text: str, where: str, key: str = FAKE_KEY) -> None:
    for trace in traces(key):
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


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_a_key_echoed_altered_is_hidden_everywhere(
    server: ScriptedLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    sdk: str,
    transport: str,
) -> None:
    monkeypatch.setenv(KEY_ENV, ODD_KEY)
    caplog.set_level(logging.DEBUG)
    echo = echo_body(ODD_KEY)
    server.push(
        Fail(500, body=echo),
        Fail(429, body=echo, headers={"retry-after": "0"}),
        Fail(400, body=echo),  # refused: tick 0 falls back, the message in the record
        Fail(401, body=echo),  # tick 1: stops the run
    )
    options: dict[str, Any] = {"provider": {"transport": transport}}
    record = tmp_path / "r.jsonl"
    with pytest.raises(FatalProviderError) as info:
        play_llm(server, sdk, record, max_ticks=2, **options)
    assert "HTTP 401" in str(info.value)
    assert "Incorrect API key provided" in str(info.value)  # the message is kept, not the key
    assert_no_trace(str(info.value), "the exception message", ODD_KEY)
    assert_no_trace(repr(info.value), "the exception repr", ODD_KEY)
    tick = json.loads(record.read_text(encoding="utf-8").splitlines()[1])
    (call,) = tick["seats"]["keeper"]["calls"]
    assert call["errors"] == ["server", "rate_limit", "bad_request"]
    assert "HTTP 400" in call["message"]
    assert "Incorrect API key provided" in call["message"]

    # preflight warnings carry the server's text too (a retry-after past the deadline:
    # one attempt, whose error is the warning)
    server.default = Fail(500, body=echo, headers={"retry-after": "60"})

    async def preflight() -> list[str]:
        factory = SeatFactory()
        try:
            factory.seat(
                GAME, "keeper", seat_options(server, sdk, call_timeout_seconds=0.5, **options)
            )
            return await factory.preflight()
        finally:
            await factory.aclose()

    warnings = asyncio.run(preflight())
    assert len(warnings) == 1
    assert "HTTP 500" in warnings[0]
    assert_no_trace(warnings[0], "a preflight warning", ODD_KEY)

    out, err = capfd.readouterr()
    assert_no_trace(out + err, "stdout and stderr", ODD_KEY)
    assert_no_trace(caplog.text, "the log", ODD_KEY)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert_no_trace(path.read_text(encoding="utf-8", errors="replace"), str(path), ODD_KEY)


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_key_echoed_altered_is_hidden_from_the_command_line_and_its_debug_log(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    echo = echo_body(ODD_KEY)
    turns = count()

    def answer(path: str, body: dict[str, Any]) -> Action:
        if PREFLIGHT_MARK in json.dumps(body):
            return Fail(500, body=echo, headers={"retry-after": "60"})  # a warning
        n = next(turns)
        if n == 0:
            return Fail(500, body=echo)  # retried
        if n == 1:
            return Reply('{"transmit": false}')
        return Fail(401, body=echo)  # stops the run

    server.default = answer
    record = tmp_path / "r.jsonl"
    url = server.openai_url if sdk == "openai" else server.anthropic_url
    proc = subprocess.run(
        [
            sys.executable, "-m", "harness.cli", "play", "--seed", "1",
            "--keeper", f"{sdk}:test-model", "--base-url", url, "--api-key-env", KEY_ENV,
            "--call-timeout", "0.5", "--record", str(record),
        ],
        # the SDKs' own debug logging, to stderr: request and response details
        env={**os.environ, KEY_ENV: ODD_KEY, "OPENAI_LOG": "debug", "ANTHROPIC_LOG": "debug"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "warning: preflight" in proc.stderr
    assert "HTTP 401" in proc.stderr
    assert "DEBUG" in proc.stderr.upper()  # the debug log was on
    assert_no_trace(proc.stdout, "stdout", ODD_KEY)
    assert_no_trace(proc.stderr, "stderr", ODD_KEY)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert_no_trace(path.read_text(encoding="utf-8", errors="replace"), str(path), ODD_KEY)
