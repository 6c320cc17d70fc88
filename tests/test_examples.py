"""The worked example of docs/agents.md: docs/examples/my_agents.py plays from configs and flags."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import harness
from harness.tournament.config import load_tournament

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
CONFIGS = {"lighthouse": "my-agents.toml", "relayroam": "my-agents-relayroam.toml"}


def lighthouse(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # the repository on the path, as an installed harness would be, but not the cwd
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_example_configs_load_and_name_the_example_agents(game: str) -> None:
    config = load_tournament(EXAMPLES / CONFIGS[game])
    assert config.game == game
    specs = {entrant.name: entrant.seats for entrant in config.entrants}
    agents = [
        s
        for seats in specs.values()
        for s in seats.values()
        if isinstance(s, harness.PythonSeatConfig)
    ]
    assert [a.python for a in agents] == [
        f"my_agents:{'keeper' if game == 'lighthouse' else 'player'}"
    ]


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_example_agent_plays_a_tournament_from_a_config(tmp_path: Path, game: str) -> None:
    # the example, trimmed to two seeds, in a folder of its own; run from elsewhere, so
    # the agent is found next to the config
    folder = tmp_path / "example"
    folder.mkdir()
    shutil.copy(EXAMPLES / "my_agents.py", folder)
    text = (EXAMPLES / CONFIGS[game]).read_text()
    text = text.replace("seeds = { start = 0, stop = 20 }", "seeds = [3, 4]")
    assert "seeds = [3, 4]" in text
    (folder / CONFIGS[game]).write_text(text)
    out = tmp_path / "results"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = lighthouse("run", str(folder / CONFIGS[game]), "--out", str(out), cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    role, agent = (
        ("keeper", "my_agents:keeper") if game == "lighthouse" else ("player", "my_agents:player")
    )
    sources: Counter[str] = Counter()
    for record in sorted((out / "records").glob("*.jsonl")):
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        seat = next(s for s in lines[0]["seats"] if s["role"] == role)
        ticks = [line for line in lines if line["type"] == "tick"]
        turns = [t["seats"][seat["seat"]]["source"] for t in ticks if seat["seat"] in t["seats"]]
        if seat["agent"]["kind"] == "python":
            assert seat["agent"]["name"] == agent
            sources.update(turns)
        else:
            assert set(turns) == {"baseline"}
    # the example's decisions are its own, tagged as such, in both episodes it played
    assert sources["python"] > 0
    assert set(sources) <= {"python", "python_retry"}
    check = lighthouse("replay", str(out), cwd=elsewhere)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "4 records: 4 clean, 0 not clean" in check.stdout


def test_the_example_keeper_plays_from_the_command_line(tmp_path: Path) -> None:
    record = tmp_path / "ep.jsonl"
    proc = lighthouse(
        "play", "--seed", "7", "--keeper", "python:my_agents:keeper", "--record", str(record),
        "--quiet", cwd=EXAMPLES,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "keeper python:my_agents:keeper, runners wallhug" in proc.stdout
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0]["seats"][0]["agent"]["kind"] == "python"
    assert {t["seats"]["keeper"]["source"] for t in lines if t["type"] == "tick"} == {"python"}


def test_a_missing_agent_module_on_the_command_line_is_one_error(tmp_path: Path) -> None:
    proc = lighthouse("play", "--seed", "7", "--keeper", "python:my_agents:keeper", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("lighthouse: error:") == 1
    assert "my_agents:keeper: no module 'my_agents'" in proc.stderr
    assert "Traceback" not in proc.stderr
