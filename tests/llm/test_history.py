"""Seat memory (``history = K``): the last K ticks sent as a conversation, made again
from the record exactly, and let go when the episode ends."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue

from harness.errors import ConfigError
from harness.llm.memory import SeatMemory
from harness.llm.options import MAX_HISTORY, LLMSettings
from harness.llm.prompts import RETRY_ECHO_RUNES, Exchange, default_prompt_files, first_messages
from harness.models import JsonObject
from harness.reader import open_record
from harness.registry import get_game
from harness.seat_spec import parse_seat_arg
from harness.seats import episode_running
from harness.tournament.identity import entrant_identities
from harness.viewer.prompts import sent_prompts
from tests.llm_episode import RETRY_TICK, Recorded, record_llm_episode

GAME = get_game("lighthouse")
HISTORY = 2


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    path = tmp_path_factory.mktemp("history") / "episode.jsonl"
    return record_llm_episode(path, history=HISTORY)


def roles(body: dict[str, Any]) -> list[str]:
    return [m["role"] for m in body["messages"]]


def last(body: dict[str, Any]) -> str:
    content: str = body["messages"][-1]["content"]
    return content


def test_each_request_carries_the_last_ticks_as_turns(recorded: Recorded) -> None:
    lines = recorded.lines()
    ticks = [x for x in lines if x["type"] == "tick"]
    keeper = [r.body for r in recorded.requests if "You are the KEEPER" in json.dumps(r.body)]
    assert len(keeper) == len(ticks)  # one call a tick, no retry
    for tick, body in enumerate(keeper):
        earlier = min(tick, HISTORY)
        assert roles(body) == ["system", *["user", "assistant"] * earlier, "user"]
        # the turns are the earlier ticks' own prompts and replies, oldest first
        for back in range(1, earlier + 1):
            was = keeper[tick - back]["messages"]
            reply = body["messages"][-1 - 2 * back + 1]
            prompt = body["messages"][-1 - 2 * back]
            assert prompt == was[-1]
            assert reply["content"] == ticks[tick - back]["seats"]["keeper"]["raw"]
    # the record says the seat was sent its history
    header = lines[0]
    assert {s["agent"]["details"]["history"] for s in header["seats"]} == {str(HISTORY)}


def test_a_retry_keeps_the_history_and_remembers_its_last_reply(recorded: Recorded) -> None:
    sprocket = [r.body for r in recorded.requests if "You are Sprocket" in json.dumps(r.body)]
    at = next(i for i, b in enumerate(sprocket) if "could not be used" in last(b))
    first, retry, after = sprocket[at - 1 : at + 2]
    assert f"Tick {RETRY_TICK} of" in last(first)
    assert roles(retry) == [*roles(first), "assistant", "user"]
    assert retry["messages"][: len(first["messages"])] == first["messages"]
    assert f"Tick {RETRY_TICK + 1} of" in last(after)
    # the tick that retried is remembered by its first prompt and its last (good) reply
    assert after["messages"][-3] == first["messages"][-1]
    assert after["messages"][-2]["content"] != retry["messages"][-2]["content"]


def test_every_prompt_sent_with_history_is_made_again_exactly(recorded: Recorded) -> None:
    prompts = sent_prompts(GAME, open_record(recorded.path).lines())
    assert prompts.notes == []
    turns = [p for seats in prompts.turns.values() for p in seats.values()]
    assert len(turns) == 94
    assert {p.check for p in turns} == {"exact"}
    sent = {tuple((m["role"], m["content"]) for m in r.body["messages"]) for r in recorded.requests}
    assert all(tuple((m.role, m.content) for m in p.messages) in sent for p in turns)


def test_a_record_whose_history_was_edited_no_longer_verifies(
    recorded: Recorded, tmp_path: Path
) -> None:
    lines = recorded.lines()
    for seat in lines[0]["seats"]:
        seat["agent"]["details"]["history"] = str(HISTORY + 1)
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    prompts = sent_prompts(GAME, open_record(path).lines())
    checks = [p.check for seats in prompts.turns.values() for p in seats.values()]
    # the first ticks had fewer earlier ticks than either count: they still match
    assert checks.count("differs") > 0
    assert checks.count("exact") > 0


def test_history_zero_sends_each_tick_alone() -> None:
    assert first_messages("s", "$observation", "o", ()) == first_messages("s", "$observation", "o")
    assert [m.role for m in first_messages("s", "$observation", "o")] == ["system", "user"]


def test_a_remembered_reply_is_cut_like_a_retry_echo() -> None:
    kept = Exchange.of("prompt", "x" * (RETRY_ECHO_RUNES + 50))
    assert len(kept.reply) == RETRY_ECHO_RUNES


def test_memory_is_per_episode_and_seat_and_let_go_when_the_episode_ends() -> None:
    memory = SeatMemory(2)
    with episode_running("ep-1"):
        for tick in range(3):
            memory.remember("ep-1", "keeper", f"p{tick}", f"r{tick}")
        memory.remember("ep-1", "runner1", "q", "s")
        assert [e.prompt for e in memory.recall("ep-1", "keeper")] == ["p1", "p2"]
        assert memory.recall("ep-2", "keeper") == ()
        assert len(memory) == 2
    assert len(memory) == 0  # the episode ended: nothing kept
    off = SeatMemory(0)
    off.remember("ep", "keeper", "p", "r")
    assert off.recall("ep", "keeper") == ()


def test_the_option_is_bounded_and_on_the_command_line() -> None:
    with pytest.raises(ValueError, match="history"):
        LLMSettings(model="m", history=-1)
    with pytest.raises(ValueError, match="history"):
        LLMSettings(model="m", history=MAX_HISTORY + 1)
    assert "history" not in LLMSettings(model="m").model_dump(exclude_unset=False)
    spec = parse_seat_arg(
        "openai:m", role="keeper", baselines=["lantern"], options={"history": 4}, where="--keeper"
    )
    assert getattr(spec, "history", None) == 4
    with pytest.raises(ConfigError, match="--keeper"):
        parse_seat_arg(
            "openai:m", role="keeper", baselines=["lantern"], options={"history": -2},
            where="--keeper",
        )  # fmt: skip


def identity(**extra: JsonValue) -> str | None:
    hashes = {}
    for role in ("keeper", "runner"):
        files = default_prompt_files("lighthouse", role)
        for path in (files.system, files.observation, files.retry_hint):
            hashes[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    seats: JsonObject = {
        "keeper": {"provider": "p", "model": "m", **extra},
        "runners": {"baseline": "wallhug"},
    }
    config: JsonObject = {
        "providers": {"p": {"kind": "openai"}},
        "entrants": [{"name": "e", "seats": seats}],
    }
    return entrant_identities(GAME, config, hashes)["e"]


def test_history_is_part_of_the_identity_and_prompt_cache_is_not() -> None:
    plain = identity()
    assert plain is not None
    assert identity(history=4) not in (None, plain)
    assert identity(history=4) != identity(history=16)
    assert identity(prompt_cache=True) == plain
    assert identity(promptCache=True, history=4) == identity(history=4)
