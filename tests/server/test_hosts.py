"""Both servers answer only the address they bind (DNS rebinding), over real HTTP.

Which ``Host`` headers are answered (:mod:`harness.server.hosts`), and ``lighthouse
serve`` run as a subprocess, each request sent with a ``Host`` header of the test's
choosing: a page of another site that had its name resolve to 127.0.0.1 sends that
name, and gets a 421 with one line saying why, never the page. (``lighthouse view``'s
server: tests/browse/test_server_policy.py.)
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from harness.server.hosts import allowed_hosts

#: Seconds a started server has to answer (a bound, never a measured result).
BOUND_S = 60
FOREIGN = ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil.example"]


def get(port: int, path: str, host: str | None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND_S)
    try:
        connection.putrequest("GET", path, skip_host=True)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("bound", "header", "answered"),
    [
        ("127.0.0.1", "127.0.0.1:8001", True),
        ("127.0.0.1", "127.0.0.1", True),
        ("127.0.0.1", "localhost:9000", True),  # a tunnel: another port, the same host
        ("127.0.0.1", "LocalHost.", True),
        ("127.0.0.1", None, True),  # HTTP/1.0: no Host at all
        ("127.0.0.1", "evil.example", False),
        ("127.0.0.1", "127.0.0.1.evil.example", False),
        ("127.0.0.1", "[::1]:8001", False),  # not the address bound
        ("127.0.0.1", "127.0.0.1:port", False),
        ("127.0.0.1", "127.0.0.1:80/x", False),
        ("127.0.0.1", "", False),
        ("::1", "[::1]:8001", True),
        ("::1", "localhost", True),
        ("::1", "[::1", False),
        ("192.0.2.7", "192.0.2.7:80", True),
        ("192.0.2.7", "localhost", False),  # not a loopback address: localhost is not it
        ("0.0.0.0", "192.0.2.7:8000", True),  # every address: any address literal
        ("0.0.0.0", "[2001:db8::1]:8000", True),
        ("0.0.0.0", "localhost", True),
        ("0.0.0.0", socket.gethostname(), True),
        ("0.0.0.0", "evil.example", False),
        ("localhost", "127.0.0.1:8001", True),  # a name: the addresses it resolves to
        ("localhost", "evil.example", False),
    ],
)
def test_which_host_headers_are_answered(bound: str, header: str | None, answered: bool) -> None:
    refusal = allowed_hosts(bound).refusal(header)
    assert (refusal is None) is answered
    if refusal is not None:
        assert "\n" not in refusal
        assert f"answers requests for {bound}" in refusal


def test_a_refusal_shows_a_hostile_header_as_text() -> None:
    refusal = allowed_hosts("127.0.0.1").refusal("evil\x1b]0;x\x07.example")
    assert refusal is not None
    assert "\x1b" not in refusal
    assert "\\x1b" in refusal


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``lighthouse serve`` on a free port of 127.0.0.1."""
    port = _free_port()
    key_file = tmp_path_factory.mktemp("serve") / "serve.key"
    env = {k: v for k, v in os.environ.items() if k != "RELAYROAM_TOKEN_KEY"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--port", str(port),
         "--key-file", str(key_file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + BOUND_S
        while True:
            try:
                get(port, "/", f"127.0.0.1:{port}")
                break
            except OSError:
                assert proc.poll() is None, "the server stopped"
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=BOUND_S)


@pytest.mark.parametrize("path", ["/", "/relayroam/", "/api/games/relayroam/init?seed=1", "/no"])
def test_serve_refuses_another_sites_name_on_every_route(served: int, path: str) -> None:
    for host in FOREIGN:
        status, _headers, body = get(served, path, host)
        assert status == 421, (host, path)
        answer = json.loads(body)
        assert answer["error"] == "misdirected_host"
        assert "answers requests for 127.0.0.1" in answer["message"]
        assert "\n" not in answer["message"]
    expected = 404 if path == "/no" else 200
    assert get(served, path, f"127.0.0.1:{served}")[0] == expected
    assert get(served, path, f"localhost:{served}")[0] == expected


def test_serve_pages_carry_frame_ancestors_none(served: int) -> None:
    for path in ("/", "/relayroam/", "/hourloom/"):
        status, headers, _ = get(served, path, f"127.0.0.1:{served}")
        assert status == 200
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
