"""The body of a scripted completion, in OpenAI's shape or Anthropic's."""

from __future__ import annotations

import json
import time

from pydantic import JsonValue

from harness.models import JsonObject
from harness.testing.llm_server.actions import Reply


def _anthropic_content(body: JsonObject, text: str) -> list[JsonValue]:
    """A text block; or, when a tool is forced and the text is a JSON object, its call."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "tool":
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return [{"type": "tool_use", "id": "toolu_scripted", "name": choice.get("name"),
                     "input": data}]  # fmt: skip
    return [{"type": "text", "text": text}]


def _anthropic_usage(reply: Reply) -> JsonObject:
    """``reply``'s counts as Anthropic reports them: its input without the cache's parts."""
    read, write = reply.cached_tokens, reply.cache_write_tokens
    usage: JsonObject = {
        "input_tokens": reply.input_tokens - (read or 0) - (write or 0),
        "output_tokens": reply.output_tokens,
    }
    if read is not None:
        usage["cache_read_input_tokens"] = read
    if write is not None:
        usage["cache_creation_input_tokens"] = write
    hour = reply.cache_write_1h_tokens
    if write is not None and hour is not None:
        usage["cache_creation"] = {
            "ephemeral_5m_input_tokens": write - hour,
            "ephemeral_1h_input_tokens": hour,
        }
    return usage


def completion_body(
    path: str, body: JsonObject, reply: Reply, *, timings_ms: float | None = None
) -> bytes:
    """The JSON bytes of the completion ``reply`` stands for, its usage verbatim if given;
    with ``timings_ms``, an OpenAI answer carries llama.cpp's ``timings`` adding up to it."""
    doc = _completion(path, body, reply)
    if timings_ms is not None and not path.endswith("/messages"):
        doc["timings"] = {"prompt_ms": timings_ms / 2, "predicted_ms": timings_ms / 2}
    if reply.usage_json is None:
        return json.dumps(doc).encode()
    doc.pop("usage", None)
    text = json.dumps(doc)
    return (text[:-1] + ', "usage": ' + reply.usage_json + "}").encode()


def _completion(path: str, body: JsonObject, reply: Reply) -> JsonObject:
    model = body.get("model", "scripted-model")
    if path.endswith("/messages"):
        content = _anthropic_content(body, reply.text)
        first = content[0]
        used_tool = isinstance(first, dict) and first.get("type") == "tool_use"
        if reply.reasoning is not None:
            thinking: JsonValue = {
                "type": "thinking",
                "thinking": reply.reasoning,
                "signature": "scripted-signature",
            }
            content = [thinking, *(content if reply.text or used_tool else [])]
        return {
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": reply.stop_reason or ("tool_use" if used_tool else "end_turn"),
            "stop_sequence": None,
            "usage": _anthropic_usage(reply),
        }
    usage: JsonObject = {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    if reply.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    message: JsonObject = {"role": "assistant", "content": reply.text}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    doc: JsonObject = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.stop_reason or "stop"}],
        "usage": usage,
    }
    asked = body.get("service_tier")
    tier = reply.service_tier or ("default" if asked == "auto" else asked)
    if isinstance(tier, str):
        doc["service_tier"] = tier
    return doc
