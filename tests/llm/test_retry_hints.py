"""Retry hints read defensively: an odd one falls back to the backoff, none beats a deadline.

The waits are measured on a fast-forwarded loop clock (see tests/llm/test_limits.py):
the instants read are the ones the code chose. tests/llm/test_hostile_server.py sends
the same headers through both SDKs in whole tournaments.
"""

from __future__ import annotations

import email.utils
import math
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import TransientProviderError
from harness.llm.calls import RetryPolicy
from harness.llm.scripted import ScriptedProvider
from harness.llm.sdk_errors import MAX_RETRY_HINT_S, retry_after_seconds
from tests.llm.test_limits import run_call


def http_date(offset_s: float) -> str:
    return email.utils.formatdate(time.time() + offset_s, usegmt=True)


ODD = {
    "garbage": "garbage",
    "nan": "nan",
    "NaN": "NaN",
    "inf": "inf",
    "negative": "-5",
    "minus infinity": "-inf",
    "zero": "0",
    "exponent": "1e3",
    "hex": "0x10",
    "underscores": "1_000",
    "huge": "999999999999",
    "a date in the past": http_date(-3600),
    "the year 99999": "Fri, 31 Dec 99999 23:59:59 GMT",
    "no such date": "Mon, 45 Foo 2024 99:99:99 GMT",
    "a date too far": http_date(10 * 86_400),
    "long": "1" * 65,
    "empty": "",
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_an_odd_retry_after_is_no_hint(case: str) -> None:
    assert retry_after_seconds({"retry-after": ODD[case]}) is None
    assert retry_after_seconds({"retry-after-ms": ODD[case]}) is None


def test_a_plain_hint_is_read_in_seconds_or_milliseconds_or_as_a_date() -> None:
    assert retry_after_seconds({"retry-after": "12"}) == 12.0
    assert retry_after_seconds({"retry-after": " 0.5 "}) == 0.5
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    # an odd retry-after-ms leaves retry-after to decide
    assert retry_after_seconds({"retry-after-ms": "nan", "retry-after": "3"}) == 3.0
    soon = retry_after_seconds({"retry-after": http_date(120)})
    assert soon is not None
    assert 110 < soon <= 121
    assert retry_after_seconds({}) is None
    assert retry_after_seconds(None) is None


@given(ms=st.none() | st.text(max_size=70), seconds=st.none() | st.text(max_size=70))
def test_any_header_text_is_a_sane_hint_or_none(ms: str | None, seconds: str | None) -> None:
    headers = {k: v for k, v in (("retry-after-ms", ms), ("retry-after", seconds)) if v is not None}
    hint = retry_after_seconds(headers)
    assert hint is None or (math.isfinite(hint) and 0 < hint <= MAX_RETRY_HINT_S)


POLICY = {"backoff_initial_s": 0.5, "backoff_max_s": 8.0, "backoff_floor_s": 0.25}


@pytest.mark.parametrize("hint", [math.nan, math.inf, -math.inf, -5.0, 0.0, None], ids=repr)
def test_a_hint_worth_nothing_waits_the_backoff_with_its_floor(hint: float | None) -> None:
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow", hint), "ok"])
    report, _, took = run_call(provider, 60.0, **POLICY)
    assert report.completion is not None
    assert report.attempts == 2
    assert 0.25 <= took <= 0.5  # the first backoff step, never below the floor


def test_no_hint_defeats_the_deadline_and_every_wait_has_the_floor() -> None:
    hints = [math.nan, math.inf, 0.0, -1.0, 1e308, 86_400.0] * 20
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow", h) for h in hints])
    report, _, took = run_call(provider, 5.0, **POLICY)
    assert report.completion is None
    assert report.failure is not None
    assert report.failure.kind == "rate_limit"
    assert took <= 5.0  # never a sleep past the deadline
    assert report.attempts <= 5.0 / 0.25 + 1  # never faster than the floor allows


def test_a_long_hint_is_capped_then_clamped_to_the_time_left() -> None:
    # the server asks for an hour: capped at 30 s, but only 10 s are left, so no retry
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow", 3600.0), "ok"])
    report, _, took = run_call(provider, 10.0, **POLICY)
    assert (report.completion, report.attempts, took) == (None, 1, 0.0)
    # with 40 s left, the retry waits the 30 s cap, not the hour
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow", 3600.0), "ok"])
    report, _, took = run_call(provider, 40.0, **POLICY)
    assert report.completion is not None
    assert took == pytest.approx(RetryPolicy().retry_after_cap_s)
