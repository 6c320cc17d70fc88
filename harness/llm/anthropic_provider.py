"""Anthropic Messages through the official SDK (its own retries off)."""

from __future__ import annotations

import json
from typing import Any

import anthropic

from harness.defaults import TRANSPORT
from harness.llm.keys import check_api_key
from harness.llm.sdk_errors import classify
from harness.llm.shapes import TOOL_NAME
from harness.llm.types import Completion, CompletionRequest, Transport, Usage


def _http_client(transport: Transport) -> Any:
    if transport == "aiohttp":
        return anthropic.DefaultAioHttpClient()
    return None


class AnthropicProvider:
    """Messages API: system prompts go in ``system``, the rest alternate user/assistant."""

    name = "anthropic"

    def __init__(
        self, *, api_key: str, base_url: str | None = None, transport: Transport = TRANSPORT
    ) -> None:
        # checked here too, for providers built by hand: a bad key never reaches the SDK
        check_api_key(api_key, self.name)
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            http_client=_http_client(transport),
        )

    async def complete(self, request: CompletionRequest) -> Completion:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
            "max_tokens": request.max_tokens,
            "timeout": request.timeout_s,
        }
        if system:
            kwargs["system"] = system
        if request.temperature is not None:
            # anthropic 2.x no longer lists sampling parameters; servers that still take
            # them (older models, compatible gateways) get it in the body.
            kwargs["extra_body"] = {"temperature": request.temperature}
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
        try:
            response = await self._client.messages.create(**kwargs)
        except (anthropic.AnthropicError, UnicodeDecodeError) as exc:
            raise classify(exc, self.name) from None
        text = _reply_text(response.content)
        return Completion(
            text=text,
            usage=Usage(
                input_tokens=response.usage.input_tokens,
                output_tokens=response.usage.output_tokens,
            ),
            model=response.model or request.model,
        )

    async def aclose(self) -> None:
        await self._client.close()


def _reply_text(content: Any) -> str:
    """The reply: the forced tool's input as JSON when the model called it, else the text."""
    for block in content or []:
        if getattr(block, "type", "") == "tool_use" and getattr(block, "name", "") == TOOL_NAME:
            try:
                return json.dumps(getattr(block, "input", None), ensure_ascii=False)
            except (TypeError, ValueError):
                return ""
    return "".join(
        getattr(block, "text", "") or ""
        for block in content or []
        if getattr(block, "type", "") == "text"
    )


__all__ = ["AnthropicProvider"]
