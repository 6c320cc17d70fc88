"""The Inspect provider under the harness's rules: deadlines, errors, limits, shapes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from harness.errors import (
    FatalProviderError,
    RefusedRequestError,
    TransientProviderError,
)
from harness.llm.inspect_provider import InspectProvider
from harness.llm.types import CompletionRequest, Message
from harness.registry import get_game
from harness.testing.llm_server import Reply, ScriptedLLMServer
from lighthouse_harness import tasks
from lighthouse_harness.record import RECORD_KEY
from tests.inspect.helpers import SHORT, record_lines
from tests.inspect.replies import mock_output

REQUEST = CompletionRequest(
    model="mockllm/model",
    messages=(Message("system", "You are a test."), Message("user", "Reply.")),
)


class StatusError(Exception):
    """What an SDK raises for an HTTP error: its status in ``status_code``."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status} from the test")
        self.status_code = status
        self.response = None


def raising(exc: Exception) -> Any:
    def generate(*args: Any) -> ModelOutput:
        raise exc

    return generate


@pytest.mark.parametrize(
    ("status", "error", "kind"),
    [
        (400, RefusedRequestError, "bad_request"),
        (401, FatalProviderError, "auth"),
        (404, FatalProviderError, "not_found"),
        (429, TransientProviderError, "rate_limit"),
        (503, TransientProviderError, "server"),
    ],
)
async def test_a_failed_request_is_the_harness_s_provider_error(
    status: int, error: type[Exception], kind: str
) -> None:
    model = get_model("mockllm/model", custom_outputs=raising(StatusError(status)))
    with pytest.raises(error) as raised:
        await InspectProvider(model).complete(REQUEST)
    assert raised.value.kind == kind  # type: ignore[attr-defined]
    assert str(raised.value).startswith(f"inspect: HTTP {status}: ")


async def test_an_error_that_is_no_failed_request_keeps_its_course() -> None:
    # a bug, or Inspect's own control flow: never turned into a fallback
    model = get_model("mockllm/model", custom_outputs=raising(KeyError("bug")))
    with pytest.raises(KeyError):
        await InspectProvider(model).complete(REQUEST)


async def test_a_model_name_inspect_cannot_resolve_stops_the_run() -> None:
    provider = InspectProvider()
    with pytest.raises(FatalProviderError) as raised:
        await provider.complete(CompletionRequest(model="nowhere/model", messages=REQUEST.messages))
    assert raised.value.kind == "not_found"
    assert "nowhere/model" in str(raised.value)
    await provider.aclose()


async def test_a_named_model_is_resolved_once_with_the_url_and_key_given() -> None:
    with ScriptedLLMServer(Reply('{"move": "N"}', input_tokens=321, output_tokens=9)) as server:
        provider = InspectProvider(base_url=server.openai_url, api_key="sk-given")
        request = CompletionRequest(model="openai-api/scripted/m", messages=REQUEST.messages)
        first = await provider.complete(request)
        second = await provider.complete(request)
        model = await provider.model_for("openai-api/scripted/m")
        assert model is await provider.model_for("openai-api/scripted/m")
        await provider.aclose()
    assert (first.text, second.text) == ('{"move": "N"}', '{"move": "N"}')
    assert (first.usage.input_tokens, first.usage.output_tokens) == (321, 9)
    seen = server.requests
    assert len(seen) == 2
    assert {r.headers.get("authorization") for r in seen} == {"Bearer sk-given"}
    assert seen[0].body["messages"] == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "Reply."},
    ]


def noting_configs(seen: list[GenerateConfig]) -> Model:
    """A mock model that answers as mockllm does and appends each call's config to
    ``seen``."""

    def generate(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        seen.append(config)
        return mock_output(messages, tools, choice, config)

    return get_model("mockllm/model", custom_outputs=generate)


async def test_the_json_schema_shape_sends_the_reply_schema_to_inspect() -> None:
    seen: list[GenerateConfig] = []
    schema = get_game("lighthouse").seat_io.reply_schema("runner")
    request = CompletionRequest(
        model="x", messages=REQUEST.messages, json_schema=schema, shape="json_schema", seed=7
    )
    await InspectProvider(noting_configs(seen)).complete(request)
    (config,) = seen
    assert config.response_schema is not None
    assert config.response_schema.json_schema.model_dump(exclude_none=True) == schema
    assert (config.seed, config.max_tokens) == (7, request.max_tokens)


async def test_the_reasoning_settings_go_with_or_without_the_sampling_ones() -> None:
    seen: list[GenerateConfig] = []
    request = CompletionRequest(
        model="x",
        messages=REQUEST.messages,
        max_tokens=4000,
        temperature=0.25,
        seed=11,
        thinking_budget=2048,
        reasoning_effort="low",
    )
    for sampling in (True, False):
        await InspectProvider(noting_configs(seen), send_sampling=sampling).complete(request)
    sent, bare = seen
    assert (sent.max_tokens, sent.temperature, sent.seed) == (4000, 0.25, 11)
    # without the sampling settings, the task's own (none here) decide them
    assert (bare.max_tokens, bare.temperature, bare.seed) == (None, None, None)
    for config in (sent, bare):
        assert (config.reasoning_tokens, config.reasoning_effort) == (2048, "low")


def test_a_model_slower_than_the_call_timeout_falls_back_every_turn(tmp_path: Path) -> None:
    calls = 0

    async def never(*args: Any) -> ModelOutput:
        nonlocal calls
        calls += 1
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    task = tasks.lighthouse_keeper(seeds=2, rules={"maxTicks": 3}, call_timeout=0.05)
    model = get_model("mockllm/model", custom_outputs=never)
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    (sample,) = log.samples
    lines = record_lines(sample.store[RECORD_KEY])
    sources = [line["seats"]["keeper"]["source"] for line in lines if line["type"] == "tick"]
    assert sources == ["fallback_timeout"] * 3
    assert calls >= 3
    assert sample.scores is not None
    meta = sample.scores["game_score"].metadata
    assert meta is not None
    assert (meta["fallbacks"], meta["model_turns"]) == (3, 3)
    assert meta["fallback_sources"] == {"fallback_timeout": 3}


def test_inspect_s_own_limits_end_the_sample_unscored(tmp_path: Path) -> None:
    # a limit is Inspect's to enforce: the provider lets it through, no turn falls back
    task = tasks.lighthouse_keeper(seeds=0, rules=SHORT["lighthouse"])
    model = get_model("mockllm/model", custom_outputs=mock_output)
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none", turn_limit=3)
    assert log.samples is not None
    (sample,) = log.samples
    assert sample.limit is not None
    assert sample.limit.type == "turn"
    assert RECORD_KEY not in sample.store
    assert sample.scores is not None
    assert sample.scores["game_score"].reason is not None
    assert json.dumps(sample.scores["game_score"].value) == "NaN"


def test_kind_inspect_imports_inspect_when_its_provider_is_built_and_not_before() -> None:
    code = (
        "import sys; from harness.llm.factory import make_provider; "
        "from harness.llm.options import ProviderOptions; "
        "options = ProviderOptions(kind='inspect'); before = 'inspect_ai' in sys.modules; "
        "provider = make_provider(options); "
        "print(before, 'inspect_ai' in sys.modules, 'lighthouse_harness' in sys.modules, "
        "provider.name)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "True", "False", "inspect"], done.stderr


def test_a_task_s_model_calls_take_inspect_s_sampling_settings(tmp_path: Path) -> None:
    seen: set[tuple[int | None, float | None, int | None]] = set()

    def generate(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        seen.add((config.max_tokens, config.temperature, config.seed))
        return mock_output(messages, tools, choice, config)

    task = tasks.lighthouse_keeper(seeds=0, rules={"maxTicks": 2})
    model = get_model("mockllm/model", custom_outputs=generate)
    inspect_eval(
        task, model=model, log_dir=str(tmp_path), display="none", max_tokens=77, temperature=0.3
    )
    # not the seat's default of 512 tokens: --max-tokens (and the rest) is Inspect's
    assert seen == {(77, 0.3, None)}
