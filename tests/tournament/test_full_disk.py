"""A write that finds no room stops the run with one line, and the run resumes.

Two ways to run out, both real: a small tmpfs mounted over the results folder (in a
private mount namespace, ``unshare --mount --map-root-user``, so no mount outlives the
test and no root is needed where user namespaces are allowed; the test is skipped
where they are not), which fills up as a disk does (ENOSPC, the worker processes'
writes included); and the file-size limit (``RLIMIT_FSIZE``, ``ulimit -f``), which
needs no privilege at all and fails the writes of one file with EFBIG. Either way
the run stops with one line naming the folder and what to do, exit status 2, no
traceback; run again with room, it finishes, every record replays clean, and the
report is byte for byte the report of a run that never stopped.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.in_process import lighthouse

CONFIG = """
name = "full"
seeds = { start = 0, stop = 15 }
variants = ["default", "spring"]
reference = "silent"
concurrency = 4
[rules]
maxTicks = 30
[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }
[[entrants]]
name = "silent"
keeper = { baseline = "silent" }
runners = { baseline = "wallhug" }
"""
LIGHTHOUSE = [sys.executable, "-m", "harness.cli"]


def run(*args: str, cwd: Path, fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        [*LIGHTHOUSE, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
        check=False, preexec_fn=limit,
    )  # fmt: skip


def report(folder: Path, cwd: Path) -> str:
    done = lighthouse("report", folder, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> str:
    where = tmp_path_factory.mktemp("whole")
    (where / "full.toml").write_text(CONFIG)
    # the reference report only: played in this process (worker processes write the
    # same records, tests/tournament/test_pool.py), it spares interpreters
    done = lighthouse("run", "full.toml", "--out", "res", "--no-report", "--workers", "0",
                      cwd=where)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return report(where / "res", where)


def assert_one_line_stop(done: subprocess.CompletedProcess[str], folder: str, why: str) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"lighthouse: error: {folder}: {why}")
    assert last.endswith(
        "then run the same command again: it goes on where it stopped, and nothing finished is lost"
    )
    return last


def assert_resumed(where: Path, folder: Path, uninterrupted: str) -> None:
    # with room again, nothing about the process is tested: the run resumes in this one
    done = lighthouse("run", "full.toml", "--out", folder, "--no-report", cwd=where)
    assert done.returncode == 0, done.stderr
    assert "60 in all" in done.stderr
    assert "0 already done" not in done.stderr
    replayed = lighthouse("replay", folder, cwd=where)
    assert replayed.returncode == 0, replayed.stdout
    assert "60 records: 60 clean, 0 not clean" in replayed.stdout
    assert report(folder, where) == uninterrupted


def test_the_file_size_limit_stops_the_run_in_one_line_and_it_resumes(
    tmp_path: Path, uninterrupted: str
) -> None:
    (tmp_path / "full.toml").write_text(CONFIG)
    # records are 30-65 KiB and episodes.jsonl 1.5 KiB a line: one of them reaches the
    # limit mid-write (the 60 lines would be 90 KiB), and the run stops part of the way
    done = run("run", "full.toml", "--out", "res", "--workers", "0", cwd=tmp_path,
               fsize=64 << 10)  # fmt: skip
    last = assert_one_line_stop(done, "res", "a file reached the size limit (ulimit -f)")
    assert "raise the limit" in last
    assert_resumed(tmp_path, tmp_path / "res", uninterrupted)


def _unshare() -> list[str] | None:
    """The command that runs a shell in a private mount namespace, or None."""
    tool = shutil.which("unshare")
    if tool is None or sys.platform != "linux":
        return None
    probe = subprocess.run(
        [tool, "--mount", "--map-root-user", "sh", "-c", "mount -t tmpfs none /mnt"],
        capture_output=True, check=False,
    )  # fmt: skip
    return [tool, "--mount", "--map-root-user"] if probe.returncode == 0 else None


def test_a_full_disk_stops_the_run_in_one_line_and_it_resumes(
    tmp_path: Path, uninterrupted: str
) -> None:
    unshare = _unshare()
    if unshare is None:
        pytest.skip("no private mount namespace here (unshare --mount --map-root-user)")
    (tmp_path / "full.toml").write_text(CONFIG)
    disk = tmp_path / "disk"
    disk.mkdir()
    command = " ".join(map(str, LIGHTHOUSE))
    script = f"""
        mount -t tmpfs -o size=1m tmpfs {disk}
        {command} run full.toml --out {disk}/res --no-report 2> {tmp_path}/first.err
        echo $? > {tmp_path}/first.rc
        cp -a {disk}/res {tmp_path}/stopped
        mount -o remount,size=64m {disk}
        {command} run full.toml --out {disk}/res --no-report 2> {tmp_path}/second.err
        echo $? > {tmp_path}/second.rc
        cp -a {disk}/res {tmp_path}/finished
    """
    subprocess.run([*unshare, "sh", "-c", script], cwd=tmp_path, check=True, timeout=600)
    first = subprocess.CompletedProcess(
        [], int((tmp_path / "first.rc").read_text()), "", (tmp_path / "first.err").read_text()
    )
    last = assert_one_line_stop(first, f"{disk}/res", "the disk is full")
    assert "free about " in last
    assert " MiB on the disk that holds it" in last
    # it stopped part of the way: what it wrote replays clean; a record whose results
    # line did not fit, or a last line cut short, is what a crash leaves (resume mends it)
    stopped = lighthouse("replay", tmp_path / "stopped", cwd=tmp_path)
    assert " 0 not clean" in stopped.stdout, stopped.stdout
    assert " 0 do not" in stopped.stdout, stopped.stdout
    assert "MISMATCH" not in stopped.stdout
    assert "UNREADABLE" not in stopped.stdout
    assert "60 records" not in stopped.stdout
    assert (tmp_path / "second.rc").read_text().strip() == "0", (
        tmp_path / "second.err"
    ).read_text()
    finished = tmp_path / "finished"
    replayed = lighthouse("replay", finished, cwd=tmp_path)
    assert "60 records: 60 clean, 0 not clean" in replayed.stdout
    assert report(finished, tmp_path) == uninterrupted
