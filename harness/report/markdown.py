"""The Markdown of the report's sections: a table, and the warnings under one.

A module of its own, below every section's (faithfulness, cross-play, servers,
endpoints and the rest of the report), so that each writes its tables the one way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table of cells already written as text (each on one line)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def warning_lines(warnings: Iterable[tuple[str, str]], advice: str) -> list[str]:
    """``⚠ NAME: WARNING.`` for each of ``warnings`` (a name and its warning), then
    ``advice``, after a blank line; none without a warning."""
    lines = [f"⚠ {name}: {text}." for name, text in warnings]
    return ["", *lines, advice] if lines else []


__all__ = ["markdown_table", "warning_lines"]
