"""``notes`` is optional in every reply schema, as the prompts say.

A structured model may leave the key out to keep its notes (decision R4); null stays a
wrong type (R2), so the schema makes ``notes`` a property not required rather than a
nullable one, and OpenAI's strict mode (which wants every property required) is off
for such a schema. Records written while the schema required ``notes`` still verify.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.games.lighthouse.seat_io import LighthouseSeatIO
from harness.llm.shapes import every_property_required, is_strict
from harness.models import JsonObject
from harness.reader import open_record
from harness.registry import game_names, get_game
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.viewer.prompts import sent_prompts
from tests.llm.conftest import play_llm

GAME = get_game("lighthouse")
TICK = re.compile(r"Tick (\d+) of")


def test_no_reply_schema_requires_notes_and_every_one_names_what_it_requires() -> None:
    for game in map(get_game, game_names()):
        for group in game.seat_groups:
            schema = game.seat_io.reply_schema(group.role)
            required = schema.get("required")
            properties = schema.get("properties")
            assert isinstance(required, list), (game.name, group.role)
            assert isinstance(properties, dict)
            assert "notes" not in required
            assert set(required) <= set(properties)
    keeper = GAME.seat_io.reply_schema("keeper")
    assert keeper["required"] == ["transmit", "message"]
    assert GAME.seat_io.reply_schema("runner")["required"] == ["move"]
    assert not is_strict(keeper)
    assert is_strict(every_property_required(keeper))


def _runner_answers(path: str, body: dict[str, Any]) -> Action:
    found = TICK.search(json.dumps(body))
    tick = int(found.group(1)) if found else -1
    if tick == 0:
        return Reply('{"move": "N", "notes": "plan A: north twice"}')
    return Reply('{"move": "N"}')  # no notes: keep them


def test_a_structured_reply_without_notes_keeps_the_seats_notes(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=_runner_answers) as server:
        played = play_llm(
            server,
            "openai",
            tmp_path / "notes.jsonl",
            llm_seats=("runner1",),
            max_ticks=3,
            structured_output="json_schema",
        )
        asked = [r.body for r in server.requests if "connection check" not in json.dumps(r.body)]
    assert len(asked) == 3
    sent = asked[0]["response_format"]["json_schema"]
    assert sent["schema"]["required"] == ["move"]
    assert sent["strict"] is False
    # the notes of tick 0 are shown back at ticks 1 and 2, though neither reply gave any
    assert "plan A" not in asked[0]["messages"][-1]["content"]
    assert all("plan A: north twice" in b["messages"][-1]["content"] for b in asked[1:])
    assert [played.turn(t, "runner1")["source"] for t in range(3)] == ["llm"] * 3
    assert played.turn(1, "runner1")["decision"].get("notes") is None


def test_a_record_made_when_notes_were_required_still_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the schema as it was: every property required, sent in the prompt
    before = LighthouseSeatIO.reply_schema

    def required_notes(self: LighthouseSeatIO, role: str) -> JsonObject:
        return every_property_required(before(self, role))

    monkeypatch.setattr(LighthouseSeatIO, "reply_schema", required_notes)
    with ScriptedLLMServer(default=Reply('{"transmit": false, "message": ""}')) as server:
        played = play_llm(server, "openai", tmp_path / "old.jsonl", structured_output="prompt")
    monkeypatch.undo()
    assert played.lines[1]["seats"]["keeper"]["calls"][0]["promptSha256"]
    prompts = sent_prompts(GAME, open_record(played.path).lines())
    checks = [p.check for seats in prompts.turns.values() for p in seats.values()]
    assert checks == ["exact"] * len(played.ticks())
    shown = prompts.turns[0]["keeper"].messages[0].content
    assert '"required": ["transmit", "message", "notes"]' in shown
