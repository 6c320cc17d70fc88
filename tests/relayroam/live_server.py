"""A real uvicorn server on 127.0.0.1 in a background thread, for HTTP and browser tests."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette

from harness.server.app import create_app


@contextmanager
def running_server(key: bytes | None, app: Starlette | None = None) -> Iterator[str]:
    """Serve ``create_app(key)`` (or ``app``) on a free port of 127.0.0.1; yield its
    base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(key) if app is None else app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@dataclass(frozen=True)
class Reply:
    """One HTTP answer: status, headers and the body (parsed when it is JSON)."""

    status: int
    headers: dict[str, str]
    raw: bytes

    def json(self) -> Any:
        return json.loads(self.raw)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def http(
    method: str,
    url: str,
    body: bytes | None = None,
    content_type: str = "application/json",
) -> Reply:
    """Send one request with urllib (no redirects followed); 4xx/5xx are returned too."""
    request = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", content_type)
    try:
        with _OPENER.open(request, timeout=10) as response:
            return Reply(response.status, _headers(response.headers), response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Reply(error.code, _headers(error.headers), error.read())


def _headers(message: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in message.items()}
