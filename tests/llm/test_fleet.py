"""A provider with several base URLs: routing, cool-down, retry later, credentials.

The routing and cool-down tests run on a fast-forwarded loop clock (looptime, as in
test_limits.py): cool-downs take no real time and the instants read are the ones the
fleet decided on. The spreading test sends real requests through the openai SDK to
two scripted servers, each counting the requests it had in flight at once.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import looptime
import pytest

from harness.errors import TransientProviderError
from harness.llm.calls import CallReport, RetryPolicy, call_llm
from harness.llm.factory import make_provider
from harness.llm.fleet import (
    COOL_DOWN_SECONDS,
    Fleet,
    endpoint_label,
    register_url_secrets,
)
from harness.llm.limits import CallLimiter, Limits
from harness.llm.options import LLMSeatOptions, ProviderOptions
from harness.llm.scripted import ScriptedProvider
from harness.llm.secrets import REDACTED, redact
from harness.llm.types import Completion, CompletionRequest, Message, Usage
from harness.testing.llm_server import Reply, ScriptedLLMServer
from tests.llm.conftest import KEY_ENV, play_llm

T = TypeVar("T")
REQUEST = CompletionRequest(model="m", messages=(Message("user", "hi"),))


def fast_forward(main: Coroutine[Any, Any, T]) -> T:
    with asyncio.Runner(loop_factory=looptime.new_event_loop) as runner:
        return runner.run(main)


def now() -> float:
    return asyncio.get_running_loop().time()


class Replica:
    """A scripted endpoint that can be down, counting what it was asked and its peak."""

    def __init__(self, name: str, latency_s: float = 0.0) -> None:
        self.name = name
        self.down = False
        self.asked: list[float] = []
        self.in_flight = self.peak = 0
        self.provider = ScriptedProvider(script=self._answer)
        self._latency = latency_s

    async def _answer(self, _request: CompletionRequest) -> Completion:
        self.asked.append(now())
        if self.down:
            raise TransientProviderError("connection", f"{self.name}: connection refused")
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self._latency)
        finally:
            self.in_flight -= 1
        return Completion(text=self.name, usage=Usage(1, 1))


def fleet_of(*replicas: Replica) -> Fleet:
    return Fleet("scripted", [(r.name, r.provider) for r in replicas])


async def ask(fleet: Fleet, deadline_in: float = 30.0) -> CallReport:
    return await call_llm(
        fleet,
        REQUEST,
        limiter=CallLimiter(Limits()),
        policy=RetryPolicy(backoff_initial_s=0.1, backoff_max_s=0.5),
        deadline=now() + deadline_in,
    )


def test_calls_go_to_the_endpoint_with_the_fewest_in_flight() -> None:
    a, b, c = Replica("a", 1.0), Replica("b", 1.0), Replica("c", 1.0)
    fleet = fleet_of(a, b, c)

    async def main() -> list[CallReport]:
        return await asyncio.gather(*(ask(fleet) for _ in range(7)))

    reports = fast_forward(main())
    # ties go in list order: a, b, c, then a again (all three at one), ...
    assert [r.endpoint for r in reports] == ["a", "b", "c", "a", "b", "c", "a"]
    assert (a.peak, b.peak, c.peak) == (3, 2, 2)  # measured at each endpoint
    assert all(e.in_flight == 0 for e in fleet.endpoints)


def test_a_failing_endpoint_cools_down_with_backoff_and_is_tried_again_later() -> None:
    a, b = Replica("a"), Replica("b")
    a.down = True
    fleet = fleet_of(a, b)

    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        first = await ask(fleet)
        seen["first"] = first
        seen["out_for"] = fleet.endpoints[0].out_until - a.asked[0]
        # while a is out, every call goes to b and a is not asked
        during = [await ask(fleet) for _ in range(3)]
        seen["during"] = [r.endpoint for r in during]
        seen["asked_during"] = len(a.asked)
        await asyncio.sleep(COOL_DOWN_SECONDS)  # the cool-down has passed: a is tried
        again = await ask(fleet)
        seen["again"] = again
        seen["out_again_for"] = fleet.endpoints[0].out_until - a.asked[-1]
        a.down = False  # a comes back
        await asyncio.sleep(2 * COOL_DOWN_SECONDS)
        seen["back"] = await ask(fleet)
        seen["failures_after"] = fleet.endpoints[0].failures
        return seen

    seen = fast_forward(main())
    first = seen["first"]
    assert first.completion is not None
    assert first.completion.text == "b"
    assert (first.endpoint, first.errors, first.endpoint_errors) == ("b", ["connection"], {"a": 1})
    assert seen["out_for"] == pytest.approx(COOL_DOWN_SECONDS)
    assert seen["during"] == ["b", "b", "b"]
    assert seen["asked_during"] == 1
    again = seen["again"]
    assert (again.endpoint, again.endpoint_errors) == ("b", {"a": 1})
    assert seen["out_again_for"] == pytest.approx(2 * COOL_DOWN_SECONDS)  # backed off
    back = seen["back"]
    assert (back.endpoint, back.errors) == ("a", [])
    assert seen["failures_after"] == 0  # an answer puts it back in for good


def test_with_every_endpoint_out_a_call_fails_as_a_transport_failure_would() -> None:
    a, b = Replica("a"), Replica("b")
    a.down = b.down = True
    fleet = fleet_of(a, b)

    async def main() -> tuple[CallReport, float]:
        began = now()
        report = await ask(fleet, deadline_in=5.0)
        return report, now() - began

    report, took = fast_forward(main())
    assert report.completion is None
    assert report.failure is not None
    assert report.failure.kind == "connection"
    assert took <= 5.0  # within the allowance
    assert report.message is not None
    # both were asked, then out; the later attempts either waited for one to come back
    # or were refused by the fleet, which asks none
    assert report.endpoint_errors["a"] >= 1
    assert report.endpoint_errors["b"] >= 1
    assert sum(report.endpoint_errors.values()) == len(a.asked) + len(b.asked)


def test_with_every_endpoint_out_the_call_is_answered_when_one_comes_back() -> None:
    a, b = Replica("a"), Replica("b")
    a.down = b.down = True
    fleet = fleet_of(a, b)

    async def revive() -> None:
        await asyncio.sleep(3.0)
        b.down = False

    async def main() -> CallReport:
        _, report = await asyncio.gather(revive(), ask(fleet, deadline_in=20.0))
        return report

    report = fast_forward(main())
    assert report.completion is not None
    assert report.endpoint == "b"
    assert "connection" in report.errors


def test_a_timeout_or_a_rate_limit_takes_no_endpoint_out() -> None:
    fleet = fleet_of(Replica("a"), Replica("b"))
    endpoint = fleet.endpoints[0]

    async def main() -> None:
        fleet.failed(endpoint, "timeout")
        fleet.failed(endpoint, "rate_limit")
        assert endpoint.is_in(now())
        fleet.failed(endpoint, "server")
        assert not endpoint.is_in(now())

    fast_forward(main())


def test_labels_and_logs_never_show_a_urls_credentials() -> None:
    url = "http://fleetuser:pw-CANARY-9f8e7d6c@127.0.0.1:8001/v1?api_key=qk-CANARY-1a2b3c4d5e"
    assert endpoint_label(url) == "http://127.0.0.1:8001/v1"
    assert endpoint_label("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert endpoint_label("http://[::1]:8000/v1?k=v") == "http://[::1]:8000/v1"
    register_url_secrets(url)
    shown = redact(f"connect failed for {url}")
    assert "pw-CANARY-9f8e7d6c" not in shown
    assert "qk-CANARY-1a2b3c4d5e" not in shown
    assert REDACTED in shown


def test_base_url_lists_validate() -> None:
    one = ProviderOptions.model_validate({"kind": "openai", "base_url": "http://a/v1"})
    assert one.base_urls == ("http://a/v1",)
    assert one.base_url_key == "http://a/v1"
    two = ProviderOptions.model_validate({"kind": "openai", "baseUrl": ["http://a", "http://b"]})
    assert two.base_urls == ("http://a", "http://b")
    for bad, words in [
        ([], "at least one"),
        (["http://a", "http://a"], "listed twice"),
        (["http://a", " "], "non-empty"),
    ]:
        with pytest.raises(ValueError, match=words):
            ProviderOptions.model_validate({"kind": "openai", "base_url": bad})


def free_port() -> int:
    """A port nothing listens on: connections to it are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_calls_spread_over_two_live_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-fleet-test-0123456789")
    slow = Reply('{"move": "N"}', delay_s=1.0)
    with ScriptedLLMServer(default=slow) as one, ScriptedLLMServer(default=slow) as two:
        options = ProviderOptions.model_validate(
            {"kind": "openai", "base_url": [one.openai_url, two.openai_url], "api_key_env": KEY_ENV}
        )

        async def main() -> list[CallReport]:
            fleet = make_provider(options)
            assert isinstance(fleet, Fleet)
            limiter = CallLimiter(Limits())
            try:
                loop = asyncio.get_running_loop()
                return await asyncio.gather(
                    *(
                        call_llm(
                            fleet,
                            REQUEST,
                            limiter=limiter,
                            policy=RetryPolicy(),
                            deadline=loop.time() + 60,
                        )
                        for _ in range(6)
                    )
                )
            finally:
                await fleet.aclose()

        reports = asyncio.run(main())
        # measured by each server: three requests in flight at once on each
        assert (one.peak_in_flight, two.peak_in_flight) == (3, 3)
        assert (len(one.requests), len(two.requests)) == (3, 3)
    assert sorted(r.endpoint or "" for r in reports) == sorted(
        [one.openai_url] * 3 + [two.openai_url] * 3
    )
    assert all(r.completion is not None and r.errors == [] for r in reports)


def test_a_seat_with_a_dead_endpoint_is_answered_by_the_live_one(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    played = play_llm(
        server,
        "openai",
        tmp_path / "r.jsonl",
        max_ticks=3,
        provider={"base_url": [dead, server.openai_url]},
    )
    header = played.lines[0]
    keeper = next(s for s in header["seats"] if s["seat"] == "keeper")
    assert keeper["agent"]["details"]["baseUrl"] == f"{dead} {server.openai_url}"
    calls = [c for t in played.ticks() for c in t["seats"]["keeper"]["calls"]]
    assert calls
    assert all(c["endpoint"] == server.openai_url for c in calls)
    # the first call tried the dead one first (ties go in list order), then it was out
    assert calls[0]["endpointErrors"] == {dead: 1}
    assert calls[0]["errors"] == ["connection"]
    assert all(t["seats"]["keeper"]["source"] == "llm" for t in played.ticks())
    text = played.path.read_text(encoding="utf-8")
    assert "CANARY" not in text


def test_seat_options_accept_a_list_from_a_config() -> None:
    options = LLMSeatOptions.model_validate(
        {"model": "m", "provider": {"kind": "openai", "base_url": ["http://a/v1", "http://b/v1"]}}
    )
    assert json.loads(options.model_dump_json(by_alias=True))["provider"]["baseUrl"] == [
        "http://a/v1",
        "http://b/v1",
    ]
