"""The scripted LLM server as a process of its own, for benchmarks/llm_overhead.py.

    python -m benchmarks._llm_server_process

Serves on 127.0.0.1, prints ``PORT <n>`` on one line of stdout, then answers every
request at once with a fixed valid Lighthouse reply for the role (a keeper's when the
system prompt says KEEPER, else a runner's WAIT) until its stdin reaches end of file:
closing the pipe, or the parent dying, stops it.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator, Sequence
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from harness.testing.llm_server import Reply, ScriptedLLMServer

KEEPER_REPLY = Reply('{"transmit": false}')
RUNNER_REPLY = Reply('{"move": "WAIT"}')

#: The listen backlog. socketserver's default of 5 overflows when a client opens
#: dozens of connections at once, and httpx then sees some of them fail after ~1 s.
LISTEN_BACKLOG = 256


def system_text(body: dict[str, Any]) -> str:
    """The system prompt of an Anthropic (``system``) or OpenAI (system message) request."""
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts.extend(str(block.get("text", "")) for block in system if isinstance(block, dict))
    for message in body.get("messages") or ():
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            content = message.get("content")
            parts.append(content if isinstance(content, str) else str(content))
    return "\n".join(parts)


def answer(path: str, body: dict[str, Any]) -> Reply:
    """A keeper's or a runner's reply, by the request's system prompt."""
    return KEEPER_REPLY if "KEEPER" in system_text(body) else RUNNER_REPLY


@contextlib.contextmanager
def spawn(argv: Sequence[str], *, cwd: Path) -> Iterator[int]:
    """Run ``python argv`` (a server that prints ``PORT <n>``); yield the port; stop it.

    The server stops at end of file on its stdin, so closing the pipe ends it, and so
    does this process dying.
    """
    proc = subprocess.Popen(
        [sys.executable, *argv], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the server process did not start (it said {line!r})")
        yield int(line.split()[1])
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def main() -> None:
    # This process's own copy of the stdlib class: it affects this server only.
    ThreadingHTTPServer.request_queue_size = LISTEN_BACKLOG
    server = ScriptedLLMServer()

    def handle(path: str, body: dict[str, Any]) -> Reply:
        server.requests.clear()  # a long benchmark would keep every request otherwise
        return answer(path, body)

    server.default = handle
    server.start()
    try:
        print(f"PORT {server.port}", flush=True)
        sys.stdin.read()  # block until the parent closes the pipe (or dies)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
