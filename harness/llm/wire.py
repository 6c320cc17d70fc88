"""A provider's answer, from the bytes of its body to the project's own types.

The SDKs are asked for the raw response (``with_raw_response``): the body is never
handed to their models, which accept almost anything and leave what they could not
check to fail later, deep in the harness (an object where text belongs, a string
where a list does, a count of NaN). Instead each body, already bounded in size
(:mod:`harness.llm.bodies`), is

1. decoded as UTF-8 and as JSON as the wire allows it (:func:`harness.json_reply.wire_loads`):
   at most :data:`MAX_BODY_DEPTH` levels of nesting and :data:`MAX_BODY_TOKENS`
   tokens, checked by the linear pre-scan before anything is decoded, integers of at
   most 4300 digits;
2. read field by field into a :class:`~harness.llm.types.Completion`: the reply text,
   the model's name (at most :data:`MAX_MODEL_CHARS` characters), and the token counts,
   each checked by :func:`~harness.llm.types.token_count`.

A body that is not a completion of its API (empty, an HTML page, ``null``, a list,
too deep, ``choices`` a string, ``content`` an object, ``model`` an object, an error
object sent with a 200, ...) raises :class:`~harness.errors.BadResponseError` (kind
``decode``) whose message says why in one line: the seat falls back
(``fallback_api``) with that line in the record. Token counts that are not counts
(null, a string, negative, 10**400, NaN) do not spoil a good reply: they are unknown
(None), which the record says and a price bounds (see :mod:`harness.llm.calls`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Protocol

from harness.errors import BadResponseError
from harness.json_reply import MAX_JSON_DEPTH, StrictJsonError, a_json_type, wire_loads
from harness.llm.secrets import redact
from harness.llm.shapes import TOOL_NAME
from harness.llm.types import Completion, CompletionRequest, Usage, token_count
from harness.text import scrub_surrogates, show_value

#: A body nesting deeper than this is not a completion: twice the depth a reply may
#: have (a forced tool's input is the reply, inside the envelope).
MAX_BODY_DEPTH = 2 * MAX_JSON_DEPTH
#: A body with more strings, brackets and commas than this is not a completion (one
#: reply is a handful; a 4 MiB reply text is one string).
MAX_BODY_TOKENS = 1 << 16
#: A model name longer than this is cut (it is only kept by the call cache).
MAX_MODEL_CHARS = 256
#: Bodies longer than this are decoded in a worker thread, off the event loop.
OFF_LOOP_BYTES = 1 << 16
#: A server's error message sent with a 200 is quoted up to this many characters.
QUOTE_CHARS = 200


class NotACompletion(Exception):
    """A body that is not a completion; the message says why, without the provider."""


def decode_body(body: bytes, content_type: str | None = None) -> Any:
    """The JSON value of a response body, or :class:`NotACompletion` saying why there is none."""
    if body.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark, which json refuses
        body = body[3:]
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotACompletion(f"the body is not valid UTF-8 (byte {exc.start + 1})") from None
    if not text.strip():
        raise NotACompletion("the body is empty")
    try:
        return wire_loads(text, max_depth=MAX_BODY_DEPTH, max_tokens=MAX_BODY_TOKENS)
    except StrictJsonError as exc:
        kind = ""
        if content_type is not None and "json" not in content_type.lower():
            kind = f"; its content-type is {show_value(content_type[:80])}"
        raise NotACompletion(f"the body is not JSON: {exc}{kind}") from None


def _get(obj: dict[str, Any], key: str, where: str, *types: type) -> Any:
    """``obj[key]``, which must be one of ``types`` (None among them: may be absent or null)."""
    value = obj.get(key)
    if isinstance(value, types):
        return value
    names = " or ".join(_TYPE_NAMES[t] for t in types)
    shown = "absent" if key not in obj else a_json_type(value)
    raise NotACompletion(f"{where}{key} is {shown}, expected {names}")


_TYPE_NAMES: dict[type, str] = {
    dict: "an object",
    list: "a list",
    str: "a string",
    type(None): "null",
}


def _top(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise NotACompletion(f"the body is {a_json_type(value)}, not an object")
    return value


def _error_in(body: dict[str, Any], *, completion_key: str) -> None:
    """Refuse an error object sent with a 200 (as gateways and overloaded servers do)."""
    error = body.get("error")
    if body.get("type") == "error" or (error is not None and completion_key not in body):
        message = error.get("message", error) if isinstance(error, dict) else error
        if isinstance(message, str):
            message = message[:QUOTE_CHARS]  # shown cut: never the whole of a long text
        raise NotACompletion(f"the body is an error: {show_value(message, QUOTE_CHARS)}")


def _model(body: dict[str, Any], request: CompletionRequest) -> str:
    model = _get(body, "model", "", str, type(None))
    return (model or request.model)[:MAX_MODEL_CHARS]


def _counts(usage: Any, **names: str) -> Usage:
    """The counts ``names`` maps (our field: the API's key) out of a usage object."""
    if not isinstance(usage, dict):
        return Usage.reported()  # none reported: every count unknown
    return Usage.reported(**{ours: usage.get(theirs) for ours, theirs in names.items()})


def openai_completion(body: Any, request: CompletionRequest) -> Completion:
    """A Chat Completions answer (its decoded JSON) as a :class:`Completion`."""
    top = _top(body)
    _error_in(top, completion_key="choices")
    choices = _get(top, "choices", "", list)
    if not choices:
        raise NotACompletion("choices is empty: there is no reply")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise NotACompletion(f"choices[0] is {a_json_type(choice)}, expected an object")
    message = _get(choice, "message", "choices[0].", dict)
    text = _get(message, "content", "choices[0].message.", str, type(None)) or ""
    return Completion(
        text=text,
        usage=openai_usage(top.get("usage")),
        model=_model(top, request),
        stop_reason=stop_reason(choice.get("finish_reason")),
        server_ms=llama_cpp_server_ms(top.get("timings")),
        reasoning=_openai_reasoning(message),
        service_tier=stop_reason(top.get("service_tier")),
    )


#: The longest server time believed, in ms (a day): past it, or not a finite number
#: from 0, a reported time is unknown.
MAX_SERVER_MS = 86_400_000.0


def server_ms(value: Any) -> float | None:
    """``value`` as a server's time in ms, or None when it is not one (as
    :func:`~harness.llm.types.token_count` reads counts: comparisons only)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not 0 <= value <= MAX_SERVER_MS:  # NaN fails both comparisons
        return None
    return float(value)


def llama_cpp_server_ms(timings: Any) -> float | None:
    """llama.cpp's own time for a completion: its ``timings`` object's ``prompt_ms`` plus
    ``predicted_ms`` (None when either is missing or not a time)."""
    if not isinstance(timings, dict):
        return None
    prompt, predicted = server_ms(timings.get("prompt_ms")), server_ms(timings.get("predicted_ms"))
    if prompt is None or predicted is None:
        return None
    return prompt + predicted


#: The response header in which OpenAI's API says its own time for a request, in ms.
PROCESSING_MS_HEADER = "openai-processing-ms"


def header_server_ms(headers: Mapping[str, str]) -> float | None:
    """The server's own time a response's headers report, or None."""
    text = headers.get(PROCESSING_MS_HEADER)
    if text is None or len(text) > 20:
        return None
    try:
        return server_ms(float(text))
    except ValueError:
        return None


#: Where OpenAI-compatible servers put a reasoning model's thinking beside the reply:
#: ``reasoning_content`` (vLLM, llama.cpp, DeepSeek, SGLang), ``reasoning`` (Ollama,
#: OpenRouter, newer vLLM). OpenAI's own Chat Completions return none.
REASONING_KEYS = ("reasoning_content", "reasoning")


def _openai_reasoning(message: dict[str, Any]) -> str | None:
    """The reasoning text of a Chat Completions message: the first of
    :data:`REASONING_KEYS` that is a non-empty string (anything else there is no text)."""
    for key in REASONING_KEYS:
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _part(usage: Any, key: str) -> Any:
    """``usage[key]`` when both are objects, else None (a part not reported)."""
    part = usage.get(key) if isinstance(usage, dict) else None
    return part if isinstance(part, dict) else None


def openai_usage(usage: Any) -> Usage:
    """The ledger of a Chat Completions ``usage`` object (any JSON value).

    ``prompt_tokens`` already counts the cached ones, and ``completion_tokens`` the
    reasoning ones: both are read as they are. OpenAI reports no cache writes.
    """
    counts = _counts(usage, input_tokens="prompt_tokens", output_tokens="completion_tokens")
    prompt = _counts(_part(usage, "prompt_tokens_details"), cached_input_tokens="cached_tokens")
    reasoning = _counts(
        _part(usage, "completion_tokens_details"), reasoning_tokens="reasoning_tokens"
    )
    return replace(
        counts,
        cached_input_tokens=prompt.cached_input_tokens,
        reasoning_tokens=reasoning.reasoning_tokens,
    )


def anthropic_usage(usage: Any) -> Usage:
    """The ledger of a Messages ``usage`` object (any JSON value).

    Anthropic's ``input_tokens`` leaves out the tokens read from the cache and those
    written to it; the ledger's input is the three together, so that it means what
    OpenAI's does. A cache count absent or null is none (a server without a cache);
    one present that is not a count makes it unknown, and the input with it (its
    price is then the bound's). Thinking tokens are in ``output_tokens``, and not
    reported apart.
    """
    counts = _counts(
        usage,
        input_tokens="input_tokens",
        output_tokens="output_tokens",
        cached_input_tokens="cache_read_input_tokens",
        cache_write_tokens="cache_creation_input_tokens",
    )
    lifetimes = _counts(
        _part(usage, "cache_creation"), cache_write_1h_tokens="ephemeral_1h_input_tokens"
    )
    parts = [counts.input_tokens]
    for key, count in (
        ("cache_read_input_tokens", counts.cached_input_tokens),
        ("cache_creation_input_tokens", counts.cache_write_tokens),
    ):
        if count is not None or (isinstance(usage, dict) and usage.get(key) is not None):
            parts.append(count)  # a count, or one sent that is not: unknown
    total = None if None in parts else token_count(sum(p or 0 for p in parts))
    return replace(
        counts, input_tokens=total, cache_write_1h_tokens=lifetimes.cache_write_1h_tokens
    )


#: A stop reason longer than this is cut (every API's are a word or two).
MAX_STOP_REASON_CHARS = 40


def stop_reason(value: Any) -> str | None:
    """Why the model stopped, as its API says (``stop``, ``length``, ``end_turn``,
    ``max_tokens``, ...): a string cut to :data:`MAX_STOP_REASON_CHARS`, else None."""
    if not isinstance(value, str):
        return None
    return scrub_surrogates(value[:MAX_STOP_REASON_CHARS])


def anthropic_completion(body: Any, request: CompletionRequest) -> Completion:
    """A Messages answer (its decoded JSON) as a :class:`Completion`.

    The reply is the forced tool's input, as JSON, when the model called it; else the
    text of the text blocks. The text of the thinking blocks (a summary of the
    model's thinking, for Claude 4 models) is its reasoning, kept apart; a
    ``redacted_thinking`` block is encrypted, and left out like any other block.
    """
    top = _top(body)
    _error_in(top, completion_key="content")
    kind = _get(top, "type", "", str, type(None))
    if kind not in (None, "message"):
        raise NotACompletion(f"type is {show_value(kind, 40)}, expected 'message'")
    blocks = _get(top, "content", "", list)
    texts: list[str] = []
    thoughts: list[str] = []
    tool: str | None = None
    for index, block in enumerate(blocks):
        where = f"content[{index}]."
        if not isinstance(block, dict):
            shown = a_json_type(block)
            raise NotACompletion(f"content[{index}] is {shown}, expected an object")
        block_type = _get(block, "type", where, str)
        if block_type == "text":
            texts.append(_get(block, "text", where, str))
        elif block_type == "thinking" and isinstance(block.get("thinking"), str):
            thoughts.append(block["thinking"])
        elif block_type == "tool_use" and block.get("name") == TOOL_NAME and tool is None:
            tool = json.dumps(block.get("input"), ensure_ascii=False)
    return Completion(
        text=tool if tool is not None else "".join(texts),
        usage=anthropic_usage(top.get("usage")),
        model=_model(top, request),
        stop_reason=stop_reason(top.get("stop_reason")),
        reasoning="\n\n".join(t for t in thoughts if t) or None,
    )


Reader = Callable[[Any, CompletionRequest], Completion]


def read_completion(
    provider: str,
    reader: Reader,
    body: bytes,
    request: CompletionRequest,
    content_type: str | None = None,
) -> Completion:
    """``body`` read by ``reader``, or :class:`BadResponseError` naming ``provider`` and why."""
    try:
        return reader(decode_body(body, content_type), request)
    except NotACompletion as exc:
        # the server's words may quote a key: redacted like every message
        raise BadResponseError(
            "decode", redact(f"{provider}: the answer is not a completion: {exc}")
        ) from None


class HttpResponse(Protocol):
    """What a completion is read from: an SDK's raw HTTP response (its body read)."""

    @property
    def content(self) -> bytes:
        """The body."""
        ...

    @property
    def headers(self) -> Mapping[str, str]:
        """The response's headers (``content-type`` among them)."""
        ...


async def read_completion_async(
    provider: str, reader: Reader, response: HttpResponse, request: CompletionRequest
) -> Completion:
    """:func:`read_completion` of ``response``'s body, under its content type; in a worker
    thread for a body over :data:`OFF_LOOP_BYTES`."""
    body, content_type = response.content, response.headers.get("content-type")
    if len(body) > OFF_LOOP_BYTES:
        completion = await asyncio.to_thread(
            read_completion, provider, reader, body, request, content_type
        )
    else:
        completion = read_completion(provider, reader, body, request, content_type)
    if completion.server_ms is None:
        timed = header_server_ms(response.headers)
        if timed is not None:
            completion = replace(completion, server_ms=timed)
    return completion


__all__ = [
    "MAX_BODY_DEPTH",
    "MAX_BODY_TOKENS",
    "MAX_MODEL_CHARS",
    "MAX_SERVER_MS",
    "MAX_STOP_REASON_CHARS",
    "OFF_LOOP_BYTES",
    "PROCESSING_MS_HEADER",
    "REASONING_KEYS",
    "HttpResponse",
    "NotACompletion",
    "Reader",
    "anthropic_completion",
    "anthropic_usage",
    "decode_body",
    "header_server_ms",
    "llama_cpp_server_ms",
    "openai_completion",
    "openai_usage",
    "read_completion",
    "read_completion_async",
    "server_ms",
    "stop_reason",
]
