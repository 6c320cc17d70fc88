"""Fuzzing the provider boundary through the real SDKs: bodies, headers and usage objects.

A server on 127.0.0.1 answers each example with what hypothesis drew: a status, a retry
hint, a content type, and a body that is a good completion changed anywhere, any JSON,
any bytes, or a good completion with any usage object. Whatever it is, one attempt of
either SDK ends in a checked answer or in one of the harness's provider errors, with a
one-line message and, for a retryable one, a hint that is None or a sane wait; an
answer goes into a call record and the call cache and comes back the same.

The default run draws a modest number of examples; ``pytest -m slow`` draws many more.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import (
    BadResponseError,
    FatalProviderError,
    ProviderError,
    RefusedRequestError,
    TransientProviderError,
)
from harness.llm.anthropic_provider import AnthropicProvider
from harness.llm.cache import CallCache
from harness.llm.calls import check_completion
from harness.llm.openai_provider import OpenAIProvider
from harness.llm.sdk_errors import MAX_RETRY_HINT_S
from harness.llm.types import MAX_TOKEN_COUNT, CompletionRequest, Message, Provider, Transport
from harness.records import CallRecord
from harness.testing.llm_server import Action, Raw, Reply, ScriptedLLMServer, completion_body
from tests.llm.conftest import FAKE_KEY
from tests.llm.test_wire import JSON, KEYS, mutate

SDKS = ["openai", "anthropic"]
TRANSPORTS: list[Transport] = ["aiohttp", "httpx"]
CLIENTS = [f"{sdk}/{transport}" for sdk in SDKS for transport in TRANSPORTS]
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
REQUEST = CompletionRequest(model="fuzz", messages=(Message("user", "hi"),), timeout_s=10.0)


@dataclass
class Rig:
    server: ScriptedLLMServer
    runner: asyncio.Runner
    providers: dict[str, Provider]
    cache: CallCache


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    with ScriptedLLMServer() as server, asyncio.Runner() as runner:
        providers: dict[str, Provider] = {}
        for transport in TRANSPORTS:
            providers[f"openai/{transport}"] = OpenAIProvider(
                api_key=FAKE_KEY, base_url=server.openai_url, transport=transport
            )
            providers[f"anthropic/{transport}"] = AnthropicProvider(
                api_key=FAKE_KEY, base_url=server.anthropic_url, transport=transport
            )
        cache = CallCache(tmp_path_factory.mktemp("fuzz") / "calls.sqlite")
        try:
            yield Rig(server, runner, providers, cache)
        finally:
            for provider in providers.values():
                runner.run(provider.aclose())
            cache.close()


HINT_TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["nan", "inf", "-inf", "-5", "0", "1e999", "99999999999999", "1_0"]),
    st.floats().map(str),
    st.integers().map(str),
    st.sampled_from(
        ["Fri, 31 Dec 99999 23:59:59 GMT", "Mon, 45 Foo 2024 99:99:99 GMT", "Thu, 01 Jan 1970"]
    ),
)
# header values an HTTP server can send: no control characters, latin-1
HEADER_SAFE = HINT_TEXT.map(lambda t: "".join(c for c in t if 32 <= ord(c) < 127).strip())


@st.composite
def answers(draw: st.DrawFn, sdk: str) -> tuple[Action, bool]:
    """Any answer a hostile server could give ``sdk``, and whether it holds a reply that
    must come through (a 200 of a good completion with any usage object)."""
    status = draw(st.sampled_from([200, 200, 200, 400, 429, 500, 503]))
    headers: dict[str, str] = {}
    for name in draw(st.lists(st.sampled_from(["retry-after", "retry-after-ms"]), max_size=2)):
        headers[name] = draw(HEADER_SAFE)
    content_type = draw(st.sampled_from(["application/json", "text/html", "text/plain"]))
    kind = draw(st.sampled_from(["changed", "json", "bytes", "usage"]))
    good = completion_body(PATHS[sdk], {"model": "fuzz"}, Reply('{"move": "N"}'))
    if kind == "usage":
        usage = draw(JSON | st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5))
        body = completion_body(
            PATHS[sdk], {"model": "fuzz"}, Reply("x", usage_json=json.dumps(usage))
        )
    elif kind == "changed":
        body = json.dumps(mutate(json.loads(good), draw(st.data()))).encode()
    elif kind == "json":
        body = json.dumps(draw(JSON)).encode()
    else:
        body = draw(st.binary(max_size=300))
    reply_in_it = kind == "usage" and status == 200
    return Raw(body, content_type=content_type, status=status, headers=headers), reply_in_it


def check_one(rig: Rig, client: str, action: Action, *, reply: str | None = None) -> None:
    """One attempt's outcome for ``action`` holds up; with ``reply``, it is that reply."""
    sdk = client.partition("/")[0]
    rig.server.push(action)

    async def once() -> Any:
        try:
            return await rig.providers[client].complete(REQUEST)
        except ProviderError as exc:
            return exc

    result = rig.runner.run(once())
    if reply is not None:
        assert not isinstance(result, ProviderError), f"a usable reply was refused: {result}"
        assert result.text == reply
    if isinstance(result, ProviderError):
        assert "\n" not in str(result)
        assert str(result).startswith(f"{sdk}: ")
        # 400, 429 and 5xx are the statuses drawn: none is fatal
        assert not isinstance(result, FatalProviderError)
        assert isinstance(result, TransientProviderError | BadResponseError | RefusedRequestError)
        if isinstance(result, TransientProviderError):
            hint = result.retry_after
            assert hint is None or (math.isfinite(hint) and 0 < hint <= MAX_RETRY_HINT_S)
        return
    answer = check_completion(result)
    for count in answer.usage.as_json().values():
        assert count is None or (type(count) is int and 0 <= count <= MAX_TOKEN_COUNT)
    CallRecord.model_validate(
        {
            "provider": sdk,
            "model": answer.model,
            "attempts": 1,
            "errors": [],
            "inputTokens": answer.usage.input_tokens,
            "outputTokens": answer.usage.output_tokens,
            "reasoningTokens": answer.usage.reasoning_tokens,
        }
    )
    rig.runner.run(rig.cache.put("k", answer))
    assert rig.runner.run(rig.cache.get("k")) == answer


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), client=st.sampled_from(CLIENTS))
def test_any_answer_is_checked_or_a_provider_error(
    rig: Rig, data: st.DataObject, client: str
) -> None:
    action, reply_in_it = data.draw(answers(client.partition("/")[0]))
    check_one(rig, client, action, reply="x" if reply_in_it else None)


@pytest.mark.slow
@settings(
    max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), client=st.sampled_from(CLIENTS))
def test_any_answer_is_checked_or_a_provider_error_sweep(
    rig: Rig, data: st.DataObject, client: str
) -> None:
    action, reply_in_it = data.draw(answers(client.partition("/")[0]))
    check_one(rig, client, action, reply="x" if reply_in_it else None)


@pytest.mark.parametrize("client", CLIENTS)
def test_the_rig_gets_a_good_answer_through(rig: Rig, client: str) -> None:
    # the fuzz above could pass by never getting an answer through: a good one does
    check_one(rig, client, Reply('{"move": "N"}'), reply='{"move": "N"}')
