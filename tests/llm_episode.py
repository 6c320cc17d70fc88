"""A Lighthouse episode with a model in every seat, recorded through the real runner.

The four seats are LLM seats built by :class:`~harness.llm.seat.SeatFactory` with the
real OpenAI SDK, calling a :class:`~harness.testing.llm_server.ScriptedLLMServer` on
127.0.0.1. Each request is answered with what the golden baseline record
``baseline-spring-seed3`` says its seat answered at that tick (the seat and tick are
read from the request's text), so the episode tells that record's story: Sprocket
escapes and Ratchet drowns at tick 16, Gizmo drowns later. Once, Sprocket first
answers something that is not a move (:data:`RETRY_TICK`), so one turn is a retry.

Used by the viewer's browser tests and by ``python -m tests.viewer.screenshot``.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.episode import run_episode
from harness.llm.options import LLMSeatOptions
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seats import Seat
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer, SeenRequest

ROOT = Path(__file__).resolve().parents[1]
#: The episode whose answers the models give.
STORY = ROOT / "tests/golden/records/baseline-spring-seed3.jsonl"
#: The tick at which Sprocket's first answer is not a move.
RETRY_TICK = 4
NOT_A_MOVE = '{"move": "NORTHWEST", "notes": "diagonal?"}'
GAME = get_game("lighthouse")
KEY_ENV = "LIGHTHOUSE_VIEWER_TEST_KEY"

_RUNNER = re.compile(r"^You are (\w+)\.", re.M)
_TICK = re.compile(r"^Tick (\d+) of", re.M)


@dataclass(frozen=True)
class Recorded:
    """The record written, and every request the models received."""

    path: Path
    requests: list[SeenRequest]

    def lines(self) -> list[dict[str, Any]]:
        """The record's lines as JSON."""
        return [json.loads(x) for x in self.path.read_text(encoding="utf-8").splitlines()]


class _Answers:
    """Answers each request with the story's reply for its seat and tick."""

    def __init__(self) -> None:
        lines = [json.loads(x) for x in STORY.read_text(encoding="utf-8").splitlines()]
        header = lines[0]
        self.seats = {s["name"]: s["seat"] for s in header["seats"] if s["name"]}
        self.ticks = [x for x in lines if x["type"] == "tick"]

    def __call__(self, path: str, body: dict[str, Any]) -> Action:
        messages = body["messages"]
        # the tick's own prompt: the last user message that shows a tick (before it, a
        # seat with history sends earlier ticks; after it, a retry sends its hint)
        at = next(
            i
            for i in range(len(messages) - 1, -1, -1)
            if messages[i]["role"] == "user" and _TICK.search(messages[i]["content"])
        )
        text = messages[at]["content"]
        runner = _RUNNER.search(text)
        found = _TICK.search(text)
        assert found is not None, text[:200]
        tick = int(found.group(1))
        if runner is not None:
            seat = self.seats[runner.group(1)]
            if seat == "runner1" and tick == RETRY_TICK and at == len(messages) - 1:
                return Reply(NOT_A_MOVE)
        else:
            seat = "keeper"
        return Reply(self.ticks[tick]["seats"][seat]["raw"])


def record_llm_episode(path: Path, **settings: object) -> Recorded:
    """Play the episode (see the module) and write its record to ``path``; ``settings``
    are further seat options (``history=2``, say)."""
    story = GAME.codec.start_state(_header())
    with ScriptedLLMServer(default=_Answers()) as server:
        options = LLMSeatOptions.model_validate(
            {
                "provider": {
                    "kind": "openai",
                    "base_url": server.openai_url,
                    "api_key_env": KEY_ENV,
                },
                "model": "scripted-model",
                "call_timeout_seconds": 10.0,
                **settings,
            }
        )

        async def go() -> None:
            async with SeatFactory(environ={KEY_ENV: "sk-test-viewer"}) as factory:
                seats: dict[str, Seat] = {
                    spec.seat: factory.seat(GAME, spec.role, options)
                    for spec in GAME.rules.seats(story)
                }
                with RecordWriter(path) as writer:
                    await run_episode(
                        GAME, story, seats, episode_id="llm-spring-seed3", seed=3,
                        variant="spring", writer=writer,
                    )  # fmt: skip

        asyncio.run(go())
        return Recorded(path, list(server.requests))


def _header() -> Any:
    line = STORY.read_text(encoding="utf-8").splitlines()[0]
    return GAME.codec.record_adapter.validate_json(line)


__all__ = ["NOT_A_MOVE", "RETRY_TICK", "STORY", "Recorded", "record_llm_episode"]
