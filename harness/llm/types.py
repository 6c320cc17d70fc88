"""The small vocabulary every provider speaks: messages in; text, usage, latency out."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from harness.llm.shapes import Shape

from harness.defaults import CALL_TIMEOUT_SECONDS, MAX_TOKENS
from harness.models import JsonObject
from harness.text import ClippedReply, scrub_surrogates

Role = Literal["system", "user", "assistant"]
#: The HTTP library an SDK sends its requests through.
Transport = Literal["httpx", "aiohttp"]
#: How hard an OpenAI reasoning model (o-series, GPT-5 family) thinks before it answers.
ReasoningEffort = Literal["minimal", "low", "medium", "high"]
#: OpenAI's service tiers: ``flex`` is cheaper and slower, ``priority`` dearer and faster.
ServiceTier = Literal["auto", "default", "flex", "priority"]
#: The Chat Completions field a request's token limit goes in: OpenAI's reasoning models
#: take only ``max_completion_tokens``, most compatible servers only ``max_tokens``.
MaxTokensField = Literal["max_tokens", "max_completion_tokens"]


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Role
    content: str


def messages_sha256(messages: Sequence[Message]) -> str:
    """sha256 of ``messages`` as records keep it: of the UTF-8 JSON ``[[role, content], ...]``.

    Compact JSON (no spaces), non-ASCII characters as themselves, a lone surrogate as
    U+FFFD (as records keep replies, so a failed reply echoed in a retry hashes the same
    from the record): the same messages give the same hash on every platform, and any
    change to a role or a text changes it.
    """
    pairs = [[m.role, m.content] for m in messages]
    text = json.dumps(pairs, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(scrub_surrogates(text).encode("utf-8")).hexdigest()


#: Bytes of UTF-8 per estimated token: the one estimate of a text's tokens, used by the
#: budget (harness.tournament.budget) and to price a call whose counts are unknown.
TOKEN_BYTES = 4


def estimate_tokens(text: str) -> int:
    """Tokens estimated for ``text``: its UTF-8 bytes / :data:`TOKEN_BYTES`, rounded up."""
    return -(-len(text.encode("utf-8", "surrogatepass")) // TOKEN_BYTES)


#: The largest token count believed. A count past it, negative, fractional, or not a
#: number at all is *unknown*: no context window holds a billion tokens.
MAX_TOKEN_COUNT = 1_000_000_000


def token_count(value: object) -> int | None:
    """``value`` as a token count, or None (unknown) when it is not one.

    A count is an integer (or a float with an integral value, as some servers write
    them) from 0 to :data:`MAX_TOKEN_COUNT`. Booleans, NaN, infinities, strings, null,
    10**400 and negative numbers are unknown; nothing is computed from the value
    before it passes (comparisons only), so no value can overflow or raise.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_TOKEN_COUNT else None
    if isinstance(value, float) and value.is_integer() and 0 <= value <= MAX_TOKEN_COUNT:
        return int(value)
    return None


@dataclass(frozen=True)
class Usage:
    """Token counts of one answer. None: unknown (the provider reported no count, or one
    that is not a count, see :func:`token_count`).

    Every field is a count of the same kind, checked the same way (:meth:`checked`),
    stored the same way by the call cache and written the same way in a record: the
    call's ledger. The counts nest, the same for every provider:

    - ``input_tokens``: every input token the call was billed for, read from the
      provider's cache or written to it included (OpenAI's ``prompt_tokens``;
      Anthropic's ``input_tokens`` plus its two cache counts);
    - ``cached_input_tokens``: of those, the ones read from the provider's prompt
      cache (OpenAI ``prompt_tokens_details.cached_tokens``, Anthropic
      ``cache_read_input_tokens``);
    - ``cache_write_tokens``: of those, the ones written to it (Anthropic
      ``cache_creation_input_tokens``), and of these ``cache_write_1h_tokens`` the ones
      kept for an hour (``cache_creation.ephemeral_1h_input_tokens``; the rest for
      five minutes);
    - ``output_tokens``: every output token, reasoning included, and of those
      ``reasoning_tokens`` the model's reasoning (OpenAI
      ``completion_tokens_details.reasoning_tokens``).

    A count the provider does not report is None; for the cache and reasoning counts
    that is what every server without a cache, or a model that does not reason, says.
    """

    input_tokens: int | None = 0
    output_tokens: int | None = 0
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    cache_write_1h_tokens: int | None = None

    @classmethod
    def reported(cls, **counts: object) -> Usage:
        """Usage from counts as a provider sent them (any JSON value), each checked; a
        count not given is unknown."""
        names = {f.name for f in fields(cls)}
        return cls(**{name: token_count(counts.get(name)) for name in names})

    def checked(self) -> Usage:
        """This usage with every count checked again (for providers that build their own)."""
        return Usage.reported(**{f.name: getattr(self, f.name) for f in fields(self)})

    @property
    def known(self) -> bool:
        """Whether the input and output counts are both known (the ones a price needs)."""
        return self.input_tokens is not None and self.output_tokens is not None

    def as_json(self) -> dict[str, int | None]:
        """The counts by field name (how the call cache stores them)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class CacheHint:
    """Where a request's prompt may be cached by the provider (seat option ``prompt_cache``).

    ``key`` is the same for every call of one seat's prompts (OpenAI's
    ``prompt_cache_key``, which routes calls sharing a start to the same cache);
    ``through`` is the index of the last message of the start that the seat's next
    call will send again (0: the system prompt alone), where Anthropic's
    ``cache_control`` breakpoints go. Neither changes the answer: the call cache's
    key leaves the hint out.
    """

    key: str
    through: int = 0


@dataclass(frozen=True)
class CompletionRequest:
    """One call's inputs.

    ``json_schema``: the reply's schema, sent in the way ``shape`` says (see
    :mod:`harness.llm.shapes`); a schema without a shape is sent as ``json_schema``.
    ``cache``: the provider's prompt cache asked for (None: not asked).
    The reasoning settings (``reasoning_effort``, ``thinking_budget``), the
    ``service_tier`` and ``max_tokens_field`` are sent only by the providers that take
    them (the seat options refuse them for any other, :mod:`harness.llm.options`);
    None sends nothing.
    """

    model: str
    messages: tuple[Message, ...]
    temperature: float | None = None
    max_tokens: int = MAX_TOKENS
    seed: int | None = None
    json_schema: JsonObject | None = None
    timeout_s: float = CALL_TIMEOUT_SECONDS
    shape: Shape | None = None
    cache: CacheHint | None = None
    reasoning_effort: ReasoningEffort | None = None
    thinking_budget: int | None = None
    service_tier: ServiceTier | None = None
    max_tokens_field: MaxTokensField | None = None

    @property
    def sent_shape(self) -> Shape | None:
        """The shape this request goes out in (None: no structured output)."""
        if self.json_schema is None:
            return None
        return self.shape or "json_schema"


@dataclass(frozen=True)
class Completion:
    """One call's output.

    ``clipped`` is set on an answer read back from the call cache when the reply was
    longer than a record keeps (1 MiB, decision R8): ``text`` is then only its start,
    and ``clipped`` the record form of the whole reply (its length and sha256).
    ``stop_reason`` is why the model stopped, in its API's words (OpenAI's
    ``finish_reason``, Anthropic's ``stop_reason``); None when not said (an answer
    from the call cache, which does not keep it).
    ``reasoning`` is the model's reasoning text, as its API gives it beside the reply
    (an OpenAI-compatible server's ``reasoning_content``, Anthropic's thinking blocks),
    None when it gave none; once checked (:func:`harness.llm.calls.check_completion`)
    it is cut at 1 MiB of UTF-8 as a reply is, and ``reasoning_clipped`` says whether
    it was. ``service_tier`` is the tier that served the call, as OpenAI says (None
    when not said).
    """

    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    clipped: ClippedReply | None = None
    stop_reason: str | None = None
    server_ms: float | None = None
    """The server's own time for the request, in ms, where it reports one (llama.cpp's
    ``timings``, OpenAI's ``openai-processing-ms``); None when it does not."""
    reasoning: str | None = None
    reasoning_clipped: bool = False
    service_tier: str | None = None


class Provider(Protocol):
    """An LLM API behind one async call. Implementations raise only ProviderError kinds.

    Retrying, throttling, time bounds and accounting are not the provider's business:
    :mod:`harness.llm.calls` wraps every call once, in one place.
    """

    name: str

    async def complete(self, request: CompletionRequest) -> Completion:
        """Send ``request`` once and return the reply text and usage."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


__all__ = [
    "MAX_TOKEN_COUNT",
    "TOKEN_BYTES",
    "CacheHint",
    "Completion",
    "CompletionRequest",
    "MaxTokensField",
    "Message",
    "Provider",
    "ReasoningEffort",
    "Role",
    "ServiceTier",
    "Transport",
    "Usage",
    "estimate_tokens",
    "messages_sha256",
    "token_count",
]
