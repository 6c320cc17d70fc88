"""Reasoning models as seats, through the real SDKs against the scripted server.

What each request carries (``reasoning_effort`` and ``max_completion_tokens`` to
OpenAI, ``thinking`` to Anthropic, ``service_tier``), the defaults a reasoning seat
gets, the options a provider does not take refused as config errors, the reasoning
text kept in the record beside its reply (and in the call cache), a reply cut by the
length limit after its reasoning tagged ``fallback_length``, and the flex tier's
slow answers priced at its rates or ended as a tagged timeout.
"""

from __future__ import annotations

import asyncio
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from harness import defaults
from harness.errors import ConfigError
from harness.llm.cache import CallCache
from harness.llm.options import LLMSeatOptions, ProviderOptions
from harness.llm.types import Completion, Usage
from harness.records import ModelReply
from harness.seat_spec import LLMSeatConfig, parse_seat_arg
from harness.testing.llm_server import Reply, ScriptedLLMServer
from harness.text import MAX_REPLY_BYTES
from tests.llm.conftest import FAKE_KEY, GAME, play_llm
from tests.llm.test_length_cut import CUT, results_line_fallbacks

SDKS = ["openai", "anthropic"]
THOUGHT = "The water rises from the south; Gizmo should go north before the keys."


def first_body(server: ScriptedLLMServer) -> dict[str, Any]:
    return server.requests[0].body


# --- what the requests carry ---


def test_an_openai_reasoning_request_carries_reasoning_effort_and_max_completion_tokens(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1, reasoning_effort="low")
    body = first_body(server)
    assert body["reasoning_effort"] == "low"
    # to a base_url server too: a reasoning request takes only max_completion_tokens
    assert body["max_completion_tokens"] == defaults.REASONING_MAX_TOKENS
    assert "max_tokens" not in body
    assert "service_tier" not in body
    assert "thinking" not in body


def test_a_plain_openai_request_to_a_base_url_server_keeps_max_tokens(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1)
    body = first_body(server)
    assert body["max_tokens"] == defaults.MAX_TOKENS
    assert "max_completion_tokens" not in body
    assert "reasoning_effort" not in body
    assert "service_tier" not in body


@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_max_tokens_field_names_the_field_whatever_the_rule_says(
    server: ScriptedLLMServer, tmp_path: Path, field: str
) -> None:
    play_llm(
        server,
        "openai",
        tmp_path / "r.jsonl",
        max_ticks=1,
        reasoning_effort="high",
        max_tokens=900,
        max_tokens_field=field,
    )
    body = first_body(server)
    other = {"max_tokens", "max_completion_tokens"} - {field}
    assert body[field] == 900
    assert not other & set(body)


def test_an_anthropic_request_with_a_thinking_budget_carries_thinking(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    play_llm(server, "anthropic", tmp_path / "r.jsonl", max_ticks=1, thinking_budget=2048)
    body = first_body(server)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    # max_tokens left out: the budget and the reply's usual room
    assert body["max_tokens"] == 2048 + defaults.MAX_TOKENS
    assert "temperature" not in body
    assert "reasoning_effort" not in body


def test_a_seat_that_thinks_does_not_try_the_forced_tool(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    # auto would try json_schema, tool, prompt; Anthropic refuses a forced tool with
    # thinking, so the seat never sends one
    played = play_llm(
        server,
        "anthropic",
        tmp_path / "r.jsonl",
        max_ticks=2,
        thinking_budget=1024,
        structured_output="auto",
    )
    assert all("tool_choice" not in r.body for r in server.requests)
    assert all("thinking" in r.body for r in server.requests)
    assert played.turn(0, "keeper")["source"] == "llm"


def test_service_tier_is_sent_and_the_served_tier_recorded(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    played = play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1, service_tier="flex")
    assert first_body(server)["service_tier"] == "flex"
    assert played.turn(0, "keeper")["calls"][0]["serviceTier"] == "flex"


# --- the defaults a reasoning seat gets ---


def options(kind: str, **settings: Any) -> LLMSeatOptions:
    return LLMSeatOptions.model_validate({"provider": {"kind": kind}, "model": "m", **settings})


def test_reasoning_seats_get_room_and_time_of_their_own() -> None:
    plain = options("openai")
    assert (plain.max_tokens, plain.call_timeout_seconds) == (
        defaults.MAX_TOKENS,
        defaults.CALL_TIMEOUT_SECONDS,
    )
    effort = options("openai", reasoning_effort="medium")
    assert effort.max_tokens == defaults.REASONING_MAX_TOKENS
    assert effort.call_timeout_seconds == defaults.REASONING_CALL_TIMEOUT_SECONDS
    thinking = options("anthropic", thinking_budget=4000)
    assert thinking.max_tokens == 4000 + defaults.MAX_TOKENS
    assert thinking.call_timeout_seconds == defaults.REASONING_CALL_TIMEOUT_SECONDS
    flex = options("openai", service_tier="flex", reasoning_effort="low")
    assert flex.call_timeout_seconds == defaults.FLEX_CALL_TIMEOUT_SECONDS
    # what a config gives is kept
    given = options("openai", reasoning_effort="low", max_tokens=700, call_timeout_seconds=30)
    assert (given.max_tokens, given.call_timeout_seconds) == (700, 30)


def test_options_left_unset_leave_the_dump_as_it_was() -> None:
    # a config's hash and an entrant's identity are taken of the dump
    dumped = options("openai").model_dump(mode="json", by_alias=True)
    for key in ("reasoningEffort", "thinkingBudget", "serviceTier", "maxTokensField"):
        assert key not in dumped
    set_ = options("openai", service_tier="flex").model_dump(mode="json", by_alias=True)
    assert set_["serviceTier"] == "flex"


# --- config errors ---


@pytest.mark.parametrize(
    ("kind", "setting", "words"),
    [
        ("anthropic", {"reasoning_effort": "low"}, "set thinking_budget"),
        ("openai", {"thinking_budget": 2048}, "set reasoning_effort"),
        ("anthropic", {"service_tier": "flex"}, "service_tier is an option of openai seats"),
        pytest.param(
            "inspect",
            {"service_tier": "flex"},
            "service_tier is an option of openai seats",
            # an inspect provider is refused outright without the extra
            marks=pytest.mark.skipif(
                find_spec("inspect_ai") is None, reason="the inspect extra is not installed"
            ),
        ),
        ("anthropic", {"max_tokens_field": "max_tokens"}, "max_tokens_field is an option"),
    ],
)
def test_an_option_on_a_provider_that_does_not_take_it_is_a_config_error(
    kind: str, setting: dict[str, Any], words: str
) -> None:
    seat = LLMSeatConfig.model_validate({"provider": "p", "model": "m", **setting})
    provider = ProviderOptions.model_validate({"kind": kind})
    with pytest.raises(ConfigError, match=words) as caught:
        seat.resolve({"p": provider})
    assert f"kind {kind!r} does not take it" in str(caught.value)


def test_a_scripted_provider_takes_every_option() -> None:
    seat = options("scripted", reasoning_effort="low", thinking_budget=2048, service_tier="flex")
    assert seat.thinking_budget == 2048


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ({"thinking_budget": 2048, "max_tokens": 2048}, "must be more than thinking_budget"),
        ({"thinking_budget": 2048, "temperature": 0.2}, "temperature 0.2 cannot go with"),
        ({"thinking_budget": 1023}, "greater than or equal to 1024"),
        ({"thinking_budget": 2048, "structured_output": "tool"}, '"tool" cannot go with'),
        ({"reasoning_effort": "extreme"}, "minimal"),
        ({"service_tier": "scale"}, "flex"),
    ],
)
def test_settings_anthropic_or_openai_refuse_are_config_errors(
    setting: dict[str, Any], words: str
) -> None:
    kind = "anthropic" if "thinking_budget" in setting else "openai"
    with pytest.raises(ValueError, match=words):
        options(kind, **setting)


def test_thinking_with_temperature_one_is_allowed() -> None:
    assert options("anthropic", thinking_budget=2048, temperature=1).temperature == 1


def test_a_tournament_config_with_an_option_its_provider_does_not_take_stops_the_load(
    tmp_path: Path,
) -> None:
    from harness.tournament.config import load_tournament

    path = tmp_path / "t.toml"
    path.write_text(
        'name = "t"\ngame = "lighthouse"\nseeds = [1]\n\n[providers.claude]\nkind = "anthropic"\n\n'
        '[[entrants]]\nname = "c"\n'
        'keeper = { provider = "claude", model = "claude-x", reasoning_effort = "high" }\n'
        'runners = "wallhug"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        load_tournament(path)
    message = str(caught.value)
    assert "entrant 'c', keeper" in message
    assert "reasoning_effort is an option of inspect and openai seats" in message


def test_the_command_line_flags_reach_the_seat() -> None:
    import argparse

    from harness.commands.seats import add_seat_arguments, seat_configs

    parser = argparse.ArgumentParser()
    add_seat_arguments(parser)
    args = parser.parse_args(
        ["--keeper", "openai:o4-mini", "--reasoning-effort", "low", "--service-tier", "flex"]
    )
    spec = seat_configs(GAME, args)["keeper"]
    assert isinstance(spec, LLMSeatConfig)
    assert (spec.reasoning_effort, spec.service_tier) == ("low", "flex")
    assert spec.call_timeout_seconds == defaults.FLEX_CALL_TIMEOUT_SECONDS
    args = parser.parse_args(["--keeper", "anthropic:claude-x", "--thinking-budget", "3000"])
    spec = seat_configs(GAME, args)["keeper"]
    assert isinstance(spec, LLMSeatConfig)
    assert (spec.thinking_budget, spec.max_tokens) == (3000, 3000 + defaults.MAX_TOKENS)
    with pytest.raises(SystemExit):
        parser.parse_args(["--thinking-budget", "100"])
    # a flag for the other provider is the seat's config error
    parsed = parse_seat_arg(
        "openai:o4-mini",
        role="keeper",
        baselines=GAME.baseline_names("keeper"),
        options={"thinking_budget": 3000},
    )
    assert isinstance(parsed, LLMSeatConfig)
    with pytest.raises(ConfigError, match="thinking_budget is an option of anthropic"):
        parsed.resolve({"openai": ProviderOptions(kind="openai")})


# --- the reasoning text in the record, the cache and the viewer ---


@pytest.mark.parametrize("sdk", SDKS)
def test_the_reasoning_text_lands_in_the_record_beside_its_reply(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    setting = {"reasoning_effort": "low"} if sdk == "openai" else {"thinking_budget": 1024}
    server.push(
        Reply("not json", reasoning="first thought"),
        Reply('{"transmit": false}', reasoning=THOUGHT),
        Reply('{"transmit": false}'),  # tick 1: a reply without reasoning
    )
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=2, **setting)
    turn = played.turn(0, "keeper")
    assert turn["source"] == "llm_retry"
    assert [r["reasoning"] for r in turn["replies"]] == ["first thought", THOUGHT]
    assert turn["raw"] == '{"transmit": false}'  # the reply, never the reasoning
    later = played.turn(1, "keeper")["replies"][0]
    assert "reasoning" not in later
    assert "reasoningClipped" not in later


def test_a_key_in_the_reasoning_is_redacted(server: ScriptedLLMServer, tmp_path: Path) -> None:
    server.push(Reply('{"transmit": false}', reasoning=f"the key is {FAKE_KEY}"))
    played = play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1)
    reasoning = played.turn(0, "keeper")["replies"][0]["reasoning"]
    assert reasoning.startswith("the key is ")
    assert FAKE_KEY[:8] not in reasoning
    assert FAKE_KEY[-8:] not in reasoning
    assert FAKE_KEY[8:16] not in played.path.read_text(encoding="utf-8")


def test_reasoning_past_the_reply_cap_is_cut_and_marked(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    long = "thinking. " * (MAX_REPLY_BYTES // 10 + 100)
    server.push(Reply('{"transmit": false}', reasoning=long))
    played = play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1)
    reply = played.turn(0, "keeper")["replies"][0]
    assert reply["reasoningClipped"] is True
    assert len(reply["reasoning"].encode("utf-8")) <= MAX_REPLY_BYTES
    assert long.startswith(reply["reasoning"])


def test_an_old_reply_entry_reads_as_before() -> None:
    entry = {"raw": "x", "rawLength": 1, "rawSha256": "0" * 64, "parseError": None}
    reply = ModelReply.model_validate(entry)
    assert reply.reasoning is None
    assert reply.reasoning_clipped is False
    assert reply.model_dump(mode="json", by_alias=True) == {**entry, "rawClipped": False}


def test_the_call_cache_keeps_the_reasoning_and_the_tier(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "calls.sqlite")
    answer = Completion(
        text='{"move": "N"}',
        usage=Usage(10, 5),
        model="m",
        stop_reason="stop",
        reasoning="north is dry",
        reasoning_clipped=True,
        service_tier="flex",
    )
    asyncio.run(cache.put("k", answer))
    back = asyncio.run(cache.get("k"))
    assert back is not None
    assert (back.reasoning, back.reasoning_clipped, back.service_tier) == (
        "north is dry",
        True,
        "flex",
    )
    plain = Completion(text="{}", usage=Usage(1, 1), model="m")
    asyncio.run(cache.put("p", plain))
    again = asyncio.run(cache.get("p"))
    assert again is not None
    assert (again.reasoning, again.reasoning_clipped, again.service_tier) == (None, False, None)
    cache.close()


def test_the_viewer_frames_carry_each_replys_reasoning(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    hostile = "</script><img src=x onerror=alert(1)> & <b>bold</b>"
    server.push(Reply("no", reasoning="plan A"), Reply('{"transmit": false}', reasoning=hostile))
    played = play_llm(server, "openai", tmp_path / "r.jsonl", max_ticks=1)
    from harness.reader import open_record
    from harness.viewer.html import render_html

    lines = open_record(played.path).lines()
    frames = GAME.view.view_frames(lines)
    keeper = next(s for s in frames[1].seats if s.seat == "keeper")
    assert keeper.reasoning == f"plan A\n\n[retry] {hostile}"
    runner = next(s for s in frames[1].seats if s.seat != "keeper")
    assert runner.reasoning is None  # a baseline seat
    page = render_html(GAME.view, lines)
    # the page's data can neither end its script nor start an element
    assert "</script><img" not in page
    assert "<img src=x" not in page


# --- a reply cut by the length limit after its reasoning ---


@pytest.mark.parametrize("sdk", SDKS)
def test_an_empty_reply_cut_after_its_reasoning_is_fallback_length(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    cut = CUT[sdk]
    setting = {"reasoning_effort": "high"} if sdk == "openai" else {"thinking_budget": 1024}
    server.push(
        # tick 0: the model thinks until the limit, twice, and writes nothing
        Reply("", reasoning="step 1... step 2...", stop_reason=cut, reasoning_tokens=4096),
        Reply("", reasoning="step 1 again...", stop_reason=cut, reasoning_tokens=4096),
        # tick 1: two whole replies that are not JSON
        Reply("I will stay silent."),
        Reply("Still silent."),
    )
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=2, **setting)
    turn = played.turn(0, "keeper")
    assert turn["source"] == "fallback_length"
    assert [c["stopReason"] for c in turn["calls"]] == [cut, cut]
    assert [r["raw"] for r in turn["replies"]] == ["", ""]
    assert [r["reasoning"] for r in turn["replies"]] == ["step 1... step 2...", "step 1 again..."]
    assert played.turn(1, "keeper")["source"] == "fallback_parse"
    # counted apart in the results line
    assert results_line_fallbacks(played) == {"fallback_length": 1, "fallback_parse": 1}


# --- the flex tier: its price, and its slowness bounded ---

BASE = {"input_per_mtok": 2.0, "output_per_mtok": 8.0}
FLEX = {"input_per_mtok": 1.0, "output_per_mtok": 4.0}


@pytest.mark.parametrize(
    ("served", "rates"), [(None, FLEX), ("default", BASE)], ids=["flex", "served-default"]
)
def test_a_flex_call_is_priced_at_the_rates_of_the_tier_that_served_it(
    server: ScriptedLLMServer, tmp_path: Path, served: str | None, rates: dict[str, float]
) -> None:
    server.push(
        Reply('{"transmit": false}', input_tokens=1000, output_tokens=200, service_tier=served)
    )
    prices = {"test-model": {**BASE, "service_tiers": {"flex": FLEX}}}
    played = play_llm(
        server,
        "openai",
        tmp_path / "r.jsonl",
        max_ticks=1,
        service_tier="flex",
        provider={"prices": prices},
    )
    call = played.turn(0, "keeper")["calls"][0]
    assert call["serviceTier"] == (served or "flex")
    hand = (1000 * rates["input_per_mtok"] + 200 * rates["output_per_mtok"]) / 1e6
    assert call["costUsd"] == pytest.approx(hand)


def test_a_tier_without_rates_of_its_own_is_priced_at_the_models(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    server.push(Reply('{"transmit": false}', input_tokens=1000, output_tokens=200))
    played = play_llm(
        server,
        "openai",
        tmp_path / "r.jsonl",
        max_ticks=1,
        service_tier="priority",
        provider={"prices": {"test-model": {**BASE, "service_tiers": {"flex": FLEX}}}},
    )
    call = played.turn(0, "keeper")["calls"][0]
    assert call["costUsd"] == pytest.approx((1000 * 2.0 + 200 * 8.0) / 1e6)


def test_a_flex_answer_slower_than_the_seats_deadline_is_a_timeout_fallback(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    server.push(Reply('{"transmit": true, "message": "late"}', delay_s=3.0))
    played = play_llm(
        server,
        "openai",
        tmp_path / "r.jsonl",
        max_ticks=1,
        service_tier="flex",
        call_timeout_seconds=0.5,
        allowance_seconds=0.8,
    )
    turn = played.turn(0, "keeper")
    assert turn["source"] == "fallback_timeout"
    assert turn["calls"][-1]["failure"] == "timeout"
    assert server.requests[0].body["service_tier"] == "flex"


def test_the_budget_bound_takes_the_dearest_tier() -> None:
    from harness.llm.options import PriceOptions
    from harness.llm.pricing import Price

    dear = {"input_per_mtok": 4.0, "output_per_mtok": 16.0}
    price = Price.of(
        PriceOptions.model_validate({**BASE, "service_tiers": {"flex": FLEX, "priority": dear}})
    )
    assert price.for_tier("flex").most(1000, 100) == pytest.approx((1000 * 1.0 + 100 * 4.0) / 1e6)
    assert price.for_tier("scale") is price  # a tier without rates: the model's
    assert price.for_tier(None) is price
    # whichever tier answers, the bound covers it
    assert price.most(1000, 100) == pytest.approx((1000 * 4.0 + 100 * 16.0) / 1e6)
    plain = Price.of(PriceOptions.model_validate(BASE))
    assert plain.most(1000, 100) == pytest.approx((1000 * 2.0 + 100 * 8.0) / 1e6)
