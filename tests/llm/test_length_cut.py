"""A reply cut by the length limit falls back as its own source, ``fallback_length``,
counted apart from parse failures, through the real SDKs; replay classifies it alike."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.json_reply import FailureKind, ParseFailure
from harness.records import FALLBACK_SOURCES, LENGTH_STOP_REASONS, SOURCES
from harness.replay import replay
from harness.seats import turn_source
from harness.summary import summarize
from harness.testing.llm_server import Reply, ScriptedLLMServer
from tests.llm.conftest import GAME, Played, play_llm

SDKS = ["openai", "anthropic"]
#: Each API's words for a reply cut at max_tokens.
CUT = {"openai": "length", "anthropic": "max_tokens"}


def results_line_fallbacks(played: Played) -> dict[str, int]:
    header = {**played.lines[0], "variant": "default"}
    line = summarize(GAME.report, [header, *played.lines[1:]], entrant="m", repetition=0)
    return line.seats["keeper"].fallbacks


@pytest.mark.parametrize("sdk", SDKS)
def test_two_cut_replies_fall_back_as_fallback_length_and_count_apart(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    cut = CUT[sdk]
    server.push(
        # tick 0: both replies cut mid-object -> fallback_length
        Reply('{"transmit": true, "message": "Sprocket N; Giz', stop_reason=cut),
        Reply('{"transmit": true, "mess', stop_reason=cut),
        # tick 1: two whole replies that do not parse -> fallback_parse, as before
        Reply("no"),
        Reply("still no"),
        # tick 2: a cut first reply rescued by the retry -> llm_retry
        Reply('{"transmit": tr', stop_reason=cut),
        Reply('{"transmit": false}'),
    )
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=3)
    sources = [played.turn(t, "keeper")["source"] for t in range(3)]
    assert sources == ["fallback_length", "fallback_parse", "llm_retry"]
    assert [c["stopReason"] for c in played.turn(0, "keeper")["calls"]] == [cut, cut]
    assert results_line_fallbacks(played) == {"fallback_length": 1, "fallback_parse": 1}
    # replay re-parses the recorded replies and finds the same sources
    result = asyncio.run(replay(played.path, GAME, reparse=True))
    assert result.clean
    assert result.reparse == []


@pytest.mark.parametrize("sdk", SDKS)
def test_a_whole_reply_that_ends_the_turn_is_a_parse_fallback_even_after_a_cut_one(
    server: ScriptedLLMServer, tmp_path: Path, sdk: str
) -> None:
    # the source follows the reply that ended the turn: the retry's, here whole
    server.push(Reply('{"transmit": tr', stop_reason=CUT[sdk]), Reply("no JSON here"))
    played = play_llm(server, sdk, tmp_path / "r.jsonl", max_ticks=1)
    assert played.turn(0, "keeper")["source"] == "fallback_parse"


def test_the_source_list_and_the_sets_derived_from_it() -> None:
    assert "fallback_length" in SOURCES
    assert "fallback_length" in FALLBACK_SOURCES
    assert {"length", "max_tokens"} <= LENGTH_STOP_REASONS
    bad = ParseFailure(FailureKind.NOT_JSON, "not JSON")
    refused = ParseFailure("refused:wall", "refused")
    assert turn_source([bad, bad], None, cut=True) == "fallback_length"
    assert turn_source([bad, bad], None, cut=False) == "fallback_parse"
    # a refusal by the rules stays a refusal; one failure keeps the turn open
    assert turn_source([bad, refused], None, cut=True) == "fallback_refused"
    assert turn_source([bad], None, cut=True) is None
    assert turn_source([bad, None], None, cut=True) == "llm_retry"


def test_an_old_record_without_stop_reasons_replays_as_before(tmp_path: Path) -> None:
    original = Path(__file__).resolve().parents[2] / (
        "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"
    )
    lines = [json.loads(x) for x in original.read_text().splitlines()]
    assert not any(
        "stopReason" in call
        for line in lines
        if line["type"] == "tick"
        for turn in line["seats"].values()
        for call in turn["calls"]
    )
    result = asyncio.run(replay(original, GAME, reparse=True))
    assert result.clean
    assert result.reparse == []
