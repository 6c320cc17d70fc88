"""Where a folder's cross-play entrants sit in the matrix: read from its config as run.

The rows and columns are the design's members in the order the config first lists
their entrants (a member added later comes last). A row and a column are the same
model (self-play) when the design gives them the same name, or when the row is a
model seat and every seat of the column is the same provider and model.
"""

from __future__ import annotations

from harness.protocol import GameEntry
from harness.report.crossplay import CrossplayLayout
from harness.seat_spec import LLMSeatConfig
from harness.tournament.crossplay import CrossplayConfig
from harness.tournament.manifest import Manifest
from harness.tournament.seat_text import SeatSpecs


def _model_of(specs: SeatSpecs) -> set[tuple[str, str]] | None:
    """The (provider, model) of every seat, or None if any seat is not a model."""
    listed = specs if isinstance(specs, list) else [specs]
    if not all(isinstance(s, LLMSeatConfig) for s in listed):
        return None
    return {(s.provider, s.model) for s in listed if isinstance(s, LLMSeatConfig)}


def same_model(design: CrossplayConfig, keys: list[str], row: str, column: str) -> bool:
    """Whether ``row`` (of the first group) and ``column`` (of the second) are one model."""
    if row == column:
        return True
    first = _model_of(design.groups[keys[0]][row])
    second = _model_of(design.groups[keys[1]][column])
    return first is not None and first == second and len(first) == 1


def crossplay_layout(game: GameEntry, manifest: Manifest) -> CrossplayLayout | None:
    """The matrix of the folder's cross-play design; None when it has none (or the
    game has not exactly two seat groups, or the config cannot be read)."""
    config = manifest.tournament_config()
    if config is None or config.crossplay is None or len(game.seat_groups) != 2:
        return None
    design = config.crossplay
    keys = [g.key for g in game.seat_groups]
    made = dict(design.combinations(keys))
    position = {entrant.name: i for i, entrant in enumerate(config.entrants)}
    placed = sorted((position[n], n) for n in made if n in position)
    rows: list[str] = []
    columns: list[str] = []
    for _, name in placed:
        row, column = made[name][keys[0]], made[name][keys[1]]
        rows += [row] if row not in rows else []
        columns += [column] if column not in columns else []
    entrants = {(who[keys[0]], who[keys[1]]): name for name, who in made.items()}
    return CrossplayLayout(
        row_group=keys[0],
        column_group=keys[1],
        rows=tuple(rows),
        columns=tuple(columns),
        entrants=entrants,
        same_model=frozenset(
            (r, c) for r in rows for c in columns if same_model(design, keys, r, c)
        ),
    )


__all__ = ["crossplay_layout", "same_model"]
