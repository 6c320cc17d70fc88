"""What the scripted server may do with a request: reply, fail, send raw bytes or a body
that never ends, hang, or drop the connection."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from harness.models import JsonObject


@dataclass(frozen=True)
class Reply:
    """A successful completion whose text is ``text``.

    The counts are the harness's ledger (:class:`harness.llm.types.Usage`), sent in
    each API's own shape: ``input_tokens`` is every input token, ``cached_tokens`` and
    ``cache_write_tokens`` (of which ``cache_write_1h_tokens`` for an hour) parts of it;
    OpenAI gets ``prompt_tokens`` whole and ``prompt_tokens_details.cached_tokens``,
    Anthropic its ``input_tokens`` without the cached and written ones beside
    ``cache_read_input_tokens``, ``cache_creation_input_tokens`` and the
    ``cache_creation`` lifetimes. A count left None is not sent. ``stop_reason`` is
    sent as ``finish_reason`` (OpenAI) or ``stop_reason`` (Anthropic); None sends
    ``stop`` or ``end_turn`` (``tool_use`` for a tool call).

    ``usage_json``, when given, is the JSON text of the usage object, sent verbatim in
    place of the one the token counts make (``'{"prompt_tokens": NaN}'``, ``'null'``...).

    ``reasoning``, when given, is the model's reasoning beside the reply: OpenAI's
    message gets it as ``reasoning_content`` (as vLLM and llama.cpp send it), Anthropic's
    content a ``thinking`` block before the text (an empty ``text`` then sends no text
    block, as a model cut off while thinking does). ``service_tier`` is the tier an
    OpenAI answer says served it; None says the tier the request asked for (``auto``
    served as ``default``), or nothing when it asked for none.
    """

    text: str
    delay_s: float = 0.0
    input_tokens: int = 50
    output_tokens: int = 10
    reasoning_tokens: int | None = None
    usage_json: str | None = None
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None
    cache_write_1h_tokens: int | None = None
    stop_reason: str | None = None
    reasoning: str | None = None
    service_tier: str | None = None


@dataclass(frozen=True)
class Fail:
    """An HTTP error status with an optional JSON body and headers."""

    status: int
    body: Mapping[str, object] = field(default_factory=lambda: {"error": {"message": "scripted"}})
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Raw:
    """Exactly these bytes as a response body (e.g. invalid UTF-8), with ``status``
    (200) and extra ``headers`` (a ``content-encoding``, say)."""

    body: bytes
    content_type: str = "application/json"
    delay_s: float = 0.0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Endless:
    """A response whose body never ends: ``prefix``, then ``chunk`` again and again until
    the client hangs up (or the server stops).

    Sent with chunked encoding, or, with ``declared``, under a Content-Length of that
    many bytes (10 GiB, say) that it never reaches. Each such response that ended
    because the client closed the connection is counted in ``hung_up``.
    """

    status: int = 200
    declared: int | None = None
    prefix: bytes = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
    chunk: bytes = b"x" * (1 << 16)
    content_type: str = "application/json"


@dataclass(frozen=True)
class Hang:
    """Answer nothing for ``seconds`` (or until the server stops), then close."""

    seconds: float = 3600.0


@dataclass(frozen=True)
class Drop:
    """Close the connection without answering."""


Action = Reply | Fail | Raw | Endless | Hang | Drop
Handler = Callable[[str, JsonObject], Action]
#: Decides whether a request's structured-output shape is refused: a Fail, or None.
ShapeRule = Callable[[str, JsonObject], "Fail | None"]
