"""The Python API (harness.make, harness.play), lighthouse play through it, and board --game."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.cli import main
from harness.errors import ConfigError
from harness.games.relayroam.record import RelayroamResults

#: The API's names, and nothing else.
PUBLIC = {
    "AgentInput",
    "BaselineSeatConfig",
    "Env",
    "LLMSeatConfig",
    "PlayResult",
    "PythonSeatConfig",
    "Results",
    "__version__",
    "make",
    "play",
}


def test_the_public_names_are_exactly_the_documented_ones() -> None:
    assert set(harness.__all__) == PUBLIC
    for name in PUBLIC - {"__version__"}:
        value = getattr(harness, name)
        assert value.__doc__, f"harness.{name} has no docstring"
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = harness.nothing_here


def test_three_lines_play_an_episode_with_baselines() -> None:
    env = harness.make("lighthouse")
    result = env.play(seed=7)
    assert result.lines[0]["type"] == "header"
    assert result.lines[-1]["type"] == "end"
    assert result.lines[-1]["results"]["scores"] == result.scores
    assert result.summary.startswith(f"score {result.scores[0]:.3f} = 6 x ")
    assert env.seat_groups() == {"keeper": "keeper", "runners": "runner"}
    # the same episode as lighthouse play's record
    assert [t["state"] for t in result.ticks] == [
        t["state"] for t in harness.play("lighthouse", 7).ticks
    ]


def test_play_writes_the_record_it_returns(tmp_path: Path) -> None:
    record = tmp_path / "ep.jsonl"
    result = harness.play("relayroam", 5, player="vent-aware-greedy", record=record)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines == list(result.lines)
    assert isinstance(result.results, RelayroamResults)
    assert lines[0]["seats"][0]["agent"] == {
        "kind": "baseline",
        "name": "vent-aware-greedy",
        "details": {},
    }


def test_a_notebook_whose_loop_runs_can_play_too() -> None:
    async def cell() -> list[float]:
        # a Jupyter cell runs inside the kernel's event loop; the sync call still works
        return harness.make("lighthouse", rules={"maxTicks": 2}).play(seed=3).scores

    assert len(asyncio.run(cell())) == 4


def test_async_code_awaits_aplay() -> None:
    async def go() -> harness.PlayResult:
        env = harness.make("lighthouse", variant="spring", rules={"maxTicks": 2})
        return await env.aplay(3, keeper="silent")

    result = asyncio.run(go())
    assert result.variant == "spring"
    assert {t["seats"]["keeper"]["decision"]["transmit"] for t in result.ticks} == {False}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: harness.make("chess"), "unknown game 'chess'"),
        (lambda: harness.make("lighthouse", variant="neap"), "variant: lighthouse has"),
        (lambda: harness.play("lighthouse", 1, player="greedy"), "player: lighthouse has no such seat"),
        (lambda: harness.play("lighthouse", 1, keeper="wallhug"), "keeper: 'wallhug' is not a baseline"),
        (lambda: harness.play("lighthouse", 1, keeper={"baseline": 3}), "keeper: baseline: Input should be a valid string"),
        (lambda: harness.play("lighthouse", 1, runners=["wallhug"]), "runners: give one spec for all, or exactly 3; got 1"),
        (lambda: harness.play("lighthouse", -1), "seed: seed must be an integer"),
    ],
)  # fmt: skip
def test_a_bad_call_is_one_clear_config_error(call: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        call()


def test_play_delay_sleeps_on_the_event_loop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def blocking_sleep(seconds: float) -> None:
        raise AssertionError("time.sleep would hold the event loop")

    pauses: list[float] = []
    real_sleep = asyncio.sleep

    async def counted_sleep(seconds: float, *args: Any) -> Any:
        pauses.append(seconds)
        return await real_sleep(0)

    monkeypatch.setattr(time, "sleep", blocking_sleep)
    monkeypatch.setattr(asyncio, "sleep", counted_sleep)
    assert main(["play", "--game", "relayroam", "--seed", "2", "--delay", "0.25"]) == 0
    ticks = capsys.readouterr().out.count("\ntick ")
    assert ticks > 0
    assert pauses.count(0.25) == ticks  # one pause after each tick shown


def test_board_of_relayroam_comes_from_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "--game", "relayroam", "--seed", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == 'Relayroam chamber 1, seed 7, variant default (layout A "Ring", 7 x 5)'
    assert out[1:6] == ["H.....R", ".##.##1", "@B#.#HX", ".##.##.", "R..B..."]
    assert main(["board", "--game", "relayroam", "--seed", "7", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["seed"], doc["variant"], doc["chamber"], doc["layout"]) == (7, "default", 1, "A")
    assert doc["rows"] == out[1:6]
    assert doc["config"]["chamberCap"] == 6


def test_board_refuses_a_variant_the_game_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "--game", "relayroam", "--seed", "7", "--variant", "spring"]) == 2
    assert "--variant: relayroam has ['default'], not 'spring'" in capsys.readouterr().err
