"""A scripted OpenAI- and Anthropic-compatible HTTP server on 127.0.0.1.

Tests, demos and benchmarks point the real SDKs at it (``base_url``) and script what
each request gets: a reply text (with any usage object, verbatim), an HTTP error with
headers, a delay, a dropped connection, raw bytes with any status and headers (a body
that is not valid UTF-8, an HTML page, a gzip bomb), or a body that never ends
(chunked, or under a Content-Length it never reaches). It answers ``POST /v1/chat/completions``
in OpenAI's shape and ``POST /v1/messages`` in Anthropic's (a forced tool is answered
with a ``tool_use`` block holding the reply), and keeps every request it saw (path,
headers, JSON body) for assertions. ``GET /props`` answers ``props`` when given, as
llama.cpp's server describes itself (its chat template, its model file), else 404.

It can behave as the local servers do: ``shapes`` decides which structured-output
requests it refuses (:func:`llama_cpp_python` answers ``json_schema`` with the HTTP
500 llama-cpp-python gives; :func:`json_object_schema_only` takes nothing but a
``json_object`` with a schema), and ``serial=True`` answers one request at a time,
as a server with one slot does (``peak_serving`` stays 1 while ``peak_in_flight``
counts the requests waiting for it). With ``prefix_cache`` (a :class:`PrefixCache`)
it reports usage as a provider with a prompt cache would: the prompt's tokens, and,
of them, the ones its longest common start with an earlier request shares.
``timings=True`` adds llama.cpp's ``timings`` to
each OpenAI answer: the time the server worked on the request (from the moment it
took it up, a serial server's queue left out), as llama.cpp reports its own.

    with ScriptedLLMServer() as server:
        server.push(Reply('{"move": "N"}'), Fail(429, headers={"retry-after": "0"}))
        ...  # AsyncOpenAI(base_url=server.openai_url, api_key=...)
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import JsonValue

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

#: llama-cpp-python's words when ``response_format.type`` is not one it knows.
LLAMA_CPP_PYTHON_MESSAGE = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  "
    "Input should be 'text' or 'json_object' [type=literal_error, input_value='{kind}', "
    "input_type=str]"
)


def _format_type(body: JsonObject) -> str | None:
    shape = body.get("response_format")
    kind = shape.get("type") if isinstance(shape, dict) else None
    return kind if isinstance(kind, str) else None


def llama_cpp_python(path: str, body: JsonObject) -> Fail | None:
    """llama-cpp-python's server: ``json_object`` (with or without a schema) or plain text;
    any other ``response_format`` gets an HTTP 500 with a validation message."""
    kind = _format_type(body)
    if kind is None or kind in ("text", "json_object"):
        return None
    message = LLAMA_CPP_PYTHON_MESSAGE.format(kind=kind)
    return Fail(500, body={"error": {"message": message, "type": "internal_server_error"}})


def json_object_schema_only(path: str, body: JsonObject) -> Fail | None:
    """A server that takes nothing but ``{"type": "json_object", "schema": {...}}`` (HTTP 400)."""
    shape = body.get("response_format")
    if isinstance(shape, dict) and shape.get("type") == "json_object" and "schema" in shape:
        return None
    message = "response_format must be a json_object with a schema"
    return Fail(400, body={"error": {"message": message, "type": "invalid_request_error"}})


def json_schema_only(path: str, body: JsonObject) -> Fail | None:
    """A server that wants a JSON Schema (OpenAI's ``json_schema``, or Anthropic's
    ``output_config``) on every request (HTTP 400 otherwise)."""
    if _format_type(body) == "json_schema" or "output_config" in body:
        return None
    message = "this test server only answers requests with a json_schema"
    return Fail(400, body={"error": {"message": message, "type": "invalid_request_error"}})


@dataclass
class PrefixCache:
    """Usage as a provider's prompt cache would bill it, for measuring what caching saves.

    A request's input is its prompt's tokens, estimated as 4 bytes of UTF-8 a token
    (the harness's estimate) over its prompt text (each message's role and content,
    the system prompt first; for Messages, ``system`` and every text block). Of them,
    the cached are the longest common start, in whole tokens, with any of the last
    ``remembered`` requests to the same model, rounded down to a multiple of ``step``
    and 0 below ``min_tokens``; OpenAI bills this way (1024 tokens at least, then
    steps of 128), and ``min_tokens=0, step=1`` gives the bare shared start. Every
    reply's counts are replaced by these; ``input_tokens`` and ``cached_tokens`` sum
    what was reported.
    """

    min_tokens: int = 1024
    step: int = 128
    remembered: int = 64
    input_tokens: int = 0
    cached_tokens: int = 0
    _seen: dict[str, deque[str]] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def usage(self, path: str, body: JsonObject) -> tuple[int, int]:
        """The input tokens of ``body`` and how many of them were cached, remembering it."""
        text = prompt_text(path, body)
        model = str(body.get("model"))
        with self._lock:  # the server answers each request in a thread of its own
            seen = self._seen.setdefault(model, deque(maxlen=self.remembered))
            shared = max((common_start(text, old) for old in seen), default=0)
            seen.append(text)
            tokens = -(-len(text.encode("utf-8")) // 4)
            cached = len(text[:shared].encode("utf-8")) // 4 // self.step * self.step
            cached = cached if cached >= self.min_tokens else 0
            self.input_tokens += tokens
            self.cached_tokens += cached
        return tokens, cached


def common_start(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at their start (a binary search over
    slices, each compared in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def prompt_text(path: str, body: JsonObject) -> str:
    """A request's prompt as one text (see :class:`PrefixCache`)."""
    parts: list[str] = []

    def add(role: str, content: object) -> None:
        if isinstance(content, list):
            texts = [b.get("text") for b in content if isinstance(b, dict)]
            content = "".join(t for t in texts if isinstance(t, str))
        if isinstance(content, str):
            parts.append(f"{role}\n{content}\n")

    if path.endswith("/messages"):
        add("system", body.get("system"))
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict):
            add(str(message.get("role")), message.get("content"))
    return "".join(parts)


class _Server(ThreadingHTTPServer):
    """The HTTP server of one :class:`ScriptedLLMServer`, which its handlers answer for."""

    # The standard library queues only 5 pending connections; a burst of concurrent
    # clients opening connections would see some of them reset.
    request_queue_size = 256

    def __init__(self, scripted: ScriptedLLMServer, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.scripted = scripted


@dataclass(frozen=True)
class SeenRequest:
    """A request the server received, and when (``time.monotonic()``)."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float


class ScriptedLLMServer:
    """The server. Scripted actions are served in order; when none is queued, ``default``."""

    def __init__(
        self,
        default: Handler | Action | None = None,
        *,
        shapes: ShapeRule | None = None,
        serial: bool = False,
        timings: bool = False,
        port: int = 0,
        keep_requests: bool = True,
        prefix_cache: PrefixCache | None = None,
        props: JsonValue = None,
    ) -> None:
        self._queue: deque[Action] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.default: Handler | Action = default or Reply('{"move": "WAIT"}')
        self.shapes = shapes
        """Refuses the structured-output shapes this server does not take (None: none)."""
        self.serial = serial
        """Answer one request at a time (the others wait in the server, connected)."""
        self._one_at_a_time = threading.Lock()
        self.timings = timings
        """Report the time worked on each request, as llama.cpp's ``timings``."""
        self.keep_requests = keep_requests
        self.prefix_cache = prefix_cache
        """Reports each reply's usage as a prompt cache would (None: as scripted)."""
        """Keep every request in :attr:`requests` (off for a server that runs for long)."""
        self.props = props
        """What ``GET /props`` answers, as llama.cpp's server describes itself (its
        ``chat_template``, ``model_path``...); None: a 404, as other servers give."""
        self.gets: list[str] = []
        """The path of every GET request seen."""
        self.requests: list[SeenRequest] = []
        self.in_flight = 0
        """Requests received and not yet answered (waiting ones included)."""
        self.peak_in_flight = 0
        """The most requests ever in flight at once (reset it between measurements)."""
        self.serving = 0
        """Requests being worked on right now (at most 1 when ``serial``)."""
        self.peak_serving = 0
        """The most requests ever worked on at once."""
        self.hung_up = 0
        """Endless responses the client ended by closing the connection."""
        self.streamed: list[int] = []
        """The bytes each ended endless response had sent."""
        # port 0: a free one, picked by the system
        self._httpd = _Server(self, port)
        self._httpd.daemon_threads = True
        # a short poll: stop() returns within 50 ms, not the standard 0.5 s
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self._httpd.server_address[1])

    @property
    def openai_url(self) -> str:
        """``base_url`` for the openai SDK."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        """``base_url`` for the anthropic SDK."""
        return f"http://127.0.0.1:{self.port}"

    def push(self, *actions: Action) -> None:
        """Queue actions for the next requests, in order."""
        with self._lock:
            self._queue.extend(actions)

    def start(self) -> ScriptedLLMServer:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging requests are released."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, path: str, body: JsonObject) -> Action:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        default = self.default
        return default(path, body) if callable(default) else default

    def _answer(self, path: str, body: JsonObject) -> Action:
        """What a request gets: its shape refused, or the next scripted action."""
        refused = self.shapes(path, body) if self.shapes else None
        action = refused or self._next(path, body)
        if isinstance(action, Reply) and self.prefix_cache is not None:
            tokens, cached = self.prefix_cache.usage(path, body)
            action = replace(action, input_tokens=tokens, cached_tokens=cached)
        return action

    @contextlib.contextmanager
    def _received(self, seen: SeenRequest) -> Iterator[None]:
        """A request kept and counted in flight while it is answered (waiting included)."""
        with self._lock:
            if self.keep_requests:
                self.requests.append(seen)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self._lock:
                self.in_flight -= 1

    @contextlib.contextmanager
    def _serving(self) -> Iterator[float]:
        """A request worked on: one at a time when ``serial``, counted while it is; gives
        the ``time.monotonic()`` it was taken up at."""
        with self._one_at_a_time if self.serial else contextlib.nullcontext():
            with self._lock:
                self.serving += 1
                self.peak_serving = max(self.peak_serving, self.serving)
            try:
                yield time.monotonic()
            finally:
                with self._lock:
                    self.serving -= 1

    def _ended_stream(self, sent: int) -> None:
        """The client hung up an endless response after ``sent`` bytes."""
        with self._lock:
            self.hung_up += 1
            self.streamed.append(sent)


class _Handler(BaseHTTPRequestHandler):
    """One connection's requests, answered as the server's script says."""

    server: _Server
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without this, Nagle's
    # algorithm and delayed ACKs add ~40 ms to every response.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def do_GET(self) -> None:
        scripted = self.server.scripted
        with scripted._lock:
            scripted.gets.append(self.path)
        if self.path == "/props" and scripted.props is not None:
            self._send(200, json.dumps(scripted.props).encode(), {})
        else:
            self._send(404, b'{"error": {"message": "not found"}}', {})

    def do_POST(self) -> None:
        scripted = self.server.scripted
        length = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(length)
        try:
            parsed = json.loads(raw or b"{}")
        except ValueError:
            parsed = {}
        body: JsonObject = parsed if isinstance(parsed, dict) else {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        seen = SeenRequest(self.path, headers, body, time.monotonic())
        with scripted._received(seen), scripted._serving() as began:
            self._act(scripted._answer(self.path, body), body, began)

    def _act(self, action: Action, body: JsonObject, began: float) -> None:
        stopping = self.server.scripted._stopping
        delay = getattr(action, "delay_s", 0.0)
        if delay:
            stopping.wait(delay)
        if isinstance(action, Hang):
            stopping.wait(action.seconds)
            self.close_connection = True
        elif isinstance(action, Drop):
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        elif isinstance(action, Fail):
            self._send(action.status, json.dumps(action.body).encode(), action.headers)
        elif isinstance(action, Raw):
            self._send(action.status, action.body, action.headers, action.content_type)
        elif isinstance(action, Endless):
            self._stream(action)
        else:
            worked = (time.monotonic() - began) * 1000 if self.server.scripted.timings else None
            self._send(200, completion_body(self.path, body, action, timings_ms=worked), {})

    def _send(
        self,
        status: int,
        payload: bytes,
        headers: dict[str, str],
        content_type: str = "application/json",
    ) -> None:
        self._head(status, content_type, {"content-length": str(len(payload)), **headers})
        self.wfile.write(payload)

    def _head(self, status: int, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

    def _stream(self, action: Endless) -> None:
        self.close_connection = True
        length = (
            {"content-length": str(action.declared)}
            if action.declared is not None
            else {"transfer-encoding": "chunked"}
        )
        self._head(action.status, action.content_type, length)
        frame = (
            (lambda data: data)
            if action.declared is not None
            else (lambda data: b"%x\r\n%s\r\n" % (len(data), data))
        )
        sent = 0
        try:
            self.wfile.write(frame(action.prefix))
            sent += len(action.prefix)
            while not self.server.scripted._stopping.is_set():
                self.wfile.write(frame(action.chunk))
                sent += len(action.chunk)
        except OSError:  # the client closed the connection: what it should do
            self.server.scripted._ended_stream(sent)


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


__all__ = [
    "LLAMA_CPP_PYTHON_MESSAGE",
    "Action",
    "Drop",
    "Endless",
    "Fail",
    "Hang",
    "PrefixCache",
    "Raw",
    "Reply",
    "ScriptedLLMServer",
    "SeenRequest",
    "ShapeRule",
    "common_start",
    "completion_body",
    "json_object_schema_only",
    "json_schema_only",
    "llama_cpp_python",
    "prompt_text",
]
