"""Fixtures for LLM seat tests: a scripted server on 127.0.0.1 and episode runners."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.episode import EpisodeOutcome, run_episode
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import new_game
from harness.llm.options import LLMSeatOptions
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seats import Seat, baseline_seats
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer, SeenRequest

KEY_ENV = "LIGHTHOUSE_TEST_API_KEY"
#: A recognisable fake key: no trace of it may reach a file, a log or an error.
FAKE_KEY = "sk-test-CANARY7f3a9b2c4d5e6f708192a3b4c5d6e7f8"
HINT_MARK = "could not be used"
GAME = get_game("lighthouse")


def role_default(path: str, body: dict[str, Any]) -> Action:
    """A valid reply for whichever role is asking."""
    if "You are the KEEPER" in json.dumps(body):
        return Reply('{"transmit": false}')
    return Reply('{"move": "WAIT"}')


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(default=role_default) as srv:
        yield srv


@pytest.fixture(autouse=True)
def fake_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, FAKE_KEY)
    return FAKE_KEY


def seat_options(server: ScriptedLLMServer, sdk: str, **overrides: Any) -> LLMSeatOptions:
    data: dict[str, Any] = {
        "provider": {
            "kind": sdk,
            "base_url": server.openai_url if sdk == "openai" else server.anthropic_url,
            "api_key_env": KEY_ENV,
        },
        "model": "test-model",
        "call_timeout_seconds": 5.0,
        "allowance_seconds": 10.0,
    }
    provider = overrides.pop("provider", {})
    data["provider"].update(provider)
    data.update(overrides)
    return LLMSeatOptions.model_validate(data)


@dataclass
class Played:
    outcome: EpisodeOutcome
    lines: list[dict[str, Any]]
    path: Path

    def ticks(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line["type"] == "tick"]

    def turn(self, tick: int, seat: str) -> dict[str, Any]:
        turn: dict[str, Any] = self.ticks()[tick]["seats"][seat]
        return turn


def play_llm(
    server: ScriptedLLMServer,
    sdk: str,
    path: Path,
    *,
    llm_seats: tuple[str, ...] = ("keeper",),
    board_seed: int = 7,
    max_ticks: int = 2,
    episode_timeout: float = 900.0,
    **options: Any,
) -> Played:
    """Play a short episode with the given seats on the scripted server, the rest baselines."""
    config = LighthouseConfig(max_ticks=max_ticks, episode_timeout_seconds=episode_timeout)
    state = new_game(config, generate_board(config, board_seed))
    opts = seat_options(server, sdk, **options)

    async def go() -> EpisodeOutcome:
        factory = SeatFactory()
        seats: dict[str, Seat] = dict(baseline_seats(GAME, state))
        try:
            for spec in GAME.rules.seats(state):
                if spec.seat in llm_seats:
                    seats[spec.seat] = factory.seat(GAME, spec.role, opts)
            with RecordWriter(path) as writer:
                return await run_episode(
                    GAME, state, seats, episode_id="llm-test", seed=board_seed, writer=writer
                )
        finally:
            await factory.aclose()

    outcome = asyncio.run(go())
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return Played(outcome, lines, path)


def hints_sent(requests: list[SeenRequest]) -> int:
    """How many requests carried a retry hint."""
    return sum(1 for r in requests if HINT_MARK in json.dumps(r.body))
