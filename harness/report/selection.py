"""What a report says about the episodes it left out and why a run stopped early.

The report's ``selection`` (made by :func:`harness.tournament.selection.select`)
counts the finished episodes the folder holds beyond those the report counts, and
carries why the last run stopped (a cost cap, ``--limit``) and how it was narrowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _usd(value: Any) -> str:
    return f"${value:,.2f}" if isinstance(value, int | float) else "?"


def describe(selection: Mapping[str, Any] | None) -> list[str]:
    """The report's sentences on what it left out and why the folder stopped early."""
    if not selection:
        return []
    out = []
    stopped = selection.get("stopped")
    if isinstance(stopped, dict) and stopped.get("reason") == "cost_cap":
        out.append(
            f"**Stopped at the cost cap: {_usd(stopped.get('spentUsd'))} of "
            f"{_usd(stopped.get('capUsd'))}.** The folder is resumable: run the config again "
            "with a higher `--max-cost` (or `max_cost`) to play the rest."
        )
    elif isinstance(stopped, dict) and stopped.get("reason") == "limit":
        out.append(
            f"**Stopped after `--limit {stopped.get('limit')}` episodes.** Run the config "
            "again to play the rest."
        )
    narrowing = selection.get("narrowing")
    if isinstance(narrowing, dict) and narrowing.get("flags"):
        whole = narrowing.get("configEpisodes")
        of = f"; the whole config plans {whole:,} episodes" if isinstance(whole, int) else ""
        out.append(f"Narrowed run ({narrowing['flags']}){of}.")
    aside, superseded = selection.get("setAside", 0), selection.get("superseded", 0)
    if aside or superseded:
        parts = []
        if aside:
            parts.append(f"{aside} not planned now or not of their entrant's current spec")
        if superseded:
            parts.append(f"{superseded} of an earlier spec of their entrant, kept in superseded/")
        out.append("Left out of this report, though kept in the folder: " + "; ".join(parts) + ".")
    return out


__all__ = ["describe"]
