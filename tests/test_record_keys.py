"""Every key of a record line is spelt once, by its model.

The runner writes lines from JSON objects it builds without their models, and results
lines and a game's figures read such objects back, for speed (tests/test_record_lines.py
holds the two forms to the models byte for byte). Those writers and readers name each
key through :func:`harness.records.keys`, never as a string of their own: a renamed
field then renames every use, and a misspelt one fails at import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import BaseModel

import harness.records as records
from harness.games.hourloom import record as hourloom
from harness.games.lighthouse import record as lighthouse
from harness.games.relayroam import record as relayroam
from harness.records import keys

ROOT = Path(__file__).resolve().parents[1]
#: The modules that build record lines as JSON objects, and those that read them. (A
#: model seat builds its call records through the model, so its agent details, a map
#: of free names that happen to share some, are not checked here.)
WRITERS = [
    "harness/episode.py",
    "harness/timing.py",
    "harness/games/lighthouse/game.py",
    "harness/games/lighthouse/codec.py",
]
READERS = [
    "harness/summary/from_record.py",
    "harness/summary/tally.py",
    "harness/replay.py",
    "harness/games/lighthouse/report.py",
    "harness/games/relayroam/report.py",
    "harness/games/hourloom/report.py",
]


def _models() -> list[type[BaseModel]]:
    found = []
    for module in (records, lighthouse, relayroam, hourloom):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel:
                found.append(value)
    return found


#: Every key a record line may hold, by any model of the envelope or of a game.
RECORD_KEYS = frozenset(
    alias for model in _models() for alias in vars(keys(model)).values() if alias != model.__name__
)


def _spelt_keys(path: str, *, literals: bool) -> list[tuple[int, str]]:
    """String constants ``path`` uses as a key: to index (``x["k"]``, ``x.get("k")``)
    and, with ``literals``, in a dict display (``{"k": ...}``)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        spelt: list[ast.expr] = []
        if isinstance(node, ast.Subscript):
            spelt = [node.slice]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "setdefault", "pop") and node.args:
                spelt = [node.args[0]]
        elif literals and isinstance(node, ast.Dict):
            spelt = [k for k in node.keys if k is not None]
        for expr in spelt:
            if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
                out.append((expr.lineno, expr.value))
    return out


def test_the_keys_are_every_models() -> None:
    assert {"rawLength", "wallClock", "episodeId", "waterLine", "pickedKey", "K"} <= RECORD_KEYS


@pytest.mark.parametrize("path", WRITERS)
def test_a_writer_spells_no_key_of_its_own(path: str) -> None:
    spelt = [(line, key) for line, key in _spelt_keys(path, literals=True) if key in RECORD_KEYS]
    assert not spelt, f"{path} spells record keys: {spelt}"


@pytest.mark.parametrize("path", READERS)
def test_a_reader_spells_no_key_of_its_own(path: str) -> None:
    spelt = [(line, key) for line, key in _spelt_keys(path, literals=False) if key in RECORD_KEYS]
    assert not spelt, f"{path} spells record keys: {spelt}"
