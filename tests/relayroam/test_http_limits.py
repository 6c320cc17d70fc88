"""``lighthouse serve`` under slow, vanishing and excess clients, over real HTTP.

Each test runs the real command in a subprocess on a free port of 127.0.0.1 (so the
flags, the protocol, the app and the log setup are the ones users get), with its
output in a file, and talks to it with raw sockets. Waits are bounded, but what is
asserted is an event (a 408, a closed socket, a log line), never a speed.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.relayroam.live_server import Reply, http

ACTION = "/api/games/relayroam/action"
INIT = "/api/games/relayroam/init?seed=7"
#: The most any single wait in these tests lasts; only ever reached on failure.
BOUND_S = 60.0
#: A request head and the first 10 of the 100 body bytes it announces.
SLOW_BODY = (
    f"POST {ACTION} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    'Content-Length: 100\r\n\r\n{"stateTok'
).encode()
#: Half a request head: the blank line that ends it never comes.
SLOW_HEAD = f"POST {ACTION} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n".encode()


@dataclass(frozen=True)
class Server:
    """A running ``lighthouse serve``: its base URL, port and log file."""

    base: str
    port: int
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_for_log(self, pattern: str, count: int) -> None:
        """Wait (bounded) until ``pattern`` has appeared ``count`` times in the log."""
        deadline = time.monotonic() + BOUND_S
        while len(re.findall(pattern, self.log_text())) < count:
            assert time.monotonic() < deadline, self.log_text()[-2000:]
            time.sleep(0.05)


@contextmanager
def lighthouse_serve(tmp_path: Path, *flags: str, fd_limit: int | None = None) -> Iterator[Server]:
    """Run ``lighthouse serve FLAGS`` (under ``ulimit -n fd_limit`` if given) until the
    block ends; every line it writes goes to a log file."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "harness.cli", "serve", "--port", str(port), *flags]
    if fd_limit is not None:
        command = ["sh", "-c", f'ulimit -n {fd_limit} && exec "$0" "$@"', *command]
    log = tmp_path / f"serve-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    server = Server(f"http://127.0.0.1:{port}", port, log)
    try:
        deadline = time.monotonic() + BOUND_S
        while True:
            try:
                if http("GET", server.base + INIT).status == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None, server.log_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield server
    finally:
        proc.terminate()
        proc.wait(timeout=BOUND_S)


def open_connections(stack: ExitStack, port: int, data: bytes, count: int) -> list[socket.socket]:
    """``count`` connections that each send ``data`` and then nothing more."""
    conns = []
    for _ in range(count):
        conn = stack.enter_context(socket.create_connection(("127.0.0.1", port)))
        conn.settimeout(BOUND_S)
        if data:
            conn.sendall(data)
        conns.append(conn)
    return conns


def read_until_closed(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded wait)."""
    received = b""
    while chunk := conn.recv(65536):
        received += chunk
    return received


def normal_action(base: str) -> Reply:
    token = http("GET", base + INIT).json()["stateToken"]
    body = json.dumps({"stateToken": token, "action": {"type": "wait"}}).encode()
    return http("POST", base + ACTION, body)


def log_lines(text: str, phrase: str) -> list[str]:
    return [line for line in text.splitlines() if phrase in line]


def test_slow_bodies_are_closed_by_the_body_timeout_while_others_are_served(
    tmp_path: Path,
) -> None:
    # 100 clients that never finish their body, against a server allowed 64 file
    # descriptors: without a body deadline they would hold every descriptor for ever
    # and the normal request below, queued behind them, would never be answered.
    slow = 100
    flags = ("--body-timeout", "0.5", "--header-timeout", "60", "--max-connections", "1000")
    with lighthouse_serve(tmp_path, *flags, fd_limit=64) as server, ExitStack() as stack:
        conns = open_connections(stack, server.port, SLOW_BODY, slow)
        reply = normal_action(server.base)
        assert reply.status == 200
        assert reply.json()["ok"] is True
        answers = [read_until_closed(conn) for conn in conns]  # each ends in a close
        log = server.log_text()
    for answer in answers:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 "), answer
        assert b"connection: close" in head.lower()
        assert json.loads(body)["error"] == "body_timeout"
    assert "Traceback" not in log
    # descriptors did run out, and said so in single lines, not a traceback per try
    assert log_lines(log, "cannot accept connections")
    assert len(log.splitlines()) < 3 * slow


def test_half_sent_heads_are_closed_by_the_header_timeout(tmp_path: Path) -> None:
    flags = ("--header-timeout", "0.5", "--keep-alive-timeout", "60")
    with lighthouse_serve(tmp_path, *flags) as server, ExitStack() as stack:
        halves = open_connections(stack, server.port, SLOW_HEAD, 50)
        idle = open_connections(stack, server.port, b"", 10)
        # a connection that sends one request and the start of the next (pipelined):
        # the deadline starts again when the first response ends
        [served] = open_connections(
            stack, server.port, f"GET {INIT} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /".encode(), 1
        )
        assert normal_action(server.base).status == 200
        for conn in [*halves, *idle]:
            assert read_until_closed(conn) == b""  # closed without an answer
        assert read_until_closed(served).startswith(b"HTTP/1.1 200 ")
        server.wait_for_log("no complete request head", 51)
        log = server.log_text()
    # one line for each connection that sent part of a head; idle ones close quietly
    assert len(log_lines(log, "no complete request head")) == 51
    assert "Traceback" not in log


def test_a_head_growing_past_16_kib_is_a_400(tmp_path: Path) -> None:
    # uvicorn (h11) refuses a request head still incomplete at 16 KiB: the deadline
    # bounds a head's time, this its size
    big = f"GET {INIT} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: {'a' * 20_000}".encode()
    with lighthouse_serve(tmp_path, "--header-timeout", "60") as server, ExitStack() as stack:
        [conn] = open_connections(stack, server.port, big, 1)
        assert read_until_closed(conn).startswith(b"HTTP/1.1 400 ")
    assert "Traceback" not in server.log_text()


def test_a_client_gone_mid_body_is_one_log_line_and_no_traceback(tmp_path: Path) -> None:
    gone = 5
    with lighthouse_serve(tmp_path) as server:
        with ExitStack() as stack:
            open_connections(stack, server.port, SLOW_BODY, gone)
        # all closed by the client now, mid-body
        server.wait_for_log("went away mid-request", gone)
        assert normal_action(server.base).status == 200
    log = server.log_text()
    lines = log_lines(log, "went away mid-request")
    assert len(lines) == gone
    assert all(f"POST {ACTION}" in line for line in lines)
    assert "Traceback" not in log
    assert "Exception in ASGI application" not in log


def test_a_request_over_the_connection_cap_is_answered_503(tmp_path: Path) -> None:
    cap = 4
    flags = ("--max-connections", str(cap), "--body-timeout", "60", "--header-timeout", "60")
    with lighthouse_serve(tmp_path, *flags) as server:
        with ExitStack() as stack:
            # held open, sending nothing: they count, but make no request to refuse
            open_connections(stack, server.port, b"", cap - 1)
            # the server accepts them as it gets to them; ask until it has (the cap
            # counts the asking connection too)
            statuses = []
            for _ in range(200):
                statuses.append(http("GET", server.base + INIT).status)
                if statuses[-1] == 503:
                    break
                time.sleep(0.05)
            assert statuses[-1] == 503, statuses
            refused = http("GET", server.base + INIT)
            assert (refused.status, refused.raw) == (503, b"Service Unavailable")
        # the held connections are closed: room again
        for _ in range(200):
            if (reply := http("GET", server.base + INIT)).status == 200:
                break
            time.sleep(0.05)
        assert reply.status == 200
        assert reply.json()["ok"] is True
    assert "Traceback" not in server.log_text()


@pytest.mark.parametrize(
    "flags",
    [
        ["--body-timeout", "0"],
        ["--body-timeout", "-1"],
        ["--header-timeout", "nan"],
        ["--header-timeout", "inf"],
        ["--keep-alive-timeout", "1e999"],
        ["--keep-alive-timeout", "soon"],
        ["--max-connections", "0"],
        ["--max-connections", "-5"],
        ["--max-connections", "1.5"],
        ["--max-connections", "9" * 5000],
        ["--port", "65536"],
        ["--port", "-1"],
    ],
)
def test_bad_serve_flags_are_a_usage_error(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.cli import main

    assert main(["serve", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lighthouse: error: {flags[0]}: ")
    assert err.count("\n") == 1  # one line, no usage block
    assert "Traceback" not in err
    assert len(err) < 1000
