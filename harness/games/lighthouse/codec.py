"""Lighthouse's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from pydantic import BaseModel, JsonValue

from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.game import Decision
from harness.games.lighthouse.record import (
    LIGHTHOUSE_RECORD,
    BoardModel,
    KeeperDecisionModel,
    RunnerDecisionModel,
    record_schema,
)
from harness.games.lighthouse.state import GameState, KeeperDecision, Move, RunnerDecision, new_game
from harness.models import JsonObject
from harness.protocol import AnyHeader, RecordCodec, expect
from harness.records import keys

# The keys of a decision's dump, bound once: every seat's turn of every tick writes them.
_K = keys(KeeperDecisionModel)
_TRANSMIT, _MESSAGE, _KEEPER_NOTES = _K.transmit, _K.message, _K.notes
_R = keys(RunnerDecisionModel)
_MOVE, _RUNNER_NOTES = _R.move, _R.notes


def decision_from_model(model: BaseModel) -> Decision:
    """The engine decision a record's decision model stands for."""
    if isinstance(model, KeeperDecisionModel):
        return KeeperDecision(model.transmit, model.message, model.notes)
    runner = expect(RunnerDecisionModel, model)
    return RunnerDecision(Move(runner.move), runner.notes)


class LighthouseCodec(RecordCodec[GameState, Decision]):
    """Lighthouse's lines in and out of records. Stateless."""

    record_adapter = LIGHTHOUSE_RECORD

    def record_schema(self) -> JsonObject:
        return record_schema()

    def board_model(self, state: GameState) -> BoardModel:
        return BoardModel.of(state.board)

    def start_state(self, header: AnyHeader) -> GameState:
        board = expect(BoardModel, header.board)
        return new_game(expect(LighthouseConfig, header.config), board.to_board())

    def decision_model(self, decision: Decision) -> KeeperDecisionModel | RunnerDecisionModel:
        if isinstance(decision, KeeperDecision):
            return KeeperDecisionModel(
                transmit=decision.transmit, message=decision.message, notes=decision.notes
            )
        return RunnerDecisionModel(move=decision.move, notes=decision.notes)

    def decision_dumped(self, decision: Decision) -> JsonObject:
        """The dump of :meth:`decision_model` (keys in the model's order)."""
        if isinstance(decision, KeeperDecision):
            return {
                _TRANSMIT: decision.transmit,
                _MESSAGE: decision.message,
                _KEEPER_NOTES: decision.notes,
            }
        move = decision.move  # a Move, unless someone built the decision from its text
        return {
            _MOVE: move.value if type(move) is Move else Move(move).value,
            _RUNNER_NOTES: decision.notes,
        }

    def decision_from_json(self, data: JsonValue) -> Decision:
        if not isinstance(data, dict):
            raise TypeError(f"a decision is a JSON object, not {data!r}")
        model: KeeperDecisionModel | RunnerDecisionModel
        if _MOVE in data:
            model = RunnerDecisionModel.model_validate({_RUNNER_NOTES: None, **data})
        else:
            model = KeeperDecisionModel.model_validate(
                {_TRANSMIT: None, _MESSAGE: "", _KEEPER_NOTES: None, **data}
            )
        return decision_from_model(model)


__all__ = ["LighthouseCodec", "decision_from_model"]
