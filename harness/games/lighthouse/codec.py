"""Lighthouse's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from typing import Any

from harness.games.lighthouse.record import (
    LIGHTHOUSE_RECORD,
    BoardModel,
    KeeperDecisionModel,
    RunnerDecisionModel,
    record_schema,
)
from harness.games.lighthouse.state import GameState, KeeperDecision, Move, RunnerDecision, new_game


def decision_from_model(model: Any) -> KeeperDecision | RunnerDecision:
    """The engine decision a record's decision model stands for."""
    if isinstance(model, KeeperDecisionModel):
        return KeeperDecision(model.transmit, model.message, model.notes)
    return RunnerDecision(Move(model.move), model.notes)


class LighthouseCodec:
    """Lighthouse's lines in and out of records. Stateless."""

    record_adapter = LIGHTHOUSE_RECORD

    def record_schema(self) -> dict[str, Any]:
        return record_schema()

    def config_model(self, state: GameState) -> Any:
        return state.config

    def board_model(self, state: GameState) -> BoardModel:
        return BoardModel.of(state.board)

    def start_state(self, header: Any) -> GameState:
        board: BoardModel = header.board
        return new_game(header.config, board.to_board())

    def decision_model(self, decision: Any) -> KeeperDecisionModel | RunnerDecisionModel:
        if isinstance(decision, KeeperDecision):
            return KeeperDecisionModel(
                transmit=decision.transmit, message=decision.message, notes=decision.notes
            )
        return RunnerDecisionModel(move=decision.move, notes=decision.notes)

    def decision_dumped(self, decision: Any) -> dict[str, Any]:
        """The dump of :meth:`decision_model` (keys in the model's order)."""
        if isinstance(decision, KeeperDecision):
            return {
                "transmit": decision.transmit,
                "message": decision.message,
                "notes": decision.notes,
            }
        move = decision.move  # a Move, unless someone built the decision from its text
        return {
            "move": move.value if type(move) is Move else Move(move).value,
            "notes": decision.notes,
        }

    def decision_from_json(self, data: Any) -> KeeperDecision | RunnerDecision:
        if not isinstance(data, dict):
            raise TypeError(f"a decision is a JSON object, not {data!r}")
        model: KeeperDecisionModel | RunnerDecisionModel
        if "move" in data:
            model = RunnerDecisionModel.model_validate({"notes": None, **data})
        else:
            model = KeeperDecisionModel.model_validate(
                {"transmit": None, "message": "", "notes": None, **data}
            )
        return decision_from_model(model)


__all__ = ["LighthouseCodec", "decision_from_model"]
