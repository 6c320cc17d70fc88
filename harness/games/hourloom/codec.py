"""Hourloom's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from harness.games.hourloom.config import HourloomConfig
from harness.games.hourloom.game import Episode, HourloomRules
from harness.games.hourloom.record import HOURLOOM_RECORD, ActionModel, SeedModel, record_schema
from harness.protocol.codec import SeedBoardCodec


def _seed(episode: Episode) -> int:
    return episode.rules.seed


class HourloomCodec(SeedBoardCodec[HourloomConfig, Episode]):
    """Hourloom's lines in and out of records: the board is the seed. Stateless."""

    def __init__(self) -> None:
        super().__init__(
            record_adapter=HOURLOOM_RECORD,
            schema=record_schema,
            config_type=HourloomConfig,
            seed_model=SeedModel,
            action_model=ActionModel,
            start=HourloomRules().new_state,
            seed_of=_seed,
        )


__all__ = ["HourloomCodec"]
