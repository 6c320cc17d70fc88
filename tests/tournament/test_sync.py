"""Records are made durable in batches: one syncfs per commit where Linux has it, an
fsync of each record elsewhere, and always before they are renamed into place."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from harness.summary import EpisodeSummary
from harness.tournament import store
from harness.tournament.store import ResultsFolder, sync_files


def summary(n: int) -> EpisodeSummary:
    return EpisodeSummary.model_validate(
        {
            "episodeId": f"e--default--s{n}--r0", "entrant": "e", "seed": n,
            "variant": "default", "repetition": 0, "score": 1.0, "scores": [1.0],
            "reason": "complete", "metrics": {}, "fallbackFree": True, "seats": {},
        }
    )  # fmt: skip


def files(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"r{n}.jsonl" for n in range(count)]
    for path in paths:
        path.write_text("{}\n")
    return paths


def counted_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_a_batch_is_one_syncfs_where_there_is_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []

    def syncfs(fd: int) -> int:
        synced.append(fd)
        return 0

    monkeypatch.setattr(store, "_SYNCFS", syncfs)
    fsyncs = counted_fsyncs(monkeypatch)
    sync_files(files(tmp_path / "records", 5), tmp_path / "records")
    assert len(synced) == 1
    assert fsyncs == []


@pytest.mark.parametrize("syncfs", [None, lambda fd: -1], ids=["none", "failing"])
def test_without_a_working_syncfs_each_file_is_fsynced(
    syncfs: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "_SYNCFS", syncfs)
    fsyncs = counted_fsyncs(monkeypatch)
    sync_files(files(tmp_path / "records", 5), tmp_path / "records")
    assert len(fsyncs) == 5
    sync_files([], tmp_path / "records")
    assert len(fsyncs) == 5


def test_this_linux_has_syncfs() -> None:
    if os.uname().sysname != "Linux":
        pytest.skip("syncfs is Linux's")
    assert store._SYNCFS is not None


def test_settle_makes_the_partial_records_durable_before_it_renames_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = ResultsFolder(tmp_path / "out")
    batch = [summary(n) for n in range(3)]
    for s in batch:
        path = folder.partial_path(s.episode_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")
    seen: list[tuple[list[Path], list[bool]]] = []

    def sync(paths: list[Path], where: Path) -> None:
        seen.append((list(paths), [p.exists() for p in paths]))

    monkeypatch.setattr(store, "sync_files", sync)
    folder.settle(batch)
    assert len(seen) == 1  # one call for the batch
    paths, existed = seen[0]
    assert paths == [folder.partial_path(s.episode_id) for s in batch]
    assert all(existed)  # still at their partial paths: synced, then renamed
    assert all(folder.record_path(s.episode_id).exists() for s in batch)
    assert len(folder.episodes_path.read_text().splitlines()) == 3
