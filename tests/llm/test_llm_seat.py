"""The LLM seat's behaviour through the real SDKs: R5-R7, stateless calls, options."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from harness.errors import FatalProviderError
from harness.llm.options import LLMSeatOptions
from harness.llm.seat import SeatFactory
from harness.llm.types import Message, messages_sha256
from harness.testing.llm_server import Fail, Reply, ScriptedLLMServer
from tests.llm.conftest import FAKE_KEY, GAME, KEY_ENV, play_llm, seat_options

SDKS = ["openai", "anthropic"]


def messages_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat messages of a request, the system prompt first, in either API's shape."""
    msgs = list(body["messages"])
    if "system" in body:
        msgs.insert(0, {"role": "system", "content": body["system"]})
    return msgs


@pytest.mark.parametrize("sdk", SDKS)
def test_retry_carries_the_failed_reply_and_names_the_problem(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:  # R5
    bad = '{"transmit": "yes", "message": "Gizmo N"}'
    server.push(Reply(bad), Reply('{"transmit": false}'))
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=1)
    first, retry = (messages_of(r.body) for r in server.requests[:2])
    assert [m["role"] for m in first] == ["system", "user"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[:2] == first
    assert retry[2]["content"] == bad
    hint = retry[3]["content"]
    assert '"transmit" must be a boolean (true or false), got string' in hint
    assert '{"transmit": true, "message": "Sprocket N; Gizmo E", "notes": "..."}' in hint
    turn = played.turn(0, "keeper")
    assert turn["source"] == "llm_retry"
    assert [r["parseError"] and r["parseError"]["kind"] for r in turn["replies"]] == [
        "wrong_type",
        None,
    ]
    assert len(turn["calls"]) == 2


@pytest.mark.parametrize("sdk", SDKS)
def test_at_most_one_retry_per_seat_per_tick(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:  # R5
    server.push(Reply("no"), Reply("still no"))  # then valid defaults on later ticks
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=2)
    assert played.turn(0, "keeper")["source"] == "fallback_parse"
    assert played.turn(1, "keeper")["source"] == "llm"
    assert len(server.requests) == 3


@pytest.mark.parametrize("sdk", SDKS)
def test_a_fallback_never_overwrites_notes(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:  # R7
    server.push(
        Reply('{"move": "N", "notes": "remember the key to the west"}'),
        Reply("garbage"),
        Reply("more garbage"),
    )
    played = play_llm(server, sdk, tmp_path / "r.jsonl", llm_seats=("runner1",), max_ticks=2)
    assert played.turn(0, "runner1")["source"] == "llm"
    assert played.turn(1, "runner1")["source"] == "fallback_parse"
    assert played.turn(1, "runner1")["decision"]["notes"] is None
    notes = [t["state"]["runners"][0]["notes"] for t in played.ticks()]
    assert notes == ["remember the key to the west"] * 2


@pytest.mark.parametrize("sdk", SDKS)
def test_calls_are_stateless(server: ScriptedLLMServer, tmp_path: Path, sdk: str) -> None:
    server.push(Reply('{"transmit": true, "message": "Gizmo N", "notes": "plan: north"}'))
    play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=3)
    bodies = [messages_of(r.body) for r in server.requests]
    assert len(bodies) == 3
    for msgs in bodies:
        assert [m["role"] for m in msgs] == ["system", "user"]
    # what a seat remembers between ticks is its notes, carried by the observation
    assert "plan: north" not in json.dumps(bodies[0])
    assert "Your notes: plan: north" in bodies[1][1]["content"]
    assert "Tick 1 of 3" in bodies[1][1]["content"]


@pytest.mark.parametrize("sdk", SDKS)
def test_four_llm_seats_are_in_flight_at_once(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    # Each request is held until all four of its tick are at the server: answers
    # come only if the seats really are asked together, however slow the machine.
    # If they were asked one by one, the barrier breaks and the seats fall back.
    together = threading.Barrier(4)

    def answer(path: str, body: dict[str, Any]) -> Reply:
        together.wait(timeout=20)
        if "You are the KEEPER" in json.dumps(body):
            return Reply('{"transmit": false}')
        return Reply('{"move": "WAIT"}')

    server.default = answer
    played = play_llm(
        server,
        sdk,
        tmp_path / "r.jsonl",
        llm_seats=("keeper", "runner1", "runner2", "runner3"),
        max_ticks=3,
    )
    assert server.peak_in_flight == 4
    assert len(played.ticks()) == 3
    assert all(t["seats"][s]["source"] == "llm" for t in played.ticks() for s in t["seats"])
    assert len(server.requests) == 12


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize(("status", "kind"), [(401, "auth"), (404, "not_found")])
def test_fatal_errors_stop_the_run_with_a_clear_message(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str, status: int, kind: str
) -> None:  # R6
    server.push(Fail(status, body={"error": {"message": f"nope, key {FAKE_KEY} rejected"}}))
    with pytest.raises(FatalProviderError) as info:
        play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=2)
    assert info.value.kind == kind
    assert f"HTTP {status}" in str(info.value)
    assert FAKE_KEY not in str(info.value)
    assert len(server.requests) == 1  # not retried


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("status", [400, 422])
def test_a_refused_request_in_an_episode_falls_back_with_the_servers_message(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str, status: int
) -> None:
    server.push(Fail(status, body={"error": {"message": f"prompt too long, key {FAKE_KEY}"}}))
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=2)
    turn = played.turn(0, "keeper")
    assert turn["source"] == "fallback_api"
    (call,) = turn["calls"]
    assert call["attempts"] == 1  # not retried
    assert call["failure"] == "bad_request"
    assert f"HTTP {status}" in call["message"]
    assert "prompt too long" in call["message"]
    assert FAKE_KEY not in played.path.read_text(encoding="utf-8")
    assert played.turn(1, "keeper")["source"] == "llm"  # the next turn asks again
    assert len(server.requests) == 2


@pytest.mark.parametrize("sdk", SDKS)
def test_the_preflight_stops_the_run_on_a_refused_request(
    server: ScriptedLLMServer, sdk: str
) -> None:  # R6: a request the server calls invalid is caught before any episode
    server.push(Fail(400, body={"error": {"message": "unknown parameter"}}))

    async def go() -> None:
        factory = SeatFactory()
        try:
            factory.seat(GAME, "keeper", seat_options(server, sdk))
            await factory.preflight()
        finally:
            await factory.aclose()

    with pytest.raises(FatalProviderError, match=r"HTTP 400.*unknown parameter") as info:
        asyncio.run(go())
    assert info.value.kind == "bad_request"
    assert len(server.requests) == 1


@pytest.mark.parametrize("sdk", SDKS)
def test_preflight_catches_a_bad_model_before_any_episode(
    server: ScriptedLLMServer, sdk: str
) -> None:
    server.push(Fail(404, body={"error": {"message": "model not found"}}))

    async def go() -> None:
        factory = SeatFactory()
        try:
            factory.seat(GAME, "keeper", seat_options(server, sdk))
            factory.seat(GAME, "runner", seat_options(server, sdk))  # same model: one call
            await factory.preflight()
        finally:
            await factory.aclose()

    with pytest.raises(FatalProviderError, match="HTTP 404"):
        asyncio.run(go())
    assert len(server.requests) == 1


def test_preflight_makes_one_call_per_distinct_model(server: ScriptedLLMServer) -> None:
    async def go() -> list[str]:
        factory = SeatFactory()
        try:
            for model in ("a", "b", "a"):
                factory.seat(GAME, "runner", seat_options(server, "openai", model=model))
            return await factory.preflight()
        finally:
            await factory.aclose()

    assert asyncio.run(go()) == []
    assert sorted(r.body["model"] for r in server.requests) == ["a", "b"]


def test_a_missing_key_is_refused_naming_only_the_variable(
    server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV)
    factory = SeatFactory()
    with pytest.raises(FatalProviderError, match=f"environment variable {KEY_ENV} is not set"):
        factory.seat(GAME, "keeper", seat_options(server, "openai"))


@pytest.mark.parametrize("sdk", SDKS)
def test_structured_output_is_a_per_seat_switch(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    play_llm(server, sdk, tmp_path / "off.jsonl", max_ticks=1)
    off = server.requests[-1].body
    play_llm(server, sdk, tmp_path / "on.jsonl", max_ticks=1, structured_output=True)
    on = server.requests[-1].body
    if sdk == "openai":
        assert "response_format" not in off
        schema = on["response_format"]["json_schema"]["schema"]
        assert on["response_format"]["type"] == "json_schema"
    else:
        assert "output_config" not in off
        schema = on["output_config"]["format"]["schema"]
    # notes optional, as the prompt says (leave the key out to keep them): so OpenAI's
    # strict mode, which wants every property required, is off
    assert schema["required"] == ["transmit", "message"]
    assert set(schema["properties"]) == {"transmit", "message", "notes"}
    assert schema["additionalProperties"] is False
    if sdk == "openai":
        assert on["response_format"]["json_schema"]["strict"] is False


@pytest.mark.parametrize("sdk", SDKS)
def test_per_seat_options_reach_the_request(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    play_llm(
        server, sdk, tmp_path / "r.jsonl", max_ticks=1, temperature=0.3, max_tokens=77, seed=11
    )
    body = server.requests[-1].body
    assert body["temperature"] == 0.3
    assert body["model"] == "test-model"
    if sdk == "openai":
        assert body["max_tokens"] == 77  # a base_url server: max_tokens, not max_completion_tokens
        assert body["seed"] == 11
    else:
        assert body["max_tokens"] == 77
    assert (
        server.requests[-1]
        .headers.get("authorization", server.requests[-1].headers.get("x-api-key", ""))
        .endswith(FAKE_KEY)
    )


@pytest.mark.parametrize("sdk", SDKS)
def test_accounting_tokens_cost_and_prompt_hashes(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    server.push(
        Reply('{"transmit": false}', input_tokens=1200, output_tokens=300, reasoning_tokens=120)
    )
    prices = {"test-model": {"input_per_mtok": 2.0, "output_per_mtok": 10.0}}
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=1, provider={"prices": prices})
    call = played.turn(0, "keeper")["calls"][0]
    assert (call["provider"], call["model"]) == (sdk, "test-model")
    assert (call["inputTokens"], call["outputTokens"]) == (1200, 300)
    assert call["reasoningTokens"] == (120 if sdk == "openai" else None)
    assert call["costUsd"] == pytest.approx((1200 * 2.0 + 300 * 10.0) / 1e6)
    assert call["wallClock"]["latencyMs"] > 0
    agent = played.lines[0]["seats"][0]["agent"]
    assert agent["kind"] == "llm"
    assert agent["name"] == f"{sdk}:test-model"
    import hashlib

    system = (
        Path(__file__).resolve().parents[2] / "prompts/lighthouse/keeper.system.md"
    ).read_text()
    assert agent["details"]["systemPromptSha256"] == hashlib.sha256(system.encode()).hexdigest()
    # The header names the provider, never its credentials: exactly these details.
    assert set(agent["details"]) == {
        "provider",
        "model",
        "baseUrl",
        "systemPromptSha256",
        "observationPromptSha256",
        "retryHintSha256",
        "promptLayout",
    }
    assert agent["details"]["promptLayout"] == "2"
    assert (agent["details"]["provider"], agent["details"]["model"]) == (sdk, "test-model")
    assert FAKE_KEY not in played.path.read_text()


@pytest.mark.parametrize(("sdk", "shape"), [("openai", "prompt"), ("anthropic", False)])
def test_the_record_keeps_each_prompt_once_and_a_hash_of_every_request(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str, shape: str | bool
) -> None:
    # a keeper and a runner: the retry hint they share is kept once
    server.push(Reply("not json"), Reply('{"transmit": false}'))
    played = play_llm(
        server,
        sdk,
        tmp_path / "r.jsonl",
        llm_seats=("keeper", "runner2"),
        max_ticks=1,
        structured_output=shape,
    )
    folder = Path(__file__).resolve().parents[2] / "prompts/lighthouse"
    names = ("keeper.system.md", "keeper.observation.md", "runner.system.md")
    texts = [(folder / name).read_text() for name in (*names, "runner.observation.md")]
    hint = (folder / "retry-hint.md").read_text()
    kept = played.lines[0]["prompts"]
    assert sorted(kept.values()) == sorted([*texts, hint])
    assert all(hashlib.sha256(t.encode()).hexdigest() == sha for sha, t in kept.items())
    keeper = played.lines[0]["seats"][0]["agent"]["details"]
    assert kept[keeper["systemPromptSha256"]] == texts[0]
    # each call's hash is that of the messages the server received, retry included
    calls = [
        call["promptSha256"]
        for seat in ("keeper", "runner2")
        for call in played.turn(0, seat)["calls"]
    ]
    sent = sorted(
        messages_sha256([Message(m["role"], m["content"]) for m in messages_of(r.body)])
        for r in server.requests
    )
    assert sorted(calls) == sent
    # a first call and its retry at least, and no two requests alike
    assert len(set(calls)) == len(calls) >= 3
    assert any(len(messages_of(r.body)) == 4 for r in server.requests)
    if shape == "prompt":  # the schema the prompt shape adds to the system prompt was sent
        assert "JSON Schema" in messages_of(server.requests[0].body)[0]["content"]


def test_custom_prompt_files_are_used(server: ScriptedLLMServer, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "keeper.system.md").write_text("You are the KEEPER. Be terse.")
    (prompts / "keeper.observation.md").write_text("OBS>>$observation<<")
    (prompts / "retry-hint.md").write_text("FIX: $problem")
    files = {
        "system": prompts / "keeper.system.md",
        "observation": prompts / "keeper.observation.md",
        "retry_hint": prompts / "retry-hint.md",
    }
    server.push(Reply("bad"), Reply('{"transmit": false}'))
    play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1, prompts=files)
    msgs = messages_of(server.requests[1].body)
    assert msgs[0]["content"] == "You are the KEEPER. Be terse."
    assert msgs[1]["content"].startswith("OBS>>The board: ")
    assert "\nTick 0 of 1." in msgs[1]["content"]
    assert msgs[3]["content"].startswith("FIX: the reply must be exactly one JSON object")


def test_options_are_validated_naming_the_field() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="allowance_seconds must be at least"):
        LLMSeatOptions.model_validate(
            {
                "provider": {"kind": "openai"},
                "model": "m",
                "call_timeout_seconds": 10,
                "allowance_seconds": 5,
            }
        )
    with pytest.raises(ValidationError, match="temperature"):
        LLMSeatOptions.model_validate(
            {"provider": {"kind": "openai"}, "model": "m", "temperature": 5}
        )
    with pytest.raises(ValidationError, match="kind"):
        LLMSeatOptions.model_validate({"provider": {"kind": "gemini"}, "model": "m"})
