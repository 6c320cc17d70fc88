"""The scripted server itself: its queue of actions, the requests it saw and its counts of
requests in flight."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import replace

from pydantic import JsonValue

from harness.models import JsonObject
from harness.testing.llm_server.actions import Action, Handler, Reply, ShapeRule
from harness.testing.llm_server.handler import ScriptedHTTPServer, SeenRequest
from harness.testing.llm_server.prefix_cache import PrefixCache


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
        """Keep every request in :attr:`requests` (off for a server that runs for long)."""
        self.prefix_cache = prefix_cache
        """Reports each reply's usage as a prompt cache would (None: as scripted)."""
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
        self._httpd = ScriptedHTTPServer(self, port)
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
