"""Where a counterfactual goes: the working folder (or ``--out``), next to its record only
when asked, never into a results folder; one an older harness left there is named once
by ``replay DIR`` and the browser, and counted as no episode."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.browse.folder import read_folder
from harness.browse.index import index_page
from harness.cli import main
from tests.browse.conftest import make_folder

CONFIG = """
name = "cf"
seeds = [3, 4]
variants = ["default"]
rules = { maxTicks = 10 }

[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }
"""
RECORD = "lantern--default--s3--r0"


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_counterfactual_run_twice_goes_to_the_working_folder_and_leaves_replay_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    results = make_folder(tmp_path, CONFIG)
    record = results / "records" / f"{RECORD}.jsonl"
    before = names(results / "records")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for _ in range(2):
        code, out, _ = replay(capsys, str(record), "--until-tick", "3", "--keeper", "silent")
        assert code == 0
        assert f"record written to {RECORD}--from-t3.jsonl" in out
    assert names(work) == [f"{RECORD}--from-t3.jsonl"]
    assert names(results / "records") == before
    code, out, _ = replay(capsys, str(results))
    assert code == 0, out
    assert "2 records: 2 clean, 0 not clean" in out
    assert "counterfactual" not in out
    # --out names any other place
    code, _, _ = replay(
        capsys, str(record), "--until-tick", "2", "--keeper", "silent", "--out", "cf.jsonl"
    )
    assert code == 0
    assert (work / "cf.jsonl").is_file()


@pytest.mark.parametrize(
    ("flags", "told"),
    [
        (["--beside"], "--beside: "),
        (["--out", "RESULTS/records/cf.jsonl"], "--out: "),
        (["--out", "RESULTS/cf.jsonl"], "--out: "),
    ],
)
def test_a_counterfactual_is_never_written_into_a_results_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], told: str
) -> None:
    results = make_folder(tmp_path, CONFIG)
    record = results / "records" / f"{RECORD}.jsonl"
    before = names(results) + names(results / "records")
    given = [f.replace("RESULTS", str(results)) for f in flags]
    code, out, err = replay(capsys, str(record), "--until-tick", "3", "--keeper", "silent", *given)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert told in err
    assert f"is inside the results folder {results}" in err
    assert names(results) + names(results / "records") == before


def test_beside_writes_next_to_a_record_that_is_in_no_results_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    results = make_folder(tmp_path, CONFIG)
    loose = tmp_path / "loose"
    loose.mkdir()
    shutil.copy(results / "records" / f"{RECORD}.jsonl", loose)
    monkeypatch.chdir(tmp_path)
    code, _, _ = replay(
        capsys, str(loose / f"{RECORD}.jsonl"), "--until-tick", "3", "--keeper", "silent",
        "--beside",
    )  # fmt: skip
    assert code == 0
    assert names(loose) == [f"{RECORD}--from-t3.jsonl", f"{RECORD}.jsonl"]
    code, _, err = replay(capsys, str(results), "--beside")
    assert code == 2
    assert "--beside: goes with --until-tick" in err


def test_a_counterfactual_left_in_a_results_folder_is_named_once_and_counted_as_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    results = make_folder(tmp_path, CONFIG)
    monkeypatch.chdir(tmp_path)
    record = results / "records" / f"{RECORD}.jsonl"
    assert replay(capsys, str(record), "--until-tick", "3", "--keeper", "silent")[0] == 0
    stray = f"{RECORD}--from-t3.jsonl"
    shutil.move(tmp_path / stray, results / "records" / stray)  # as an older harness left it

    code, out, _ = replay(capsys, str(results))
    assert code == 0, out
    assert out.count("counterfactual of") == 1
    assert f"{stray}: a counterfactual of {RECORD} from tick 3" in out
    assert "2 records: 2 clean, 0 not clean, 1 counterfactual(s) left out" in out
    assert "no results line" not in out

    snapshot = read_folder(results)
    assert snapshot.in_progress == 0
    assert [row.episode_id for row in snapshot.rows] == [RECORD, "lantern--default--s4--r0"]
    assert len(snapshot.strays) == 1
    assert snapshot.strays[0].startswith(f"records/{stray}: a counterfactual of {RECORD}")
    page = index_page(snapshot)
    assert page.count("a counterfactual of") == 1
    assert 'id="strays"' in page
    assert 'id="in-progress"' not in page

    # a run resumes the folder as it is, and the report counts the two episodes
    capsys.readouterr()
    config = tmp_path / "results.toml"
    assert main(["run", str(config), "--out", str(results), "--no-report"]) == 0
    assert "0 episodes played, 2 already done, 2 in all" in capsys.readouterr().err
    assert (results / "records" / stray).is_file()
