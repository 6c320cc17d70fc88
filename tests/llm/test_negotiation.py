"""Structured output each server takes, found in one preflight, through the real SDKs.

The scripted server behaves as the local servers do: llama-cpp-python (json_schema
refused with an HTTP 500, json_object with a schema taken), a server that takes only
a json_object with a schema (HTTP 400 otherwise), and one that takes json_schema.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.episode import run_episode
from harness.errors import FatalProviderError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import new_game
from harness.llm.options import LLMSeatOptions
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.seats import baseline_seats
from harness.testing.llm_server import (
    Fail,
    ScriptedLLMServer,
    ShapeRule,
    json_object_schema_only,
    json_schema_only,
    llama_cpp_python,
)
from tests.llm.conftest import GAME, play_llm, role_default, seat_options

ANSWERED_IN = {
    # server rule: (shapes the preflight sends, in order; the shape kept)
    "llama-cpp-python": (
        llama_cpp_python,
        ["json_schema", "json_object_schema"],
        "json_object_schema",
    ),
    "json-object-schema-only": (
        json_object_schema_only,
        ["json_schema", "json_object_schema"],
        "json_object_schema",
    ),
    "json-schema": (json_schema_only, ["json_schema"], "json_schema"),
}


def sent_shape(body: dict[str, Any]) -> str:
    """The structured-output shape an OpenAI-style request body was sent in."""
    shape = body.get("response_format")
    if shape is None:
        return "prompt"
    if shape["type"] == "json_schema":
        return "json_schema"
    return "json_object_schema" if "schema" in shape else "json_object"


def preflight(factory: SeatFactory, *options: LLMSeatOptions) -> list[str]:
    async def go() -> list[str]:
        try:
            for one in options:
                factory.seat(GAME, "keeper", one)
            return await factory.preflight()
        finally:
            await factory.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("name", sorted(ANSWERED_IN))
def test_one_preflight_finds_the_shape_and_the_episode_sends_only_it(
    tmp_path: Path, name: str
) -> None:
    rule, tried, kept = ANSWERED_IN[name]
    path = tmp_path / "r.jsonl"
    with ScriptedLLMServer(default=role_default, shapes=rule) as server:
        options = seat_options(server, "openai", structured_output="auto")
        warnings, found, checks = preflight_then_play(server, options, path)
        episode = server.requests[checks:]
    assert warnings == []
    assert found[0].startswith(f"openai:test-model: structured output {kept}")
    assert [sent_shape(r.body) for r in server.requests[:checks]] == tried
    # every request of the episode went out in the shape found, and none was refused
    assert {sent_shape(r.body) for r in episode} == {kept}
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    turns = [s for line in lines if line["type"] == "tick" for s in line["seats"].values()]
    calls = [c for turn in turns for c in turn["calls"]]
    assert len(calls) == len(episode) == 3
    assert all(c["attempts"] == 1 and c["errors"] == [] for c in calls)
    assert all(turn["source"] == "llm" for turn in turns if turn["calls"])
    details = lines[0]["seats"][0]["agent"]["details"]
    assert details["structuredOutput"] == kept
    if name == "llama-cpp-python":
        # the server's own words for the refusal are kept in the record
        assert "Input should be 'text' or 'json_object'" in details["structuredOutputRefused"]
        assert "HTTP 500" in details["structuredOutputRefused"]
    elif len(tried) == 1:
        assert "structuredOutputRefused" not in details


def preflight_then_play(
    server: ScriptedLLMServer, options: LLMSeatOptions, path: Path
) -> tuple[list[str], list[str], int]:
    """Preflight, then three ticks with the keeper on the model, as a run does.

    Returns the warnings, the structured-output lines and how many requests the
    preflight made.
    """
    config = LighthouseConfig(max_ticks=3)
    state = new_game(config, generate_board(config, 7))

    async def go() -> tuple[list[str], list[str], int]:
        factory = SeatFactory()
        try:
            seat = factory.seat(GAME, "keeper", options)
            warnings = await factory.preflight()
            checks = len(server.requests)
            seats = {**baseline_seats(GAME, state), "keeper": seat}
            with RecordWriter(path) as writer:
                await run_episode(GAME, state, seats, episode_id="n", seed=7, writer=writer)
            return warnings, factory.structured_output(), checks
        finally:
            await factory.aclose()

    return asyncio.run(go())


def test_without_a_preflight_the_first_call_finds_the_shape(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=role_default, shapes=llama_cpp_python) as server:
        played = play_llm(
            server, "openai", tmp_path / "r.jsonl", max_ticks=3, structured_output=True
        )
        shapes = [sent_shape(r.body) for r in server.requests]
    assert shapes == [
        "json_schema",
        "json_object_schema",
        "json_object_schema",
        "json_object_schema",
    ]
    first = played.turn(0, "keeper")
    assert first["source"] == "llm"  # the answer in the second shape is the turn's answer
    assert [c["failure"] for c in first["calls"]] == ["bad_request", None]
    assert "Input should be 'text' or 'json_object'" in first["calls"][0]["message"]
    assert [len(played.turn(t, "keeper")["calls"]) for t in (1, 2)] == [1, 1]


def test_a_forced_shape_the_server_refuses_stops_at_the_preflight() -> None:
    with ScriptedLLMServer(default=role_default, shapes=llama_cpp_python) as server:
        options = seat_options(server, "openai", structured_output="json_schema")
        with pytest.raises(FatalProviderError) as info:
            preflight(SeatFactory(), options)
        assert len(server.requests) == 1  # refused once, never retried
    assert info.value.kind == "bad_request"
    assert "HTTP 500" in str(info.value)
    assert "Input should be 'text' or 'json_object'" in str(info.value)


def test_a_forced_shape_refused_in_an_episode_costs_one_request_per_turn(tmp_path: Path) -> None:
    # the failure: json_schema against llama-cpp-python used to be retried as a
    # server error until the allowance was gone; now each turn asks once and falls back
    with ScriptedLLMServer(default=role_default, shapes=llama_cpp_python) as server:
        played = play_llm(
            server, "openai", tmp_path / "r.jsonl", max_ticks=3, structured_output="json_schema"
        )
        assert len(server.requests) == 3
    for tick in range(3):
        turn = played.turn(tick, "keeper")
        assert turn["source"] == "fallback_api"
        (call,) = turn["calls"]
        assert (call["attempts"], call["failure"]) == (1, "bad_request")
        assert "Input should be 'text' or 'json_object'" in call["message"]


def test_the_preflight_sends_the_shape_and_schema_of_the_episode(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=role_default) as server:
        options = seat_options(server, "openai", structured_output="json_object_schema")
        assert preflight(SeatFactory(), options) == []
        (check,) = server.requests
        play_llm(
            server,
            "openai",
            tmp_path / "r.jsonl",
            max_ticks=1,
            structured_output="json_object_schema",
        )
        turn = server.requests[-1].body
    assert check.body["response_format"] == turn["response_format"]
    assert turn["response_format"]["schema"]["required"] == ["transmit", "message"]


@pytest.mark.parametrize("shape", ["json_object", "prompt"])
def test_shapes_without_a_schema_field_put_the_schema_in_the_system_prompt(
    server: ScriptedLLMServer, tmp_path: Path, shape: str
) -> None:
    play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1, structured_output=shape)
    body = server.requests[-1].body
    system = body["messages"][0]
    assert system["role"] == "system"
    assert "matches this JSON Schema" in system["content"]
    assert '"required": ["transmit", "message"]' in system["content"]
    assert body.get("response_format") == (
        {"type": "json_object"} if shape == "json_object" else None
    )


def no_output_config(path: str, body: dict[str, Any]) -> Fail | None:
    """An Anthropic-compatible server that knows tools but not ``output_config``."""
    if "output_config" in body:
        return Fail(
            400, body={"error": {"message": "output_config: Extra inputs are not permitted"}}
        )
    return None


def test_anthropic_falls_back_to_a_forced_tool(tmp_path: Path) -> None:
    rule: ShapeRule = no_output_config
    with ScriptedLLMServer(default=role_default, shapes=rule) as server:
        options = seat_options(server, "anthropic", structured_output="auto")
        factory = SeatFactory()
        assert preflight(factory, options) == []
        assert ["output_config" in r.body for r in server.requests] == [True, False]
        tool_request = server.requests[1].body
        assert tool_request["tool_choice"] == {"type": "tool", "name": "reply"}
        assert tool_request["tools"][0]["input_schema"]["required"] == ["transmit", "message"]
        played = play_llm(
            server, "anthropic", tmp_path / "r.jsonl", max_ticks=2, structured_output="tool"
        )
    turn = played.turn(0, "keeper")
    assert turn["source"] == "llm"
    assert json.loads(turn["raw"]) == {"transmit": False}  # the tool call's input


def test_a_shape_the_provider_cannot_send_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="not a shape anthropic can send"):
        LLMSeatOptions.model_validate(
            {"provider": {"kind": "anthropic"}, "model": "m", "structured_output": "json_object"}
        )
