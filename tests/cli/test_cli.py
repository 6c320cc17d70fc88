"""The lighthouse command, run as a real subprocess and in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.games.lighthouse.board import Board, generate_board
from harness.games.lighthouse.config import LighthouseConfig


def test_board_prints_the_generated_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    for row in generate_board(LighthouseConfig(), 7).to_ascii():
        assert row in out
    assert "rows y=0 (top) to y=8; the whole board floods at clock 73" in out


def test_board_json_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "--seed", "3", "--variant", "spring", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["config"]["tidePeriod"] == 5
    assert doc["variant"] == "spring"
    assert Board.from_ascii(doc["rows"]) == generate_board(LighthouseConfig(), 3)


def test_console_script_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "board", "--seed", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "seed 1" in proc.stdout


def test_bad_arguments_exit_with_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "board", "--seed", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == (
        "lighthouse: error: --seed: seed must be an integer "
        "0..9007199254740991, got 'x' (see: lighthouse board --help)\n"
    )


def test_play_shows_every_tick_and_writes_a_valid_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "episode.jsonl"
    assert main(["play", "--seed", "7", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    ticks = [line for line in lines if line["type"] == "tick"]
    end = lines[-1]
    assert end["type"] == "end"
    for tick in ticks:  # every tick is shown with its clock and the water
        state = tick["state"]
        assert f"tick {tick['tick']}  clock {state['clock']}  water: " in out
    first = ticks[0]["state"]
    assert f"keeper: {first['transmission']!r}" in out
    assert f"score {end['results']['teamScore']:.3f} = 6 x " in out
    # the end named for what happened (seed 7: every runner out), the rules' reason beside it
    assert f"ended: all escaped ({end['results']['reason']})" in out
    assert end["results"]["E"] == 3


def test_play_quiet_spring_prints_only_the_results(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "3", "--variant", "spring", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "tick 0" not in out
    assert "clock" in out.splitlines()[-1]


def test_schema_command_prints_the_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    published = Path(__file__).resolve().parents[2] / "docs/schemas/lighthouse-record.schema.json"
    assert printed == json.loads(published.read_text())
