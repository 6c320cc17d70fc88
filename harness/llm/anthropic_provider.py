"""Anthropic Messages through the official SDK (its own retries off).

As for OpenAI, the SDK sends the request and raises for an error status; the body of
an answer is read at most 4 MiB deep (:mod:`harness.llm.bodies`) and parsed by the
harness itself (:mod:`harness.llm.wire`).
"""

from __future__ import annotations

from typing import Any

import anthropic

from harness.defaults import TRANSPORT
from harness.llm.sdk_provider import Sdk, SdkProvider
from harness.llm.shapes import TOOL_NAME
from harness.llm.types import Completion, CompletionRequest, Transport
from harness.llm.wire import anthropic_completion

_SDK = Sdk(
    anthropic.AsyncAnthropic,
    anthropic.DefaultAioHttpClient,
    anthropic.DefaultAsyncHttpxClient,
    anthropic.AnthropicError,
)


class AnthropicProvider(SdkProvider[anthropic.AsyncAnthropic]):
    """Messages API: system prompts go in ``system``, the rest alternate user/assistant."""

    name = "anthropic"

    def __init__(
        self, *, api_key: str, base_url: str | None = None, transport: Transport = TRANSPORT
    ) -> None:
        super().__init__(_SDK, api_key=api_key, base_url=base_url, transport=transport)

    async def complete(self, request: CompletionRequest) -> Completion:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": _messages(request),
            "max_tokens": request.max_tokens,
            "timeout": request.timeout_s,
        }
        if system:
            kwargs["system"] = system
            if request.cache is not None:  # the first breakpoint: the system prompt
                kwargs["system"] = [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]
        if request.temperature is not None:
            # anthropic 2.x no longer lists sampling parameters; servers that still take
            # them (older models, compatible gateways) get it in the body.
            kwargs["extra_body"] = {"temperature": request.temperature}
        if request.thinking_budget is not None:
            # extended thinking; the seat's options keep max_tokens above the budget
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
        shape = request.sent_shape
        if shape == "json_schema":
            kwargs["output_config"] = {
                "format": {"type": "json_schema", "schema": request.json_schema}
            }
        elif shape == "tool":
            # one tool whose input is the reply, and the model made to call it
            kwargs["tools"] = [
                {
                    "name": TOOL_NAME,
                    "description": "Give your reply for this turn.",
                    "input_schema": request.json_schema,
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
        sent = self._client.messages.with_raw_response.create(**kwargs)
        return await self._read(sent, anthropic_completion, request)


#: A cache breakpoint (Anthropic's default lifetime, five minutes).
_EPHEMERAL = {"type": "ephemeral"}


def _messages(request: CompletionRequest) -> list[dict[str, Any]]:
    """The conversation in Messages' shape. With a cache hint past the system prompt,
    the message that ends the start the next call sends again carries the second
    breakpoint (a text block with ``cache_control``): two of the four Anthropic allows."""
    through = request.cache.through if request.cache is not None else 0
    out: list[dict[str, Any]] = []
    for index, m in enumerate(request.messages):
        if m.role == "system":
            continue
        content: Any = m.content
        if through and index == through:
            content = [{"type": "text", "text": m.content, "cache_control": _EPHEMERAL}]
        out.append({"role": m.role, "content": content})
    return out


__all__ = ["AnthropicProvider"]
