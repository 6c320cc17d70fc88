"""A scripted OpenAI- and Anthropic-compatible HTTP server on 127.0.0.1.

Tests, demos and benchmarks point the real SDKs at it (``base_url``) and script what
each request gets: a reply text, an HTTP error with headers, a delay, a dropped
connection, a body that is not valid UTF-8. It answers ``POST /v1/chat/completions``
in OpenAI's shape and ``POST /v1/messages`` in Anthropic's, and keeps every request
it saw (path, headers, JSON body) for assertions.

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
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """A successful completion whose text is ``text``."""

    text: str
    delay_s: float = 0.0
    input_tokens: int = 50
    output_tokens: int = 10
    reasoning_tokens: int | None = None


@dataclass(frozen=True)
class Fail:
    """An HTTP error status with an optional JSON body and headers."""

    status: int
    body: dict[str, Any] = field(default_factory=lambda: {"error": {"message": "scripted"}})
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Raw:
    """Exactly these bytes as a 200 response body (e.g. invalid UTF-8)."""

    body: bytes
    content_type: str = "application/json"
    delay_s: float = 0.0


@dataclass(frozen=True)
class Hang:
    """Answer nothing for ``seconds`` (or until the server stops), then close."""

    seconds: float = 3600.0


@dataclass(frozen=True)
class Drop:
    """Close the connection without answering."""


Action = Reply | Fail | Raw | Hang | Drop
Handler = Callable[[str, dict[str, Any]], Action]


class _Server(ThreadingHTTPServer):
    # The standard library queues only 5 pending connections; a burst of concurrent
    # clients opening connections would see some of them reset.
    request_queue_size = 256


@dataclass(frozen=True)
class SeenRequest:
    """A request the server received, and when (``time.monotonic()``)."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float


class ScriptedLLMServer:
    """The server. Scripted actions are served in order; when none is queued, ``default``."""

    def __init__(self, default: Handler | Action | None = None) -> None:
        self._queue: deque[Action] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.default: Handler | Action = default or Reply('{"move": "WAIT"}')
        self.requests: list[SeenRequest] = []
        self.in_flight = 0
        """Requests being answered right now."""
        self.peak_in_flight = 0
        """The most requests ever answered at once (reset it between measurements)."""
        self._httpd = _Server(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

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

    def _next(self, path: str, body: dict[str, Any]) -> Action:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        default = self.default
        return default(path, body) if callable(default) else default

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes: without this, Nagle's
            # algorithm and delayed ACKs add ~40 ms to every response.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                with server._lock:
                    server.requests.append(
                        SeenRequest(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                            time.monotonic(),
                        )
                    )
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                try:
                    self._act(server._next(self.path, body), body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _act(self, action: Action, body: dict[str, Any]) -> None:
                delay = getattr(action, "delay_s", 0.0)
                if delay:
                    server._stopping.wait(delay)
                if isinstance(action, Hang):
                    server._stopping.wait(action.seconds)
                    self.close_connection = True
                    return
                if isinstance(action, Drop):
                    self.close_connection = True
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if isinstance(action, Fail):
                    self._send(action.status, json.dumps(action.body).encode(), action.headers)
                    return
                if isinstance(action, Raw):
                    self._send(200, action.body, {}, action.content_type)
                    return
                self._send(200, json.dumps(_completion(self.path, body, action)).encode(), {})

            def _send(
                self,
                status: int,
                payload: bytes,
                headers: dict[str, str],
                content_type: str = "application/json",
            ) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

        return _Handler


def _completion(path: str, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    model = body.get("model", "scripted-model")
    if path.endswith("/messages"):
        return {
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
        }
    usage: dict[str, Any] = {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }
    if reply.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }


__all__ = [
    "Action",
    "Drop",
    "Fail",
    "Hang",
    "Raw",
    "Reply",
    "ScriptedLLMServer",
    "SeenRequest",
]
