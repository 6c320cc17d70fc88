"""Results folders that hold what no run writes: only regular files inside are read.

A record that is a symlink to /dev/zero (which never ends), a FIFO (whose read would
block for ever), a device, or a symlink to a file outside the folder is named once and
skipped by every reader (report, replay, view, merge, resume); a results line longer
than the cap, and a record larger than its cap, are refused without being held. Each
command runs as a real subprocess under an address-space limit, so a reader that
slurped /dev/zero would die of it instead of passing.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.browse.folder import read_folder
from harness.errors import RecordError
from harness.files import (
    MAX_LINE_BYTES,
    bounded_lines,
    open_regular,
    read_regular,
    refusal,
    regular_files,
)
from harness.reader import open_record
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

CONFIG = """
name = "hostile-folder"
seeds = {{ start = 0, stop = {stop} }}
variants = ["default"]
reference = "silent"
[rules]
maxTicks = 12
[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
[[entrants]]
name = "silent"
keeper = {{ baseline = "silent" }}
runners = {{ baseline = "wallhug" }}
"""
#: A reader that held /dev/zero or a 2 GiB line would pass this; none may.
ADDRESS_SPACE = 1536 << 20


def play(where: Path, stop: int = 3, name: str = "res") -> Path:
    config = where / f"{name}.toml"
    config.write_text(CONFIG.format(stop=stop))
    out = where / name
    asyncio.run(run_tournament(load_tournament(config), out))
    return out


def lighthouse(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # in the child: its address space, not ours
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=240,  # a FIFO opened to read would hang here instead
        preexec_fn=limit,
    )


def plant(folder: Path, outside: Path) -> dict[str, str]:
    """Hostile entries in records/; the name of each, with what a reader says of it."""
    records = folder / "records"
    (records / "zero--default--s0--r0.jsonl").symlink_to("/dev/zero")
    os.mkfifo(records / "fifo--default--s0--r0.jsonl")
    os.mkfifo(records / "fifo--default--s1--r0.jsonl.partial")
    secret = outside / "elsewhere.jsonl"
    shutil.copyfile(next(records.glob("lantern--*.jsonl")), secret)
    (records / "outside--default--s0--r0.jsonl").symlink_to(secret)
    # a symlink to a record inside the folder is read like the record
    (records / "inside.jsonl").symlink_to("lantern--default--s0--r0.jsonl")
    return {
        "zero--default--s0--r0.jsonl": "a symlink out of the folder (to /dev/zero)",
        "fifo--default--s0--r0.jsonl": "a FIFO",
        "outside--default--s0--r0.jsonl": f"a symlink out of the folder (to {secret})",
    }


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    folder = play(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    return folder, plant(folder, outside)


def test_replay_names_each_hostile_record_once_and_replays_the_rest(
    hostile: tuple[Path, dict[str, str]],
) -> None:
    folder, planted = hostile
    done = lighthouse("replay", str(folder), cwd=folder.parent)
    assert done.returncode == 1, done.stderr  # not clean: there are records it cannot read
    assert "Traceback" not in done.stderr
    for name, why in planted.items():
        lines = [line for line in done.stdout.splitlines() if name in line]
        assert lines == [f"{folder}{os.sep}records/{name}: skipped: {why}"], done.stdout
    assert "7 records: 7 clean, 0 not clean, 3 not read" in done.stdout
    assert "6 results lines: 6 match their records, 0 do not" in done.stdout


def test_a_single_record_that_is_a_fifo_or_a_device_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    for name, why in (("fifo.jsonl", "a FIFO"), ("zero.jsonl", "a device")):
        done = lighthouse("replay", name, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr == f"lighthouse: error: {name}: not read: {why}\n"


def test_report_view_and_merge_read_past_them(
    hostile: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, planted = hostile
    before = lighthouse("report", str(folder), cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    assert "6 episodes" in before.stdout or "| lantern |" in before.stdout

    site = lighthouse("view", str(folder), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert site.returncode == 0, site.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    for name, why in planted.items():
        assert f"records/{name}: skipped: {why}" in index.replace("&#x27;", "'")
    assert "fifo--default--s1--r0.jsonl.partial: skipped: a FIFO" in index
    # the six finished, and the record linked from inside the folder (no results line)
    assert len(list((tmp_path / "site" / "episodes").glob("*.html"))) == 7

    merged = lighthouse("merge", str(folder), "--out", str(tmp_path / "merged"), cwd=tmp_path)
    assert merged.returncode == 0, merged.stderr
    copied = sorted(p.name for p in (tmp_path / "merged" / "records").iterdir())
    assert len(copied) == 6
    assert not set(copied) & set(planted)


def test_resume_plays_again_what_it_cannot_read_and_never_follows_it(
    hostile: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, _ = hostile
    records = folder / "records"
    # the lines of two finished episodes now point at a FIFO and out of the folder
    for episode, target in (
        ("lantern--default--s1--r0", None),
        ("silent--default--s2--r0", tmp_path / "outside" / "elsewhere.jsonl"),
    ):
        (records / f"{episode}.jsonl").unlink()
        if target is None:
            os.mkfifo(records / f"{episode}.jsonl")
        else:
            (records / f"{episode}.jsonl").symlink_to(target)
    outside = (tmp_path / "outside" / "elsewhere.jsonl").read_bytes()
    done = lighthouse("run", str(folder.parent / "res.toml"), "--out", str(folder),
                      "--no-report", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "its record is a FIFO); the episode is played again" in done.stderr
    assert "(its record is a symlink out of the folder" in done.stderr
    assert "2 episodes played, 4 already done" in done.stderr
    # both were played again, as regular files; the file outside was never touched
    for episode in ("lantern--default--s1--r0", "silent--default--s2--r0"):
        assert (records / f"{episode}.jsonl").is_file()
        assert not (records / f"{episode}.jsonl").is_symlink()
    assert (tmp_path / "outside" / "elsewhere.jsonl").read_bytes() == outside
    replay = lighthouse("replay", str(folder), cwd=tmp_path)
    assert "6 results lines: 6 match their records" in replay.stdout


def test_a_manifest_or_results_file_that_never_ends_stops_with_one_line(tmp_path: Path) -> None:
    folder = play(tmp_path, stop=1)
    (folder / "episodes.jsonl").unlink()
    (folder / "episodes.jsonl").symlink_to("/dev/zero")
    for args in (("report", str(folder)), ("replay", str(folder))):
        done = lighthouse(*args, cwd=tmp_path)
        assert done.returncode in (1, 2), done.stderr
        assert "Traceback" not in done.stderr
        assert "episodes.jsonl: not read: a symlink out of the folder (to /dev/zero)" in (
            done.stdout + done.stderr
        )
    (folder / "episodes.jsonl").unlink()
    (folder / "manifest.json").unlink()
    os.mkfifo(folder / "manifest.json")
    done = lighthouse("report", str(folder), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith("unreadable manifest: not read: a FIFO\n")


@pytest.mark.parametrize(
    "size",
    [
        pytest.param(4 * MAX_LINE_BYTES, id="4-MiB"),
        # past what a reader could hold: read at all, it would take the machine's memory
        pytest.param(2 << 30, id="2-GiB", marks=pytest.mark.slow),
    ],
)
def test_a_results_line_past_the_cap_is_read_past_not_held(tmp_path: Path, size: int) -> None:
    folder = play(tmp_path, stop=1)
    lines = (folder / "episodes.jsonl").read_bytes()
    # a line of zeros (sparse: no disk), then the real lines
    with (folder / "episodes.jsonl").open("wb") as out:
        out.truncate(size)
        out.seek(0, os.SEEK_END)
        out.write(b"\n" + lines)
    shown = read_folder(folder)
    assert f"{'episodes.jsonl'}:1: skipped: longer than {MAX_LINE_BYTES:,} bytes" in shown.notes
    assert len(shown.counted) == 2
    done = lighthouse("report", str(folder), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("lighthouse: error: ")
    assert f"episodes.jsonl:1: longer than {MAX_LINE_BYTES:,} bytes" in done.stderr


def test_the_browser_shows_a_folder_whatever_its_records_are(
    hostile: tuple[Path, dict[str, str]],
) -> None:
    folder, planted = hostile
    shown = read_folder(folder)
    for name, why in planted.items():
        assert f"records/{name}: skipped: {why}" in shown.notes
    statuses = {row.episode_id: row.status for row in shown.rows}
    assert len(statuses) == 7
    assert statuses.pop("inside") == "in progress"  # a record with no results line yet
    assert set(statuses.values()) == {"finished"}
    assert all(row.record is not None for row in shown.rows)


# --- the building blocks ---------------------------------------------------------------


def test_refusal_names_what_each_entry_is(tmp_path: Path) -> None:
    inside = tmp_path / "folder"
    (inside / "sub").mkdir(parents=True)
    (inside / "file").write_text("x")
    (inside / "link").symlink_to("file")
    (inside / "sub" / "up").symlink_to("../file")
    (inside / "out").symlink_to(tmp_path)
    (inside / "broken").symlink_to("nowhere")
    os.mkfifo(inside / "fifo")
    assert refusal(inside / "file", inside) is None
    assert refusal(inside / "link", inside) is None
    assert refusal(inside / "sub" / "up", inside) is None
    assert refusal(inside / "sub", inside) == "a folder"
    assert refusal(inside / "fifo", inside) == "a FIFO"
    assert refusal(inside / "broken", inside) == "a broken symlink (No such file or directory)"
    assert refusal(inside / "out", inside) == f"a symlink out of the folder (to {tmp_path})"
    assert refusal(inside / "missing", inside) == "missing"
    assert refusal(Path("/dev/zero")) == "a device"
    assert refusal(inside / "out") == "a folder"  # without a root, only its kind counts
    kept, notes = regular_files(inside, "*", inside)
    assert [p.name for p in kept] == ["file", "link"]
    assert notes == [
        "broken: skipped: a broken symlink (No such file or directory)",
        "fifo: skipped: a FIFO",
        f"out: skipped: a symlink out of the folder (to {tmp_path})",
        "sub: skipped: a folder",
    ]


def test_reads_are_bounded(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a" * 100)
    assert read_regular(path, limit=100) == b"a" * 100
    with pytest.raises(RecordError, match="100 bytes, over the 99 bytes"):
        read_regular(path, limit=99)
    path.write_bytes(b"short\n" + b"x" * 50 + b"\nend")
    with open_regular(path, limit=None) as handle:
        assert list(bounded_lines(handle, limit=10)) == [b"short\n", None, b"end"]
    with open_regular(path, limit=None) as handle:  # a line of exactly the limit is kept
        assert list(bounded_lines(handle, limit=50))[1] == b"x" * 50 + b"\n"


def test_a_record_larger_than_the_cap_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = play(tmp_path, stop=1)
    record = next((folder / "records").glob("*.jsonl"))
    monkeypatch.setattr("harness.reader.MAX_RECORD_BYTES", record.stat().st_size - 1)
    with pytest.raises(RecordError, match=r"not read: [0-9,]+ bytes, over the"):
        open_record(record)
    summaries, _ = ResultsFolder(folder).readable_summaries()
    assert len(summaries) == 2


def test_json_of_a_manifest_survives_the_bounded_reader(tmp_path: Path) -> None:
    folder = play(tmp_path, stop=1)
    kept = json.loads((folder / "manifest.json").read_text())
    assert json.loads(ResultsFolder(folder).manifest().to_json()) == kept
