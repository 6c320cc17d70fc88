"""Relayroam's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from harness.games.relayroam.config import RelayroamConfig
from harness.games.relayroam.game import Episode, RelayroamRules
from harness.games.relayroam.record import RELAYROAM_RECORD, ActionModel, SeedModel, record_schema
from harness.protocol.codec import SeedBoardCodec


def _seed(episode: Episode) -> int:
    return episode.rules.seed


class RelayroamCodec(SeedBoardCodec[RelayroamConfig, Episode]):
    """Relayroam's lines in and out of records: the board is the seed. Stateless."""

    def __init__(self) -> None:
        super().__init__(
            record_adapter=RELAYROAM_RECORD,
            schema=record_schema,
            config_type=RelayroamConfig,
            seed_model=SeedModel,
            action_model=ActionModel,
            start=RelayroamRules().new_state,
            seed_of=_seed,
        )


__all__ = ["RelayroamCodec"]
