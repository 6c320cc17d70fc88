"""The JSON every action answers with (decision H28).

Every response carries ok, state, observation, legalActions, score, gameOver and the
events of this action; a refusal adds its reason and has no events. A message says
in words what happened (or why not, with the legal actions), for a retry hint.
"""

from __future__ import annotations

from harness.games.hourloom.events import event_json
from harness.games.hourloom.observe import observation_json, observe
from harness.games.hourloom.rules import StepResult, legal_actions
from harness.games.hourloom.state import State, state_json
from harness.models import JsonObject


def result_json(result: StepResult) -> JsonObject:
    """``result`` as H28's response object."""
    out = _common(result.state)
    out["ok"] = result.ok
    out["events"] = [event_json(e) for e in result.events]
    out["message"] = result.message
    if result.reason is not None:
        out["reason"] = result.reason
    return out


def init_json(state: State) -> JsonObject:
    """The response that starts a run: ``state`` with nothing having happened yet."""
    out = _common(state)
    out["ok"] = True
    out["events"] = []
    out["message"] = f"run started: chamber {state.chamber.number}, lap 1, sand {state.sand}"
    return out


def _common(state: State) -> JsonObject:
    return {
        "state": state_json(state),
        "observation": observation_json(observe(state)),
        "legalActions": [{**action} for action in legal_actions(state)],
        "score": state.score,
        "gameOver": state.phase == "over",
    }


__all__ = ["init_json", "result_json"]
