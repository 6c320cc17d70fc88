"""Seat option ``prompt_cache``: through the real SDKs, Anthropic requests carry
``cache_control`` breakpoints where the next call's prompt starts the same, OpenAI
requests a stable ``prompt_cache_key``; neither without the option, neither changes
the call cache's key or the seat's identity. The preflight sends the same field, so
a server that refuses it stops the run before an episode."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.errors import FatalProviderError
from harness.llm.cache import call_key
from harness.llm.seat import SeatFactory
from harness.llm.types import CacheHint, CompletionRequest, Message
from harness.testing.llm_server import (
    Fail,
    PrefixCache,
    ScriptedLLMServer,
    common_start,
    prompt_text,
)
from tests.llm.conftest import play_llm, role_default, seat_options
from tests.llm.test_negotiation import preflight

EPHEMERAL = {"type": "ephemeral"}
HISTORY = 2


def keeper(body: dict[str, Any]) -> bool:
    return "You are the KEEPER" in json.dumps(body)


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    text: str = content[0]["text"] if isinstance(content, list) else content
    return text


def breakpoints(body: dict[str, Any]) -> list[str]:
    """Where a Messages request has cache_control: 'system', or the message's index."""
    found = []
    system = body.get("system")
    if isinstance(system, list):
        found += ["system" for block in system if block.get("cache_control") == EPHEMERAL]
    for index, message in enumerate(body["messages"]):
        content = message["content"]
        if isinstance(content, list):
            found += [str(index) for b in content if b.get("cache_control") == EPHEMERAL]
    return found


def test_anthropic_requests_carry_cache_control_on_the_stable_start(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    played = play_llm(
        server, "anthropic", tmp_path / "a.jsonl", max_ticks=5, history=HISTORY,
        prompt_cache=True,
    )  # fmt: skip
    bodies = [r.body for r in server.requests if keeper(r.body)]
    assert len(bodies) == len(played.ticks()) == 5
    for tick, body in enumerate(bodies):
        assert "prompt_cache_key" not in body  # not Anthropic's
        marks = breakpoints(body)
        assert len(marks) <= 4  # Anthropic's limit
        last = str(len(body["messages"]) - 1)
        if tick < HISTORY:  # the history still grows: the next call repeats all of this
            assert marks == ["system", last]
        else:  # the next call drops the oldest tick: only the system prompt repeats
            assert marks == ["system"]
        # the block's text is the message, as without caching
        assert "Tick" in text_of(body["messages"][-1])
    assert bodies[0]["system"][0]["text"].startswith("You are the KEEPER")
    # what was cached is what the next call started with
    assert text_of(bodies[1]["messages"][0]) == text_of(bodies[0]["messages"][0])
    assert played.lines[0]["seats"][0]["agent"]["details"]["promptCache"] == "true"


def test_openai_requests_carry_one_prompt_cache_key_per_system_prompt(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    play_llm(
        server, "openai", tmp_path / "o.jsonl", llm_seats=("keeper", "runner1", "runner2"),
        max_ticks=3, prompt_cache=True,
    )  # fmt: skip
    keys = {keeper(r.body): {r.body["prompt_cache_key"]} for r in server.requests}
    by_role: dict[bool, set[str]] = {True: set(), False: set()}
    for r in server.requests:
        by_role[keeper(r.body)].add(r.body["prompt_cache_key"])
        assert "cache_control" not in json.dumps(r.body)  # not OpenAI's
    assert keys
    # one key for the keeper, one shared by the runners (who share a system prompt)
    assert len(by_role[True]) == len(by_role[False]) == 1
    assert by_role[True] != by_role[False]
    assert all(k.startswith("lighthouse-") and len(k) <= 64 for k in by_role[True])


#: How Azure's OpenAI-compatible servers refuse a field they do not know.
UNRECOGNIZED = "Unrecognized request argument supplied: prompt_cache_key"


def no_prompt_cache_key(path: str, body: dict[str, Any]) -> Fail | None:
    """A strict OpenAI-compatible server: HTTP 400 for a request with ``prompt_cache_key``."""
    if "prompt_cache_key" in body:
        return Fail(400, body={"error": {"message": UNRECOGNIZED, "type": "invalid_request_error"}})
    return None


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_the_preflight_asks_for_the_cache_as_the_first_tick_does(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    options = seat_options(server, sdk, prompt_cache=True, history=HISTORY)
    assert preflight(SeatFactory(), options) == []
    checked = server.requests[-1].body
    play_llm(
        server, sdk, tmp_path / "p.jsonl", max_ticks=1, history=HISTORY, prompt_cache=True
    )  # fmt: skip
    first = server.requests[-1].body
    assert keeper(first)
    if sdk == "openai":
        assert checked["prompt_cache_key"] == first["prompt_cache_key"]
    else:
        # the system prompt, and the one message the history will send again
        assert breakpoints(checked) == breakpoints(first) == ["system", "0"]


def test_a_server_refusing_the_cache_key_stops_the_run_at_the_preflight() -> None:
    with ScriptedLLMServer(default=role_default, shapes=no_prompt_cache_key) as server:
        options = seat_options(server, "openai", prompt_cache=True, structured_output=False)
        with pytest.raises(FatalProviderError, match=UNRECOGNIZED):
            preflight(SeatFactory(), options)
        assert ["prompt_cache_key" in r.body for r in server.requests] == [True]
        # the option off, the same server answers
        plain = seat_options(server, "openai", structured_output=False)
        assert preflight(SeatFactory(), plain) == []


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_without_the_option_nothing_is_asked(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    played = play_llm(server, sdk, tmp_path / "n.jsonl", max_ticks=2, history=HISTORY)
    for r in server.requests:
        assert "prompt_cache_key" not in r.body
        assert "cache_control" not in json.dumps(r.body)
        if sdk == "anthropic":
            assert isinstance(r.body["system"], str)
    assert "promptCache" not in played.lines[0]["seats"][0]["agent"]["details"]


def test_the_hint_leaves_the_call_cache_key_as_it_was() -> None:
    plain = CompletionRequest(model="m", messages=(Message("system", "s"), Message("user", "u")))
    hinted = replace(plain, cache=CacheHint("lighthouse-x", 1))
    assert call_key(plain, kind="anthropic", base_url=None, scope="e/keeper/0") == call_key(
        hinted, kind="anthropic", base_url=None, scope="e/keeper/0"
    )


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_the_scripted_server_bills_the_shared_start_as_a_cache_read(
    tmp_path: Path, sdk: str
) -> None:
    cache = PrefixCache(min_tokens=0, step=1)
    with ScriptedLLMServer(default=role_default, prefix_cache=cache) as server:
        played = play_llm(server, sdk, tmp_path / "c.jsonl", max_ticks=4, history=HISTORY)
        requests = [r for r in server.requests if keeper(r.body)]
    calls = [played.turn(t, "keeper")["calls"][0] for t in range(len(played.ticks()))]
    texts = [prompt_text(r.path, r.body) for r in requests]
    assert len(calls) == len(texts) == 4
    for index, (call, text) in enumerate(zip(calls, texts, strict=True)):
        shared = max((common_start(text, old) for old in texts[:index]), default=0)
        assert call["inputTokens"] == -(-len(text.encode()) // 4)
        assert call.get("cachedInputTokens", 0) == len(text[:shared].encode()) // 4
    # the system prompt and the growing history are read again, tick after tick
    assert calls[0].get("cachedInputTokens", 0) == 0
    assert all(c["cachedInputTokens"] > 0 for c in calls[1:])
    assert cache.input_tokens >= sum(c["inputTokens"] for c in calls)


def test_below_the_minimum_nothing_is_billed_as_cached() -> None:
    cache = PrefixCache(min_tokens=1024, step=128)
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "x" * 8000}]}
    assert cache.usage("/v1/chat/completions", body) == (2002, 0)
    assert cache.usage("/v1/chat/completions", body) == (2002, 1920)  # 2001 shared, in steps
    short: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "x" * 3000}]}
    assert cache.usage("/v1/chat/completions", short) == (752, 0)  # under 1024 tokens
