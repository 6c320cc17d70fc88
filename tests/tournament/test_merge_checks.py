"""``lighthouse merge`` joins shards of one tournament only.

Two shards of one config file are of different tournaments when an entrant's identity
differs between them: a Python agent's code or a prompt file edited between the two
runs, or another harness whose prompts read otherwise. Merging them is refused with the
exit status of every refusal, naming what differs, and nothing is written; shards of
one tournament still merge (and of different splits of it: an episode is an episode).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from harness.llm.prompts import default_prompt_files
from harness.testing.fake_llm import fake_llm_server
from harness.tournament.config import TournamentConfig
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse
from tests.tournament.test_url_credentials import (
    ENVIRON,
    as_written_before,
    with_credentials,
    write_config,
)

AGENT = '''
def keeper(inp):
    """Never speaks."""
    return {"transmit": False, "message": ""}
'''

EDITED = '''
def keeper(inp):
    """Always speaks."""
    return {"transmit": True, "message": "Sprocket N"}
'''

CONFIG = """
name = "merging"
seeds = {{ start = 0, stop = 3 }}
variants = ["default"]
rules = {{ maxTicks = 4 }}

[[entrants]]
name = "mine"
keeper = {{ python = "{module}:keeper", isolation = "none" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
"""


def setup(tmp_path: Path) -> tuple[Path, Path]:
    """A config whose entrant ``mine`` is a Python keeper of its own module; the
    agent's file and the config."""
    module = f"merge_agent_{uuid.uuid4().hex[:12]}"
    agent = tmp_path / f"{module}.py"
    agent.write_text(AGENT, encoding="utf-8")
    config = tmp_path / "merging.toml"
    config.write_text(CONFIG.format(module=module), encoding="utf-8")
    return agent, config


def shard(config: Path, out: Path, label: str) -> None:
    done = lighthouse("run", config, "--out", out, "--shard", label, "--no-report",
                      "--workers", "0")  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_shards_whose_agent_code_differs_are_refused_naming_it(tmp_path: Path) -> None:
    agent, config = setup(tmp_path)
    shard(config, tmp_path / "a", "1/2")
    agent.write_text(EDITED, encoding="utf-8")  # the second machine runs another version
    shard(config, tmp_path / "b", "2/2")
    a, b = ResultsFolder(tmp_path / "a").manifest(), ResultsFolder(tmp_path / "b").manifest()
    assert a.config_hash == b.config_hash  # one config file: only the code differs
    merged = lighthouse("merge", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "m")
    assert merged.returncode == 2, merged.stderr
    assert merged.stderr.startswith("lighthouse: error: merge: "), merged.stderr
    assert "different tournaments" in merged.stderr
    assert "entrant mine" in merged.stderr  # the entrant whose identity differs...
    assert f"agent code of {agent.stem}" in merged.stderr  # ...and why
    assert "lantern" not in merged.stderr.partition("differ in:")[2]  # only what differs
    assert not (tmp_path / "m").exists()


def test_shards_whose_prompt_file_differs_are_refused_naming_it(tmp_path: Path) -> None:
    _, config = setup(tmp_path)
    prompt = tmp_path / "keeper.system.md"
    prompt.write_text("You keep the lighthouse.\n", encoding="utf-8")
    shipped = default_prompt_files("lighthouse", "keeper")
    prompts = {
        "system": str(prompt),
        "observation": str(shipped.observation),
        "retry_hint": str(shipped.retry_hint),
    }
    given = ", ".join(f"{k} = {json.dumps(v)}" for k, v in prompts.items())
    text = config.read_text("utf-8").replace(
        'isolation = "none" }', f'isolation = "none", prompts = {{ {given} }} }}'
    )
    config.write_text(text, encoding="utf-8")
    shard(config, tmp_path / "a", "1/2")
    prompt.write_text("You keep the lighthouse, and say little.\n", encoding="utf-8")
    shard(config, tmp_path / "b", "2/2")
    merged = lighthouse("merge", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "m")
    assert merged.returncode == 2, merged.stderr
    assert "entrant mine" in merged.stderr
    assert f"prompt file {prompt}" in merged.stderr
    assert not (tmp_path / "m").exists()


def test_shards_of_different_configs_are_refused_by_the_command(tmp_path: Path) -> None:
    _, config = setup(tmp_path)
    shard(config, tmp_path / "a", "1/2")
    config.write_text(config.read_text("utf-8").replace("stop = 3", "stop = 4"), "utf-8")
    shard(config, tmp_path / "b", "2/2")
    merged = lighthouse("merge", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "m")
    assert merged.returncode == 2, merged.stderr
    assert "they differ in: seeds" in merged.stderr
    assert not (tmp_path / "m").exists()


def test_shards_of_one_tournament_merge_whatever_their_split(tmp_path: Path) -> None:
    _, config = setup(tmp_path)
    whole = tmp_path / "whole"
    shard(config, whole, "1/1")
    shard(config, tmp_path / "a", "1/2")
    shard(config, tmp_path / "b", "2/3")
    shard(config, tmp_path / "c", "2/2")
    merged = lighthouse("merge", tmp_path / "a", tmp_path / "b", tmp_path / "c",
                        "--out", tmp_path / "m")  # fmt: skip
    assert merged.returncode == 0, merged.stderr
    got = {s.episode_id: s.scores for s in ResultsFolder(tmp_path / "m").summaries()}
    assert got == {s.episode_id: s.scores for s in ResultsFolder(whole).summaries()}


def test_a_shard_resumed_from_an_older_folder_merges_with_its_lines_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # shard 1 was started when manifests kept a base URL with its credentials, and
    # resumed since: its lines carry the identities of that time, which its manifest
    # aliases to today's; shard 2 was played afresh. Merged either way round, every
    # episode counts.
    with fake_llm_server() as server:
        config = write_config(tmp_path, json.dumps(with_credentials(server)))
        config.write_text(config.read_text("utf-8").replace("seeds = [1]", "seeds = [1, 2]"))
        env = {**os.environ, **ENVIRON}
        first: list[str | Path] = ["run", config, "--shard", "1/2", "--out", tmp_path / "a", "--workers", "0",
                 "--no-report"]  # fmt: skip
        with monkeypatch.context() as patched:
            patched.setattr(TournamentConfig, "canonical_json", as_written_before)
            assert lighthouse(*first, env=env).returncode == 0
        assert lighthouse(*first, env=env).returncode == 0
        second = lighthouse("run", config, "--shard", "2/2", "--out", tmp_path / "b",
                            "--workers", "0", "--no-report", env=env)  # fmt: skip
        assert second.returncode == 0, second.stderr
    assert ResultsFolder(tmp_path / "a").manifest().identity_aliases
    for order in ("ab", "ba"):
        shards = [tmp_path / name for name in order]
        merged = lighthouse("merge", *shards, "--out", tmp_path / f"m-{order}")
        assert merged.returncode == 0, merged.stderr
        assert "complete: 4/4 episodes" in merged.stderr, merged.stderr
        report = lighthouse("report", tmp_path / f"m-{order}")
        assert report.returncode == 0, report.stderr
        assert "Incomplete" not in report.stdout


def test_shards_whose_identities_cannot_be_told_merge_as_before(tmp_path: Path) -> None:
    # shard 2's manifest as a harness wrote it before identities and prompt hashes:
    # its entrants' identities cannot be told, which is no difference
    _, config = setup(tmp_path)
    shard(config, tmp_path / "a", "1/2")
    shard(config, tmp_path / "b", "2/2")
    path = tmp_path / "b" / "manifest.json"
    manifest = json.loads(path.read_text("utf-8"))
    for key in ("identities", "prompts", "sources"):
        manifest.pop(key)
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert ResultsFolder(tmp_path / "b").manifest().identities is None
    merged = lighthouse("merge", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "m")
    assert merged.returncode == 0, merged.stderr
    assert len(ResultsFolder(tmp_path / "m").summaries()) == 6
