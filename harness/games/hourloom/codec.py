"""Hourloom's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from typing import Any

from harness.games.hourloom.game import Episode, HourloomRules
from harness.games.hourloom.record import HOURLOOM_RECORD, ActionModel, SeedModel, record_schema


class HourloomCodec:
    """Hourloom's lines in and out of records. Stateless."""

    record_adapter = HOURLOOM_RECORD

    def record_schema(self) -> dict[str, Any]:
        return record_schema()

    def config_model(self, state: Episode) -> Any:
        return state.config

    def board_model(self, state: Episode) -> SeedModel:
        return SeedModel(seed=state.rules.seed)

    def start_state(self, header: Any) -> Episode:
        return HourloomRules().new_state(header.config, header.board.seed)

    def decision_model(self, decision: Any) -> ActionModel:
        return ActionModel.model_validate(decision)

    def decision_from_json(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise TypeError(f"an action is a JSON object, not {data!r}")
        return dict(data)


__all__ = ["HourloomCodec"]
