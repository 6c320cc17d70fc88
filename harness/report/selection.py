"""What a report says about the episodes it left out and why a run stopped early.

The report's ``selection`` (:class:`Selected`, made by
:func:`harness.results.selection.select`) counts the finished episodes the folder
holds beyond those the report counts, and carries why the last run stopped (a cost
cap, ``--limit``: :data:`Stopped`) and how it was narrowed (:class:`Narrowed`), as the
folder's manifest keeps them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from harness.models import StrictModel

# The fields of these three are in the order of their keys: the manifest keeps them
# sorted, and the report has always repeated them as the manifest holds them.


class CostCapStop(StrictModel):
    """The run stopped admitting episodes before the recorded cost could pass the cap."""

    cap_usd: float | None
    reason: Literal["cost_cap"]
    spent_usd: float = Field(description="The folder's recorded cost at the end.")


class LimitStop(StrictModel):
    """The run played the ``--limit`` it was given."""

    limit: int | None
    reason: Literal["limit"]


#: Why a run stopped before playing everything planned.
Stopped = Annotated[CostCapStop | LimitStop, Field(discriminator="reason")]


class Narrowed(StrictModel):
    """What the command line narrowed a run to (``--seeds``, ``--entrants``, ``--limit``)."""

    config_episodes: int | None = Field(description="The episodes the whole config plans.")
    entrants: list[str] | None
    flags: str = Field(description="The narrowing as command-line flags.")
    limit: int | None
    seeds: list[int] | None = Field(description="[start, stop): the config's seeds kept.")


class Selected(StrictModel):
    """What a folder holds beyond the episodes a report counts, and why it stopped."""

    set_aside: int = Field(description="Finished episodes not planned now, or of another spec.")
    superseded: int = Field(description="Episodes of an earlier spec, kept in superseded/.")
    stopped: Stopped | None
    narrowing: Narrowed | None


def _usd(value: float | None) -> str:
    return "?" if value is None else f"${value:,.2f}"


def describe(selection: Selected | None) -> list[str]:
    """The report's sentences on what it left out and why the folder stopped early."""
    if selection is None:
        return []
    out = []
    stopped = selection.stopped
    if isinstance(stopped, CostCapStop):
        out.append(
            f"**Stopped at the cost cap: {_usd(stopped.spent_usd)} of "
            f"{_usd(stopped.cap_usd)}.** The folder is resumable: run the config again "
            "with a higher `--max-cost` (or `max_cost`) to play the rest."
        )
    elif isinstance(stopped, LimitStop):
        out.append(
            f"**Stopped after `--limit {stopped.limit}` episodes.** Run the config "
            "again to play the rest."
        )
    narrowing = selection.narrowing
    if narrowing is not None and narrowing.flags:
        whole = narrowing.config_episodes
        of = f"; the whole config plans {whole:,} episodes" if whole is not None else ""
        out.append(f"Narrowed run ({narrowing.flags}){of}.")
    aside, superseded = selection.set_aside, selection.superseded
    if aside or superseded:
        parts = []
        if aside:
            parts.append(f"{aside} not planned now or not of their entrant's current spec")
        if superseded:
            parts.append(f"{superseded} of an earlier spec of their entrant, kept in superseded/")
        out.append("Left out of this report, though kept in the folder: " + "; ".join(parts) + ".")
    return out


__all__ = ["CostCapStop", "LimitStop", "Narrowed", "Selected", "Stopped", "describe"]
