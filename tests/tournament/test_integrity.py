"""Tamper-evident results: `lighthouse replay DIR` names every bad episode; resume repairs
what a clean record can vouch for and refuses the rest, changing nothing."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import RecordError
from harness.tournament.config import TournamentConfig, load_tournament
from harness.tournament.merge import merge_folders
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

EPISODES = 8


CONFIG_FILE = Path(__file__).with_name("integrity.toml")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[TournamentConfig, Path]:
    """One finished tournament, copied by each test that tampers with it."""
    base = tmp_path_factory.mktemp("integrity")
    config = load_tournament(CONFIG_FILE)
    asyncio.run(run_tournament(config, base / "out"))
    return config, base / "out"


@pytest.fixture
def folder(pristine: tuple[TournamentConfig, Path], tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(pristine[1], out)
    return out


@pytest.fixture
def config(pristine: tuple[TournamentConfig, Path]) -> TournamentConfig:
    return pristine[0]


def lines_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def write_lines(out: Path, lines: list[dict[str, Any]]) -> None:
    (out / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def record_of(out: Path, episode: str) -> Path:
    return out / "records" / f"{episode}.jsonl"


def end_results(out: Path, episode: str) -> dict[str, Any]:
    results: dict[str, Any] = json.loads(record_of(out, episode).read_text().splitlines()[-1])[
        "results"
    ]
    return results


def replay_dir(out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["replay", str(out)])
    return status, capsys.readouterr().out


def resume(config: TournamentConfig, out: Path) -> Any:
    return asyncio.run(run_tournament(config, out))


def snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_a_fresh_folder_verifies_and_every_line_holds_its_records_sha256(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for line in lines_of(folder):
        digest = hashlib.sha256(record_of(folder, line["episodeId"]).read_bytes()).hexdigest()
        assert line["recordSha256"] == digest
    status, out = replay_dir(folder, capsys)
    assert status == 0, out
    assert f"{EPISODES} records: {EPISODES} clean, 0 not clean" in out
    assert f"{EPISODES} results lines: {EPISODES} match their records, 0 do not" in out


def test_an_edited_score_is_named_by_replay_and_written_again_on_resume(
    folder: Path, config: TournamentConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = lines_of(folder)
    victim = lines[2]["episodeId"]
    true_score = lines[2]["score"]
    lines[2]["score"] = true_score + 10
    write_lines(folder, lines)

    status, out = replay_dir(folder, capsys)
    assert status == 1
    assert (
        f"episodes.jsonl:3 ({victim}): score: the line says {true_score + 10}, "
        f"its record gives {true_score}"
    ) in out
    assert f"{EPISODES} results lines: {EPISODES - 1} match their records, 1 do not" in out
    assert f"{EPISODES} records: {EPISODES} clean" in out  # the records themselves are fine

    again = resume(config, folder)
    assert (again.played, again.already_done) == (0, EPISODES)
    assert len(again.notes) == 1
    assert again.notes[0].startswith(f"{victim}: its results line did not match its record")
    summaries = ResultsFolder(folder).summaries()
    assert sorted(s.episode_id for s in summaries) == sorted(x["episodeId"] for x in lines)
    assert next(s for s in summaries if s.episode_id == victim).score == true_score
    assert replay_dir(folder, capsys)[0] == 0


def test_a_deleted_end_line_is_incomplete_and_resume_refuses_changing_nothing(
    folder: Path, config: TournamentConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = lines_of(folder)[4]["episodeId"]
    record = record_of(folder, victim)
    record.write_text("".join(x + "\n" for x in record.read_text().splitlines()[:-1]))

    status, out = replay_dir(folder, capsys)
    assert status == 1
    assert f"{record}: INCOMPLETE: this record has no end line" in out
    assert f"{record}: MISMATCH" not in out
    assert f"({victim}): its record cannot be used: {record}: this record has no end line" in out
    assert f"{EPISODES} records: {EPISODES - 1} clean, 1 not clean" in out

    before = snapshot(folder)
    with pytest.raises(RecordError) as info:
        resume(config, folder)
    message = str(info.value)
    assert "cannot resume: 1 record(s) cannot be trusted" in message
    assert f"{victim}: {record}: this record has no end line" in message
    assert "\n" not in message
    after = snapshot(folder)
    after.pop(".lock")
    before.pop(".lock")
    assert after == before  # nothing changed

    capsys.readouterr()
    assert main(["run", str(CONFIG_FILE), "--out", str(folder), "--no-report"]) == 2
    err = capsys.readouterr().err
    assert err.count("lighthouse: error:") == 1
    assert "cannot resume: 1 record(s) cannot be trusted" in err


def test_swapped_records_are_both_named_and_resume_refuses(
    folder: Path, config: TournamentConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = lines_of(folder)
    a, b = lines[0]["episodeId"], lines[5]["episodeId"]
    ra, rb = record_of(folder, a), record_of(folder, b)
    data_a, data_b = ra.read_bytes(), rb.read_bytes()
    ra.write_bytes(data_b)
    rb.write_bytes(data_a)

    status, out = replay_dir(folder, capsys)
    assert status == 1
    assert (
        f"episodes.jsonl:1 ({a}): its record cannot be used: {ra}: this record is of episode {b!r}, not {a!r}"
        in out
    )
    assert (
        f"episodes.jsonl:6 ({b}): its record cannot be used: {rb}: this record is of episode {a!r}, not {b!r}"
        in out
    )

    with pytest.raises(RecordError, match="2 record\\(s\\) cannot be trusted") as info:
        resume(config, folder)
    assert a in str(info.value)
    assert b in str(info.value)
    assert ra.read_bytes() == data_b  # left as found


def test_a_record_changed_where_it_still_replays_clean_gets_its_line_written_again(
    folder: Path, config: TournamentConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    # The wall-clock part of the end line is not checked by replay: the record still
    # replays clean, but its bytes (and so its sha256) are no longer those of the line.
    victim = lines_of(folder)[1]["episodeId"]
    record = record_of(folder, victim)
    rows = [json.loads(x) for x in record.read_text().splitlines()]
    rows[-1]["wallClock"]["finishedAt"] = "1999-01-01T00:00:00+00:00"
    record.write_text("".join(json.dumps(x) + "\n" for x in rows))

    status, out = replay_dir(folder, capsys)
    assert status == 1
    assert f"episodes.jsonl:2 ({victim}): its record changed since the line was written" in out

    again = resume(config, folder)
    assert again.played == 0
    assert [n.split(":")[0] for n in again.notes] == [victim]
    new_line = next(x for x in lines_of(folder) if x["episodeId"] == victim)
    assert new_line["recordSha256"] == hashlib.sha256(record.read_bytes()).hexdigest()
    assert replay_dir(folder, capsys)[0] == 0


def test_a_record_without_its_line_whose_results_were_edited_is_refused(
    folder: Path, config: TournamentConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    # A crash between the record's rename and its line leaves a record without a line;
    # resume writes the line from the record only if the record replays clean.
    lines = lines_of(folder)
    victim = lines.pop(3)["episodeId"]
    write_lines(folder, lines)
    record = record_of(folder, victim)
    rows = [json.loads(x) for x in record.read_text().splitlines()]
    rows[-1]["results"]["teamScore"] += 5
    record.write_text("".join(json.dumps(x) + "\n" for x in rows))

    status, out = replay_dir(folder, capsys)
    assert status == 1
    assert f"{record}: MISMATCH at results: results.teamScore" in out
    assert f"{record}: no results line" in out

    with pytest.raises(RecordError, match=f"{victim}: {record}: it does not replay clean"):
        resume(config, folder)
    assert len(lines_of(folder)) == EPISODES - 1


def test_a_record_without_its_line_that_replays_clean_is_summarised(
    folder: Path, config: TournamentConfig
) -> None:
    lines = lines_of(folder)
    victim = lines.pop(3)
    write_lines(folder, lines)
    again = resume(config, folder)
    assert (again.played, again.notes) == (0, [])
    assert lines_of(folder)[-1] == victim


def test_a_duplicated_line_is_named_and_dropped(
    folder: Path, config: TournamentConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = lines_of(folder)
    write_lines(folder, [*lines, lines[0]])
    status, out = replay_dir(folder, capsys)
    assert status == 1
    assert (
        f"episodes.jsonl:{EPISODES + 1} ({lines[0]['episodeId']}): a second line for it (the first: line 1)"
        in out
    )
    again = resume(config, folder)
    assert again.played == 0
    assert again.notes == [
        f"episodes.jsonl:{EPISODES + 1} ({lines[0]['episodeId']}): a second line for it "
        "(the first: line 1): dropped"
    ]
    assert lines_of(folder) == lines


def test_lines_written_before_hashes_are_accepted_and_hashed_on_resume(
    folder: Path, config: TournamentConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = lines_of(folder)
    for line in lines:
        del line["recordSha256"]
    write_lines(folder, lines)

    status, out = replay_dir(folder, capsys)
    assert status == 0, out
    assert f"note: {EPISODES} results line(s) carry no record sha256" in out

    again = resume(config, folder)
    assert again.played == 0
    assert again.notes == [
        f"{EPISODES} results line(s) written before lines carried their record's sha256 "
        "match their records; they were written again with it"
    ]
    for line in lines_of(folder):
        digest = hashlib.sha256(record_of(folder, line["episodeId"]).read_bytes()).hexdigest()
        assert line["recordSha256"] == digest


def test_an_old_line_with_an_edited_score_is_still_caught(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = lines_of(folder)
    del lines[0]["recordSha256"]
    lines[0]["scores"][1] = -1.0
    write_lines(folder, lines)
    status, out = replay_dir(folder, capsys)
    assert status == 1
    assert f"episodes.jsonl:1 ({lines[0]['episodeId']}): scores.1: the line says -1.0" in out


def test_merge_refuses_a_shard_with_an_edited_line(
    folder: Path, tmp_path: Path, pristine: tuple[TournamentConfig, Path]
) -> None:
    lines = lines_of(folder)
    lines[0]["reason"] = "complete" if lines[0]["reason"] != "complete" else "timeup"
    write_lines(folder, lines)
    with pytest.raises(RecordError, match="1 results line\\(s\\) do not match their records"):
        merge_folders([folder], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()
    assert merge_folders([pristine[1]], tmp_path / "clean") == EPISODES
    assert lines_of(tmp_path / "clean") == lines_of(pristine[1])
