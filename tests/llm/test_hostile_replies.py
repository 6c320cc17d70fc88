"""Hostile replies end in a fallback, never a stall or a crash (rules R1, R5, R7, R8).

A reply long enough to take a while to parse is parsed in a worker thread; a whole
tournament whose model answers deep nesting, then a 1 MiB unclosed fence, finishes
with every such turn tagged ``fallback_parse``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.seat_io import LighthouseSeatIO
from harness.games.lighthouse.state import new_game
from harness.llm.options import LLMSeatOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.scripted import ScriptedProvider
from harness.llm.seat import PARSE_OFF_LOOP_CHARS, LLMSeat
from harness.protocol import SeatIO
from harness.reader import open_record
from harness.registry import get_game
from harness.seats import SeatReply, SeatRequest
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.text import MAX_REPLY_BYTES
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

KEY_ENV = "HOSTILE_TEST_KEY"
DEEP = "[" * 5000 + "]" * 5000
UNCLOSED_FENCE = "```json\n" + "a" * (MAX_REPLY_BYTES - 8)  # 1 MiB exactly


class SpyIO(LighthouseSeatIO):
    """Lighthouse's seat I/O, noting the thread each reply is parsed on and its length."""

    def __init__(self) -> None:
        super().__init__()
        self.parsed_on: list[tuple[int, int]] = []

    def parse_reply(self, observation: Any, text: str) -> Any:
        self.parsed_on.append((len(text), threading.get_ident()))
        return super().parse_reply(observation, text)


def decide(io: SpyIO, replies: list[str]) -> SeatReply:
    """One runner turn of an LLM seat that answers ``replies`` in order."""
    game = get_game("lighthouse")
    config = LighthouseConfig()
    state = new_game(config, generate_board(config, 7))
    spec = next(s for s in game.rules.seats(state) if s.role == "runner")
    seat = LLMSeat(
        provider=ScriptedProvider(replies),
        options=LLMSeatOptions.model_validate(
            {"provider": {"kind": "scripted"}, "model": "spy", "allowance_seconds": 60}
        ),
        prompts=PromptSet.load(default_prompt_files("lighthouse", "runner")),
    )
    observation = game.rules.observe(state, spec.seat)
    # the spy is Lighthouse's seat I/O; a request holds any game's
    request = SeatRequest(cast(SeatIO, io), game.baselines[spec.role], spec, 0, observation)
    return asyncio.run(seat.decide(request))


def padded(size: int) -> str:
    """A valid runner reply of exactly ``size`` characters."""
    head = '{"move": "N", "notes": "'
    return head + "x" * (size - len(head) - 2) + '"}'


def test_a_long_reply_is_parsed_off_the_event_loop() -> None:
    io = SpyIO()
    reply = decide(io, [UNCLOSED_FENCE, padded(PARSE_OFF_LOOP_CHARS)])
    assert reply.source == "llm_retry"
    assert [r.parse_error and r.parse_error.kind for r in reply.replies] == ["bad_fence", None]
    (long_size, long_thread), (short_size, short_thread) = io.parsed_on
    loop_thread = threading.get_ident()  # asyncio.run runs the loop on this thread
    assert (long_size, short_size) == (len(UNCLOSED_FENCE), PARSE_OFF_LOOP_CHARS)
    assert long_thread != loop_thread
    assert short_thread == loop_thread


def test_the_threshold_is_exact() -> None:
    io = SpyIO()
    reply = decide(io, ["no", padded(PARSE_OFF_LOOP_CHARS + 1)])
    assert reply.source == "llm_retry"
    threads = [thread for _, thread in io.parsed_on]
    assert threads[0] == threading.get_ident()
    assert threads[1] != threading.get_ident()


def hostile(path: str, body: dict[str, Any]) -> Action:
    """Deep nesting first; on the retry (the failed reply is sent back), a 1 MiB fence."""
    retry = len(body["messages"]) > 2
    return Reply(UNCLOSED_FENCE if retry else DEEP)


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(default=hostile) as srv:
        yield srv


CONFIGS = {
    "lighthouse": """
name = "hostile"
seeds = [1]
rules = {{ maxTicks = 2 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "llm"
keeper = {{ provider = "local", model = "hostile" }}
runners = [{{ provider = "local", model = "hostile" }}, {{ baseline = "wallhug" }}, {{ baseline = "wallhug" }}]
""",
    "relayroam": """
name = "hostile"
game = "relayroam"
seeds = [1]
rules = {{ chamberCap = 1, decisionsPerChamber = 2 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "llm"
player = {{ provider = "local", model = "hostile" }}
""",
    "hourloom": """
name = "hostile"
game = "hourloom"
seeds = [1]
rules = {{ maxChambers = 1, maxActions = 2 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "llm"
player = {{ provider = "local", model = "hostile" }}
""",
}


@pytest.mark.parametrize("game", list(CONFIGS))
def test_a_tournament_of_hostile_replies_finishes_on_fallbacks(
    server: ScriptedLLMServer, tmp_path: Path, game: str
) -> None:
    path = tmp_path / "hostile.toml"
    path.write_text(CONFIGS[game].format(url=server.openai_url, key_env=KEY_ENV))
    config = load_tournament(path)
    out = tmp_path / "out"
    outcome = asyncio.run(run_tournament(config, out, environ={KEY_ENV: "sk-hostile-test"}))
    assert (outcome.planned, outcome.played) == (1, 1)
    folder = ResultsFolder(out)
    [summary] = folder.summaries()
    record = open_record(folder.record_path(summary.episode_id))
    assert record.game.name == game
    lines = record.lines()
    turns = [
        line.seats[seat]
        for line in lines
        if line.type == "tick"
        for seat in line.seats
        if line.seats[seat].source != "baseline"
    ]
    assert turns, "the model played no turn"
    for turn in turns:
        assert turn.source == "fallback_parse"
        assert [r.parse_error.kind for r in turn.replies] == ["too_complex", "bad_fence"]
        assert [r.raw_length for r in turn.replies] == [len(DEEP), MAX_REPLY_BYTES]
        assert not turn.replies[1].raw_clipped
    # Every turn of the model is two calls: the deep reply, then the retry.
    assert len(server.requests) == 2 * len(turns) + 1  # and one preflight call
    assert lines[-1].type == "end"
