"""Build the LLM golden records: scripted models with retries, fallbacks and a deadline.

The scripted replies depend only on what each request says (the tick in the
observation, whether a retry hint is present), so the records are the same on every
run apart from their wallClock fields. They are played on a fast-forwarded loop clock
(looptime): it stands still while any task can run and jumps to the next timer when all
of them wait, so the deadline scenario ends after exactly the ticks it scripts however
busy the machine is, and at once. ``tests/test_golden_llm_records.py`` compares
them with the files under ``tests/golden/records/``; ``python -m tests.golden.update``
rewrites the files after a deliberate change.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import looptime

from harness.episode import run_episode
from harness.errors import BadResponseError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import new_game
from harness.llm.options import LLMSeatOptions
from harness.llm.scripted import ScriptedProvider
from harness.llm.seat import SeatFactory
from harness.llm.types import Completion, CompletionRequest
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seats import Seat, baseline_seats

GAME = get_game("lighthouse")
_TICK = re.compile(r"Tick (\d+) of")


def _tick(request: CompletionRequest) -> int:
    match = _TICK.search(request.messages[1].content)
    assert match is not None
    return int(match.group(1))


def _is_retry(request: CompletionRequest) -> bool:
    return len(request.messages) > 2


def keeper_script(request: CompletionRequest) -> str:
    """A keeper that talks, fumbles its format, and once sends an unusable response."""
    tick, retry = _tick(request), _is_retry(request)
    if tick == 1:  # prose around JSON, fixed on the retry -> llm_retry
        return '{"transmit": false, "notes": "fixed"}' if retry else 'Sure: {"transmit": false}'
    if tick == 3:  # wrong type twice -> fallback_parse
        return '{"transmit": "yes"}'
    if tick == 5:  # the provider's body is unusable -> fallback_api
        raise BadResponseError("decode", "scripted: the response is not valid UTF-8")
    if tick % 2 == 0:
        return '```json\n{"transmit": true, "message": "Sprocket N; Gizmo N; Ratchet W"}\n```'
    return '{"transmit": false}'


def runner_script(request: CompletionRequest) -> str:
    """Runners that move, keep notes, and once pick a move that does not exist."""
    tick, retry = _tick(request), _is_retry(request)
    if tick == 2:
        return '{"move": "N"}' if retry else '{"move": "NORTHWEST"}'
    if tick == 4:
        return '{"move": "UP", "notes": "heading for the gate"}'
    return '{"move": "north"}' if tick % 3 else '{"move": "E"}'


async def _hang_from_tick_3(request: CompletionRequest) -> str | Completion:
    if _tick(request) >= 3:
        await asyncio.Event().wait()
    return keeper_script(request)


SCENARIOS: dict[str, tuple[int, dict[str, object], dict[str, Callable[..., object]]]] = {
    # name: (seed, config overrides, {seat: script})
    "llm-keeper-retries-fallbacks": (5, {"max_ticks": 8}, {"keeper": keeper_script}),
    "llm-runners-notes-retry": (
        11,
        {"max_ticks": 6},
        {"runner1": runner_script, "runner2": runner_script, "runner3": runner_script},
    ),
    "llm-keeper-deadline": (
        2,
        {"max_ticks": 20, "episode_timeout_seconds": 1.0},
        {"keeper": _hang_from_tick_3},
    ),
}


def build(name: str, path: Path) -> None:
    """Play scenario ``name`` and write its record to ``path``."""
    seed, overrides, scripts = SCENARIOS[name]
    config = LighthouseConfig.model_validate(overrides)
    state = new_game(config, generate_board(config, seed))
    options = LLMSeatOptions.model_validate(
        {
            "provider": {"kind": "scripted"},
            "model": "scripted-model",
            "call_timeout_seconds": 5.0,
            "allowance_seconds": 5.0,
        }
    )

    async def go() -> None:
        factory = SeatFactory()
        seats: dict[str, Seat] = dict(baseline_seats(GAME, state))
        for spec in GAME.rules.seats(state):
            if spec.seat in scripts:
                provider = ScriptedProvider(script=scripts[spec.seat])  # type: ignore[arg-type]
                seats[spec.seat] = factory.seat(GAME, spec.role, options, provider=provider)
        with RecordWriter(path) as writer:
            await run_episode(
                GAME, state, seats, episode_id=name, seed=seed, variant="default", writer=writer
            )

    with asyncio.Runner(loop_factory=looptime.new_event_loop) as runner:
        runner.run(go())
