"""OpenAI Chat Completions, and any OpenAI-compatible server by ``base_url``.

vLLM, Ollama, llama.cpp's server and OpenRouter all speak this API. The SDK's own
retries are off (``max_retries=0``): :mod:`harness.llm.calls` is the only retry layer.
The SDK sends the request and raises for an error status; the body of an answer is
read at most 4 MiB deep (:mod:`harness.llm.bodies`) and parsed by the harness itself
(:mod:`harness.llm.wire`), never by the SDK's models.
"""

from __future__ import annotations

from typing import Any

import openai

from harness.defaults import TRANSPORT
from harness.llm.sdk_provider import Sdk, SdkProvider
from harness.llm.shapes import is_strict
from harness.llm.types import Completion, CompletionRequest, MaxTokensField, Transport
from harness.llm.wire import openai_completion
from harness.models import JsonObject

_SDK = Sdk(
    openai.AsyncOpenAI,
    openai.DefaultAioHttpClient,
    openai.DefaultAsyncHttpxClient,
    openai.OpenAIError,
)


class OpenAIProvider(SdkProvider[openai.AsyncOpenAI]):
    """Chat Completions through the official SDK."""

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        transport: Transport = TRANSPORT,
        max_tokens_field: MaxTokensField | None = None,
    ) -> None:
        super().__init__(_SDK, api_key=api_key, base_url=base_url, transport=transport)
        # OpenAI's newer models want max_completion_tokens; most compatible servers
        # only know max_tokens.
        self._max_tokens_field: MaxTokensField = max_tokens_field or (
            "max_completion_tokens" if base_url is None else "max_tokens"
        )

    def max_tokens_field(self, request: CompletionRequest) -> MaxTokensField:
        """The field ``request``'s token limit goes in: the request's own choice, else
        ``max_completion_tokens`` for a reasoning request (OpenAI's reasoning models
        refuse ``max_tokens``), else this provider's (``max_completion_tokens`` for
        OpenAI itself, ``max_tokens`` for a ``base_url`` server)."""
        if request.max_tokens_field is not None:
            return request.max_tokens_field
        if request.reasoning_effort is not None:
            return "max_completion_tokens"
        return self._max_tokens_field

    async def complete(self, request: CompletionRequest) -> Completion:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            self.max_tokens_field(request): request.max_tokens,
            "timeout": request.timeout_s,
        }
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.cache is not None:
            kwargs["prompt_cache_key"] = request.cache.key
        if request.reasoning_effort is not None:
            kwargs["reasoning_effort"] = request.reasoning_effort
        if request.service_tier is not None:
            kwargs["service_tier"] = request.service_tier
        response_format = _response_format(request)
        if response_format is not None:
            kwargs["response_format"] = response_format
        sent = self._client.chat.completions.with_raw_response.create(**kwargs)
        return await self._read(sent, openai_completion, request)


def _response_format(request: CompletionRequest) -> JsonObject | None:
    """``response_format`` for the request's shape (see :mod:`harness.llm.shapes`)."""
    shape, schema = request.sent_shape, request.json_schema
    if shape == "json_schema" and schema is not None:
        # strict only when every property is required: OpenAI's strict mode demands it,
        # and a reply may leave ``notes`` out to keep the seat's notes (decision R4)
        return {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": schema, "strict": is_strict(schema)},
        }
    if shape == "json_object_schema":
        # llama-cpp-python's shape: the schema beside the type, turned into a grammar
        return {"type": "json_object", "schema": schema}
    if shape == "json_object":
        return {"type": "json_object"}
    return None


__all__ = ["OpenAIProvider", "Transport"]
