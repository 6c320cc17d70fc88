"""A tournament seat can call its model through Inspect: ``kind = "inspect"``.

One tournament, two entrants on the same seeds: one keeper calls the scripted server
through the harness's own OpenAI provider, the other through Inspect's
OpenAI-compatible provider. Same replies, so the same episodes and scores.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from harness.cli import main
from harness.testing.llm_server import ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder
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
