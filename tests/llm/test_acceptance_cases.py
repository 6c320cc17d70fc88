"""The real openai and anthropic SDKs against a scripted server on 127.0.0.1.

Each case scripts the keeper's first tick and checks the decision's source and the
number of retry hints sent; in every case the episode finishes and the record is a
valid record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.testing.llm_server import Action, Fail, Hang, Raw, Reply, ScriptedLLMServer
from harness.text import MAX_REPLY_BYTES
from tests.llm.conftest import hints_sent, play_llm

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs/schemas/lighthouse-record.schema.json").read_text()
)
SDKS = ["openai", "anthropic"]
VALID = '{"transmit": true, "message": "Sprocket N; Gizmo N; Ratchet N"}'
INVALID_UTF8 = {
    "openai": (
        b'{"id":"x","object":"chat.completion","created":1,"model":"m","choices":'
        b'[{"index":0,"message":{"role":"assistant","content":"\xff\xfe"},'
        b'"finish_reason":"stop"}]}'
    ),
    "anthropic": (
        b'{"id":"x","type":"message","role":"assistant","model":"m","content":'
        b'[{"type":"text","text":"\xff\xfe"}],"stop_reason":"end_turn",'
        b'"usage":{"input_tokens":1,"output_tokens":1}}'
    ),
}


def assert_valid_record(lines: list[dict[str, Any]]) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for line in lines:
        validator.validate(line)
    assert lines[0]["type"] == "header"
    assert lines[-1]["type"] == "end"


def scripted_case(sdk: str, case: str) -> tuple[list[Action], dict[str, Any]]:
    """What the keeper's first requests get, and the seat options of the case."""
    big = json.dumps({"transmit": False, "notes": "x" * (MAX_REPLY_BYTES + 10)})
    table: dict[str, tuple[list[Action], dict[str, Any]]] = {
        "valid": ([Reply(VALID)], {}),
        "fenced": ([Reply(f"```json\n{VALID}\n```")], {}),
        "surrogates": ([Reply('{"transmit": true, "message": "Gizmo E \ud800"}')], {}),
        "prose_then_valid": ([Reply(f"Sure! Here it is: {VALID}"), Reply(VALID)], {}),
        "wrong_type_then_valid": ([Reply('{"transmit": "yes"}'), Reply(VALID)], {}),
        "prose_twice": ([Reply(f"Sure! {VALID}"), Reply("I think N")], {}),
        "rate_limited": ([Fail(429, headers={"retry-after": "0.3"}), Reply(VALID)], {}),
        "server_errors": (
            # The first retry waits at most 0.5 s (the backoff's first step), so a
            # 4 s allowance leaves room for a second attempt on a busy machine too (2 s
            # was once not enough beside a benchmark using both cores).
            [Fail(500)] * 200,
            {"call_timeout_seconds": 0.5, "allowance_seconds": 4.0},
        ),
        "too_slow": (
            [Reply(VALID, delay_s=1.0)] * 50,
            {"call_timeout_seconds": 0.2, "allowance_seconds": 0.7},
        ),
        "invalid_utf8": ([Raw(INVALID_UTF8[sdk])], {}),
        "too_long_then_valid": ([Reply(big), Reply(VALID)], {}),
    }
    return table[case]


CASES = {
    # case: (source of tick 0's keeper decision, retry hints sent)
    "valid": ("llm", 0),
    "fenced": ("llm", 0),
    "surrogates": ("llm", 0),
    "prose_then_valid": ("llm_retry", 1),
    "wrong_type_then_valid": ("llm_retry", 1),
    "prose_twice": ("fallback_parse", 1),
    "rate_limited": ("llm", 0),
    "server_errors": ("fallback_api", 0),
    "too_slow": ("fallback_timeout", 0),
    "invalid_utf8": ("fallback_api", 0),
    "too_long_then_valid": ("llm_retry", 1),
}


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_case(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str, case: str, transport: str
) -> None:
    actions, options = scripted_case(sdk, case)
    server.push(*actions)
    played = play_llm(
        server,
        sdk,
        tmp_path / "r.jsonl",
        max_ticks=1,
        provider={"transport": transport},
        **options,
    )
    source, hints = CASES[case]
    turn = played.turn(0, "keeper")
    assert turn["source"] == source
    assert hints_sent(server.requests) == hints
    assert_valid_record(played.lines)
    if source.startswith("fallback"):
        # the decision is LANTERN's on the same observation, and says so
        assert json.loads(turn["raw"]).keys() <= {"transmit", "message"}
    if case == "surrogates":
        assert turn["decision"]["message"] == "Gizmo E \ufffd"
        assert "\ufffd" in turn["replies"][0]["raw"]
    if case == "rate_limited":
        call = turn["calls"][0]
        assert (call["attempts"], call["errors"]) == (2, ["rate_limit"])
    if case == "server_errors":
        call = turn["calls"][0]
        assert call["failure"] == "server"
        assert call["attempts"] >= 2
        assert call["errors"] == ["server"] * call["attempts"]
        assert len(server.requests) == call["attempts"]
    if case == "too_slow":
        assert turn["calls"][0]["failure"] == "timeout"
        assert set(turn["calls"][0]["errors"]) == {"timeout"}
    if case == "invalid_utf8":
        assert turn["calls"][0]["errors"] == ["decode"]
        assert turn["calls"][0]["attempts"] == 1  # not retried
    if case == "too_long_then_valid":
        first = turn["replies"][0]
        assert first["parseError"]["kind"] == "too_long"
        assert first["rawClipped"] is True
        assert first["rawLength"] > MAX_REPLY_BYTES
        assert len(first["raw"].encode()) <= MAX_REPLY_BYTES


@pytest.mark.parametrize("sdk", SDKS)
def test_retry_after_is_honoured(server: ScriptedLLMServer, tmp_path: Path, sdk: str) -> None:
    server.push(Fail(429, headers={"retry-after": "0.4"}), Reply(VALID))
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=1)
    assert played.turn(0, "keeper")["source"] == "llm"
    first, second = server.requests[0].received_at, server.requests[1].received_at
    assert second - first >= 0.4  # slept at least as long as the server asked


@pytest.mark.parametrize("sdk", SDKS)
def test_hang_past_the_play_budget_ends_with_deadline(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    # The keeper's first call hangs (30 s) far past the budget (0.6 s), so the outcome
    # does not depend on how fast the machine is: no tick is resolved. That a deadline
    # keeps the ticks resolved before it is checked on a loop clock the test controls
    # (tests/test_episode.py).
    server.push(Hang(30))
    played = play_llm(
        server,
        sdk,
        tmp_path / "r.jsonl",
        max_ticks=10,
        episode_timeout=1.0,  # play budget 0.6 s
        call_timeout_seconds=30.0,
        allowance_seconds=30.0,
    )
    assert played.ticks() == []  # tick 0 was never resolved
    end = played.lines[-1]
    assert end["results"]["reason"] == "deadline"
    assert end["results"]["ticks"] == 0
    assert len(server.requests) <= 1  # the hanging call was not retried
    assert_valid_record(played.lines)
