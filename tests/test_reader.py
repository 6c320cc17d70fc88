"""The one record reader: the game from the header, the lines validated, errors as data."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import RecordError
from harness.reader import HAND_WRITTEN_VERSION, open_record
from harness.registry import get_game
from harness.replay import replay

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests/golden/records/baseline-default-seed7.jsonl"
HAND = ROOT / "tests/golden/hand/short-game.jsonl"


def objects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_record_names_its_game_and_every_line_validates() -> None:
    record = open_record(GOLDEN)
    assert record.game is get_game("lighthouse")
    lines = record.lines()
    assert [line.type for line in lines] == [line["type"] for line in objects(GOLDEN)]
    assert lines[0] is record.header
    assert lines[0].episode_id == objects(GOLDEN)[0]["episodeId"]


def test_a_header_naming_an_unknown_game_is_a_record_error_on_line_1(tmp_path: Path) -> None:
    lines = objects(GOLDEN)
    lines[0]["game"] = "chess"
    with pytest.raises(RecordError, match=r"t\.jsonl:1: game: unknown game 'chess'") as caught:
        open_record(write(tmp_path / "t.jsonl", lines))
    assert (caught.value.line, caught.value.tick) == (1, None)


def test_only_a_hand_written_header_may_leave_out_its_game(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"short-game\.jsonl:1: game: Field required") as caught:
        open_record(HAND)
    assert caught.value.line == 1
    record = open_record(HAND, hand_written=True)
    assert record.game is get_game("lighthouse")
    assert record.header.harness_version == HAND_WRITTEN_VERSION
    assert record.header.episode_id == "short-game"
    assert {seat.agent.name for seat in record.header.seats} == {"hand-written"}


def test_a_line_that_does_not_match_the_models_carries_its_line_and_tick(tmp_path: Path) -> None:
    lines = objects(GOLDEN)
    lines[4]["state"]["clock"] = "late"  # the tick line of tick 3, on line 5
    record = open_record(write(tmp_path / "t.jsonl", lines))
    with pytest.raises(RecordError, match=r"t\.jsonl:5: tick\.state\.clock: ") as caught:
        record.lines()
    assert (caught.value.line, caught.value.tick) == (5, 3)


def test_a_line_cut_short_names_its_line(tmp_path: Path) -> None:
    text = GOLDEN.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([*text[:6], text[6][:40]]) + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"t\.jsonl:7: not a JSON line: .*cut short") as caught:
        open_record(path).lines()
    assert (caught.value.line, caught.value.tick) == (7, None)


def test_an_empty_file_has_no_header(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(RecordError, match="the first line must be the header") as caught:
        open_record(path)
    assert caught.value.line == 1


def test_replay_takes_the_tick_of_a_refused_decision_from_the_error(tmp_path: Path) -> None:
    lines = objects(GOLDEN)
    lines[1 + 4]["seats"]["runner1"]["decision"] = {"move": "sideways"}
    result = asyncio.run(replay(write(tmp_path / "t.jsonl", lines)))
    assert result.mismatch is not None
    assert (result.mismatch.tick, result.mismatch.field) == (4, "decisions")
    assert "runner1: bad decision" in str(result.mismatch.replayed)


def test_replay_takes_the_tick_of_a_decision_the_record_lacks_from_the_error(
    tmp_path: Path,
) -> None:
    lines = objects(GOLDEN)
    del lines[1 + 6]["seats"]["keeper"]
    result = asyncio.run(replay(write(tmp_path / "t.jsonl", lines)))
    assert result.mismatch is not None
    assert (result.mismatch.tick, result.mismatch.field) == (6, "decisions")
    assert result.mismatch.replayed == "tick 6: no decision recorded for keeper"


def test_replay_refuses_a_record_of_another_game_than_asked(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="a lighthouse record, not relayroam") as caught:
        asyncio.run(replay(GOLDEN, get_game("relayroam")))
    assert caught.value.line == 1
