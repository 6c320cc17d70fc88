"""What a model replied in a turn and the accounting of each of its calls."""

from __future__ import annotations

from pydantic import Field

from harness.models import absent_if_empty, absent_if_none
from harness.records.base import RecordModel


class ParseErrorRecord(RecordModel):
    """Why a model's reply did not parse."""

    kind: str
    message: str


class ModelReply(RecordModel):
    """One reply a model gave this tick (the first, and the retry if there was one)."""

    raw: str = Field(description="The reply text, whole up to 1 MiB (decision R8).")
    raw_length: int = Field(description="Length of the full reply in UTF-8 bytes.")
    raw_sha256: str = Field(description="sha256 of the full reply's UTF-8 bytes.")
    raw_clipped: bool = Field(False, description="True when raw was cut at 1 MiB.")
    parse_error: ParseErrorRecord | None = Field(None, description="Null when the reply parsed.")
    reasoning: str | None = absent_if_none(
        description="The model's reasoning beside this reply, as its API gave it (an "
        "OpenAI-compatible server's reasoning_content, Anthropic's thinking blocks, or "
        "their summary), redacted and cut at 1 MiB of UTF-8 as raw is; absent when it "
        "gave none, and on older records.",
    )
    reasoning_clipped: bool = absent_if_empty(
        False,
        description="True when reasoning was cut at 1 MiB (absent when false).",
    )


class CallWallClock(RecordModel):
    """Wall-clock facts of one call: all of it, and its two parts (null on older records).

    ``latencyMs`` runs from the call's start to its end, retries and backoff included;
    ``waitMs`` is the part spent waiting for the harness's own limiter (rate limit,
    in-flight cap); ``requestMs`` the part spent in HTTP requests, which includes any
    queue inside the server.
    """

    latency_ms: float
    wait_ms: float | None = absent_if_none()
    request_ms: float | None = absent_if_none()
    server_ms: float | None = absent_if_none(
        description="The server's own time for the answered request, where it reports "
        "one (llama.cpp's timings, OpenAI's openai-processing-ms); absent otherwise.",
    )
    overlapped: bool | None = absent_if_none(
        description="Whether another request to the same server (endpoint) was in flight "
        "during the answered request, from any seat or episode; absent without an "
        "answer, and on older records.",
    )


class CallRecord(RecordModel):
    """Accounting for one logical LLM call, its transport retries included."""

    provider: str
    model: str
    attempts: int
    errors: list[str] = Field(description="The error kind of every failed attempt.")
    failure: str | None = Field(None, description="Why the call gave up, or null.")
    input_tokens: int | None = Field(
        description="Input tokens as the server counted them, those read from or written "
        "to its prompt cache included (for Anthropic: its inputTokens and its two cache "
        "counts together); null when it gave no usable "
        "count (none, or not a count: negative, not a number, past a billion), and then "
        "the call's cost is priced at the bound of its input (docs/llm.md)."
    )
    output_tokens: int | None = Field(
        description="Output tokens as the server counted them; null when unknown, as for "
        "inputTokens (priced at the request's maxTokens)."
    )
    reasoning_tokens: int | None = Field(
        None,
        description="Of outputTokens, the model's reasoning, as the server counted them; "
        "null when it reports none (every model that does not reason).",
    )
    cached_input_tokens: int | None = absent_if_none(
        description="Of inputTokens, those read from the provider's prompt cache; absent "
        "when the server reported none (or no usable count), and on older records.",
    )
    cache_write_tokens: int | None = absent_if_none(
        description="Of inputTokens, those written to the provider's prompt cache "
        "(Anthropic); absent when none were reported, as for cachedInputTokens.",
    )
    cache_write_1h_tokens: int | None = absent_if_none(
        alias="cacheWrite1hTokens",
        description="Of cacheWriteTokens, those kept for an hour (the rest for five "
        "minutes); absent when the server did not say.",
    )
    stop_reason: str | None = absent_if_none(
        description="Why the model stopped, in its API's words (finish_reason: stop, "
        "length, ...; stop_reason: end_turn, max_tokens, tool_use, ...), cut to 40 "
        "characters; absent when the call failed, the provider did not say, or on "
        "older records.",
    )
    service_tier: str | None = absent_if_none(
        description="The OpenAI service tier that served the call (default, flex, "
        "priority, ...), as the answer said, cut to 40 characters; absent when it said "
        "none, and on older records.",
    )
    cost_usd: float | None = Field(
        None,
        description="The call's price from the provider's prices (null without one); an "
        "upper bound when a token count is null.",
    )
    cached: bool = absent_if_empty(
        False,
        description="True when the answer came from the call cache: no request was made "
        "(absent when false).",
    )
    message: str | None = absent_if_none(
        description="The server's message for the last failed attempt, redacted and cut "
        "to 1000 characters (absent when no attempt failed).",
    )
    prompt_sha256: str | None = absent_if_none(
        description="sha256 of the messages sent, as UTF-8 JSON [[role, content], ...] "
        "(compact, lone surrogates as U+FFFD); absent on records written before it existed.",
    )
    endpoint: str | None = absent_if_none(
        description="For a provider with several base URLs: the endpoint that answered "
        "(its URL without credentials); absent otherwise, and when none answered.",
    )
    endpoint_errors: dict[str, int] = absent_if_empty(
        default_factory=dict,
        description="For a provider with several base URLs: the failed attempts per "
        "endpoint (absent when none failed at an endpoint).",
    )
    wall_clock: CallWallClock | None = None
