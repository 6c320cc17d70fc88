"""Hourloom's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from harness.games.hourloom.game import HourloomRules
from harness.games.hourloom.record import HOURLOOM_RECORD, ActionModel, SeedModel, record_schema
from harness.protocol.codec import SeedBoardCodec


class HourloomCodec(SeedBoardCodec):
    """Hourloom's lines in and out of records: the board is the seed. Stateless."""

    def __init__(self) -> None:
        super().__init__(
            record_adapter=HOURLOOM_RECORD,
            seed_model=SeedModel,
            action_model=ActionModel,
            schema=record_schema,
            start=HourloomRules().new_state,
        )


__all__ = ["HourloomCodec"]
