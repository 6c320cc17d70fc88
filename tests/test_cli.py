"""The lighthouse command, run as a real subprocess and in-process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness.cli import main
from harness.games.lighthouse.board import Board, generate_board
from harness.games.lighthouse.config import LighthouseConfig


def test_board_prints_the_generated_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    for row in generate_board(LighthouseConfig(), 7).to_ascii():
        assert row in out
    assert "floodClock 73" in out


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


def test_bad_arguments_exit_with_usage() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "board", "--seed", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "invalid int value" in proc.stderr
