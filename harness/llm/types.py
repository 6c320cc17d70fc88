"""The small vocabulary every provider speaks: messages in; text, usage, latency out."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from harness.llm.shapes import Shape

from harness.defaults import CALL_TIMEOUT_SECONDS, MAX_TOKENS
from harness.text import scrub_surrogates

Role = Literal["system", "user", "assistant"]
#: The HTTP library an SDK sends its requests through.
Transport = Literal["httpx", "aiohttp"]


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


@dataclass(frozen=True)
class Usage:
    """Token counts as the provider reported them (None where it did not)."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int | None = None


@dataclass(frozen=True)
class CompletionRequest:
    """One call's inputs.

    ``json_schema``: the reply's schema, sent in the way ``shape`` says (see
    :mod:`harness.llm.shapes`); a schema without a shape is sent as ``json_schema``.
    """

    model: str
    messages: tuple[Message, ...]
    temperature: float | None = None
    max_tokens: int = MAX_TOKENS
    seed: int | None = None
    json_schema: dict[str, Any] | None = None
    timeout_s: float = CALL_TIMEOUT_SECONDS
    shape: Shape | None = None

    @property
    def sent_shape(self) -> Shape | None:
        """The shape this request goes out in (None: no structured output)."""
        if self.json_schema is None:
            return None
        return self.shape or "json_schema"


@dataclass(frozen=True)
class Completion:
    """One call's output."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""


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
    "Completion",
    "CompletionRequest",
    "Message",
    "Provider",
    "Role",
    "Transport",
    "Usage",
    "messages_sha256",
]
