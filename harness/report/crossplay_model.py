"""The cross-play section of a report, as typed data (see :mod:`harness.report.crossplay`).

Rows are the members of the game's first seat group (Lighthouse: keepers), columns
the members of the second (runner teams). Every figure is a :class:`SeedInterval`
whose interval resamples *seeds*: each seed carries all its (seed, variant) cells of
every entrant of the matrix, so a seed's variants and its matrix cells move together.
How many cells and seeds the figures are over is said once, in :class:`Crossplay`.
"""

from __future__ import annotations

from pydantic import Field

from harness.models import StrictModel


class SeedInterval(StrictModel):
    """A figure with its 95% interval over seeds resampled; ``low`` and ``high`` are
    null with fewer than two seeds (one seed gives no interval)."""

    mean: float | None
    low: float | None
    high: float | None


class MatrixCell(StrictModel):
    """One combination: its entrant and mean score over the matrix's cells."""

    row: str
    column: str
    entrant: str
    score: SeedInterval


class PartnerRobustness(StrictModel):
    """A member scored over its partners: their mean, and the worst of them."""

    member: str
    mean: SeedInterval = Field(description="The mean over its partners' matrix cells.")
    worst_partner: str = Field(description="The partner with the lowest mean.")
    worst: SeedInterval = Field(
        description="The lowest partner's mean; the interval is of the minimum over "
        "partners, taken in every resample."
    )


class Effect(StrictModel):
    """A row's or column's main effect: its mean minus the grand mean."""

    member: str
    effect: SeedInterval


class InteractionCell(StrictModel):
    """A combination's interaction: its mean less the grand mean and both main effects."""

    row: str
    column: str
    interaction: SeedInterval


class InteractionTest(StrictModel):
    """Whether the matrix is more than its rows plus its columns."""

    method: str
    statistic: float = Field(description="The sum of the squared interactions.")
    p: float | None = Field(description="The test's p-value; null when untestable.")
    resamples: int
    share: SeedInterval = Field(
        description="The interaction's share of the between-cell sum of squares "
        "(keeper + runner + interaction)."
    )
    rms: SeedInterval = Field(description="The root mean square interaction, in points.")


class SelfPlayGap(StrictModel):
    """A member paired with itself (the same model) against it with the others."""

    row: str
    column: str
    self_play: SeedInterval
    cross_play: SeedInterval = Field(
        description="The mean of the other cells of its row and its column."
    )
    gap: SeedInterval = Field(description="self_play - cross_play.")


class Lead(StrictModel):
    """How far ``row`` is ahead of ``versus`` with each column, and how that changes."""

    row: str = Field(description="The leader: the row with the higher mean over partners.")
    versus: str
    by_column: dict[str, SeedInterval] = Field(description="row - versus, with each column.")
    changes: list[LeadChange] = Field(description="The lead's change between two columns.")


class LeadChange(StrictModel):
    """A lead with column ``to`` minus the lead with column ``start``."""

    start: str
    to: str
    change: SeedInterval


class Crossplay(StrictModel):
    """A cross-play design's matrix, partner-robust scores and two-way decomposition."""

    row_group: str
    column_group: str
    rows: list[str]
    columns: list[str]
    missing: list[str] = Field(description="Entrants of the matrix with no finished cell.")
    cells: int = Field(description="The (seed, variant) cells every entrant finished.")
    seeds: int = Field(description="The seeds those cells are of: the unit resampled.")
    all_cells: int = Field(description="The cells any entrant of the matrix finished.")
    method: str
    matrix: list[MatrixCell]
    by_row: list[PartnerRobustness]
    by_column: list[PartnerRobustness]
    grand: SeedInterval
    row_effects: list[Effect]
    column_effects: list[Effect]
    interactions: list[InteractionCell]
    interaction_test: InteractionTest | None
    leads: list[Lead] = Field(description="Every two rows: the leader's lead by column.")
    self_play: list[SelfPlayGap]


__all__ = [
    "Crossplay",
    "Effect",
    "InteractionCell",
    "InteractionTest",
    "Lead",
    "LeadChange",
    "MatrixCell",
    "PartnerRobustness",
    "SeedInterval",
    "SelfPlayGap",
]
