"""Your own agent in a seat: what it is given, what it may return, and every way it can fail."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

import harness
from harness.agents import AgentInput, load_agent
from harness.errors import ConfigError
from harness.games.lighthouse.state import KeeperDecision, Move, RunnerDecision
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.secrets import register_secret
from harness.registry import get_game
from harness.replay import replay

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schemas"
KEEPER_REPLY = '{"transmit": true, "message": "Sprocket N"}'


def short(**rules: Any) -> harness.Env:
    """Lighthouse episodes of three ticks."""
    return harness.make("lighthouse", rules={"maxTicks": 3, **rules})


def keeper_turns(result: harness.PlayResult) -> list[dict[str, Any]]:
    return [tick["seats"]["keeper"] for tick in result.ticks]


def test_a_sync_agent_gets_the_observation_and_the_text_a_model_gets() -> None:
    seen: list[AgentInput] = []
    threads: list[int] = []

    def keeper(given: AgentInput) -> str:
        seen.append(given)
        threads.append(threading.get_ident())
        return KEEPER_REPLY

    result = short().play(seed=7, keeper=keeper)
    first = seen[0]
    assert (first.game, first.seat, first.role, first.tick) == ("lighthouse", "keeper", "keeper", 0)
    assert first.episode_id == "lighthouse-default-seed7"
    assert first.observation.tick == 0
    assert first.observation.exit is not None
    prompts = PromptSet.load(default_prompt_files("lighthouse", "keeper"))
    rendered = get_game("lighthouse").seat_io.render_observation(first.observation)
    assert first.text == prompts.observation.fill(observation=rendered)
    assert "Reply with one JSON object" in first.text  # the observation prompt, filled in
    assert first.system == prompts.system.text
    assert [m["role"] for m in first.messages] == ["system", "user"]
    assert (first.retry_of, first.problem, first.hint) == (None, None, None)
    assert [given.tick for given in seen] == [0, 1, 2]
    # a sync agent runs in a thread of its own, never on the event loop's
    assert threading.get_ident() not in threads
    turns = keeper_turns(result)
    assert {turn["source"] for turn in turns} == {"python"}
    assert {turn["raw"] for turn in turns} == {KEEPER_REPLY}
    assert [turn["decision"]["message"] for turn in turns] == ["Sprocket N"] * 3
    agent = result.lines[0]["seats"][0]["agent"]
    assert agent["kind"] == "python"
    assert (
        agent["name"]
        == f"{__name__}:test_a_sync_agent_gets_the_observation_and_the_text_a_model_gets.<locals>.keeper"
    )


def test_an_async_agent_runs_on_an_event_loop_of_its_own() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def keeper(given: AgentInput) -> str:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return KEEPER_REPLY

    async def play() -> tuple[harness.PlayResult, asyncio.AbstractEventLoop]:
        return await short().aplay(seed=7, keeper=keeper), asyncio.get_running_loop()

    result, harness_loop = asyncio.run(play())
    assert len(loops) == 3
    assert len(set(map(id, loops))) == 1  # one loop, kept from call to call
    assert loops[0] is not harness_loop  # never the harness's: blocking it blocks no seat
    assert {turn["source"] for turn in keeper_turns(result)} == {"python"}


class Runner(BaseModel):
    move: str


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"transmit": True, "message": "Gizmo E", "notes": None}, "Gizmo E"),  # null left out
        (KeeperDecision(True, "Ratchet W"), "Ratchet W"),  # the game's own decision
    ],
)
def test_a_decision_is_held_to_the_parser_like_text(answer: Any, message: str) -> None:
    result = short().play(seed=7, keeper=lambda given: answer)
    turns = keeper_turns(result)
    assert {turn["source"] for turn in turns} == {"python"}
    assert {turn["decision"]["message"] for turn in turns} == {message}
    assert json.loads(turns[0]["raw"])["message"] == message


def test_a_pydantic_model_and_a_runner_decision_are_decisions() -> None:
    runners: list[Any] = [
        lambda given: Runner(move="N"),
        lambda given: RunnerDecision(Move.WAIT),
        "wallhug",
    ]
    result = short().play(seed=7, runners=runners)
    moves = {
        seat: {
            tick["seats"][seat]["decision"]["move"]
            for tick in result.ticks
            if seat in tick["seats"]
        }
        for seat in ("runner1", "runner2")
    }
    assert moves == {"runner1": {"N"}, "runner2": {"WAIT"}}
    sources = {tick["seats"]["runner3"]["source"] for tick in result.ticks}
    assert sources == {"baseline"}


def test_a_reply_that_does_not_parse_gets_the_hint_once() -> None:
    calls: list[AgentInput] = []

    def keeper(given: AgentInput) -> str:
        calls.append(given)
        return KEEPER_REPLY if given.problem else "radio silence"

    result = short().play(seed=7, keeper=keeper)
    turns = keeper_turns(result)
    assert {turn["source"] for turn in turns} == {"python_retry"}
    retry = calls[1]
    assert retry.retry_of == "radio silence"
    assert retry.problem is not None
    assert "JSON" in retry.problem
    assert retry.hint is not None
    assert retry.problem in retry.hint
    assert [m["role"] for m in retry.messages] == ["system", "user", "assistant", "user"]
    errors = [reply["parseError"] for reply in turns[0]["replies"]]
    assert errors[0] is not None
    assert errors[1] is None


def test_two_bad_replies_fall_back_to_the_baseline() -> None:
    result = short().play(seed=7, keeper=lambda given: "no")
    for turn in keeper_turns(result):
        assert turn["source"] == "fallback_parse"
        assert len(turn["replies"]) == 2
    baseline = short().play(seed=7)
    assert [t["decision"] for t in keeper_turns(result)] == [
        t["decision"] for t in keeper_turns(baseline)
    ]


def test_an_object_that_is_not_a_reply_is_named_in_the_hint() -> None:
    problems: list[str | None] = []

    def keeper(given: AgentInput) -> Any:
        problems.append(given.problem)
        return object()

    result = short().play(seed=7, keeper=keeper)
    assert {turn["source"] for turn in keeper_turns(result)} == {"fallback_parse"}
    assert problems[1] is not None
    assert "the agent returned a object object" in problems[1]
    kinds = {reply["parseError"]["kind"] for reply in keeper_turns(result)[0]["replies"]}
    assert kinds == {"not_a_reply"}


def test_an_agent_that_raises_falls_back_tagged_fallback_error() -> None:
    def keeper(given: AgentInput) -> str:
        if given.tick == 1:
            raise ValueError("the planner broke")
        return KEEPER_REPLY

    result = short().play(seed=7, keeper=keeper)
    turns = keeper_turns(result)
    assert [turn["source"] for turn in turns] == ["python", "fallback_error", "python"]
    assert turns[1]["error"] == "ValueError: the planner broke"
    assert "error" not in turns[0]  # absent unless set


def test_an_agent_that_outlasts_its_timeout_falls_back_tagged_fallback_timeout() -> None:
    # a spec table, as a config gives it: the agent runs in a worker process, killed at
    # its timeout (the later ticks get a fresh one)
    result = short().play(
        seed=7, keeper={"python": "tests.test_agents:slow_keeper", "timeout_seconds": 2}
    )
    turns = keeper_turns(result)
    assert [turn["source"] for turn in turns] == ["fallback_timeout", "python", "python"]
    assert turns[0]["error"] == "no answer within 2 s"
    agent = result.lines[0]["seats"][0]["agent"]
    assert (agent["name"], agent["details"]["timeoutSeconds"]) == (
        "tests.test_agents:slow_keeper",
        "2",
    )


def slow_keeper(given: AgentInput) -> str:
    """Takes a minute at tick 0 (for the timeout test)."""
    if given.tick == 0:
        time.sleep(60)
    return KEEPER_REPLY


def test_an_async_agent_that_hangs_times_out_too() -> None:
    seat = harness.PythonSeatConfig(python="tests.test_agents:hanging_keeper", timeout_seconds=2)
    result = short().play(seed=7, keeper=seat)
    assert [t["source"] for t in keeper_turns(result)] == ["python", "python", "fallback_timeout"]


async def hanging_keeper(given: AgentInput) -> str:
    """Never answers at tick 2."""
    if given.tick == 2:
        await asyncio.Event().wait()
    return KEEPER_REPLY


def test_relayroam_refusals_reach_the_agent_as_the_hint() -> None:
    problems: list[str] = []

    def player(given: AgentInput) -> str:
        if given.problem is None:
            return '{"type": "move", "direction": "left"}'  # into the west wall at the start
        problems.append(given.problem)
        return json.dumps(given.observation.legal_actions[0])

    result = harness.play("relayroam", 7, player=player, rules={"chamberCap": 1})
    first = result.ticks[0]["seats"]["player"]
    assert first["source"] == "python_retry"
    assert first["replies"][0]["parseError"]["kind"].startswith("refused")
    assert "Legal actions now" in problems[0]


def test_the_record_validates_and_replays_clean(tmp_path: Path) -> None:
    def keeper(given: AgentInput) -> str:
        if given.tick == 1:
            raise RuntimeError("once")
        return KEEPER_REPLY if given.problem or given.tick == 0 else "?"

    record = tmp_path / "r.jsonl"
    result = short().play(seed=7, keeper=keeper, record=record)
    schema = json.loads((SCHEMAS / "lighthouse-record.schema.json").read_text())
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines == list(result.lines)
    for line in lines:
        jsonschema.validate(line, schema)
    sources = [t["source"] for t in keeper_turns(result)]
    assert sources == ["python", "fallback_error", "python_retry"]
    game = harness.make("lighthouse").game
    replayed = asyncio.run(replay(record, game, reparse=True))
    assert replayed.clean
    assert replayed.reparse == []
    written = [line.model_dump(mode="json", by_alias=True) for line in replayed.lines]
    assert [w["seats"]["keeper"].get("error") for w in written if w["type"] == "tick"] == [
        None,
        "RuntimeError: once",
        None,
    ]


def test_an_agent_error_never_shows_a_key() -> None:
    register_secret("sk-agent-SECRET-0123456789abcdef")

    def keeper(given: AgentInput) -> str:
        raise PermissionError("bad key sk-agent-SECRET-0123456789abcdef")

    turns = keeper_turns(short().play(seed=7, keeper=keeper))
    assert all("SECRET-0123" not in turn["error"] for turn in turns)
    assert all(turn["error"].startswith("PermissionError: bad key") for turn in turns)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_module_here:f", "no module 'no_such_module_here'"),
        ("json:no_such_name", "json has no 'no_such_name'"),
        ("json:__name__", "__name__ is a str, not a callable"),
        (
            "agents_broken_at_import:f",
            "importing agents_broken_at_import failed: ZeroDivisionError",
        ),
        (
            "agents_needing_more:f",
            "importing agents_needing_more failed: ModuleNotFoundError: No module named 'no_such_dependency'",
        ),
        ("agents_in_a_folder:keeper", None),
        ("agents_with_getattr:keeper", "looking up keeper failed: ValueError: lazy"),
    ],
)
def test_an_agent_is_loaded_from_its_folder_or_named_as_a_config_error(
    tmp_path: Path, target: str, message: str | None
) -> None:
    (tmp_path / "agents_broken_at_import.py").write_text("1 / 0\n")
    (tmp_path / "agents_needing_more.py").write_text("import no_such_dependency\n")
    (tmp_path / "agents_in_a_folder.py").write_text("def keeper(given):\n    return 'hi'\n")
    (tmp_path / "agents_with_getattr.py").write_text(
        "def __getattr__(name):\n    raise ValueError('lazy')\n"
    )
    if message is None:
        assert load_agent(target, (tmp_path,))(None) == "hi"  # type: ignore[arg-type]
        return
    with pytest.raises(ConfigError, match=message):
        load_agent(target, (tmp_path,))
