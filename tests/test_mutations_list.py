"""The hand mutations of ``python -m tests.mutations`` still fit the tree.

A mutation whose text moved, or whose tests were renamed, would prove nothing when
run (pytest given a missing file runs no test, which once read as "killed").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mutations import MUTATIONS, Mutation, stale_reason


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_every_mutation_fits_the_tree(mutation: Mutation) -> None:
    assert stale_reason(mutation) is None


def test_a_renamed_test_file_is_named_as_stale(tmp_path: Path) -> None:
    (tmp_path / "code.py").write_text("x = 1\n", encoding="utf-8")
    moved = Mutation("m", "code.py", "x = 1", "x = 2", ("tests/gone.py",))
    assert stale_reason(moved, tmp_path) == "no such test file: tests/gone.py"
    twice = Mutation("m", "code.py", "x", "y", ())
    (tmp_path / "code.py").write_text("x = 1\nx = 2\n", encoding="utf-8")
    assert stale_reason(twice, tmp_path) == "its text occurs 2 times in code.py"
