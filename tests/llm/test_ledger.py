"""The usage ledger through the real SDKs: cached, cache-written and reasoning tokens,
read from each API's usage shape, recorded per call, summed per results line, and each
priced at its own rate (a cache read at its price, never at the full input price)."""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path

import pytest

from harness.llm.options import PriceOptions, RateOptions
from harness.llm.pricing import Price, input_tokens_priced
from harness.llm.types import CompletionRequest, Message, Usage
from harness.llm.wire import anthropic_usage, openai_usage, stop_reason
from harness.records import CallRecord
from harness.summary import EpisodeSummary, SeatStats, summarize
from harness.testing.llm_server import Reply, ScriptedLLMServer
from tests.llm.conftest import GAME, Played, play_llm

SDKS = ["openai", "anthropic"]

#: Dollars per million tokens, each kind its own (Anthropic-like ratios: a read at 0.1x,
#: a five-minute write at 1.25x, an hour's at 2x; reasoning dearer than output).
RATES = {
    "input_per_mtok": 3.0,
    "output_per_mtok": 15.0,
    "cached_input_per_mtok": 0.3,
    "cache_write_per_mtok": 3.75,
    "cache_write_1h_per_mtok": 6.0,
    "reasoning_per_mtok": 20.0,
}


def results_line(played: Played) -> EpisodeSummary:
    """The results line a tournament would write of ``played`` (as variant "default")."""
    header = {**played.lines[0], "variant": "default"}
    return summarize(GAME.report, [header, *played.lines[1:]], entrant="model", repetition=0)


def hand_cost(
    *, total_in: int, read: int, write: int, hour: int, out: int, reasoning: int
) -> float:
    """The cost of one call computed by hand from RATES."""
    plain = total_in - read - write
    return (
        plain * 3.0
        + read * 0.3
        + (write - hour) * 3.75
        + hour * 6.0
        + (out - reasoning) * 15.0
        + reasoning * 20.0
    ) / 1e6


@pytest.mark.parametrize("sdk", SDKS)
def test_each_kind_of_token_is_recorded_summed_and_priced_at_its_own_rate(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    # Anthropic reports no reasoning count; OpenAI no cache writes
    reasoning = 120 if sdk == "openai" else None
    write, hour = (None, None) if sdk == "openai" else (400, 100)
    server.push(
        Reply(
            '{"transmit": false}',
            input_tokens=2000,
            output_tokens=300,
            cached_tokens=1500,
            cache_write_tokens=write,
            cache_write_1h_tokens=hour,
            reasoning_tokens=reasoning,
        ),
        Reply('{"transmit": true, "message": "Gizmo N"}', input_tokens=900, output_tokens=40),
    )
    played = play_llm(
        server, sdk, tmp_path / "r.jsonl", max_ticks=2, provider={"prices": {"test-model": RATES}}
    )
    body = server.requests[0].body
    assert body["model"] == "test-model"
    first, second = (played.turn(t, "keeper")["calls"][0] for t in (0, 1))
    assert first["inputTokens"] == 2000  # for Anthropic: its input and both cache parts
    assert first["cachedInputTokens"] == 1500
    assert first.get("cacheWriteTokens") == write
    assert first.get("cacheWrite1hTokens") == hour
    assert first["reasoningTokens"] == reasoning
    assert first["stopReason"] == ("stop" if sdk == "openai" else "end_turn")
    one = hand_cost(
        total_in=2000, read=1500, write=write or 0, hour=hour or 0, out=300,
        reasoning=reasoning or 0,
    )  # fmt: skip
    assert first["costUsd"] == pytest.approx(one, rel=1e-12)
    # nothing cached: the call's fields are absent, as on records written before them
    assert {"cachedInputTokens", "cacheWriteTokens", "cacheWrite1hTokens"}.isdisjoint(second)
    two = (900 * 3.0 + 40 * 15.0) / 1e6
    assert second["costUsd"] == pytest.approx(two, rel=1e-12)
    # the cache read is billed at its rate: the same call with its reads at the input
    # rate would cost 1500 x (3.0 - 0.3) more
    full = one + 1500 * (3.0 - 0.3) / 1e6
    assert first["costUsd"] < full

    line = results_line(played)
    keeper = line.seats["keeper"]
    assert (keeper.input_tokens, keeper.output_tokens) == (2900, 340)
    assert keeper.cached_input_tokens == 1500
    assert keeper.cache_write_tokens == (write or 0)
    assert keeper.cache_write_1h_tokens == (hour or 0)
    assert keeper.reasoning_tokens == (reasoning or 0)
    assert keeper.cost_usd == pytest.approx(one + two, rel=1e-12)
    assert keeper.unpriced == 0
    # the results line keeps the sums; a seat without them writes none of the keys
    dumped = line.model_dump(mode="json", by_alias=True)["seats"]
    assert dumped["keeper"]["cachedInputTokens"] == 1500
    assert "cachedInputTokens" not in dumped["runner1"]
    assert "unpriced" not in dumped["keeper"]


def test_a_cache_read_at_its_price_a_write_at_its_own_and_reasoning_as_output_by_default() -> None:
    usage = Usage(
        input_tokens=1000, output_tokens=200, reasoning_tokens=150, cached_input_tokens=600,
        cache_write_tokens=300, cache_write_1h_tokens=100,
    )  # fmt: skip
    plain = Price(input_per_mtok=2.0, output_per_mtok=8.0)
    # without the new rates, every kind falls back to what the provider bills it at
    assert plain.cost(usage) == pytest.approx((1000 * 2.0 + 200 * 8.0) / 1e6, rel=1e-12)
    priced = Price(2.0, 8.0, cached_input_per_mtok=0.2, cache_write_per_mtok=2.5)
    expected = (100 * 2.0 + 600 * 0.2 + 300 * 2.5 + 200 * 8.0) / 1e6  # the hour's at 5m's
    assert priced.cost(usage) == pytest.approx(expected, rel=1e-12)
    # counts past their whole are cut to it: never a negative share
    odd = Usage(input_tokens=100, output_tokens=10, reasoning_tokens=50, cached_input_tokens=500)
    assert priced.cost(odd) == pytest.approx((100 * 0.2 + 10 * 8.0) / 1e6, rel=1e-12)


def test_an_unknown_count_is_priced_at_the_dearest_rate_of_its_kind() -> None:
    request = CompletionRequest(
        model="m", messages=(Message("system", "s" * 400), Message("user", "u" * 400)),
        max_tokens=64,
    )  # fmt: skip
    price = Price(1.0, 4.0, cached_input_per_mtok=0.1, cache_write_1h_per_mtok=2.0,
                  reasoning_per_mtok=5.0)  # fmt: skip
    unknown = price.cost(Usage(None, None), request)
    assert unknown == pytest.approx((input_tokens_priced(request) * 2.0 + 64 * 5.0) / 1e6)
    assert unknown == pytest.approx(price.most(input_tokens_priced(request), 64))
    # and every known ledger of the same request costs no more than that bound
    for usage in [
        Usage(200, 64),
        Usage(200, 64, reasoning_tokens=64),
        Usage(200, 64, cache_write_tokens=200, cache_write_1h_tokens=200),
        Usage(200, 64, cached_input_tokens=200),
    ]:
        assert price.cost(usage, request) <= unknown


def test_every_rate_a_config_gives_reaches_its_price() -> None:
    # Price.rates names each rate: one a config could give but Price.rates left out
    # would price its tokens at the fallback rate without a word
    rates = {f.name for f in fields(Price)} - {"tiers"}
    assert rates == set(RateOptions.model_fields) == set(RATES)
    price = Price.of(PriceOptions.model_validate({**RATES, "service_tiers": {"flex": RATES}}))
    assert price.for_tier("flex") is not price
    for priced in (price, price.for_tier("flex")):
        assert {name: getattr(priced, name) for name in rates} == RATES


def test_the_dry_run_bound_is_priced_at_the_dearest_rates() -> None:
    assert Price(1.0, 4.0).most(1000, 100) == (1000 * 1.0 + 100 * 4.0) / 1e6
    dear = Price(1.0, 4.0, cache_write_per_mtok=1.25, reasoning_per_mtok=6.0)
    assert dear.most(1000, 100) == pytest.approx((1000 * 1.25 + 100 * 6.0) / 1e6)


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": -1}},
        {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": "9"}},
        {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 1e400}},
        {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 10**12}},
        {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": "lots"},
        {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": None},
    ],
)  # fmt: skip
def test_an_openai_cache_count_that_is_not_a_count_is_unknown(usage: object) -> None:
    assert openai_usage(usage) == Usage(100, 5)


def test_anthropic_counts_are_checked_and_an_unusable_cache_count_unknowns_the_input() -> None:
    good = {
        "input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 30,
        "cache_creation_input_tokens": 60,
        "cache_creation": {"ephemeral_5m_input_tokens": 20, "ephemeral_1h_input_tokens": 40},
    }  # fmt: skip
    assert anthropic_usage(good) == Usage(
        100, 5, cached_input_tokens=30, cache_write_tokens=60, cache_write_1h_tokens=40
    )
    # absent or null: no cache (a server without one), the input as it is
    assert anthropic_usage({"input_tokens": 10, "output_tokens": 5}) == Usage(10, 5)
    nulls = {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": None}
    assert anthropic_usage(nulls) == Usage(10, 5)
    # sent and not a count: the input it is a part of is unknown too (priced at the bound)
    for bad in (-3, "30", 1.5, True, 10**400, [30]):
        usage = anthropic_usage({"input_tokens": 10, "output_tokens": 5,
                                 "cache_read_input_tokens": bad})  # fmt: skip
        assert usage.input_tokens is None
        assert usage.cached_input_tokens is None
        assert usage.output_tokens == 5
    # a total past the bound of a count is unknown, not a billion and one
    huge = {"input_tokens": 10**9, "output_tokens": 1, "cache_read_input_tokens": 10**9}
    assert anthropic_usage(huge).input_tokens is None
    assert anthropic_usage({"cache_creation": {"ephemeral_1h_input_tokens": -1}}) == Usage(
        None, None
    )


def test_a_stop_reason_is_a_short_string_or_nothing() -> None:
    assert stop_reason("length") == "length"
    assert stop_reason("x" * 10_000) == "x" * 40
    assert stop_reason("\ud800") == "\ufffd"
    for value in (None, 3, ["stop"], {"a": 1}):
        assert stop_reason(value) is None


@pytest.mark.parametrize("sdk", SDKS)
def test_a_length_cut_reply_has_its_stop_reason_in_the_record(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    cut = "length" if sdk == "openai" else "max_tokens"
    server.push(Reply('{"transmit": fal', stop_reason=cut), Reply('{"transmit": false}'))
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=1)
    calls = played.turn(0, "keeper")["calls"]
    assert [c["stopReason"] for c in calls] == [cut, "stop" if sdk == "openai" else "end_turn"]


def test_old_call_records_and_results_lines_read_with_the_new_counts_absent() -> None:
    old_call = {
        "provider": "openai", "model": "m", "attempts": 1, "errors": [], "failure": None,
        "inputTokens": 10, "outputTokens": 2, "reasoningTokens": None, "costUsd": 0.5,
        "wallClock": None,
    }  # fmt: skip
    call = CallRecord.model_validate(old_call)
    assert (call.cached_input_tokens, call.cache_write_tokens, call.stop_reason) == (None,) * 3
    assert call.model_dump(mode="json", by_alias=True) == old_call
    old_seat = {"role": "keeper", "agent": "openai:m", "turns": 1, "calls": 1, "costUsd": 0.0}
    seat = SeatStats.model_validate(old_seat)
    assert (seat.cached_input_tokens, seat.unpriced) == (0, 0)
    assert math.isclose(seat.cost_usd, 0.0)


@pytest.mark.parametrize("sdk", SDKS)
def test_calls_without_a_price_are_counted_as_unpriced(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=2)
    assert all(played.turn(t, "keeper")["calls"][0]["costUsd"] is None for t in (0, 1))
    line = results_line(played)
    assert (line.seats["keeper"].unpriced, line.seats["keeper"].cost_usd) == (2, 0.0)
    assert line.seats["runner1"].unpriced == 0
