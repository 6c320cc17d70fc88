"""Replay never calls a record clean that it could not check: a record cut short is
incomplete, a folder replay reports every bad record, and --reparse reports only real
changes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.registry import get_game
from harness.replay import replay

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests/golden/records"
GAME = get_game("lighthouse")


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["replay", *argv])
    return status, capsys.readouterr().out


@pytest.mark.parametrize("ticks_cut", [0, 3], ids=["end-line-only", "mid-game"])
def test_a_record_without_its_end_line_is_incomplete_not_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ticks_cut: int
) -> None:
    lines = rows(GOLDEN / "baseline-default-seed7.jsonl")
    kept = lines[: len(lines) - 1 - ticks_cut]
    record = write(tmp_path / "cut.jsonl", kept)

    result = asyncio.run(replay(record, GAME))
    assert result.incomplete
    assert not result.clean
    assert result.mismatch is None  # the ticks it has are right
    assert len(result.record.ticks) == len(kept) - 1

    status, out = cli(capsys, str(record))
    assert status == 1
    assert f"{record}: INCOMPLETE: this record has no end line ({len(kept) - 1} ticks" in out
    assert "MISMATCH" not in out
    assert "replays clean" not in out


def test_a_cut_record_with_a_wrong_tick_is_both_incomplete_and_mismatched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = rows(GOLDEN / "baseline-default-seed7.jsonl")[:-1]
    lines[3]["state"]["clock"] += 1
    record = write(tmp_path / "cut.jsonl", lines)
    status, out = cli(capsys, str(record))
    assert status == 1
    assert f"{record}: MISMATCH at tick 2: state.clock" in out
    assert f"{record}: INCOMPLETE" in out


def test_a_hand_written_record_needs_no_end_line() -> None:
    result = asyncio.run(replay(ROOT / "tests/golden/hand/short-game.jsonl", GAME))
    assert result.record.end is None
    assert not result.incomplete
    assert result.clean


def test_a_folder_replay_reports_every_bad_record_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    good = folder / "b-good.jsonl"
    good.write_bytes((GOLDEN / "baseline-spring-seed3.jsonl").read_bytes())
    (folder / "a-not-json.jsonl").write_text("{not json\n")
    (folder / "c-no-header.jsonl").write_text('{"type": "tick", "tick": 0, "seats": {}}\n')
    cut = rows(GOLDEN / "baseline-default-seed12.jsonl")[:-1]
    write(folder / "d-cut.jsonl", cut)

    status, out = cli(capsys, str(folder))
    assert status == 1
    assert f"{folder / 'a-not-json.jsonl'}: UNREADABLE: line 1: not a JSON line" in out
    assert f"{folder / 'c-no-header.jsonl'}: UNREADABLE: " in out
    assert "the first line must be the header" in out
    assert f"{folder / 'd-cut.jsonl'}: INCOMPLETE: this record has no end line" in out
    assert str(good) not in out  # clean records are counted, not listed
    assert "4 records: 1 clean, 3 not clean" in out


def retry_failed_at_the_api(tick: dict[str, Any], source: str = "fallback_api") -> None:
    """Tick 3's keeper, as if its retry call had failed: one reply, a failed second call."""
    keeper = tick["seats"]["keeper"]
    keeper["source"] = source
    keeper["replies"] = keeper["replies"][:1]
    failure = "server" if source == "fallback_api" else "timeout"
    keeper["calls"][1].update(
        attempts=3, errors=[failure] * 3, failure=failure, inputTokens=0, outputTokens=0
    )


@pytest.mark.parametrize("source", ["fallback_api", "fallback_timeout"])
def test_reparse_sees_no_change_when_the_retry_failed_at_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    lines = rows(GOLDEN / "llm-keeper-retries-fallbacks.jsonl")
    tick = next(x for x in lines if x.get("tick") == 3)
    retry_failed_at_the_api(tick, source)
    record = write(tmp_path / "r.jsonl", lines)

    result = asyncio.run(replay(record, GAME, reparse=True))
    assert result.clean
    assert result.reparse == []
    status, out = cli(capsys, str(record), "--reparse")
    assert status == 0
    assert "reparse: 0 decision(s) would change" in out

    # ... but a first reply the current parser now accepts is a change all the same
    tick["seats"]["keeper"]["replies"][0]["raw"] = '{"transmit": false}'
    record = write(tmp_path / "r.jsonl", lines)
    changes = asyncio.run(replay(record, GAME, reparse=True)).reparse
    assert [(c.tick, c.recorded_source, c.new_source) for c in changes] == [(3, source, "llm")]
