"""Hourloom's seat I/O part: the text a player reads, the schema and parser of its reply.

A model replies with one action in the rules' grammar, as strict JSON (optionally in
one fence): ``{"type": "MOVE", "dir": "N"}``, ``{"type": "WAIT"}``, ``{"type":
"DESCEND"}`` or ``{"type": "END_RUN"}``. Text that is not one JSON object is a
:class:`ParseFailure`; a well-formed object goes to the rules as it stands, and a
refusal (H27: a wall, a shut gate, an unknown type, ...) comes back as the one retry
hint with its reason, message and the legal actions (H34).
"""

from __future__ import annotations

from harness.games.hourloom.grid import DIRECTIONS
from harness.games.hourloom.observe import PROMPT_LAYOUT, observe, prompt_text
from harness.games.hourloom.rules import ACTION_TYPES, step
from harness.games.hourloom.state import State
from harness.json_reply import ParseFailure
from harness.models import JsonObject
from harness.protocol.seat_io import JsonActionSeatIO, parse_json_action, refusal

#: What a reply looks like, quoted in every failure message.
ACTION_SHAPE = (
    '{"type":"MOVE","dir":"N"} (or "E", "S", "W"), {"type":"WAIT"}, {"type":"DESCEND"} '
    'or {"type":"END_RUN"}'
)


def parse_action(text: str) -> JsonObject | ParseFailure:
    """The JSON object ``text`` holds, or a :class:`ParseFailure` saying why there is none."""
    return parse_json_action(text, ACTION_SHAPE)


class HourloomSeatIO(JsonActionSeatIO[State]):
    """How Hourloom's player reads and answers. Stateless; its observation is the
    rules' whole state (nothing is hidden, H29)."""

    prompt_layout = PROMPT_LAYOUT
    action_shape = ACTION_SHAPE

    def render_observation(self, observation: State) -> str:
        return prompt_text(observation)

    def render_observation_as(self, observation: State, layout: int) -> str:
        return prompt_text(observation) if layout >= PROMPT_LAYOUT else observe(observation).text

    def reply_schema(self, role: str) -> JsonObject:
        return {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": list(ACTION_TYPES)},
                "dir": {"type": "string", "enum": list(DIRECTIONS)},
            },
            "required": ["type"],
            "additionalProperties": False,
        }

    def refuse(self, observation: State, decision: JsonObject) -> ParseFailure | None:
        result = step(observation, decision)
        if result.ok:
            return None
        return refusal(str(result.reason), result.message)


__all__ = ["ACTION_SHAPE", "HourloomSeatIO", "parse_action"]
