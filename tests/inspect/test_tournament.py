"""A tournament seat can call its model through Inspect: ``kind = "inspect"``.

One tournament, two entrants on the same seeds: one keeper calls the scripted server
through the harness's own OpenAI provider, the other through Inspect's
OpenAI-compatible provider. Same replies, so the same episodes and scores. And the
side by side of docs/inspect.md: a tournament and an Inspect eval, the same scores.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import harness
from harness.cli import main
from harness.testing.llm_server import Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder
from lighthouse_harness import tasks
from tests.inspect.helpers import read_lines, story
from tests.inspect.replies import server_reply

KEY_ENV = "INSPECT_TOURNAMENT_TEST_KEY"
CONFIG = """
name = "side-by-side"
seeds = {{ start = 0, stop = 3 }}
rules = {{ maxTicks = 10 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key}"

[providers.inspect]
kind = "inspect"
base_url = "{url}"
api_key_env = "{key}"

[[entrants]]
name = "harness"
keeper = {{ provider = "local", model = "scripted" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "inspect"
keeper = {{ provider = "inspect", model = "openai-api/scripted/m" }}
runners = {{ baseline = "wallhug" }}
"""


def test_an_inspect_seat_plays_what_the_harness_s_own_provider_plays(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with ScriptedLLMServer(server_reply()) as server:
        path = tmp_path / "side.toml"
        path.write_text(CONFIG.format(url=server.openai_url, key=KEY_ENV))
        config = load_tournament(path)
        asyncio.run(run_tournament(config, out, environ={KEY_ENV: "sk-side-by-side"}))
    summaries = ResultsFolder(out).summaries()
    scores = {(s.entrant, s.seed): s.score for s in summaries}
    assert len(scores) == 6
    assert all(scores["inspect", seed] == scores["harness", seed] for seed in range(3))
    fallbacks = {
        (s.entrant, s.seed): sum(sum(v.fallbacks.values()) for v in s.seats.values())
        for s in summaries
    }
    assert all(fallbacks["inspect", seed] == fallbacks["harness", seed] for seed in range(3))
    assert sum(fallbacks.values()) > 0
    records = {p.name: read_lines(p) for p in (out / "records").glob("*.jsonl")}
    for seed in range(3):
        inspect_record = records[f"inspect--default--s{seed}--r0.jsonl"]
        harness_record = records[f"harness--default--s{seed}--r0.jsonl"]
        assert story(inspect_record) == story(harness_record)
        keeper = inspect_record[0]["seats"][0]["agent"]
        assert keeper["name"] == "inspect:openai-api/scripted/m"
        assert {
            c["provider"] for t in inspect_record[1:-1] for c in t["seats"]["keeper"]["calls"]
        } == {"inspect"}
    assert main(["replay", str(out)]) == 0


MOCK_DEFAULT = "Default output from mockllm/model"
SIDE = """
name = "side-by-side"
seeds = {{ start = 0, stop = 3 }}

[providers.inspect]
kind = "inspect"
base_url = "{url}"
api_key_env = "{key}"

[[entrants]]
name = "mock"
keeper = {{ provider = "inspect", model = "openai-api/scripted/m" }}
runners = {{ baseline = "wallhug" }}
"""


def test_docs_side_by_side_a_tournament_and_an_eval_score_the_same(tmp_path: Path) -> None:
    # docs/inspect.md: mockllm's default output is no reply, so every keeper turn falls
    # back to LANTERN, in a tournament as in the Inspect task
    with ScriptedLLMServer(Reply(MOCK_DEFAULT)) as server:
        path = tmp_path / "side.toml"
        path.write_text(SIDE.format(url=server.openai_url, key=KEY_ENV))
        asyncio.run(
            run_tournament(load_tournament(path), tmp_path / "out", environ={KEY_ENV: "sk-side"})
        )
    tournament = {s.seed: s.score for s in ResultsFolder(tmp_path / "out").summaries()}

    def default_output(*args: object) -> ModelOutput:
        output = ModelOutput.from_content("mockllm/model", MOCK_DEFAULT)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    model = get_model("mockllm/model", custom_outputs=default_output)
    (log,) = inspect_eval(
        tasks.lighthouse_keeper(seeds="0:3"), model=model, log_dir=str(tmp_path), display="none"
    )
    assert log.samples is not None
    evaluated = {s.metadata["seed"]: s.scores["game_score"].value for s in log.samples if s.scores}
    lantern = {seed: harness.play("lighthouse", seed).scores[0] for seed in range(3)}
    assert tournament == evaluated == lantern
    shares = {
        (s.scores["game_score"].metadata or {}).get("fallback_share")
        for s in log.samples
        if s.scores
    }
    assert shares == {1.0}
