"""Timeouts and connection failures are told apart, for both SDKs on both transports."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.errors import ProviderError, TransientProviderError
from harness.llm.anthropic_provider import AnthropicProvider
from harness.llm.calls import RetryPolicy, call_llm
from harness.llm.limits import CallLimiter, Limits
from harness.llm.openai_provider import OpenAIProvider
from harness.llm.sdk_errors import MAX_CAUSES, transport_failure
from harness.llm.types import CompletionRequest, Message, Provider
from harness.testing.llm_server import Action, Drop, Hang, ScriptedLLMServer
from tests.llm.conftest import FAKE_KEY, play_llm

SDKS = ["openai", "anthropic"]
TRANSPORTS = ["httpx", "aiohttp"]
REQUEST = CompletionRequest(model="m", messages=(Message("user", "hi"),), timeout_s=5.0)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound, never listening.

    Holding the socket keeps the port from being reused while the test runs.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def provider(sdk: str, transport: str, port: int) -> Provider:
    url = f"http://127.0.0.1:{port}"
    if sdk == "openai":
        return OpenAIProvider(api_key=FAKE_KEY, base_url=f"{url}/v1", transport=transport)  # type: ignore[arg-type]
    return AnthropicProvider(api_key=FAKE_KEY, base_url=url, transport=transport)  # type: ignore[arg-type]


def failure(sdk: str, transport: str, port: int, timeout_s: float = 5.0) -> ProviderError:
    async def go() -> ProviderError:
        p = provider(sdk, transport, port)
        try:
            await p.complete(
                CompletionRequest(model="m", messages=REQUEST.messages, timeout_s=timeout_s)
            )
        except ProviderError as exc:
            return exc
        finally:
            await p.aclose()
        raise AssertionError("the call succeeded")

    return asyncio.run(go())


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_closed_port_is_a_connection_failure(closed_port: int, sdk: str, transport: str) -> None:
    exc = failure(sdk, transport, closed_port)
    assert isinstance(exc, TransientProviderError)
    assert exc.kind == "connection"
    assert "refused" in str(exc).lower() or "connect call failed" in str(exc).lower()
    assert "timed out" not in str(exc)


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("action", "kind"), [(Drop(), "connection"), (Hang(5.0), "timeout")])
def test_a_dropped_connection_and_a_hang_are_told_apart(
    server: ScriptedLLMServer, sdk: str, transport: str, action: Action, kind: str
) -> None:
    server.push(action)
    exc = failure(sdk, transport, server.port, timeout_s=0.5)
    assert exc.kind == kind
    assert len(server.requests) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_retries_at_a_closed_port_record_connection_errors(
    closed_port: int, transport: str
) -> None:
    async def go() -> list[str]:
        p = provider("openai", transport, closed_port)
        loop = asyncio.get_running_loop()
        try:
            report = await call_llm(
                p,
                REQUEST,
                limiter=CallLimiter(Limits()),
                policy=RetryPolicy(
                    call_timeout_s=1.0,
                    backoff_initial_s=0.01,
                    backoff_max_s=0.02,
                    backoff_floor_s=0.01,
                ),
                deadline=loop.time() + 0.5,
            )
        finally:
            await p.aclose()
        assert report.failure is not None
        return list(report.errors)

    errors = asyncio.run(go())
    assert len(errors) >= 2
    # The last attempt may start just before the deadline and be cut by it: that one
    # is honestly a timeout. Every attempt that reached the transport is a refusal.
    assert set(errors[:-1]) == {"connection"}


@pytest.mark.parametrize("sdk", SDKS)
def test_a_seat_at_a_closed_port_falls_back_tagged_as_an_api_failure(
    server: ScriptedLLMServer, closed_port: int, tmp_path: Path, sdk: str
) -> None:
    url = f"http://127.0.0.1:{closed_port}" + ("/v1" if sdk == "openai" else "")
    played = play_llm(
        server,
        sdk,
        tmp_path / "r.jsonl",
        max_ticks=1,
        provider={"base_url": url},
        call_timeout_seconds=0.5,
        allowance_seconds=0.5,
    )
    turn = played.turn(0, "keeper")
    call = turn["calls"][0]
    assert call["errors"][0] == "connection"  # the first attempt has its whole time
    # the seat's tag follows the last attempt, which the deadline may have cut short
    last = call["errors"][-1]
    assert call["failure"] == last
    assert turn["source"] == ("fallback_api" if last == "connection" else "fallback_timeout")
    assert server.requests == []


def test_the_cause_chain_is_walked_with_a_bound_and_no_loop() -> None:
    top = RuntimeError("top")
    link: BaseException = top
    for _ in range(MAX_CAUSES + 10):
        nxt = RuntimeError("link")
        link.__cause__ = nxt
        link = nxt
    link.__cause__ = ConnectionRefusedError("far below the bound")
    assert transport_failure(top) is None  # beyond the bound: not looked at

    a, b = RuntimeError("a"), ConnectionResetError("b")
    a.__cause__, b.__cause__ = b, a  # a loop
    assert transport_failure(a) == "connection"
    c = RuntimeError("c")
    c.__context__ = TimeoutError()
    assert transport_failure(c) == "timeout"
