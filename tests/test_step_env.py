"""The step-by-step environment: reset, step, observations, done, record.

An episode stepped with some replies must be the episode ``play()`` plays with Python
agents returning the same replies: the same decisions, sources and states every
tick, the same results; and its record must replay clean.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.agents import AgentInput
from harness.errors import ConfigError, RulesError
from harness.protocol import DecidedBaseline
from harness.registry import get_game
from harness.replay import replay
from harness.step_env import STEP_AGENT
from tests.test_episode import without_wall_clock

GAMES = ["lighthouse", "relayroam", "hourloom"]
SEEDS = [0, 5, 11]


def scripted_reply(given: AgentInput) -> Any:
    """A reply for ``given`` that depends only on what it holds: mostly the role's first
    baseline's (as text on even ticks, as a decision object on odd ones), sometimes
    garbage, so that retries and fallbacks happen too."""
    mark = given.tick + int(given.seat[-1]) if given.seat[-1].isdigit() else given.tick
    if given.retry_of is None and mark % 4 == 1:
        return "no json here"  # retried, with a hint
    if given.retry_of is not None and mark % 8 == 1:
        return {"not": "a decision"}  # the retry fails too: the baseline answers
    game = get_game(given.game)
    bot = next(iter(game.baselines[given.role].values()))
    if isinstance(bot, DecidedBaseline):
        raw, decision = bot.play(given.observation)
    else:
        raw = bot(given.observation)
        decision = game.seat_io.parse_reply(given.observation, raw)
    return decision if given.tick % 2 else raw


def stepped(env: harness.Env, seed: int, **groups: Any) -> harness.PlayResult:
    """Episode ``seed`` stepped to its end with :func:`scripted_reply`."""
    observations = env.reset(seed, **groups)
    asked = 0
    while not env.done:
        assert observations, "the episode waits with no seat to answer"
        assert observations == env.observations
        observations = env.step({s: scripted_reply(g) for s, g in observations.items()})
        asked += 1
    assert env.observations == {}
    assert asked > 0
    assert env.result is not None
    return env.result


def comparable(lines: tuple[dict[str, Any], ...]) -> list[Any]:
    """Every line but the wall clock and the seats' agents (a callable's name is not
    the stepped seat's)."""
    out = []
    for line in lines:
        line = without_wall_clock(line)
        if line["type"] == "header":
            line = {**line, "seats": [{**s, "agent": None} for s in line["seats"]]}
            line.pop("prompts", None)
            line.pop("episodeId")
        out.append(line)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_a_stepped_episode_is_the_one_play_plays_with_the_same_replies(
    game: str, tmp_path: Path
) -> None:
    env = harness.make(game)
    sources: Counter[str] = Counter()
    for seed in SEEDS:
        agents: dict[str, Any] = {group.key: scripted_reply for group in env.game.seat_groups}
        played = harness.play(game, seed, seats=agents)
        steps = stepped(env, seed)
        assert steps.results == played.results
        assert steps.summary == played.summary
        assert comparable(steps.lines) == comparable(played.lines)
        sources.update(s["source"] for tick in steps.ticks for s in tick["seats"].values())
        header = steps.lines[0]
        assert {s["agent"]["kind"] for s in header["seats"]} == {"python"}
        assert {s["agent"]["name"] for s in header["seats"]} == {STEP_AGENT}
        # the record, written, replays clean
        path = tmp_path / f"{game}-{seed}.jsonl"
        assert env.record(path) == steps.lines
        replayed = asyncio.run(replay(path))
        assert replayed.mismatch is None, replayed.mismatch
    # the replies exercised every way a turn can end
    assert {"python", "python_retry"} <= set(sources), sources
    assert set(sources) & {"fallback_parse", "fallback_refused"}, sources


def test_seats_given_a_player_are_played_by_it_and_the_rest_are_stepped() -> None:
    env = harness.make("lighthouse", seed=4)
    observations = env.reset(runners="scout")
    assert list(observations) == ["keeper"]
    given = observations["keeper"]
    assert given.role == "keeper"
    assert given.tick == 0
    assert "Reply with one JSON object" in given.text
    result = stepped(env, 4, runners="scout")
    played = harness.play("lighthouse", 4, keeper=scripted_reply, runners="scout")
    assert comparable(result.lines) == comparable(played.lines)
    agents = {s["seat"]: s["agent"] for s in result.lines[0]["seats"]}
    assert agents["runner2"]["name"] == "scout"
    assert agents["keeper"]["name"] == STEP_AGENT


def test_a_reply_that_cannot_be_used_is_asked_again_with_the_hint() -> None:
    env = harness.make("hourloom", seed=2)
    first = env.reset()["player"]
    assert first.retry_of is None
    again = env.step("not json")["player"]
    assert (again.tick, again.retry_of) == (first.tick, "not json")
    assert again.problem
    assert again.hint is not None
    assert again.problem in again.hint
    nxt = env.step({"player": "still not json"})["player"]
    assert nxt.tick == first.tick + 1
    assert nxt.retry_of is None
    env.close()


def test_a_stepped_episode_can_be_written_as_it_goes(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    env = harness.make("relayroam", seed=3)
    observations = env.reset(record=path)
    while not env.done:
        observations = env.step({s: scripted_reply(g) for s, g in observations.items()})
    assert [line for line in path.read_text().splitlines() if line]  # written whole
    assert asyncio.run(replay(path)).mismatch is None
    assert env.result is not None
    assert env.record() == env.result.lines


def test_misuse_is_a_clear_error() -> None:
    env = harness.make("lighthouse")
    with pytest.raises(RulesError, match=r"no episode yet: reset\(\) starts one"):
        env.step({})
    with pytest.raises(ConfigError, match=r"seed: give one"):
        env.reset()
    with pytest.raises(ConfigError, match="every seat of lighthouse is given a player"):
        env.reset(1, keeper="lantern", runners="wallhug")
    observations = env.reset(1)
    assert list(observations) == ["keeper", "runner1", "runner2", "runner3"]
    with pytest.raises(ConfigError, match="4 seats wait"):
        env.step('{"move": "N"}')
    with pytest.raises(ConfigError, match=r"runner9 not waiting; no reply for runner3"):
        env.step({"keeper": "", "runner1": "", "runner2": "", "runner9": ""})
    with pytest.raises(RulesError, match="not over yet"):
        env.record()
    assert not env.done
    env.close()
    env.reset(1, runners="wallhug")  # a closed episode makes way for a new one
    while not env.done:
        env.step({"keeper": "{}"})
    with pytest.raises(RulesError, match="the episode is over"):
        env.step({"keeper": "{}"})


def test_the_clock_stands_still_while_the_env_waits() -> None:
    # A play budget of 0.6 s (60% of 1 s), outlasted by the waits between steps: the
    # episode still ends by its rules, not by its deadline.
    env = harness.make("hourloom", seed=1, episode_timeout_seconds=1.0)
    observations = env.reset()
    waited = 0.0
    while not env.done:
        if waited < 1.5:
            time.sleep(0.5)
            waited += 0.5
        observations = env.step({s: scripted_reply(g) for s, g in observations.items()})
    assert env.result is not None
    assert env.result.results.reason != "deadline"  # type: ignore[attr-defined]
    assert env.result.lines[-1]["results"]["reason"] != "deadline"


async def test_steps_work_where_an_event_loop_runs_as_in_a_notebook() -> None:
    env = harness.make("lighthouse", seed=6)
    result = stepped(env, 6, runners="wallhug")
    played = harness.play("lighthouse", 6, keeper=scripted_reply, runners="wallhug")
    assert comparable(result.lines) == comparable(played.lines)
