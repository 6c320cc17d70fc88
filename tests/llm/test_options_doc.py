"""docs/llm.md's table of seat options names every option the seat model has, and says
for each option only some providers take exactly the kinds the seat's check allows."""

from __future__ import annotations

import re
from pathlib import Path

from harness.llm.options import PROVIDER_ONLY, LLMSettings

DOC = Path(__file__).resolve().parents[2] / "docs/llm.md"
ALL_KINDS = {"openai", "anthropic", "inspect", "scripted"}


def options_table() -> dict[str, list[str]]:
    """The table under "## Options": option name -> its row's cells."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("\n## Options\n") :]
    section = section[: section.index("\n## ", 1)]
    rows = {}
    for line in section.splitlines():
        found = re.match(r"\| `(\w+)`", line)
        if found:
            rows[found.group(1)] = [cell.strip() for cell in line.strip("|").split(" | ")]
    return rows


def test_every_seat_option_has_a_row_and_every_row_is_an_option() -> None:
    rows = options_table()
    assert set(rows) == set(LLMSettings.model_fields)
    for name, cells in rows.items():
        assert len(cells) == 4, name  # option, meaning, providers, cost
        assert all(cells), name


def test_the_providers_column_matches_the_check() -> None:
    rows = options_table()
    for name, kinds in PROVIDER_ONLY.items():
        named = set(re.findall(r"`(\w+)`", rows[name][2]))
        assert named == kinds, name
    for name in set(rows) - set(PROVIDER_ONLY):
        # every kind takes it: the column says "all", or which kinds ignore it
        cell = rows[name][2]
        assert cell.startswith("all") or "ignores" in cell, name
        assert set(re.findall(r"`(\w+)`", cell)) <= ALL_KINDS, name
