"""Lighthouse's seat I/O part: the text a seat reads, the schema and parser of its reply."""

from __future__ import annotations

from typing import Any

from harness.games.lighthouse.game import KEEPER
from harness.games.lighthouse.observe import KeeperObservation, render_keeper, render_runner
from harness.games.lighthouse.replies import parse_keeper_reply, parse_runner_reply
from harness.games.lighthouse.state import KeeperDecision, Move, RunnerDecision
from harness.json_reply import ParseFailure


class LighthouseSeatIO:
    """How Lighthouse's keeper and runners read and answer. Stateless."""

    def render_observation(self, observation: Any) -> str:
        if isinstance(observation, KeeperObservation):
            return render_keeper(observation)
        return render_runner(observation)

    def reply_schema(self, role: str) -> dict[str, Any]:
        # Strict structured-output modes want every property required and no others.
        if role == KEEPER:
            properties: dict[str, Any] = {
                "transmit": {"type": "boolean"},
                "message": {"type": "string"},
                "notes": {"type": "string"},
            }
        else:
            properties = {
                "move": {"type": "string", "enum": [m.value for m in Move]},
                "notes": {"type": "string"},
            }
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def parse_reply(
        self, observation: Any, text: str
    ) -> KeeperDecision | RunnerDecision | ParseFailure:
        # The caps travel in the observation, so parsing needs no other state.
        if isinstance(observation, KeeperObservation):
            return parse_keeper_reply(
                text, message_cap=observation.message_cap, notes_cap=observation.notes_cap
            )
        return parse_runner_reply(text, notes_cap=observation.notes_cap)

    def refuse(self, observation: Any, decision: Any) -> ParseFailure | None:
        return None  # every parsed Lighthouse decision is legal: a blocked move is a bump


__all__ = ["LighthouseSeatIO"]
