"""The HTTP side of a scripted server: its socket server, the handler that answers each
connection's requests as the script says, and the note kept of each request received."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from harness.models import JsonObject
from harness.testing.llm_server.actions import Action, Drop, Endless, Fail, Hang, Raw
from harness.testing.llm_server.completions import completion_body

if TYPE_CHECKING:
    from harness.testing.llm_server.server import ScriptedLLMServer


class ScriptedHTTPServer(ThreadingHTTPServer):
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


class _Handler(BaseHTTPRequestHandler):
    """One connection's requests, answered as the server's script says."""

    server: ScriptedHTTPServer
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
