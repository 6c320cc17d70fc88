"""Relayroam's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from harness.games.relayroam.game import RelayroamRules
from harness.games.relayroam.record import RELAYROAM_RECORD, ActionModel, SeedModel, record_schema
from harness.protocol.codec import SeedBoardCodec


class RelayroamCodec(SeedBoardCodec):
    """Relayroam's lines in and out of records: the board is the seed. Stateless."""

    def __init__(self) -> None:
        super().__init__(
            record_adapter=RELAYROAM_RECORD,
            seed_model=SeedModel,
            action_model=ActionModel,
            schema=record_schema,
            start=RelayroamRules().new_state,
        )


__all__ = ["RelayroamCodec"]
