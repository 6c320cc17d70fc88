"""The PettingZoo and Gymnasium adapters of the step-by-step environment pass their
libraries' own API tests, and play the episodes the harness plays."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

EXTRA = "the envs extra is not installed (pip install -e '.[envs]')"
pytest.importorskip("pettingzoo", reason=EXTRA)
pytest.importorskip("gymnasium", reason=EXTRA)

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import parallel_api_test  # noqa: E402

import harness  # noqa: E402
from harness.adapters.gym_env import OneSeatEnv  # noqa: E402
from harness.adapters.parallel_env import LighthouseParallelEnv  # noqa: E402
from harness.adapters.text_spaces import CHARSET  # noqa: E402
from harness.errors import ConfigError  # noqa: E402
from harness.protocol import DecidedBaseline  # noqa: E402
from harness.registry import get_game  # noqa: E402


def baseline_text(game: str, role: str, observation: Any) -> str:
    """The reply text of the role's first baseline."""
    bot = next(iter(get_game(game).baselines[role].values()))
    if isinstance(bot, DecidedBaseline):
        return bot.play(observation)[0]
    return bot(observation)


def test_lighthouse_passes_pettingzoo_s_parallel_api_test() -> None:
    env = LighthouseParallelEnv(seed=4)
    parallel_api_test(env, num_cycles=1000)
    # its random replies played the last episode to its end, each fallen back on
    assert env.env.done
    assert env.agents == []
    assert env.env.result is not None
    sources = {s["source"] for t in env.env.result.ticks for s in t["seats"].values()}
    assert sources <= {"fallback_parse", "python", "python_retry"}
    env.close()


@pytest.mark.parametrize("game", ["relayroam", "hourloom"])
def test_a_one_seat_game_passes_gymnasium_s_env_checker(game: str) -> None:
    env = OneSeatEnv(game, seed=2)
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    assert (info["tick"], info["retry_of"]) == (0, None)
    env.close()


def test_a_parallel_episode_of_baseline_replies_is_the_baseline_episode() -> None:
    env = LighthouseParallelEnv(seed=9)
    observations, infos = env.reset()
    assert set(observations) == set(env.possible_agents)
    assert all(set(text) <= CHARSET for text in observations.values())
    steps = 0
    while env.agents:
        actions = {
            agent: baseline_text("lighthouse", infos[agent]["role"], infos[agent]["observation"])
            for agent in env.agents
            if infos[agent]["asked"]
        }
        observations, rewards, terminated, truncated, infos = env.step(actions)
        steps += 1
    result = env.env.result
    assert result is not None
    played = harness.play("lighthouse", 9)
    assert [t["state"] for t in result.ticks] == [t["state"] for t in played.ticks]
    assert steps == len(played.ticks)
    assert rewards == dict.fromkeys(env.possible_agents, played.scores[0])
    assert all(terminated.values())
    assert not any(truncated.values())
    env.close()


def test_a_reply_that_cannot_be_used_is_retried_by_the_seat_alone() -> None:
    env = LighthouseParallelEnv(seed=1, rules={"maxTicks": 3})
    _, infos = env.reset()
    replies = dict.fromkeys(env.agents, '{"move": "WAIT"}')
    replies["keeper"] = "not json"
    observations, _, _, _, infos = env.step(replies)
    assert [a for a in env.agents if infos[a]["asked"]] == ["keeper"]
    assert infos["keeper"]["retry_of"] == "not json"
    assert infos["keeper"]["problem"] in observations["keeper"]  # it reads the hint
    _, _, _, _, infos = env.step({"keeper": "not json either", "runner1": "ignored"})
    assert all(infos[a]["asked"] for a in env.agents)
    assert all(info["retry_of"] is None and info["tick"] == 1 for info in infos.values())
    result_ticks = env.env.observations
    assert set(result_ticks) == set(env.agents)
    env.close()


def test_seats_handed_to_others_are_not_agents_and_one_seat_games_only() -> None:
    env = LighthouseParallelEnv(seed=2, rules={"maxTicks": 4})
    observations, _ = env.reset(options={"seats": {"runners": "wallhug"}})
    assert env.agents == ["keeper"]
    assert list(observations) == ["keeper"]
    while env.agents:
        _, rewards, *_ = env.step({"keeper": '{"transmit": false}'})
    assert list(rewards) == ["keeper"]
    env.close()
    with pytest.raises(ConfigError, match="one-seat games"):
        OneSeatEnv("lighthouse")


def test_each_reset_without_a_seed_plays_the_next_one() -> None:
    env = OneSeatEnv("hourloom", seed=5)
    env.reset()
    env.reset()
    assert env.env.seed is None
    first = env.env.observations["player"].episode_id
    env.reset(seed=5)
    assert env.env.observations["player"].episode_id != first
    assert env.env.observations["player"].episode_id.endswith("seed5")
    env.close()


def test_the_harness_imports_neither_library() -> None:
    code = (
        "import sys, harness, harness.api, harness.step_env, harness.cli;"
        "harness.make('lighthouse', seed=1).reset(runners='wallhug');"
        "print(sorted(m for m in ('gymnasium', 'pettingzoo') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
