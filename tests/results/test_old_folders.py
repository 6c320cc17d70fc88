"""Folders written by an earlier harness report and browse as they always did, byte for byte.

The folders (tests/golden/folders/) were written before manifests and reports had
models; their reports, plots and static sites (tests/golden/reports/) were made from
them by that harness. Reading them now must give the same bytes.
"""

from __future__ import annotations

import pytest

from tests.golden.reports import FOLDERS, SUFFIXES, golden_path, outputs


@pytest.mark.parametrize("name", FOLDERS)
def test_a_folder_written_before_reports_the_same_bytes(name: str) -> None:
    made = outputs(name)
    for suffix in SUFFIXES:
        kept = golden_path(name, suffix).read_bytes()
        assert made[suffix] == kept, f"{name}{suffix} differs: python -m tests.golden.update"
